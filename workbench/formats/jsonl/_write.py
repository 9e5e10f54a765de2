"""Writing our own JSONL: the store's rows, one event per line, read back by ``_read``.

The first line ``{"format": "workbench-events", "version": 1}`` names the format; every
other line is an event whose ``args``/``result``/``error``/``attrs`` are JSON values
(not JSON text), so ``ingest`` reads the file back to the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

from ...model import dumps_bytes, loads

__all__ = ["HEADER", "write_jsonl"]

HEADER: dict[str, Any] = {"format": "workbench-events", "version": 1}


def write_jsonl(rows: Iterable[dict[str, Any]], out: IO[bytes]) -> int:
    """Write store rows (JSON columns as text) as our JSONL; the number of events back."""
    out.write(dumps_bytes(HEADER) + b"\n")
    n = 0
    for row in rows:
        obj = {
            "trace_id": row["trace_id"], "event_id": row["event_id"],
            "parent_id": row.get("parent_id"), "seq": row["seq"], "kind": row["kind"],
            "name": row["name"], "start_ns": row.get("start_ns"), "end_ns": row.get("end_ns"),
            "status": row["status"],
            "args": loads(row["args"]) if row.get("args") is not None else None,
            "result": loads(row["result"]) if row.get("result") is not None else None,
            "error": loads(row["error"]) if row.get("error") is not None else None,
            "attrs": loads(row["attrs"]) if row.get("attrs") else {},
            "refs": [dict(r) for r in row.get("refs") or ()],
        }
        out.write(dumps_bytes(obj) + b"\n")
        n += 1
    return n
