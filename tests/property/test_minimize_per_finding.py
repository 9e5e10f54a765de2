"""One stored minimization per finding, whatever the order: k findings of one rule that
share a signature, minimized and saved in any order, are k stored traces, each keeping
its own offending call, and the lookup gives each finding its own."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.dags import ev
from workbench.minimize import minimize, save_result, stored_minimization
from workbench.model import Trace
from workbench.rules import check_trace, parse_rules
from workbench.store import Store

RULE = parse_rules("version: 1\nrules:\n  no-delete:\n    absent: {tool: delete}\n").get(
    "no-delete")


def incident(kinds: list[bool]) -> Trace:
    """A root, then a list call, then one event per entry: a delete of what the list
    returned (True) or unrelated noise (False)."""
    events = [ev("r", 0, "agent", kind="agent"), ev("l", 1, "list", parent="r")]
    for i, delete in enumerate(kinds, start=2):
        events.append(ev(f"x{i}", i, "delete" if delete else "noise", parent="r",
                         refs=["l"] if delete else []))
    return Trace.from_events(events)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[bool], list[int]]:
    deletes, noise = draw(st.integers(2, 4)), draw(st.integers(0, 4))
    kinds = draw(st.permutations([True] * deletes + [False] * noise))
    order = draw(st.permutations(list(range(1, deletes + 1))))
    return list(kinds), list(order)


@settings(max_examples=15, deadline=None)
@given(cases())
def test_every_finding_keeps_its_own_minimization(case):
    kinds, order = case
    trace = incident(kinds)
    found = check_trace(trace, [RULE])
    assert len({f.signature for f in found}) == 1 and len(found) == sum(kinds)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s")
        ids = {}
        for n in order:
            r = minimize(trace, RULE, finding=n)
            assert save_result(store, r) is True
            ids[n] = r.trace_id
        assert len(set(ids.values())) == len(found)
        for n, f in enumerate(found, start=1):
            kept = [e.event_id for e in store.trace(ids[n]).events]
            assert kept == ["r", "l", f.event_ids[0]]
            assert stored_minimization(store, trace.trace_id, RULE.id, f.signature, f.seq,
                                       f.event_ids) == ids[n]
            assert save_result(store, minimize(trace, RULE, finding=n)) is False
