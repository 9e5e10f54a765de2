"""The span tree behind the waterfall, without a browser: tree order, latency order,
self time against total time, the critical path, and the rows the waterfall is sent
(test_browser.py drives the drawing: picks, scrolling, the fitted axis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.model import Event, Trace
from workbench.notebook import TraceView
from workbench.notebook._source import TraceSource
from workbench.notebook._timeline import Timeline
from workbench.notebook._tree import SpanTree

from .conftest import ARCHIVE_P18, LIST_PROJECTS, TRACE, synthetic

S = 1_000_000_000


def _trace() -> Trace:
    """root 0–100 s: a (0–10), b (5–60) holding b1 (5–20) and b2 (30–58), c (70–75);
    the root's end waited on c, then on b (ended before c started; a did not end before
    b started); b's end on b2, then b1 (ended before b2 started)."""
    spans = [("root", None, 0, 100), ("a", "root", 0, 10), ("b", "root", 5, 60),
             ("b1", "b", 5, 20), ("b2", "b", 30, 58), ("c", "root", 70, 75)]
    return Trace.from_events([
        Event("t", eid, parent, n, "tool_call" if parent else "agent", eid, lo * S, hi * S,
              "ok") for n, (eid, parent, lo, hi) in enumerate(spans)])


def _tree(trace: Trace) -> tuple[SpanTree, list[str]]:
    view = TraceView(trace)
    return view.tree, view.timeline.event_ids


def test_self_time_is_the_time_no_child_covers():
    tree, ids = _tree(_trace())
    own = dict(zip(ids, tree.self_time().tolist(), strict=True))
    # root: 100 s less the union of a, b, c (0–60 and 70–75: 65 s); b: 55 less 15 + 28
    assert own == pytest.approx({"root": 35.0, "a": 10.0, "b": 12.0, "b1": 15.0, "b2": 28.0,
                                 "c": 5.0})
    assert dict(zip(ids, tree.duration.tolist(), strict=True))["b"] == pytest.approx(55.0)


def test_the_critical_path_follows_what_the_end_waited_on():
    tree, ids = _tree(_trace())
    assert sorted(ids[k] for k in tree.critical_path(ids.index("root"))) == [
        "b", "b1", "b2", "c", "root"]
    assert sorted(ids[k] for k in tree.critical_path(ids.index("b"))) == ["b", "b1", "b2"]
    assert tree.critical_path(ids.index("a")) == [ids.index("a")]


def test_rows_in_tree_order_or_slowest_first():
    tree, ids = _tree(_trace())
    assert [ids[k] for k in tree.order("start")] == ["root", "a", "b", "b1", "b2", "c"]
    assert [ids[k] for k in tree.order("latency")] == ["root", "b", "b2", "b1", "a", "c"]


def test_a_parent_cycle_does_not_hang_the_tree():
    events = [Event("t", "x", "y", 0, "agent", "x", 0, S, "ok"),
              Event("t", "y", "x", 1, "agent", "y", 0, S, "ok")]
    tree, ids = _tree(Trace.from_events(events))
    assert sorted(ids[k] for k in tree.order()) == ["x", "y"]


def test_the_waterfall_gets_the_page_with_times_and_marks(store):
    view = TraceView(store, TRACE)
    rows = view.waterfall.rows
    assert len(rows) == 14 and rows[0]["depth"] == 0 and rows[0]["kids"] > 0
    assert [r["id"] for r in rows] == [o[1] for o in view.table.options]
    for r in rows:
        assert r["self"] <= r["total"] + 1e-9 and r["start"] <= r["end"]
    # the whole trace's critical path is marked, root included
    assert rows[0]["crit"] and view.critical_path[0] == rows[0]["id"]
    assert {r["id"] for r in rows if r["crit"]} == set(view.critical_path)
    # a pick in the waterfall (what a click sends) selects; a selection is sent back
    view.waterfall.selected = LIST_PROJECTS
    assert view.selected == LIST_PROJECTS and "list_projects" in view.detail_text
    view.select(ARCHIVE_P18)
    assert view.waterfall.selected == ARCHIVE_P18
    view.highlight([ARCHIVE_P18], note="x")
    assert [r["id"] for r in view.waterfall.rows if r["hl"]] == [ARCHIVE_P18]
    # the twisty's message folds a parent; the row says how many it holds
    view.waterfall._handle_custom_msg({"toggle": rows[0]["id"]}, [])
    assert view.collapsed == [rows[0]["id"]]
    assert len(view.waterfall.rows) == 1 and view.waterfall.rows[0]["folded"]
    # the critical path of one subtree
    view.collapsed = []
    view.critical = rows[1]["id"]
    assert view.critical_path[0] == rows[1]["id"]


def test_latency_order_lists_the_slowest_sibling_first():
    view = TraceView(_trace())
    view.order = "latency"
    assert [r["id"] for r in view.waterfall.rows] == ["root", "b", "b2", "b1", "a", "c"]
    assert [o[1] for o in view.table.options] == ["root", "b", "b2", "b1", "a", "c"]


def test_100k_events_send_one_page():
    view = TraceView(synthetic(100_000))
    assert len(view.waterfall.rows) == 200
    view.select("e54321")
    ids = [r["id"] for r in view.waterfall.rows]
    assert "e54321" in ids and view.waterfall.selected == "e54321"
    assert np.all(np.diff([r["seq"] for r in view.waterfall.rows]) > 0)


def test_search_finds_names_arguments_results_and_attribute_values(store):
    view = TraceView(store, TRACE)
    found = view.search("ARCHIVE_project")          # a name, case ignored (and the
    assert [m.seq for m in found if m.where == "name"] == [7, 8, 9]   # model calls
    assert all(m.where == "args" for m in found if m.seq < 7)          # offering the tool)
    assert view.selected == found[0].event_id        # the waterfall moved to the first
    assert view.search_bar.label.value == f"{len(found)} match(es)"
    view.search_bar.results.value = next(n for n, m in enumerate(found) if m.seq == 8)
    assert view.selected == ARCHIVE_P18              # a pick in the list
    p18 = [(m.seq, m.where) for m in view.search("p18")]   # listed at 2, archived at 8
    assert p18[0] == (2, "result") and (8, "args") in p18
    assert view.search("team-b") and all(m.where in ("args", "result", "attrs")
                                         for m in view.search("team-b"))
    assert view.search("no such text anywhere") == [] and view.search_bar.total == 0
    assert view.search_bar.results.layout.display == "none"


def test_a_redaction_token_is_searched_as_a_token(store):
    import re
    view = TraceView(store, TRACE)
    rows = store.sql("SELECT seq, CAST(args AS VARCHAR) || CAST(result AS VARCHAR) AS t "
                     "FROM events WHERE trace_id = ?", [TRACE]).to_pylist()
    token_re = re.compile(r"«[a-z-]+(?::[a-z0-9-]+)?:[0-9a-f]+»")
    tokens = {m for r in rows for m in token_re.findall(r["t"] or "")}
    assert tokens, "the incident's stored trace holds redaction tokens"
    token = sorted(tokens)[0]
    holding = sorted(r["seq"] for r in rows if token in (r["t"] or ""))
    assert [m.seq for m in view.search(token)] == holding
    # a trace in memory answers the same
    mem = TraceView(store.trace(TRACE))
    assert [m.seq for m in mem.search(token)] == holding
    found = view.search("ARCHIVE_project")
    assert [m.seq for m in mem.search("ARCHIVE_project")] == [m.seq for m in found]


def test_the_detail_pane_groups_every_attribute_and_names_the_findings(store):
    from workbench.notebook import RuleView

    from .conftest import RULES
    view = TraceView(store, TRACE)
    event = store.trace(TRACE)[LIST_PROJECTS]
    view.select(LIST_PROJECTS)
    html = view.detail.value
    shown = [g for g in ("GenAI", "HTTP", "resource", "other") if f"attributes · {g}" in html]
    assert shown and all(k in html for k in event.attrs)     # every stored attribute
    llm = next(e for e in store.trace(TRACE).events if e.kind == "llm_call")
    view.select(llm.event_id)
    assert "attributes · GenAI" in view.detail.value
    assert any(k.startswith("gen_ai.") for k in llm.attrs)
    assert "findings naming it" not in view.detail.value
    rules = RuleView(store, TRACE, rules=RULES, trace_view=view)
    rules.run()
    view.select(ARCHIVE_P18)
    assert "findings naming it" in view.detail.value
    text = view.detail_text
    assert "archive-owned-only: archive_project p18 at step 8" in text
    assert "approval-before-archive" in text


def _hidden_by_walking(parent: list[int], collapsed: set[int]) -> list[bool]:
    out = []
    for k in range(len(parent)):
        j, seen, hid = parent[k], set(), False
        while j >= 0 and j not in seen and not hid:
            seen.add(j)
            hid = j in collapsed
            j = parent[j]
        out.append(hid)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=80).flatmap(
    lambda picks: st.tuples(st.just(picks), st.sets(st.integers(0, len(picks) - 1)))))
def test_folding_hides_exactly_the_descendants_of_a_folded_event(case):
    """Any forest (each event's parent an earlier one, or none) and any set folded: an
    event is hidden when one of its ancestors is folded, as walking up finds."""
    picks, folded = case
    parent = [-1 if k == 0 or p % 5 == 0 else p % k for k, p in enumerate(picks)]
    events = [Event("t", f"e{k}", f"e{parent[k]}" if parent[k] >= 0 else None, k,
                    "tool_call", "x", k, k + 1, "ok") for k in range(len(parent))]
    tl = Timeline(TraceSource.of(Trace.from_events(events)).table)
    collapsed = {tl.position[f"e{k}"] for k in folded}
    assert list(tl.hidden(collapsed)) == _hidden_by_walking(list(tl.parent), collapsed)
