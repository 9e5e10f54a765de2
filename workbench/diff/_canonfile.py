"""Canon files: what canonicalization drops and symbolizes, as reviewed patterns.

A canon file is reviewed like an API: dropping ``generated_at`` is fine, dropping
``balance`` hides the bug. So nothing is dropped that the file does not list::

    version: 1
    drop: [generated_at, request_id, "items[*].updated_at", "**.trace_id"]
    symbolize: ["*.id", "*_id"]

Patterns are paths (``docs/diff.md``): names joined by dots, ``[n]``, ``[*]`` (any item
of a list or value of an object), a name may hold ``*``/``?`` globs (``*_id``) and
``**`` stands for any number of levels; a lone ``*`` is any one key or index. ``drop``
patterns are anchored at the root of the document (``generated_at`` is the top-level key
only; ``**.generated_at`` is every one). ``symbolize`` patterns match the end of a path
at any depth (``*_id`` is every key ending in ``_id``), because renaming keeps equality
and loses nothing a reviewer needs.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import ConfigError, ConfigFile, Node

__all__ = ["DEEP", "Canon", "CanonError", "Pattern", "Token", "load_canon", "parse_canon",
           "parse_pattern", "token_matches"]


class CanonError(ConfigError):
    code = "CANON_INVALID"
    default_hint = "a canon file is `version: 1` with `drop:` and `symbolize:` lists of paths"


DEEP = ("deep",)
_ANY = ("any",)
Token = tuple[Any, ...]  # ("name", text, is_glob) | ("index", n) | _ANY | DEEP

_TOKEN = re.compile(r"""
    (?P<deep>\*\*)(?=\.|\[|$)
  | (?P<name>[^.\[\]"']+)
  | \[(?P<index>\d+)\]
  | \[(?P<star>\*)\]
  | \[(?P<q>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\]
  | (?P<dot>\.)
""", re.VERBOSE)


@dataclass(frozen=True)
class Pattern:
    """A parsed canon pattern."""

    text: str
    tokens: tuple[Token, ...]


def parse_pattern(text: str) -> Pattern:
    """Parse a canon pattern; raises ``CanonError`` naming the position."""
    if not isinstance(text, str) or not text.strip():
        raise CanonError(f"empty pattern {text!r}")
    tokens: list[Token] = []
    pos, need_name = 0, True
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise CanonError(f"bad pattern {text!r} at character {pos + 1}")
        if m.group("dot"):
            if need_name:
                raise CanonError(f"bad pattern {text!r}: empty name at character {pos + 1}")
            need_name = True
        elif m.group("deep") or m.group("name"):
            if not need_name:
                raise CanonError(f"bad pattern {text!r}: missing '.' at character {pos + 1}")
            name = m.group("name")
            if m.group("deep"):
                tokens.append(DEEP)
            elif name.strip() != name:
                raise CanonError(f"bad pattern {text!r}: space around a name")
            else:
                tokens.append(("name", name, any(c in name for c in "*?")))
            need_name = False
        else:
            if need_name and tokens:
                raise CanonError(f"bad pattern {text!r}: '.[' at character {pos + 1}")
            if m.group("index") is not None:
                tokens.append(("index", int(m.group("index"))))
            elif m.group("star"):
                tokens.append(_ANY)
            else:
                q = m.group("q")
                tokens.append(("name", re.sub(r"\\(.)", r"\1", q[1:-1]), False))
            need_name = False
        pos = m.end()
    if need_name:
        raise CanonError(f"bad pattern {text!r}: it ends with '.'")
    return Pattern(text, tuple(tokens))


def token_matches(tok: Token, seg: str | int) -> bool:
    kind = tok[0]
    if kind == "name":
        if tok[1] == "*":
            return True  # a whole-segment ``*``: any key or index
        if not isinstance(seg, str):
            return False
        return bool(fnmatch.fnmatchcase(seg, tok[1]) if tok[2] else seg == tok[1])
    if kind == "index":
        return isinstance(seg, int) and seg == int(tok[1])
    return bool(kind == "any")


@dataclass(frozen=True)
class Canon:
    """What canonicalization drops and symbolizes. ``Canon()`` only sorts keys."""

    drop: tuple[Pattern, ...] = ()
    symbolize: tuple[Pattern, ...] = ()
    source: str = "<canon>"
    _patterns: tuple[tuple[Token, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # drop patterns are anchored; symbolize patterns float (a leading ``**``)
        pats = tuple(p.tokens for p in self.drop) + tuple(
            (DEEP, *p.tokens) for p in self.symbolize)
        object.__setattr__(self, "_patterns", pats)

    @classmethod
    def of(cls, drop: list[str] | tuple[str, ...] = (),
           symbolize: list[str] | tuple[str, ...] = ()) -> Canon:
        """A canon from pattern texts (the Python form of a canon file)."""
        return cls(tuple(parse_pattern(p) for p in drop),
                   tuple(parse_pattern(p) for p in symbolize))

    @property
    def empty(self) -> bool:
        return not self.drop and not self.symbolize

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "drop": [p.text for p in self.drop],
                "symbolize": [p.text for p in self.symbolize]}


# -- the file -------------------------------------------------------------------------

_FILE = ConfigFile("canon file", CanonError, keys=("drop", "symbolize"),
                   shape="a canon file is a mapping with version, drop, symbolize")


def load_canon(path: str | os.PathLike[str]) -> Canon:
    """Read and check a canon file."""
    return parse_canon(_FILE.read(path), source=str(Path(path)))


def parse_canon(text: str, source: str = "<canon>") -> Canon:
    """Check a canon file given as YAML text; errors name the file and the line."""
    doc = _FILE.parse(text, source)
    drop, symbolize = (_patterns(doc.get(key), key) for key in ("drop", "symbolize"))
    return Canon(drop, symbolize, source)


def _patterns(node: Node | None, key: str) -> tuple[Pattern, ...]:
    if node is None or (node.kind == "scalar" and node.value in (None, "")):
        return ()
    if node.kind != "sequence":
        raise node.error(f"{key} must be a list of paths")
    out = []
    for item in node.items():
        if item.text is None:
            raise item.error(f"{key} items must be paths")
        try:
            out.append(parse_pattern(item.text))
        except CanonError as exc:
            raise item.error(exc.message) from None
    return tuple(out)
