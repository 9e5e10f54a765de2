"""The traces being received: journaled as they arrive, committed when idle.

Every accepted request's spans, redacted, are appended to the run's journal in the store
(``STORE/_journals/collect-RUN-SEQ-ENV.jsonl``: one OTLP/JSON document per trace and
request, the collector file exporter's JSONL) before the exporter gets its answer; the
lines of each open trace are also kept in memory. The journal is a segment: a new one is
started every ``SEGMENT_SECONDS`` or ``SEGMENT_BYTES``, and a segment is removed once
every trace with a line in it is committed. The run holds each segment open (its lock
says it is alive), so a handful of files are open whatever the number of traces.

A trace that has received nothing for ``idle`` seconds, every trace at shutdown, and the
least recently active ones when more than ``max_traces`` are open, are committed
together (``_commit``). A span arriving for a trace already committed (or already in the
store) is refused: a stored trace is never appended to. Segments a killed collector left
are read by the next one to start (``commit_orphans``): their lines grouped by trace,
the traces the store already holds left out, the rest committed in the environment the
segment's name records.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..formats import span_trace_ids
from ..model import loads
from ..store import Journal, Store
from ._commit import Committer, Note
from ._request import line

__all__ = ["PREFIX", "SEGMENT_BYTES", "SEGMENT_SECONDS", "Open", "Traces", "commit_orphans"]

PREFIX = "collect-"
SEGMENT_BYTES = 64 << 20
SEGMENT_SECONDS = 60.0


@dataclass
class Open:
    """A trace still receiving spans: its journal lines, and which segments hold them."""

    trace_id: str
    lines: list[bytes] = field(default_factory=list)
    spans: int = 0
    last: float = 0.0
    segments: set[int] = field(default_factory=set)


@dataclass
class _Segment:
    journal: Journal
    started: float
    size: int = 0
    traces: set[str] = field(default_factory=set)  # not committed yet


@dataclass
class Traces:
    """The open traces of one collector run, its journal segments, what was committed."""

    store: Store
    env: str
    idle: float
    max_traces: int
    note: Note
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    open: dict[str, Open] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)
    committed: list[str] = field(default_factory=list)
    spans_committed: int = 0
    spans_lost: int = 0
    _segments: dict[int, _Segment] = field(default_factory=dict)
    _seq: int = -1
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.closed = self.store.trace_ids() if self.store.exists else set()

    def is_closed(self, trace_id: str) -> bool:
        return trace_id in self.closed

    def _active(self, now: float) -> tuple[int, _Segment]:
        seg = self._segments.get(self._seq)
        if seg is None or seg.size >= SEGMENT_BYTES or now - seg.started >= SEGMENT_SECONDS:
            with self._lock:
                self._retire(self._seq)
                self._seq += 1
                seg = self._segments[self._seq] = _Segment(self.store.journal(
                    f"{PREFIX}{self.run}-{self._seq:06d}-{self.env}"), now)
        return self._seq, seg

    def add(self, items: dict[str, list[dict[str, Any]]], spans: dict[str, int],
            now: float) -> None:
        """Journal one request's spans (redacted already), one line per trace, in one
        write."""
        seq, seg = self._active(now)
        data = {tid: line(parts) for tid, parts in items.items()}
        seg.journal.append(b"".join(data.values()))
        with self._lock:
            for tid, raw in data.items():
                t = self.open.get(tid)
                if t is None:
                    t = self.open[tid] = Open(tid)
                t.lines.append(raw)
                t.spans += spans[tid]
                t.last = now
                t.segments.add(seq)
                seg.traces.add(tid)
                seg.size += len(raw)

    def due(self, now: float, *, everything: bool = False,
            most: int | None = None) -> list[Open]:
        """Take the traces to commit now (idle ones, the oldest past ``max_traces``, or
        all; ``most`` of them at most); their later spans are refused from here on."""
        if everything:
            out = list(self.open.values())
        else:
            out = [t for t in self.open.values() if now - t.last >= self.idle]
            extra = len(self.open) - len(out) - self.max_traces
            if extra > 0:
                rest = sorted((t for t in self.open.values() if now - t.last < self.idle),
                              key=lambda t: t.last)
                out += rest[:extra]
        out = out[:most]
        for t in out:
            del self.open[t.trace_id]
            self.closed.add(t.trace_id)
        return out

    def commit(self, batch: Sequence[Open], committer: Committer) -> None:
        """Commit the traces as one batch, then remove the segments no open trace needs
        (run in a thread)."""
        if not batch:
            return
        done = committer.commit([(t.trace_id, t.lines) for t in batch], self.env, self.note)
        for t in batch:
            if t.trace_id in done:
                self.committed.append(t.trace_id)
                self.spans_committed += t.spans
            else:
                self.spans_lost += t.spans
        with self._lock:
            for t in batch:
                for seq in t.segments:
                    seg = self._segments.get(seq)
                    if seg is not None:
                        seg.traces.discard(t.trace_id)
            for seq in [s for s, seg in self._segments.items()
                        if not seg.traces and s != self._seq]:
                self._retire(seq)

    def close(self) -> None:
        """Remove the last segments once nothing is open (after the final commit)."""
        with self._lock:
            for seq in list(self._segments):
                self._retire(seq)

    def _retire(self, seq: int) -> None:
        """Close and remove a segment no open trace needs (under the lock); one that is
        still needed stays open until its last trace is committed."""
        seg = self._segments.get(seq)
        if seg is None or seg.traces:
            return
        seg.journal.close()
        self.store.drop_journal(seg.journal.path)
        del self._segments[seq]


def commit_orphans(store: Store, note: Note) -> list[str]:
    """Commit what killed collectors left in their segments; the trace ids committed."""
    by_env: dict[str, dict[str, list[bytes]]] = {}
    segments: list[Path] = []
    have = store.trace_ids() if store.exists else set()
    for path in store.orphan_journals():
        if not path.name.startswith(PREFIX) or path.stem.count("-") < 3:
            continue
        segments.append(path)
        lines = by_env.setdefault(path.stem.split("-", 3)[3], {})
        with open(path, "rb") as f:
            for raw in f:
                tid = _trace_of(raw)
                if tid is not None and tid not in have:
                    lines.setdefault(tid, []).append(raw)
    done: list[str] = []
    if segments:
        committer = Committer(store, child=False)
        for env, traces in by_env.items():
            done += sorted(committer.commit(list(traces.items()), env, note))
        for path in segments:
            store.drop_journal(path)
    return done


def _trace_of(raw: bytes) -> str | None:
    """The trace id of a journal line (all its spans share it), as ingest reads it."""
    try:
        rs = loads(raw)["resourceSpans"][0]
        ss = rs["scopeSpans"][0]
        tid = span_trace_ids(rs.get("resource"), ss.get("scope") or {}, ss["spans"][:1])[0]
    except (LookupError, TypeError, ValueError):
        return None
    return tid if isinstance(tid, str) else None
