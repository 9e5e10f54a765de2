"""Writing a minimized trace: into the store (linked to its source) and as JSONL.

The store gets one committed batch holding the trace's events and its ``traces`` row,
whose ``derived_from`` names the source trace and whose ``attrs.minimized`` holds the
rule, the signature, the figures and each kept event's original step. Saving the same
result twice is a no-op; a different result under the same derived id (another
oracle, say) is refused with ``TRACE_EXISTS`` rather than silently replaced.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..formats import write_jsonl
from ..model import TRACES, TraceExistsError, trace_row
from ..store import Store, atomic_open
from ._minimize import MinimizeResult

__all__ = ["save_result", "write_result"]


def save_result(store: Store, result: MinimizeResult) -> bool:
    """Store the minimized trace; False when the store already holds this very result."""
    tid = result.trace_id
    if store.exists and tid in store.trace_ids():
        return _same_or_refuse(store, result)
    with store.stage() as batch:
        batch.write("events", result.trace.to_arrow())
        batch.write("traces", pa.Table.from_pylist([_trace_row(result, batch.id)],
                                                   schema=TRACES))
        try:
            batch.commit(trace_ids=[tid])
        except TraceExistsError:  # another process stored it meanwhile
            return _same_or_refuse(store, result)
    return True


def _same_or_refuse(store: Store, result: MinimizeResult) -> bool:
    stored = store.sql("SELECT event_id FROM events WHERE trace_id = ? ORDER BY seq",
                       [result.trace_id]).column("event_id").to_pylist()
    if stored == list(result.kept_event_ids):
        return False
    raise TraceExistsError(
        f"the store already holds a different minimization {result.trace_id} of "
        f"{result.source.trace_id[:12]} for this finding ({len(stored)} events, this run "
        f"kept {len(result.kept_event_ids)})", trace_ids=[result.trace_id],
        hint="use --no-save (or --out F) to keep this result outside the store, or a "
             "fresh --store")


def _trace_row(result: MinimizeResult, batch_id: str) -> dict[str, Any]:
    meta = result.source.meta
    events = result.trace.events
    starts = [e.start_ns for e in events if e.start_ns is not None]
    ends = [e.end_ns for e in events if e.end_ns is not None]
    figures = {k: v for k, v in result.to_dict().items()
               if k in ("rule", "signature", "original_events", "kept_events",
                        "oracle_calls", "one_minimal", "candidates")}
    return trace_row(
        trace_id=result.trace_id, source_format="minimized",
        source_path=meta.get("source_path") or "",
        source_sha256=meta.get("source_sha256") or "", batch=batch_id, events=len(events),
        start_ns=min(starts) if starts else None, end_ns=max(ends) if ends else None,
        root_task=meta.get("root_task"), tools=meta.get("tools"),
        versions=meta.get("versions"), redaction=meta.get("redaction"),
        derived_from=result.source.trace_id, env=meta.get("env") or "default",
        attrs={"minimized": {**figures, "source_trace_id": result.source.trace_id,
                             "source_seqs": result.source_seqs}})


def write_result(result: MinimizeResult, path: str | os.PathLike[str]) -> int:
    """Write the minimized trace as workbench JSONL (temp file, then rename)."""
    with atomic_open(Path(path), mkdir=False) as f:
        return write_jsonl((e.to_row() for e in result.trace.events), f)
