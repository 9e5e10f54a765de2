"""``read_trace``: a trace file as ``Trace`` objects, without touching the user's store.

The file goes through the very pipeline ``ingest`` runs — format detection, the
adapter, recording order, data-flow refs, flags — into a throwaway store in a
temporary folder, which is read back and removed. One code path means a file diffed
directly and the same file ingested first give the same events. Not redacted unless
the caller gives a ``key``: ``diff`` gives both files one key (the store's, or one made
for the run), so a value gets the same token in both and what a diff prints is what
the store would hold. One file is all or nothing: a file that cannot be read, or that
holds tool definitions (``TOOL_DEFINITION``), raises as ``workbench ingest FILE`` does.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..formats import open_source
from ..model import Trace
from ..store import Store
from ._pipeline import ingest

__all__ = ["read_trace"]


def read_trace(path: str | os.PathLike[str], *, format: str = "auto",
               key: bytes | None = None) -> list[Trace]:
    """Every trace of one file, in the order of their ids (redacted under ``key``)."""
    open_source(path)  # names a missing or unreadable file before any work
    with tempfile.TemporaryDirectory(prefix="workbench-read-") as tmp:
        store = Store(Path(tmp) / "store")
        result = ingest([path], store, format=format, workers=1,
                        redact=key if key is not None else False, strict=True)
        ids = sorted(t.trace_id for t in result.traces)
        traces = store.traces(ids)
        return [traces[i] for i in ids]
