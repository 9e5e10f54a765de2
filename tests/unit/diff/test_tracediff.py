"""diff_traces on hand-built traces: each kind of difference, with its known answer."""

import pytest

from workbench import diff_traces
from workbench.diff import Canon, render_diff, render_html
from workbench.model import Event, Trace
from workbench.rules import parse_rules


def ev(tid, eid, seq, name, *, start=None, end=None, args=None, result=None, status="ok",
       kind="tool_call"):
    return Event(tid, eid, None, seq, kind, name, start, end, status,
                 args if args is not None else {}, result if result is not None else {})


def trace(tid, *specs):
    return Trace.from_events(ev(tid, f"{tid}-{i}", i, *s[:1], **s[1]) if isinstance(s, tuple)
                             else ev(tid, f"{tid}-{i}", i, s) for i, s in enumerate(specs))


def summary(d):
    return {"changed": [(c.a.seq, c.b.seq, [(p.path, p.old, p.new) for p in c.paths])
                        for c in d.changed],
            "added": [e.seq for e in d.added], "removed": [e.seq for e in d.removed],
            "reordered": [(r.a.seq, r.b.seq, [c.seq for c in r.crossed], r.verdict, r.rules)
                          for r in d.reordered]}


def test_a_trace_against_itself_is_the_same():
    t = trace("t", "a", ("b", {"args": {"x": 1}}), "c")
    d = diff_traces(t, t)
    assert d.same and d.aligned == 3 and d.to_dict()["changed"] == []


def test_changed_fields_with_path_old_and_new():
    a = trace("a", ("charge", {"args": {"cart": "c1", "amount": "12.50"}}),
              ("get_job", {"result": {"status": "queued", "n": 1}}))
    b = trace("b", ("charge", {"args": {"cart": "c1", "amount": 12.5}}),
              ("get_job", {"result": {"status": "queued", "n": 1.0}, "status": "error"}))
    assert summary(diff_traces(a, b))["changed"] == [
        (0, 0, [("args.amount", "12.50", 12.5)]),
        (1, 1, [("result.n", 1, 1.0), ("status", "ok", "error")])]


def test_an_insertion_and_a_deletion_change_nothing_else():
    names = [("step", {"args": {"i": i}}) for i in range(30)]
    a = trace("a", *names)
    b = trace("b", *names[:10], "ping", *names[10:20], *names[21:])
    s = summary(diff_traces(a, b))
    assert s == {"changed": [], "added": [10], "removed": [20], "reordered": []}


def test_ids_pair_up_across_runs_with_a_canon():
    canon = Canon.of(symbolize=["*.id", "*_id"])
    a = trace("a", ("list_projects", {"result": {"items": [{"id": "p1"}, {"id": "p2"}]}}),
              ("archive_project", {"args": {"project_id": "p1"}}))
    same = trace("b", ("list_projects", {"result": {"items": [{"id": "q7"}, {"id": "q8"}]}}),
                 ("archive_project", {"args": {"project_id": "q7"}}))
    other = trace("c", ("list_projects", {"result": {"items": [{"id": "q7"}, {"id": "q8"}]}}),
                  ("archive_project", {"args": {"project_id": "q8"}}))
    assert diff_traces(a, same, canon).same
    assert not diff_traces(a, same).same  # without the canon the ids are values
    assert summary(diff_traces(a, other, canon))["changed"] == [
        (1, 1, [("args.project_id", "p1", "q8")])]


def test_dropped_paths_are_not_compared():
    a = trace("a", ("call", {"result": {"at": 1, "v": 2}}))
    b = trace("b", ("call", {"result": {"at": 9, "v": 2}}))
    assert diff_traces(a, b, Canon.of(drop=["result.at"])).same
    assert not diff_traces(a, b, Canon.of(drop=["at"])).same  # anchored: not a top-level key


RULES = parse_rules("""version: 1
rules:
  approval-before-archive:
    before: {first: {tool: request_approval}, then: {tool: archive_project}, same: [args.project_id]}
  search-before-tests:
    before: {first: {tool: search}, then: {tool: run_tests}}
""")


def test_a_reordering_that_breaks_a_rule():
    a = trace("a", ("list_projects", {"start": 0, "end": 10}),
              ("request_approval", {"start": 20, "end": 30, "args": {"project_id": "p17"}}),
              ("archive_project", {"start": 40, "end": 50, "args": {"project_id": "p17"}}))
    b = trace("b", ("list_projects", {"start": 0, "end": 10}),
              ("archive_project", {"start": 20, "end": 30, "args": {"project_id": "p17"}}),
              ("request_approval", {"start": 40, "end": 50, "args": {"project_id": "p17"}}))
    d = diff_traces(a, b, rules=RULES)
    # the archive moved before the approval it needed (A step 2 -> B step 1)
    assert summary(d)["reordered"] == [(2, 1, [1], "breaks", ("approval-before-archive",))]
    assert [f["rule"] for f in d.findings["new"]] == ["approval-before-archive"]
    assert d.findings["gone"] == []
    assert summary(diff_traces(a, b))["reordered"] == [(2, 1, [1], "unchecked", ())]


def test_a_reordering_the_rules_allow():
    a = trace("a", ("search", {"start": 0, "end": 10}), ("read_file", {"start": 20, "end": 30}),
              ("run_tests", {"start": 40, "end": 50}))
    b = trace("b", ("read_file", {"start": 0, "end": 10}), ("search", {"start": 20, "end": 30}),
              ("run_tests", {"start": 40, "end": 50}))
    d = diff_traces(a, b, rules=RULES)
    assert [(r.verdict, r.rules) for r in d.reordered] == [("allowed", ())]
    assert d.findings == {"new": [], "gone": []}


def test_events_that_overlapped_in_a_may_swap():
    a = trace("a", ("fetch_user", {"start": 0, "end": 100}), ("fetch_cart", {"start": 10, "end": 20}))
    b = trace("b", ("fetch_cart", {"start": 0, "end": 10}), ("fetch_user", {"start": 5, "end": 100}))
    assert [r.verdict for r in diff_traces(a, b).reordered] == ["unordered"]


def test_diff_json_keys_and_renderings():
    a = trace("a", ("charge", {"args": {"amount": "1.00"}}), "gone")
    b = trace("b", ("charge", {"args": {"amount": 1.0}}), "<script>")
    d = diff_traces(a, b)
    doc = d.to_dict()
    assert {"same", "added", "removed", "changed", "reordered"} <= set(doc)
    assert doc["changed"][0]["paths"] == [
        {"path": "args.amount", "old": "1.00", "new": 1.0, "change": "changed"}]
    text = render_diff(d)
    assert 'args.amount: "1.00" → 1.0' in text and "+ step 1  tool_call <script>" in text
    page = render_html(d, a, b)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<del>&quot;1.00&quot;</del>" in page and "<ins>1.0</ins>" in page


@pytest.mark.parametrize("n", [0, 1])
def test_one_sided_empty_lists(n):
    a = trace("a", *["x"] * (n + 1))
    b = trace("b", *["x"] * (n + 2))
    assert len(diff_traces(a, b).added) == 1
