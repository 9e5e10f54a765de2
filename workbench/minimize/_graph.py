"""The dependency graph of one trace, as the minimizer sees it.

An event depends on its parent (containment) and on the events its data-flow refs
point at; a tool call is already one event holding both halves, so tool-result
pairing needs no edge of its own. Events are numbered in a topological order of
these edges (dependencies first, ties broken by seq), and candidates are Python ints
used as bitsets over those numbers: cheap to hash (the cache key), to union and to
compare. In that numbering every prefix is dependency-closed, which is what the
prefix search leans on.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from ..model import Event, InvalidTraceError, Trace

__all__ = ["Graph", "members"]


def members(mask: int) -> list[int]:
    """The positions set in a bitset, ascending."""
    bits = bin(mask)[:1:-1]  # least significant bit first
    return [i for i, c in enumerate(bits) if c == "1"]


class Graph:
    """Events of a trace in dependency order, with closures over bitsets."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        by_id = {e.event_id: e for e in trace.events}
        deps: dict[str, set[str]] = {}
        for e in trace.events:
            d = {r.event_id for r in e.refs if r.event_id in by_id}
            if e.parent_id is not None and e.parent_id in by_id:
                d.add(e.parent_id)
            d.discard(e.event_id)
            deps[e.event_id] = d
        order = _topological(trace.events, deps)
        self.events: tuple[Event, ...] = tuple(by_id[i] for i in order)
        self.index: dict[str, int] = {i: n for n, i in enumerate(order)}
        self.deps: list[tuple[int, ...]] = [
            tuple(sorted(self.index[d] for d in deps[i])) for i in order]
        dependents: list[list[int]] = [[] for _ in order]
        for n, needs in enumerate(self.deps):
            for dep in needs:
                dependents[dep].append(n)
        self.dependents: list[tuple[int, ...]] = [tuple(x) for x in dependents]
        self.full: int = (1 << len(order)) - 1

    def __len__(self) -> int:
        return len(self.events)

    def mask(self, event_ids: Iterable[str]) -> int:
        """The bitset of these event ids (unknown ids are ignored)."""
        m = 0
        for i in event_ids:
            n = self.index.get(i)
            if n is not None:
                m |= 1 << n
        return m

    def ids(self, mask: int) -> list[str]:
        """The event ids of a bitset, in dependency order."""
        return [self.events[n].event_id for n in members(mask)]

    def close(self, mask: int) -> int:
        """The bitset plus everything its events depend on, transitively."""
        out = mask
        todo = members(mask)
        while todo:
            n = todo.pop()
            for d in self.deps[n]:
                bit = 1 << d
                if not out & bit:
                    out |= bit
                    todo.append(d)
        return out

    def dependents_within(self, mask: int, within: int) -> int:
        """The bitset plus every event of ``within`` that depends on one of them."""
        out = mask & within
        todo = members(out)
        while todo:
            n = todo.pop()
            for d in self.dependents[n]:
                bit = 1 << d
                if within & bit and not out & bit:
                    out |= bit
                    todo.append(d)
        return out

    def is_closed(self, mask: int) -> bool:
        return self.close(mask) == mask

    def subtrace(self, mask: int) -> Trace:
        """The events of a bitset as a trace (ids, seq and refs as in the source)."""
        picked = [self.events[n] for n in members(mask)]
        return Trace(self.trace.trace_id, tuple(picked), dict(self.trace.meta))


def _topological(events: tuple[Event, ...], deps: dict[str, set[str]]) -> list[str]:
    """Kahn's algorithm, smallest seq first among the ready events."""
    seq = {e.event_id: e.seq for e in events}
    waiting = {i: len(d) for i, d in deps.items()}
    users: dict[str, list[str]] = {}
    for i, d in deps.items():
        for x in d:
            users.setdefault(x, []).append(i)
    ready = [(seq[i], i) for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for u in users.get(i, ()):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (seq[u], u))
    if len(order) != len(events):
        stuck = sorted((i for i, n in waiting.items() if n > 0), key=seq.__getitem__)
        raise InvalidTraceError(
            f"the events' parents and data-flow refs form a cycle (through {stuck[0]})",
            code="DEPENDENCY_CYCLE", event_ids=stuck[:20],
            hint="an event cannot contain or feed one of its own ancestors; check the "
                 "parent_id and refs of the events named")
    return order
