"""Where a view's events come from: a ``Trace`` in memory, or one trace of a store.

A timeline and a table need only the light columns of every event (seq, ids, kind,
name, status, times); the full event (args, result, error, attrs, refs) is needed for
the one event the user selects. From a store the first is one DuckDB query and the
second one more per selection, so a 100k-event trace never becomes 100k Python objects
just to be looked at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..model import EVENTS, Event, NotFoundError, Trace, UsageError
from ..store import Store

__all__ = ["LIGHT", "TraceSource"]

LIGHT = ("seq", "event_id", "parent_id", "kind", "name", "status", "start_ns", "end_ns")
_LIGHT_SQL = ", ".join(LIGHT)


@dataclass
class TraceSource:
    """One trace as a view reads it: ``table`` (the light columns, sorted by seq) and
    ``event(id)`` / ``trace()`` for the full data."""

    trace_id: str
    table: pa.Table
    store: Store | None = None
    _trace: Trace | None = field(default=None, repr=False)

    @classmethod
    def of(cls, source: Trace | Store | TraceSource, trace_id: str | None = None
           ) -> TraceSource:
        """From a ``Trace``, or a ``Store`` and a trace id (or a unique prefix of one)."""
        if isinstance(source, TraceSource):
            return source
        if isinstance(source, Trace):
            if trace_id is not None and trace_id != source.trace_id:
                raise UsageError(f"trace_id {trace_id!r} given with a Trace of "
                                 f"{source.trace_id}", hint="pass a Store to look a trace up")
            return cls(source.trace_id, _light(source), None, source)
        if isinstance(source, Store):
            if not trace_id:
                raise UsageError("a Store needs a trace id", hint="TraceView(store, '4bf92f35')")
            tid = source.resolve_trace_id(trace_id)
            table = source.sql(f"SELECT {_LIGHT_SQL} FROM events WHERE trace_id = ? "
                               "ORDER BY seq", [tid])
            return cls(tid, table, source)
        raise UsageError(f"cannot show a {type(source).__name__}",
                         hint="pass a workbench Trace, or a Store and a trace id")

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def trace(self) -> Trace:
        """The whole trace as a ``Trace`` (rules and the minimizer walk one)."""
        if self._trace is None:
            assert self.store is not None
            self._trace = self.store.trace(self.trace_id)
        return self._trace

    def event(self, event_id: str) -> Event:
        """The full event; ``NotFoundError`` when the trace has no such event."""
        if self._trace is not None:
            if event_id not in self._trace:
                raise _missing(self.trace_id, event_id)
            return self._trace[event_id]
        assert self.store is not None
        rows = self.store.sql("SELECT * FROM events WHERE trace_id = ? AND event_id = ?",
                              [self.trace_id, event_id]).to_pylist()
        if not rows:
            raise _missing(self.trace_id, event_id)
        return Event.from_row(rows[0])

    def meta(self) -> dict[str, Any]:
        """The trace's row of the traces table (empty for a trace built in memory)."""
        if self._trace is not None:
            return dict(self._trace.meta)
        assert self.store is not None
        rows = self.store.sql("SELECT * FROM traces WHERE trace_id = ?",
                              [self.trace_id]).to_pylist()
        return rows[0] if rows else {}


def _light(trace: Trace) -> pa.Table:
    """The light columns of an in-memory trace (no JSON serialized)."""
    schema = pa.schema([EVENTS.field(c) for c in LIGHT])
    return pa.table({c: [getattr(e, c) for e in trace.events] for c in LIGHT}, schema=schema)


def _missing(trace_id: str, event_id: str) -> NotFoundError:
    return NotFoundError(f"trace {trace_id} has no event {event_id!r}", code="EVENT_NOT_FOUND",
                         hint="pick an event id from the view's table")
