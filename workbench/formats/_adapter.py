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
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO, Protocol

from ..model import (
    EncodingError,
    InputError,
    InvalidJSONError,
    InvalidTraceError,
    JSONDecodeError,
    LimitExceededError,
    NotFoundError,
    UnrecognizedFormatError,
    loads,
)

__all__ = ["ODD_VALUE_ERRORS", "Adapter", "RawEvent", "SourceFile", "TraceInfo", "invalid",
           "malformed", "not_json_constant", "open_source", "unrecognised"]

#: what Python raises when a reader meets a value of an unexpected type or shape
ODD_VALUE_ERRORS = (KeyError, TypeError, AttributeError, IndexError, ValueError)

_HEAD = 1 << 16  # bytes of a file's head that detection sees
#: how far the head reaches past ``_HEAD`` to hold a whole first line (a JSONL line of a
#: long prompt); a first line longer than that is said to be, not guessed at
FIRST_LINE_MAX = 1 << 20
_BOM = b"\xef\xbb\xbf"
#: byte order marks of encodings other than UTF-8, by the name a message gives them
OTHER_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
              (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


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
    head: bytes  # up to the first 64 KiB (without a UTF-8 BOM), for detection
    start: int = 0  # a byte range of a line-based file, read by one worker
    end: int | None = None
    bom: bool = False  # the file opens with a UTF-8 byte order mark, which readers skip

    @property
    def display(self) -> str:
        return str(self.path)

    @property
    def body_start(self) -> int:
        """Where the text begins: after a UTF-8 byte order mark, if there is one."""
        return len(_BOM) if self.bom else 0

    @property
    def text_size(self) -> int:
        """The size of the text: ``size`` without the byte order mark (``head`` is the
        whole text when it is this long)."""
        return self.size - self.body_start

    def read_bytes(self) -> bytes:
        """The whole file, without its byte order mark."""
        data = self.path.read_bytes()
        return data[len(_BOM):] if self.bom and data.startswith(_BOM) else data

    def open(self) -> BinaryIO:
        """The file opened for reading in binary, positioned after its byte order mark."""
        f = open(self.path, "rb")  # noqa: SIM115 - the caller closes it
        if self.bom:
            f.seek(len(_BOM))
        return f

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
                    head = _first_line_head(chunk)
                h.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror}", code="UNREADABLE",
                         file=str(p)) from None
    bom = head.startswith(_BOM)
    return SourceFile(p, h.hexdigest(), size, head[len(_BOM):] if bom else head, bom=bom)


def _first_line_head(chunk: bytes) -> bytes:
    """The head detection sees: the first ``_HEAD`` bytes, or more, up to the end of
    the first line, when that line is longer (within ``FIRST_LINE_MAX``)."""
    head = chunk[:_HEAD]
    if b"\n" in head or len(chunk) <= _HEAD:
        return head
    nl = chunk.find(b"\n", _HEAD, FIRST_LINE_MAX)
    return chunk[:nl + 1] if nl >= 0 else chunk[:FIRST_LINE_MAX]


_CONSTANT = re.compile(rb"(?<![\w\"])-?(NaN|Infinity)(?![\w\"])")


def not_json_constant(data: bytes, pos: int | None = None) -> str | None:
    """``NaN is not a JSON value …`` when ``data`` holds a bare ``NaN`` or
    ``Infinity`` (what Python's and JavaScript's serialisers write for a float JSON
    has no spelling of) where parsing stopped (``pos``, when known), else None."""
    window = data[:1 << 20] if pos is None else data[max(0, pos - 12):pos + 12]
    bad = _CONSTANT.search(window)
    return (f"{bad.group(1).decode()} is not a JSON value (write null, or the number as "
            "a string)") if bad else None


#: how the first line of a pretty-printed JSON document ends
_OPENERS = (b"{", b"[", b",", b":")


_CONTROL = bytes(c for c in range(32) if c not in b"\t\n\r\f")


def _binary(head: bytes) -> bool:
    """Whether a head is binary data, not text in some encoding: a NUL, or more than
    one byte in a hundred a control character."""
    return b"\x00" in head or len(head.translate(None, _CONTROL)) < len(head) * 0.99


def unrecognised(source: SourceFile) -> InputError | None:
    """Why no format recognises a file, when its head says more than "unknown": text
    in another encoding (``INVALID_ENCODING``, naming the line and byte; binary data,
    with NULs or control characters, stays unknown), a first line
    or a whole document that starts like JSON and is not (``INVALID_JSON``, naming a
    ``NaN`` or ``Infinity``), or a first line longer than detection reads."""
    head, where = source.head, source.display
    for mark, name in OTHER_BOMS:
        if head.startswith(mark):
            return EncodingError(f"{where}: {name} text (a {name} byte order mark opens "
                                 "it); trace files are UTF-8", file=where,
                                 hint=f"convert it: iconv -f {name} -t UTF-8")
    whole = len(head) >= source.text_size
    if _binary(head):
        return None  # an archive, an image: no text at all, so no format is all it is
    try:  # a character the head cuts in two is no error
        (head if whole else head[:max(0, len(head) - 3)]).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = head.count(b"\n", 0, exc.start) + 1
        return EncodingError(f"{where}: line {line} is not UTF-8 (byte 0x{head[exc.start]:02x}"
                             f" at offset {exc.start + source.body_start})", file=where,
                             line=line)
    text = head.lstrip()
    if text[:1] not in (b"{", b"["):
        return None
    first, nl, _ = text.partition(b"\n")
    if not nl and not whole:
        return UnrecognizedFormatError(
            f"{where}: its first line is longer than {FIRST_LINE_MAX:,} bytes, more than "
            "format detection reads", file=where,
            hint="name the format with --format (docs/formats.md)")
    for part, what in ((first, "line 1"), (text, "the document") if whole else (b"", "")):
        if not part:
            continue
        try:
            loads(part)
        except LimitExceededError as exc:
            return exc.at(where, 1 if what == "line 1" else None)
        except JSONDecodeError as exc:
            bad = not_json_constant(part, getattr(exc, "pos", None))
            why = bad or getattr(exc, "msg", str(exc)).split("\n")[0]
            # a first line such as `{` opens a document of many lines: the document
            # (when the head holds it all) says whether it is JSON
            if not bad and nl and what == "line 1" and first.rstrip().endswith(_OPENERS):
                if not whole:
                    return None
                continue
            if bad or what == "the document" or nl:
                return InvalidJSONError(f"{where}: {what} starts like JSON but is not: {why}",
                                        file=where, line=1 if what == "line 1" else None)
            continue
        return None  # JSON, of a shape no format knows
    return None
