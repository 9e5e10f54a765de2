"""Writing our own JSONL: the store's rows, one event per line, read back by ``_read``.

The first line ``{"format": "workbench-events", "version": 1}`` names the format; every
other line is an event whose ``args``/``result``/``error``/``attrs`` are JSON values
(not JSON text), so ``ingest`` reads the file back to the same rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

from ...model import dumps_bytes, event_dict

__all__ = ["HEADER", "write_jsonl"]

HEADER: dict[str, Any] = {"format": "workbench-events", "version": 1}


def write_jsonl(rows: Iterable[dict[str, Any]], out: IO[bytes]) -> int:
    """Write store rows (JSON columns as text) as our JSONL; the number of events back."""
    out.write(dumps_bytes(HEADER) + b"\n")
    n = 0
    for row in rows:
        out.write(dumps_bytes(event_dict(row)) + b"\n")
        n += 1
    return n
