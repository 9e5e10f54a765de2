"""Paths into JSON values: ``args.project_id``, ``result.items[0].id``, ``items[*].id``.

Syntax: names joined by dots; ``[n]`` indexes a list (negative counts from the end);
``[*]`` is every item of a list (or every value of an object); ``["a.b"]`` names a key
that itself holds dots or brackets. OpenTelemetry attributes are flat maps with dotted
keys, so a plain dotted run such as ``attrs.gen_ai.tool.name`` also matches the key
``"gen_ai.tool.name"`` when the object has no ``gen_ai`` key (longest key first).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ._errors import PathSyntaxError

__all__ = ["STAR", "Path", "format_path", "parse_path", "segment_text"]


class _Star:
    """The one ``[*]`` segment; tested with ``is``, so it pickles (and copies) by name:
    a rule shipped to another process must come back holding this very object."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "STAR"

    def __reduce__(self) -> str:
        return "STAR"


STAR = _Star()
Segment = str | int | _Star

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<name>[A-Za-z_$@\-][\w$@\-]*|\d+[A-Za-z_][\w\-]*)   # name
      | \[(?P<index>-?\d+)\]                                  # [n]
      | \[(?P<star>\*)\]                                      # [*]
      | \[(?P<q>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\]        # ["key"]
      | (?P<dot>\.)
      | (?P<qname>"(?:[^"\\]|\\.)*")                           # "key" after a dot
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Path:
    """A parsed path: a tuple of segments (key, index or STAR)."""

    segments: tuple[Segment, ...]
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def root(self) -> Segment | None:
        return self.segments[0] if self.segments else None

    @property
    def has_star(self) -> bool:
        return any(s is STAR for s in self.segments)

    def tail(self) -> Path:
        """The path without its first segment."""
        return Path(self.segments[1:], format_path(self.segments[1:]))

    def values(self, value: Any) -> list[Any]:
        """Every value the path reaches in ``value`` (empty when it reaches none)."""
        return [v for _, v in self.find(value)]

    def first(self, value: Any, default: Any = None) -> Any:
        for _, v in self.find(value):
            return v
        return default

    def find(self, value: Any) -> Iterator[tuple[tuple[str | int, ...], Any]]:
        """Yield ``(concrete segments, value)`` for every match, in document order."""
        yield from _walk(value, self.segments, 0, ())


def _unquote(q: str) -> str:
    body = q[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def parse_path(text: str) -> Path:
    """Parse a path; raises ``PathSyntaxError`` naming the position on bad syntax."""
    if not isinstance(text, str) or not text.strip():
        raise PathSyntaxError(f"empty path {text!r}")
    segments: list[Segment] = []
    pos = 0
    expect_name = True
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise PathSyntaxError(f"bad path {text!r} at character {pos + 1}")
        if m.group("dot") is not None:
            if expect_name:
                raise PathSyntaxError(f"bad path {text!r}: empty name at character {pos + 1}")
            expect_name = True
        elif m.group("name") is not None or m.group("qname") is not None:
            if not expect_name:
                raise PathSyntaxError(f"bad path {text!r}: missing '.' at character {pos + 1}")
            name = m.group("name")
            segments.append(name if name is not None else _unquote(m.group("qname")))
            expect_name = False
        else:
            if expect_name and segments:
                raise PathSyntaxError(f"bad path {text!r}: '.[' at character {pos + 1}")
            if m.group("index") is not None:
                segments.append(int(m.group("index")))
            elif m.group("star") is not None:
                segments.append(STAR)
            else:
                segments.append(_unquote(m.group("q")))
            expect_name = False
        pos = m.end()
    if expect_name:
        raise PathSyntaxError(f"bad path {text!r}: it ends with '.'")
    return Path(tuple(segments), text.strip())


_PLAIN = re.compile(r"^[A-Za-z_$@\-][\w$@\-]*$")


# the rendered piece of each str key seen (".name" or '["odd key"]'), so that the regex
# runs once per distinct key; bounded, since keys can be data
_PIECES: dict[str, str] = {}
_MAX_PIECES = 1 << 16


def _quoted(s: object) -> str:
    escaped = str(s).replace("\\", "\\\\").replace('"', '\\"')
    return f'["{escaped}"]'


def _piece(s: str) -> str:
    p = _PIECES.get(s)
    if p is None:
        p = "." + s if _PLAIN.match(s) else _quoted(s)
        if len(_PIECES) >= _MAX_PIECES:
            _PIECES.clear()
        _PIECES[s] = p
    return p


def segment_text(s: Segment | str | int) -> str:
    """One segment as ``format_path`` renders it after the first (``.name``, ``[3]``,
    ``["odd key"]``, ``[*]``)."""
    if type(s) is str:
        return _piece(s)
    if s is STAR:
        return "[*]"
    if isinstance(s, int):
        return f"[{s}]"
    if isinstance(s, str) and _PLAIN.match(s):
        return "." + s
    return _quoted(s)


def format_path(segments: tuple[Segment, ...] | tuple[str | int, ...]) -> str:
    """Render segments back to path text (``result.items[3].id``)."""
    text = "".join([_piece(s) if type(s) is str else segment_text(s) for s in segments])
    # only a plain name renders with a leading dot, which the first segment drops
    return text[1:] if text[:1] == "." else text


def _walk(value: Any, segs: tuple[Segment, ...], i: int,
          done: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if i == len(segs):
        yield done, value
        return
    seg = segs[i]
    if isinstance(seg, _Star):
        if isinstance(value, list):
            for k, item in enumerate(value):
                yield from _walk(item, segs, i + 1, (*done, k))
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from _walk(item, segs, i + 1, (*done, key))
    elif isinstance(seg, int):
        if isinstance(value, list) and -len(value) <= seg < len(value):
            k = seg % len(value)
            yield from _walk(value[k], segs, i + 1, (*done, k))
    elif isinstance(value, dict):
        if seg in value:
            yield from _walk(value[seg], segs, i + 1, (*done, seg))
            return
        # flat dotted keys (OTel attributes): longest run of plain names first
        j = i + 1
        while j < len(segs) and isinstance(segs[j], str):
            j += 1
        for end in range(j, i + 1, -1):
            key = ".".join(str(s) for s in segs[i:end])
            if key in value:
                yield from _walk(value[key], segs, end, (*done, key))
                return
