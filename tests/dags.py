"""Hand-built and random agent traces with dependencies, for the minimizer's tests.

An agent trace here: one ``agent`` root; ``llm_call`` events under it; ``tool_call``
events under the model call that asked for them; some tool calls take an argument
from an earlier tool call's result (a data-flow ref). ``brute_one_minimal`` checks
1-minimality the slow, obvious way.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from workbench.model import Event, Ref, Trace


def ev(eid: str, seq: int, name: str, *, kind: str = "tool_call", parent: str | None = None,
       args: object = None, result: object = None, refs: Iterable[str] = (),
       trace: str = "t") -> Event:
    return Event(trace, eid, parent, seq, kind, name, None, None, "ok",
                 args if args is not None else {}, result if result is not None else {},
                 refs=tuple(Ref(r, "args.id", "result.id") for r in refs))


def agent_trace(n: int, seed: int, *, ref_rate: float = 0.3) -> Trace:
    """A random agent trace of ``n`` events (ids ``e0``...), fixed by ``seed``."""
    rnd = random.Random(seed)
    events = [ev("e0", 0, "agent", kind="agent")]
    llm: str | None = None
    tools: list[str] = []
    for i in range(1, n):
        eid = f"e{i}"
        if llm is None or rnd.random() < 0.25:
            events.append(ev(eid, i, "model", kind="llm_call", parent="e0"))
            llm = eid
            continue
        refs = [rnd.choice(tools[-8:])] if tools and rnd.random() < ref_rate else []
        events.append(ev(eid, i, f"tool{i % 5}", parent=llm, refs=refs))
        tools.append(eid)
    return Trace.from_events(events)


def ids(trace: Trace) -> set[str]:
    return {e.event_id for e in trace.events}


def closure(trace: Trace, event_ids: Iterable[str]) -> set[str]:
    return trace.closure(event_ids)


def dependents(trace: Trace, kept: set[str], event_id: str) -> set[str]:
    """``event_id`` and every kept event that depends on it, transitively."""
    return {k for k in kept if event_id in trace.closure([k])}


def brute_one_minimal(trace: Trace, kept: set[str], fails: Callable[[Trace], bool]) -> bool:
    """No single kept event can go (with what depends on it) and still fail."""
    for e in kept:
        rest = kept - dependents(trace, kept, e)
        if rest and fails(trace.subtrace(rest)):
            return False
    return True
