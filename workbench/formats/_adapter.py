"""What adapters read and what they yield.

An adapter maps one source format onto the event model. It reads a ``SourceFile`` and
yields ``RawEvent`` (one per event, in the order the file has them) and, optionally,
``TraceInfo`` (trace-level metadata). The pipeline does the rest: ``seq`` from
recording order, data-flow refs, orphan flags, size limits, staging and the commit.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ..model import InputError, NotFoundError

__all__ = ["Adapter", "RawEvent", "SourceFile", "TraceInfo", "open_source"]

_HEAD = 1 << 16  # bytes of a file's head that detection sees


@dataclass(slots=True)
class RawEvent:
    """One event as an adapter reads it. JSON fields hold Python values, not text.

    ``seq`` and ``refs`` stay None unless the source states them (our own JSONL);
    the pipeline then keeps them instead of deriving them.
    """

    trace_id: str
    event_id: str
    parent_id: str | None
    kind: str
    name: str
    start_ns: int | None = None
    end_ns: int | None = None
    status: str = "unset"
    args: Any = None
    result: Any = None
    error: dict[str, Any] | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    seq: int | None = None
    refs: list[dict[str, str]] | None = None


@dataclass(slots=True)
class TraceInfo:
    """Trace-level metadata an adapter found. Later values for a trace fill gaps only,
    except ``tools`` and ``attrs``, which merge."""

    trace_id: str
    root_task: str | None = None
    tools: list[Any] = field(default_factory=list)
    versions: dict[str, Any] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest: its path as the user named it, its hash and its first bytes."""

    path: Path
    sha256: str
    size: int
    head: bytes  # up to the first 64 KiB, for detection
    start: int = 0  # a byte range of a line-based file, read by one worker
    end: int | None = None

    @property
    def display(self) -> str:
        return str(self.path)

    def part(self, start: int, end: int) -> SourceFile:
        """The lines that begin in ``[start, end)`` (both at line starts)."""
        return replace(self, start=start, end=end)


class Adapter(Protocol):
    """A source format. ``name`` is what ``--format`` takes."""

    name: str

    def sniff(self, source: SourceFile) -> int:
        """How sure (0-100) this adapter is that it can read the file, from its head."""
        ...

    # Optional: ``file_order = True`` when the format lists events in the order they
    # happened (transcripts, logs, recordings): seq then follows the file, not the start
    # times (which such sources often share, or lack for some events).
    #
    # Optional: ``splittable(source) -> bool``, true when ``read`` works on a byte range
    # of the file (``source.part``) because the format is line-based; the pipeline then
    # reads large files with several processes.

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        """Yield the file's events (and trace metadata) in file order.

        Raise ``InvalidTraceError`` (or another ``InputError``) for a file this format
        cannot read; never let a ``KeyError`` or ``TypeError`` escape on odd input.
        """
        ...


def open_source(path: str | os.PathLike[str]) -> SourceFile:
    """Hash a file and read its head; errors name the file."""
    p = Path(path)
    if not p.exists():
        raise NotFoundError(f"no such file: {p}", code="FILE_NOT_FOUND",
                            hint="check the path", file=str(p))
    if not p.is_file():
        raise InputError(f"{p} is not a regular file", code="NOT_A_FILE", file=str(p))
    h = hashlib.sha256()
    head = b""
    size = 0
    try:
        with open(p, "rb") as f:
            while chunk := f.read(1 << 20):
                if not head:
                    head = chunk[:_HEAD]
                h.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror}", code="UNREADABLE",
                         file=str(p)) from None
    return SourceFile(p, h.hexdigest(), size, head)
