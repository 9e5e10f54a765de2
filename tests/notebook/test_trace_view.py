"""TraceView without a browser: selection, data-flow sentences, highlights, windows,
clicks as the browser reports them, and bounded charts for big traces."""

from __future__ import annotations

import itertools
import json

import pytest

from workbench.model import NotFoundError, UsageError
from workbench.notebook import TraceView

from .conftest import ARCHIVE_P18, LIST_PROJECTS, TRACE, synthetic


def _data(spec: dict) -> list[dict]:
    """The one dataset of an event-mode spec."""
    (rows,) = spec["datasets"].values()
    return rows


def _rows(spec: dict) -> int:
    """Data rows the browser is handed (every dataset of the spec)."""
    return sum(len(v) for v in spec.get("datasets", {}).values())


def test_the_incident_is_drawn_event_by_event_on_its_clock(store):
    view = TraceView(store, "4bf92f35")
    assert view.source.trace_id == TRACE
    assert (view.frame.mode, view.axis, view.window, view.frame.events) == (
        "events", "time", (0, 13), 14)
    spec = view.chart_spec()
    assert _rows(spec) == 14
    assert spec["encoding"]["x"]["field"] == "start"
    assert spec["params"][0]["name"] == "pick"
    assert len(view.table.options) == 14
    assert "14 events, 9.40s" in view.header.value


def test_selecting_an_event_shows_its_data_flow_in_words(store):
    view = TraceView(store, TRACE)
    view.select(ARCHIVE_P18)
    text = view.detail_text
    assert "step 8 · tool_call archive_project · ok" in text
    assert "p18 (args.project_id) came from list_projects at step 2 (result.items[1].id)" in text
    assert "inside ops-agent at step 0" in text
    assert view.table.value == ARCHIVE_P18
    sel = _data(view.chart_spec())
    assert [r["event_id"] for r in sel if r["sel"]] == [ARCHIVE_P18]
    # the source and the parent are links: buttons that select them
    links = [b.description for b in view.flow_bar.children]
    assert links == ["args.project_id ← list_projects · step 2 (result.items[1].id)",
                     "inside ops-agent · step 0"]
    view.flow_bar.children[0].click()
    assert view.selected == LIST_PROJECTS and "step 2 · tool_call list_projects" in \
        view.detail_text
    assert [b.description for b in view.flow_bar.children] == ["inside ops-agent · step 0"]
    view.flow_bar.children[0].click()
    assert view.selected == "0000000000000001" and view.flow_bar.children == ()


def test_the_table_selects_like_a_click_on_a_row(store):
    view = TraceView(store, TRACE)
    view.table.value = LIST_PROJECTS
    assert view.selected == LIST_PROJECTS
    assert "list_projects" in view.detail_text and '"owner": "team-a"' in view.detail_text


def test_a_click_on_a_bar_in_the_browser_selects_the_event(store):
    view = TraceView(store, TRACE)
    # what the browser side of JupyterChart writes back after a click on a bar
    view.chart._vl_selections = {"pick": {
        "value": {"vlPoint": {"or": [{"event_id": ARCHIVE_P18}]}, "event_id": [ARCHIVE_P18]},
        "store": []}}
    assert view.selected == ARCHIVE_P18


def test_highlight_marks_events_and_says_why(store):
    view = TraceView(store, TRACE)
    view.highlight([ARCHIVE_P18, LIST_PROJECTS, "no-such-event"], note="approval-before-archive")
    assert view.highlighted == [ARCHIVE_P18, LIST_PROJECTS]
    assert view.selected == ARCHIVE_P18
    assert "highlighted: 2 event(s), approval-before-archive" in view.header.value
    rows = _data(view.chart_spec())
    assert sorted(r["event_id"] for r in rows if r["hl"]) == sorted([ARCHIVE_P18, LIST_PROJECTS])
    assert {r["alpha"] for r in rows if not r["hl"]} == {0.3}
    marked = [label for label, _ in view.table.options if label.startswith("●")]
    assert len(marked) == 2
    view.highlight([])
    assert view.highlighted == [] and "highlighted" not in view.header.value


def test_axis_and_colour_switch_the_encoding(store):
    view = TraceView(store, TRACE)
    view.axis, view.color = "seq", "status"
    spec = view.chart_spec()
    assert spec["encoding"]["color"]["field"] == "status"
    rows = _data(spec)
    assert [(r["start"], r["end"]) for r in rows[:2]] == [(0.0, 1.0), (1.0, 2.0)]


def test_a_trace_without_times_is_drawn_by_step():
    view = TraceView(synthetic(30, timed=False))
    assert (view.axis, view.frame.axis, view.frame.mode) == ("seq", "seq", "events")


def test_a_100k_event_trace_hands_the_browser_a_bounded_chart():
    trace = synthetic(100_000)
    view = TraceView(trace, bins=120, max_events=150)
    assert (view.frame.mode, view.frame.events) == ("aggregate", 100_000)
    spec = view.chart_spec()
    assert _rows(spec) == view.frame.marks <= 120 * 3 + 120
    assert len(json.dumps(spec)) < 200_000
    assert len(view.table.options) == 200
    assert "100,000 events in 120 bins" in view.status.value
    # a click on a bin narrows the window to its steps (834 events: bins again); a click
    # on one of those bins narrows it to a stretch drawn event by event
    for mode in ("aggregate", "events"):
        b = view.frame.bins.iloc[3]
        view.chart._vl_selections = {"zoom": {"value": {"vlPoint": {"or": [
            {"seq_lo": int(b.seq_lo), "seq_hi": int(b.seq_hi)}]}}, "store": []}}
        assert view.window == (int(b.seq_lo), int(b.seq_hi))
        assert view.frame.mode == mode and _rows(view.chart_spec()) <= 480


def test_selecting_far_into_a_big_trace_moves_the_window_to_it():
    view = TraceView(synthetic(100_000))
    view.select("e54323")
    lo, hi = view.window
    assert lo <= 54323 <= hi and view.frame.mode == "events" and view.frame.events <= 200
    assert view.table.value == "e54323"
    assert "(args.id) came from tool2 at step 54322 (result.id)" in view.detail_text
    view.highlight(["e99998", "e3"])
    assert view.window[1] == 99_999 and view.selected == "e99998"


def test_highlights_in_aggregate_mode_are_counted_per_bin():
    view = TraceView(synthetic(10_000))
    view.set_window(0, 9_999)
    view.highlighted = ["e10", "e11", "e9000"]
    assert view.frame.mode == "aggregate" and view.frame.bins["hl"].sum() == 3


def test_bad_inputs_are_refused_with_codes(store):
    with pytest.raises(UsageError):
        TraceView(store)                       # a store needs a trace id
    with pytest.raises(NotFoundError) as e:
        TraceView(store, "ffff")
    assert e.value.code == "TRACE_NOT_FOUND"
    view = TraceView(store, TRACE)
    with pytest.raises(NotFoundError) as e:
        view.select("nope")
    assert e.value.code == "EVENT_NOT_FOUND" and view.selected is None
    with pytest.raises(UsageError):
        TraceView(synthetic(5), trace_id="other")
    with pytest.raises(UsageError):
        TraceView("4bf92f35")  # a string is not a trace


def _x_domain(spec: dict) -> list:
    enc = spec["encoding"] if "encoding" in spec else spec["layer"][0]["encoding"]
    return enc["x"]["scale"]["domain"]


def test_a_zoomed_window_fills_the_axis_instead_of_starting_at_zero():
    """Steps 52,120–52,269 of a 100k trace (around 52 s in): the axis is the window's own
    extent, so the bars span most of it (they were slivers at the right edge)."""
    view = TraceView(synthetic(100_000))
    view.set_window(52_120, 52_269)
    f = view.frame
    assert f.mode == "events" and f.events == 150
    lo, hi = f.domain
    assert _x_domain(view.chart_spec()) == [lo, hi]
    assert view.chart_spec()["encoding"]["x"]["scale"]["zero"] is False
    drawn = float(f.rows["end"].max() - f.rows["start"].min())
    assert drawn / (hi - lo) > 0.9 and lo > 50
    # the same in bins: a window of 10,000 steps deep into the trace
    view.set_window(60_000, 69_999)
    f = view.frame
    assert f.mode == "aggregate"
    lo, hi = f.domain
    assert lo > 59.9 and hi < 70.1 and _x_domain(view.chart_spec()) == [lo, hi]


def test_bins_are_stacked_and_failures_marked_only_where_they_are():
    """Bars stack from the axis up (y0..y1 per kind, the top at the bin's count); the
    failure strip covers the bins that hold failures and no other."""
    from workbench.model import Event, Trace

    ms = 1_000_000
    events = [Event("t", f"e{i}", None, i, "tool_call" if i % 3 else "llm_call", "x",
                    i * ms, i * ms + ms // 2, "error" if 5_000 <= i < 5_050 else "ok")
              for i in range(10_000)]
    view = TraceView(Trace.from_events(events), bins=100)
    f = view.frame
    assert f.mode == "aggregate" and f.bins is not None
    tops = f.rows.groupby("bin_start")["y1"].max().sort_index().to_numpy()
    assert list(tops) == list(f.bins.sort_values("bin_start")["events"])
    for _, grp in f.rows.groupby("bin_start"):
        ys = sorted(zip(grp["y0"], grp["y1"], strict=True))
        assert ys[0][0] == 0 and all(a[1] == b[0] for a, b in itertools.pairwise(ys))
    failing = f.bins[f.bins["errors"] > 0]
    assert len(failing) == 1 and int(failing["seq_lo"].iloc[0]) == 5_000
    assert float(failing["error_rate"].iloc[0]) == 0.5
    strip = view.chart_spec()["layer"][2]
    assert strip["mark"]["type"] == "rect" and "datum.errors > 0" in json.dumps(strip)


def test_the_chart_fits_its_box_with_the_legend_on_top():
    """A narrow notebook clips nothing: the plot is 300 px, its labels at most 200 and
    the legend sits above it, in both modes (the browser test measures it at 1,000 px
    with the file browser open)."""
    for view in (TraceView(synthetic(200)), TraceView(synthetic(5_000), max_events=100)):
        spec = view.chart_spec()
        assert spec["width"] == 300 and "vconcat" not in spec
        layers = spec.get("layer", [spec])
        legend = layers[0]["encoding"]["color"]["legend"]
        assert legend["orient"] == "top"


def test_a_few_thousand_events_are_drawn_one_by_one_in_a_scrolling_box():
    view = TraceView(synthetic(1_200))
    assert view.frame.mode == "events" and view.frame.events == 1_200
    assert view.chart_box.layout.max_height == "480px"
    assert view.chart_box.layout.overflow == "auto"
    assert "scroll the chart for the rest" in view.status.value
    assert TraceView(synthetic(1_600)).frame.mode == "aggregate"


def test_the_table_pages_through_the_whole_window():
    view = TraceView(synthetic(100_000))
    assert len(view.table.options) == 200 and view.page_label.value == "rows 1–200 of 100,000"
    assert view.prev_page.disabled and not view.next_page.disabled
    view.next_page.click()
    assert view.page == 1 and view.table.options[0][1] == "e200"
    assert view.page_label.value == "rows 201–400 of 100,000"
    view.set_page(10_000)                         # clamped to the last page
    assert view.page == 499 and view.next_page.disabled
    assert view.table.options[-1][1] == "e99999"
    view.set_window(10, 20)                       # a new window starts at its first page
    assert view.page == 0 and view.page_label.value == "rows 1–11 of 11"
    view.set_window(0, 99_999)
    view.select("e1234")                          # selecting turns to the row's page
    assert view.table.value == "e1234"


def test_the_span_tree_folds_and_unfolds_in_the_table():
    """Fold a turn: its nine tool calls leave the table (the row says how many), the
    pages count what is left, selecting a folded event unfolds what hid it."""
    view = TraceView(synthetic(100_000))
    view.select("e1")                                # turn 1: e1 holds e2..e10
    assert view.table.options[1][1] == "e1" and "▾" in view.table.options[1][0]
    view.fold.click()
    ids = [o[1] for o in view.table.options]
    assert view.collapsed == ["e1"] and "e2" not in ids and ids[2] == "e11"
    assert "▸" in view.table.options[1][0] and "(+9\u00a0inside)" in view.table.options[1][0]
    view.set_window(0, 99_999)
    view.toggle("root")                              # everything folds into the root
    assert [o[1] for o in view.table.options] == ["root"]
    assert view.page_label.value == "rows 1–1 of 1 (99,999 folded)"
    view.select("e5")                                # unfolds its ancestors
    assert "root" not in view.collapsed and "e1" not in view.collapsed
    assert view.table.value == "e5"
    view.toggle("e11")
    view.unfold_all.click()
    assert view.collapsed == []
    # a parent cycle does not hang the fold
    from workbench.model import Event, Trace
    cyc = Trace.from_events([Event("c", "a", "b", 0, "tool_call", "x", 0, 1, "ok"),
                             Event("c", "b", "a", 1, "tool_call", "y", 1, 2, "ok")])
    v = TraceView(cyc)
    v.toggle("a")
    assert len(v.table.options) <= 2
