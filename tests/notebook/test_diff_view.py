"""DiffView without a browser: a trace diff (the CLI's HTML page in a frame, the list of
changes), a shadow run's mismatches side by side, and a diff of a trace with itself."""

from __future__ import annotations

import dataclasses
import html
import re
import shlex
import sys

import pytest

from tests.support import EXAMPLES, REPO
from workbench.diff import diff_traces, load_canon, render_html, shadow
from workbench.ingest import read_trace
from workbench.model import Event, Trace, UsageError
from workbench.notebook import DiffView
from workbench.notebook._trace_view import plain_text

FOLDER = EXAMPLES / "rules" / "renamed-field"
BUILDS = REPO / "notebooks" / "builds"


@pytest.fixture(scope="module")
def runs():
    return read_trace(FOLDER / "bad.jsonl")[0], read_trace(FOLDER / "good.jsonl")[0]


def test_two_traces_side_by_side(runs):
    bad, good = runs
    view = DiffView(bad, good, rules=FOLDER / "rules.yaml")
    d = view.diff
    assert d is not None and not d.same
    assert len(view.entries) == len(d.changed) + len(d.reordered) + len(d.added) + len(
        d.removed)
    assert "rules-renamed-field-bad → B rules-renamed-field-good" in view.summary.value
    page = html.unescape(view.page.value)
    assert view.page.value.startswith("<iframe") and "<table>" in page
    assert "class=changed" in page and "<script" not in page.lower()
    # nothing is shown selected while nothing is: a click on the first entry opens it
    assert view.changes.value is None and view.selected is None
    view.changes.value = 0
    assert view.selected == 0 and view.detail_text
    page_before = view.page.value
    n = next(i for i, e in enumerate(view.entries) if "tool_call list_projects" in e)
    view.changes.value = n
    assert view.selected == n
    assert "args.owner_id (absent) \"team-a\" added" in view.detail_text
    # the page scrolls to the change's row: a script inside the sandboxed frame, which
    # looks the row up by its A and B steps; the first pick loads the page with it
    framed = html.unescape(view.page.value)
    assert "var want=[0, 0]" in framed and "scrollIntoView" in framed
    assert "sandbox='allow-scripts'" in view.page.value
    # a later pick on the same page is posted to the script, without reloading the page
    change = next(c for c in d.changed if c.b.name == "list_projects")
    assert view.page.value == page_before and view.row_post.requests == 1
    assert view.row_post.row == [change.a.seq, change.b.seq]
    removed = next(i for i, e in enumerate(view.entries) if e.startswith("- step    7"))
    view.select(removed)
    assert view.row_post.row == [7, None] and view.row_post.requests == 2
    view.select(None)
    assert "<script" not in html.unescape(view.page.value)


def test_a_trace_against_itself_is_the_same(runs):
    bad, _ = runs
    view = DiffView(bad, bad)
    assert view.diff is not None and view.diff.same and view.entries == []
    assert "are the same" in view.summary.value


def test_a_shadow_run_shows_each_mismatch_side_by_side():
    python = shlex.quote(sys.executable)
    result = shadow(f"{python} {BUILDS / 'summarize_v1.py'} {{fixture}}",
                    f"{python} {BUILDS / 'summarize_v2.py'} {{fixture}}",
                    EXAMPLES / "rules", canon=load_canon(BUILDS / "canon.yaml"), glob="*.jsonl")
    view = DiffView.from_shadow(result, BUILDS / "canon.yaml")
    assert view.shadow_result is result and len(view.entries) == 12
    assert view.changes.value is None
    # grouped by the paths that changed: the one with renumbered failures stands apart
    assert [(paths, len(rs)) for paths, rs in view.groups] == [
        (("wall_ms",), 11), (("failed[*].step", "wall_ms"), 1)]
    assert "12 mismatch(es) in 2 group(s) of changed paths" in view.summary.value
    assert view.entries[-1].startswith("#2 changed") and view.entries[0].startswith("#1 ")
    n = next(i for i, e in enumerate(view.entries) if "retry-without-key/good.jsonl" in e)
    assert "(2 path(s))" in view.entries[n] and n == 11
    view.select_fixture("retry-without-key/good.jsonl")
    assert view.selected == n
    with pytest.raises(KeyError):
        view.select_fixture("nope.jsonl")
    text = view.detail_text
    assert "failed[0].step 7 8 changed" in text and "wall_ms 15310 15310.0 changed" in text
    assert "generated_at" not in text            # the canon dropped it
    assert "<del>  &quot;wall_ms&quot;: 15310</del>" in view.detail.value
    assert "<ins>  &quot;wall_ms&quot;: 15310.0</ins>" in view.detail.value
    with pytest.raises(IndexError):
        view.select(12)


def _http_run(trace_id: str, path: str, items: list[str]) -> Trace:
    ms = 1_000_000
    return Trace.from_events([
        Event(trace_id, "r", None, 0, "agent", "agent", 0, 9 * ms, "ok"),
        Event(trace_id, "h", "r", 1, "http", f"GET {path}", ms, 2 * ms, "ok",
              args={"owner": "team-a"}, result={"items": items},
              attrs={"url.path": path, "http.request.method": "GET"}),
        Event(trace_id, "t", "r", 2, "tool_call", "archive_project", 3 * ms, 4 * ms, "ok",
              args={"project_id": "p1"}),
    ])


def test_a_renamed_path_is_one_change_where_the_rest_matches():
    """`GET /v1/projects` against `GET /projects` (the same resource without its version
    prefix, the same method and status): one event renamed — its name, and whatever else
    changed with it — not an addition and a removal. Another method, status or resource
    stays two events."""
    a = _http_run("a", "/v1/projects", ["p1", "p2"])
    b = _http_run("b", "/projects", ["p1"])
    view = DiffView(a, b)
    d = view.diff
    assert d is not None and d.added == [] and d.removed == [] and d.aligned == 3
    assert [(c.a.name, c.b.name, [p.path for p in c.paths]) for c in d.changed] == [
        ("GET /v1/projects", "GET /projects",
         ['attrs["url.path"]', "name", "result.items[1]"])]
    assert view.entries[0].startswith("~ step    1 → 1    http GET /projects")
    assert diff_traces(_http_run("a", "/api/v2/projects", []), b).removed == []
    for other in ("POST /projects", "GET /users"):
        d = diff_traces(a, Trace.from_events(
            [e if e.kind != "http" else dataclasses.replace(e, name=other) for e in b.events]))
        assert [e.name for e in d.removed] == ["GET /v1/projects"], other
        assert [e.name for e in d.added] == [other], other
    failed = Trace.from_events([e if e.kind != "http" else dataclasses.replace(
        e, status="error") for e in b.events])
    assert len(diff_traces(a, failed).removed) == 1


def _numbered(n: int, trace_id: str, every: int) -> Trace:
    from .conftest import synthetic
    events = synthetic(n, trace_id).events
    if every:
        events = [dataclasses.replace(e, result={"id": f"changed{e.seq}"})
                  if e.seq % every == 0 and e.seq else e for e in events]
    return Trace.from_events(events)


def test_a_long_diff_has_a_row_for_every_change():
    """8,000 events with a change every 25: rows drawn count a folded run as one, so the
    319 changes fit one page of 2,000 and every change has its row."""
    view = DiffView(_numbered(8000, "a", 0), _numbered(8000, "b", 25), page_rows=2000)
    assert len(view.entries) == 319 and view.pages == 1 and set(view.page_of) == {0}
    assert "pages" not in view.summary.value
    assert view.pager.layout.display == "none"


def _frame_page(view: DiffView) -> str:
    return html.unescape(view.page.value)


def _frame_rows(view: DiffView) -> list[tuple[str, str]]:
    return re.findall(r"<tr[^>]*><td class=seq>(\d*)</td><td>.*?</td><td class=seq>(\d*)</td>",
                      _frame_page(view), re.S)


def test_past_5000_rows_drawn_every_change_has_a_reachable_row():
    """6,000 events with a change every 4: every event from step 2 on is drawn (a
    change's context joins the next; steps 0–1 and 5999 are folds), 5,999 rows, which
    `workbench diff --html` cuts at 5,000. The view pages them (200 rows a page):
    picking the 1,400th of 1,499 changes turns to page 28 of 30, which holds its row
    and scrolls to it; counts are stated; a pick on the same page reloads nothing."""
    a, b = _numbered(6000, "a", 0), _numbered(6000, "b", 4)
    view = DiffView(a, b)
    assert len(view.entries) == 1499 and view.pages == 30
    assert "cut after 5000 rows" in render_html(view.diff, a, b)
    assert "draws 5,999 rows in 30 pages of 200" in plain_text(view.summary.value)
    assert view.current_page == 0 and view.pager.layout.display == ""
    assert "page 1 of 30: rows 1–200 of 5,999" in plain_text(view.page_label.value)
    assert view.prev_page.disabled and not view.next_page.disabled
    assert "… 2 unchanged events …" in _frame_page(view)
    assert len(_frame_rows(view)) == 199 and _frame_rows(view)[0] == ("2", "2")
    n = 1399
    assert view.entries[n].startswith("~ step 5600 → 5600")
    view.changes.value = n                         # a click in the list
    assert view.selected == n and view.current_page == 27 == view.page_of[n]
    assert "page 28 of 30: rows 5,401–5,600 of 5,999" in plain_text(view.page_label.value)
    assert ("page 28 of 30: rows 5,401–5,600 of 5,999 drawn; changes 1,351–1,400 of 1,499 "
            "have their rows here") in _frame_page(view)
    assert ("5600", "5600") in _frame_rows(view) and len(_frame_rows(view)) == 200
    assert "var want=[5600, 5600]" in _frame_page(view)
    assert view.scroller.target == ".wb-diff-page" and view.scroller.requests == 1
    assert not view.next_page.disabled and not view.prev_page.disabled
    # another change on that page: posted to the frame's script, no reload
    framed = view.page.value
    view.select(1380)
    assert view.page.value == framed and view.row_post.row == [5524, 5524]
    # every change is on the page its `page_of` names
    for k in (0, 123, 124, 499, 500, 1000, 1375, 1498):
        view.select(k)
        step = view.entries[k].split()[2]
        assert (step, step) in _frame_rows(view), k
    # ◀ walks back: no row is marked on a page without the selection
    view.prev_page.click()
    assert view.current_page == 28 and "var want" not in _frame_page(view)
    assert _frame_rows(view)[0] == ("5601", "5601")
    view.next_page.click()
    assert "var want=[5996, 5996]" in _frame_page(view)
    assert view.current_page == 29 and view.next_page.disabled
    with pytest.raises(IndexError):
        view.set_page(30)


def test_a_page_size_of_its_own():
    view = DiffView(_numbered(400, "a", 0), _numbered(400, "b", 25), page_rows=10)
    n = len(view.entries)
    assert n == 15 and view.pages == 10 and view.page_of == sorted(view.page_of)
    last = view.page_of[-1]
    view.select(n - 1)
    assert view.current_page == last and ("375", "375") in _frame_rows(view)
    view.select(None)
    assert view.current_page == last and "var want" not in _frame_page(view)
    with pytest.raises(UsageError):
        DiffView(_numbered(10, "a", 0), _numbered(10, "b", 3), page_rows=0)
