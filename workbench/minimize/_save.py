"""Writing a minimized trace: into the store (linked to its source) and as JSONL.

The store gets one committed batch holding the trace's events and its ``traces`` row,
whose ``derived_from`` names the source trace and whose ``attrs.minimized`` holds the
rule, the signature, the finding (its step and witness event ids), the figures and each
kept event's original step. One stored minimization per finding: saving the same result
twice is a no-op; a different result for the same finding (another oracle, say) is
refused with ``TRACE_EXISTS`` rather than silently replaced.

A store written before minimizations recorded their finding may hold a later finding's
minimization under the id ``finding_trace_id`` gives the first finding of that
signature. ``stored_minimization`` therefore says whose a stored trace is from what it
records (or, in such an older row, from whether it kept every witness event of the
finding), and a finding whose id is taken by another finding's minimization is stored
under the id that adds its own identity (``derived_trace_id(..., finding)``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..formats import write_jsonl
from ..model import TRACES, TraceExistsError, loads, trace_row
from ..rules import Finding
from ..store import Store, output_path
from ._minimize import MinimizeResult, derive_trace, derived_trace_id

__all__ = ["place_result", "save_result", "stored_minimization", "write_result"]


def save_result(store: Store, result: MinimizeResult) -> bool:
    """Store the minimized trace; False when the store already holds this very result
    for this finding (``result`` then names the stored trace)."""
    if place_result(store, result, refuse=True):
        return False
    tid = result.trace_id
    with store.stage() as batch:
        batch.write("events", result.trace.to_arrow())
        batch.write("traces", pa.Table.from_pylist([_trace_row(result, batch.id)],
                                                   schema=TRACES))
        try:
            batch.commit(trace_ids=[tid])
        except TraceExistsError:  # another process stored it meanwhile
            if place_result(store, result, refuse=True):
                return False
            raise
    return True


def place_result(store: Store, result: MinimizeResult, *, refuse: bool = False) -> bool:
    """Give ``result`` the id its finding's minimization has, or would get, in ``store``;
    True when the store already holds this very result. With ``refuse``, a different
    stored minimization of the same finding is ``TRACE_EXISTS``."""
    f = result.finding
    if not store.exists:
        return False
    if f is None:  # no finding to own it (minimize_trace): the id alone decides
        stored = _events(store, result.trace_id)
        if stored is None:
            return False
        return _same_or_refuse(result, result.trace_id, stored, refuse)
    tid = stored_minimization(store, result.source.trace_id, f.rule, f.signature, f.seq,
                              f.event_ids)
    if tid is not None:
        stored = _events(store, tid)
        if stored == list(result.kept_event_ids):
            _rekey(result, tid)
            return True
        return _same_or_refuse(result, tid, stored or [], refuse)
    if result.trace_id in store.trace_ids():  # another finding's (an older store's) id
        _rekey(result, derived_trace_id(result.source.trace_id, f.rule, f.signature, f))
    return False


def stored_minimization(store: Store, source_id: str, rule: str, signature: str,
                        seq: int | None, event_ids: Sequence[str]) -> str | None:
    """The id of the minimized trace stored for this finding of ``rule`` in
    ``source_id``, or None: a trace that records this finding, or (written before
    minimizations recorded theirs) one of this rule and signature that kept every
    witness event of it."""
    if not store.exists:
        return None
    f = Finding(rule, "", source_id, tuple(event_ids), seq, "", "")
    ids = [derived_trace_id(source_id, rule, signature, f),
           derived_trace_id(source_id, rule, signature)]
    rows = {r["trace_id"]: r for r in store.sql(
        "SELECT trace_id, attrs FROM traces WHERE trace_id IN (?, ?)", ids).to_pylist()}
    for tid in ids:
        row = rows.get(tid)
        attrs = loads(row["attrs"]) if row and row["attrs"] else None
        meta = attrs.get("minimized") if isinstance(attrs, dict) else None
        if not isinstance(meta, dict) or (meta.get("rule"), meta.get("signature")) != (
                rule, signature):
            continue
        own = meta.get("finding")
        if isinstance(own, dict):
            if own.get("event_ids") == list(event_ids) and own.get("seq") == seq:
                return tid
        elif set(event_ids) <= set(_events(store, tid) or ()):
            return tid
    return None


def _events(store: Store, tid: str) -> list[str] | None:
    if tid not in store.trace_ids():
        return None
    return list(store.sql("SELECT event_id FROM events WHERE trace_id = ? ORDER BY seq",
                          [tid]).column("event_id").to_pylist())


def _rekey(result: MinimizeResult, tid: str) -> None:
    if tid != result.trace_id:
        result.trace = derive_trace(result.source, result.kept_event_ids, tid,
                                    result.source.meta)


def _same_or_refuse(result: MinimizeResult, tid: str, stored: list[str],
                    refuse: bool) -> bool:
    if stored == list(result.kept_event_ids):
        return True
    if not refuse:
        return False
    raise TraceExistsError(
        f"the store already holds a different minimization {tid} of "
        f"{result.source.trace_id[:12]} for this finding ({len(stored)} events, this run "
        f"kept {len(result.kept_event_ids)})", trace_ids=[tid],
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
                             "source_seqs": result.source_seqs, **_finding(result.finding)}})


def _finding(f: Finding | None) -> dict[str, Any]:
    """The finding a minimization belongs to: what ``stored_minimization`` matches."""
    return {} if f is None else {"finding": {"seq": f.seq, "event_ids": list(f.event_ids)}}


def write_result(result: MinimizeResult, path: str | os.PathLike[str]) -> int:
    """Write the minimized trace as workbench JSONL (temp file, then rename)."""
    with output_path("--out", path).open() as f:
        return write_jsonl((e.to_row() for e in result.trace.events), f)
