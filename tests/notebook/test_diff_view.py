"""DiffView without a browser: a trace diff (the CLI's HTML page in a frame, the list of
changes), a shadow run's mismatches side by side, and a diff of a trace with itself."""

from __future__ import annotations

import html
import shlex
import sys

import pytest

from tests.support import EXAMPLES, REPO
from workbench.diff import load_canon, shadow
from workbench.ingest import read_trace
from workbench.notebook import DiffView

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
    n = next(i for i, e in enumerate(view.entries) if "tool_call list_projects" in e)
    view.changes.value = n
    assert view.selected == n
    assert "args.owner_id (absent) \"team-a\" added" in view.detail_text
    # the page scrolls to the change's row: a script inside the sandboxed frame, which
    # looks the row up by its A and B steps
    change = next(c for c in d.changed if c.b.name == "list_projects")
    page = html.unescape(view.page.value)
    assert "sandbox='allow-scripts'" in view.page.value
    assert f"var want=[{change.a.seq}, {change.b.seq}]" in page and "scrollIntoView" in page
    removed = next(i for i, e in enumerate(view.entries) if e.startswith("- step    7"))
    view.select(removed)
    assert "var want=[7, null]" in html.unescape(view.page.value)
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
