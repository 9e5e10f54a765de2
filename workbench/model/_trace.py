"""A view over one trace: events in seq order, containment, happens-before, data flow.

``Trace`` is pure and immutable; it is what rules, the minimizer and the notebook
views walk. Build one from an Arrow table of the store (``Trace.from_arrow``) or
from ``Event`` objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ._errors import InvalidTraceError
from ._event import Event
from ._schema import EVENTS

__all__ = ["Trace"]


@dataclass(frozen=True)
class Trace:
    """One trace. ``events`` are sorted by seq; ``meta`` is its row of the traces table."""

    trace_id: str
    events: tuple[Event, ...]
    meta: dict[str, Any] = field(default_factory=dict)
    _by_id: dict[str, Event] = field(init=False, repr=False, compare=False)
    _children: dict[str | None, tuple[Event, ...]] = field(init=False, repr=False,
                                                           compare=False)

    def __post_init__(self) -> None:
        events = tuple(sorted(self.events, key=lambda e: e.seq))
        object.__setattr__(self, "events", events)
        by_id: dict[str, Event] = {}
        children: dict[str | None, list[Event]] = {}
        for e in events:
            if e.trace_id != self.trace_id:
                raise InvalidTraceError(
                    f"event {e.event_id} belongs to trace {e.trace_id}, not {self.trace_id}")
            if e.event_id in by_id:
                raise InvalidTraceError(f"event id {e.event_id} appears twice in {self.trace_id}",
                                        code="DUPLICATE_EVENT_ID")
            by_id[e.event_id] = e
        for e in events:
            parent = e.parent_id if e.parent_id in by_id else None
            children.setdefault(parent, []).append(e)
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_children", {k: tuple(v) for k, v in children.items()})

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[Event], meta: dict[str, Any] | None = None) -> Trace:
        evs = tuple(events)
        if not evs:
            raise InvalidTraceError("a trace needs at least one event")
        return cls(evs[0].trace_id, evs, dict(meta or {}))

    @classmethod
    def from_arrow(cls, table: pa.Table, meta: dict[str, Any] | None = None) -> Trace:
        return cls.from_events((Event.from_row(r) for r in table.to_pylist()), meta)

    def to_arrow(self) -> pa.Table:
        return pa.Table.from_pylist([e.to_row() for e in self.events], schema=EVENTS)

    # -- access ----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __getitem__(self, event_id: str) -> Event:
        return self._by_id[event_id]

    def __contains__(self, event_id: object) -> bool:
        return event_id in self._by_id

    def at(self, seq: int) -> Event:
        """The event at a step (seq)."""
        for e in self.events:
            if e.seq == seq:
                return e
        raise KeyError(seq)

    def roots(self) -> tuple[Event, ...]:
        """Events with no parent in the trace (true roots and orphans)."""
        return self._children.get(None, ())

    def parent(self, event: Event | str) -> Event | None:
        e = self._event(event)
        return self._by_id.get(e.parent_id) if e.parent_id is not None else None

    def children(self, event: Event | str) -> tuple[Event, ...]:
        return self._children.get(self._event(event).event_id, ())

    def ancestors(self, event: Event | str) -> list[Event]:
        out: list[Event] = []
        seen: set[str] = set()
        p = self.parent(event)
        while p is not None and p.event_id not in seen:
            out.append(p)
            seen.add(p.event_id)
            p = self.parent(p)
        return out

    def depth(self, event: Event | str) -> int:
        return len(self.ancestors(event))

    def orphans(self) -> tuple[Event, ...]:
        """Events whose parent id names an event that is not in the trace."""
        return tuple(e for e in self.events
                     if e.parent_id is not None and e.parent_id not in self._by_id)

    def tool_calls(self) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.kind == "tool_call")

    def select(self, *, kind: str | None = None, name: str | None = None) -> tuple[Event, ...]:
        return tuple(e for e in self.events
                     if (kind is None or e.kind == kind) and (name is None or e.name == name))

    # -- order and flow -----------------------------------------------------------
    def precedes(self, a: Event | str, b: Event | str) -> bool:
        """Happens-before: ``a`` ended no later than ``b`` started; by seq where times lack."""
        ea, eb = self._event(a), self._event(b)
        if ea.event_id == eb.event_id:
            return False
        if ea.start_ns is not None and ea.end_ns is not None and eb.start_ns is not None:
            return ea.end_ns <= eb.start_ns
        return ea.seq < eb.seq

    def concurrent(self, a: Event | str, b: Event | str) -> bool:
        """Neither precedes the other (parallel tool calls)."""
        return not self.precedes(a, b) and not self.precedes(b, a)

    def sources(self, event: Event | str) -> list[tuple[Event, str, str]]:
        """Where this event's arguments came from: ``(source event, path, from_path)``."""
        e = self._event(event)
        return [(self._by_id[r.event_id], r.path, r.from_path)
                for r in e.refs if r.event_id in self._by_id]

    def dependencies(self, event: Event | str) -> set[str]:
        """Event ids this event cannot exist without: ancestors and data-flow sources."""
        return {d.event_id for d in self.ancestors(event)} | {
            r.event_id for r in self._event(event).refs if r.event_id in self._by_id}

    def closure(self, event_ids: Iterable[str]) -> set[str]:
        """The ids plus everything they depend on, transitively."""
        todo = [i for i in event_ids if i in self._by_id]
        done: set[str] = set()
        while todo:
            i = todo.pop()
            if i in done:
                continue
            done.add(i)
            todo.extend(self.dependencies(i) - done)
        return done

    def subtrace(self, event_ids: Iterable[str]) -> Trace:
        """The events with these ids, seq and ids kept (parents and refs may dangle)."""
        keep = set(event_ids)
        return Trace(self.trace_id, tuple(e for e in self.events if e.event_id in keep),
                     dict(self.meta))

    def _event(self, event: Event | str) -> Event:
        return self._by_id[event] if isinstance(event, str) else event

    def describe(self, event: Event | str) -> str:
        """A short operational label: ``archive_project at step 41``."""
        e = self._event(event)
        return f"{e.name} at step {e.seq}"

