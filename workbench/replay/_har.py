"""An attempt's exchanges as a HAR document: what ``ingest`` reads (redaction on), so a
replay is recorded through the store's one write path like any recording."""

from __future__ import annotations

from ..invariants import har_entry
from ..model import dumps
from ._send import Attempt

__all__ = ["har_of"]


def har_of(attempt: Attempt, comment: str) -> bytes:
    entries = []
    for x, raw, url in zip(attempt.exchanges, attempt.raw, attempt.urls, strict=True):
        body = (x.body if isinstance(x.body, str) else dumps(x.body)) if x.has_body else None
        entries.append(har_entry(x, url, raw, body))
    return dumps({"log": {"version": "1.2", "creator": {"name": "workbench replay",
                                                         "version": "1"},
                          "comment": comment, "entries": entries}}).encode()
