"""Recorded traffic (``workbench.contracts.Traffic``) on random call graphs: reach is
exactly the transitive closure of the refs into sink calls, a value's branch is found
only when the next call follows it, and an inferred contract reads back."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from workbench.contracts import Recorded, Traffic, infer_consumer, parse_consumer

NAMES = ("a", "b", "c", "sink", "send")


@st.composite
def traces(draw):
    """Traces of tool calls whose refs point back to earlier calls of the same trace."""
    calls = []
    for t in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 8))
        for seq in range(n):
            name = draw(st.sampled_from(NAMES))
            sources = draw(st.lists(st.integers(0, max(seq - 1, 0)), max_size=2,
                                    unique=True)) if seq else []
            refs = [{"event_id": f"t{t}-{s}", "path": "args.id", "from_path": f"result.ids[{s}]"}
                    for s in sources]
            calls.append(Recorded(f"t{t}", f"t{t}-{seq}", seq, name, "ok",
                                  json.dumps({"id": f"id-{t}{seq}"}),
                                  json.dumps({"ids": [f"x-{t}{seq}"]}), None, refs, None))
    return calls


def _closure(calls, sink):
    """Brute force: every (source step, sink step) pair joined by a path of refs."""
    out = set()
    by_trace = {}
    for c in calls:
        by_trace.setdefault(c.trace_id, []).append(c)
    for tid, cs in by_trace.items():
        into = {c.seq: [int(r["event_id"].split("-")[1]) for r in c.refs] for c in cs}
        names = {c.seq: c.name for c in cs}
        for target in cs:
            if not sink(target.name):
                continue
            seen, todo = set(), list(into[target.seq])
            while todo:
                s = todo.pop()
                if s not in seen:
                    seen.add(s)
                    todo += into[s]
            out |= {(tid, names[s], s, target.name, target.seq) for s in seen}
    return out


@given(traces())
def test_reach_is_the_closure_of_the_refs(calls):
    def sink(name):
        return name in ("sink", "send")

    got = {(f.trace_id, f.source, f.source_step, f.target, f.target_step)
           for fs in Traffic(calls).reach(sink).values() for lst in fs.values() for f in lst}
    assert got == _closure(calls, sink)


@given(traces())
def test_an_inferred_contract_reads_back(calls):
    inferred = infer_consumer(Traffic(calls), "prop")
    consumer = parse_consumer(inferred.to_yaml(), "prop.yaml")
    assert set(consumer.tools) == {c.name for c in calls}


@given(st.lists(st.booleans(), min_size=2, max_size=12), st.booleans())
def test_a_branch_needs_the_next_call_to_follow_the_value(values, follows):
    """``ok`` decides the next call only when ``follows``; otherwise the next call is
    always the same, and no branch may be reported."""
    calls = []
    for i, v in enumerate(values):
        nxt = ("yes" if v else "no") if follows else "same"
        calls += [Recorded("t", f"c{i}", 2 * i, "check", "ok", "{}", json.dumps({"ok": v}),
                           None, [], None),
                  Recorded("t", f"n{i}", 2 * i + 1, nxt, "ok", "{}", "{}", None, [], None)]
    branches = Traffic(calls).branches(["check"])
    seen_twice = {v for v in (True, False) if values.count(v) >= 2}
    assert bool(branches) == (follows and seen_twice == {True, False})
