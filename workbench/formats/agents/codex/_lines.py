"""What the two Codex readers share: a file of JSON lines, each added in file order to
the stream that becomes the file's one trace, and the objects a sniff finds in the
file's head."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from ....model import JSONDecodeError, loads
from ..._adapter import RawEvent, SourceFile, TraceInfo, malformed
from ..._decode import iter_json_lines

__all__ = ["LineStream", "head_objects", "read_lines"]

#: how many of the head's lines a sniff reads
_HEAD_LINES = 50


class LineStream(Protocol):
    """The records of one file becoming one trace (a rollout, an exec stream)."""

    def add(self, n: int, rec: Any) -> None: ...

    def finish(self) -> Iterator[RawEvent | TraceInfo]: ...


def read_lines(source: SourceFile, stream: LineStream) -> Iterator[RawEvent | TraceInfo]:
    """Each line of ``source`` added to ``stream`` (an odd value refused as that line's),
    then the trace the stream became."""
    for n, rec in iter_json_lines(source):
        with malformed(source, f"line {n}"):
            stream.add(n, rec)
    yield from stream.finish()


def head_objects(source: SourceFile) -> list[dict[str, Any] | None]:
    """The head's first lines, each the JSON object it holds, else None (a blank line, a
    value that is no object, the head's last line, which is usually cut)."""
    return [_object(raw) for raw in source.head.split(b"\n")[:_HEAD_LINES]]


def _object(raw: bytes) -> dict[str, Any] | None:
    try:
        value = loads(raw) if raw.strip() else None
    except JSONDecodeError:
        return None
    return value if type(value) is dict else None
