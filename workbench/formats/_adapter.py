"""What adapters read and what they yield.

An adapter maps one source format onto the event model. It reads a ``SourceFile`` and
yields ``RawEvent`` (one per event, in the order the file has them) and, optionally,
``TraceInfo`` (trace-level metadata). The pipeline does the rest: ``seq`` from
recording order, data-flow refs, orphan flags, size limits, staging and the commit.

Odd values in a file (a number where an object belongs, a missing key) make Python
raise ``KeyError``, ``TypeError`` and the like deep inside an adapter; ``malformed``
is the one guard that turns them into ``INVALID_TRACE`` naming the part of the file
(``entry 3 is malformed: …``). The pipeline keeps a last guard around every adapter.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from ..model import InputError, InvalidTraceError, NotFoundError

__all__ = ["ODD_VALUE_ERRORS", "Adapter", "RawEvent", "SourceFile", "TraceInfo", "invalid",
           "malformed", "open_source"]

#: what Python raises when a reader meets a value of an unexpected type or shape
ODD_VALUE_ERRORS = (KeyError, TypeError, AttributeError, IndexError, ValueError)

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


class _Guard:
    """``malformed``'s context manager: a class, as it runs once per span or entry (a
    generator-based one costs twice as much)."""

    __slots__ = ("details", "source", "what")

    def __init__(self, source: SourceFile, what: str, details: dict[str, Any]) -> None:
        self.source, self.what, self.details = source, what, details

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is None or isinstance(exc, InputError) or not isinstance(exc, ODD_VALUE_ERRORS):
            return
        raise invalid(self.source, f"{self.what} is malformed: {exc}", **self.details) from None


def invalid(source: SourceFile, what: str, **details: Any) -> InvalidTraceError:
    """``INVALID_TRACE``: "FILE: WHAT", naming the file in its details too."""
    return InvalidTraceError(f"{source.display}: {what}", file=source.display, **details)


def malformed(source: SourceFile, what: str, **details: Any) -> _Guard:
    """The guard around reading ``what`` (``"entry 3"``, ``"the event stream"``) of
    ``source``: an ``ODD_VALUE_ERRORS`` error raised in the block becomes
    ``InvalidTraceError("FILE: WHAT is malformed: ERROR")`` with ``details`` (a hint,
    the index); an ``InputError`` raised on purpose passes as it is."""
    return _Guard(source, what, details)


def open_source(path: str | os.PathLike[str]) -> SourceFile:
    """Hash a file and read its head; errors name the file."""
    p = Path(path)
    if not p.exists():
        raise NotFoundError(f"no such file: {p}", code="FILE_NOT_FOUND",
                            hint="check the path", file=str(p))
    if not p.is_file():
        raise InputError(f"{p} is not a regular file", code="NOT_A_FILE", file=str(p),
                         hint="name a trace file (a folder is read by `workbench ingest`; "
                              "a device or a pipe is not read: save it to a file first)")
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
