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
    n = next(i for i, e in enumerate(view.entries) if "tool_call list_projects" in e)
    view.changes.value = n
    assert view.selected == n
    assert "args.owner_id (absent) \"team-a\" added" in view.detail_text


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
    n = next(i for i, e in enumerate(view.entries) if "retry-without-key/good.jsonl" in e)
    assert "(2 path(s))" in view.entries[n]
    view.select(n)
    text = view.detail_text
    assert "failed[0].step 7 8 changed" in text and "wall_ms 15310 15310.0 changed" in text
    assert "generated_at" not in text            # the canon dropped it
    assert "<del>  &quot;wall_ms&quot;: 15310</del>" in view.detail.value
    assert "<ins>  &quot;wall_ms&quot;: 15310.0</ins>" in view.detail.value
    with pytest.raises(IndexError):
        view.select(12)
