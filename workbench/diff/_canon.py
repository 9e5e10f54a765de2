"""Canonical JSON: volatile paths dropped, keys sorted, ids renamed to symbols.

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

Numbers are exact: ``canonical_bytes`` writes ``Decimal`` values (the shadow run parses
build output with them) in one normal form, so ``100`` and ``100.0`` stay different —
an integer that became a float is a change.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import yaml

from ..model import InputError

__all__ = ["Canon", "CanonError", "Pattern", "canonical_bytes", "canonicalize", "digest",
           "load_canon", "parse_canon", "parse_pattern"]


class CanonError(InputError):
    code = "CANON_INVALID"
    default_hint = "a canon file is `version: 1` with `drop:` and `symbolize:` lists of paths"


_DEEP = ("deep",)
_ANY = ("any",)
Token = tuple[Any, ...]  # ("name", text, is_glob) | ("index", n) | _ANY | _DEEP

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
                tokens.append(_DEEP)
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


def _token_matches(tok: Token, seg: str | int) -> bool:
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
            (_DEEP, *p.tokens) for p in self.symbolize)
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


# -- the walk -----------------------------------------------------------------------
# A state is a set of (pattern index, position); patterns below len(drop) drop, the rest
# symbolize. State sets are numbered and each state keeps its own table of transitions
# (key or index -> next state, what happens there), so walking a document costs one dict
# lookup per node once the keys have been seen. For hashing, an object's keys are sorted
# and stepped once per state and key tuple (a plan): objects of one shape share it.

State = frozenset[tuple[int, int]]
Step = tuple[int, int]                        # (next state, what happens to the value)
Plan = tuple[tuple[Any, int, int], ...]       # (key, next state, what), in sorted order
_DEAD = -1          # no pattern can match below: the rest is copied with sorted keys
_KEEP, _DROP, _SYM = 0, 1, 2
_CACHE = 200_000    # cached transitions and plan entries, at most
_ANY_INDEX = -1     # stands for every list index no pattern names (patterns name n >= 0)
SYMBOL_TEXT = "«id»"  # what a symbolized leaf hashes as, whatever it stands for


class _Walker:
    def __init__(self, canon: Canon, symbol: Callable[[Any], Any]) -> None:
        self.pats = canon._patterns
        self.ndrop = len(canon.drop)
        self.symbol = symbol
        self.sets: list[State] = []
        self.ids: dict[State, int] = {}
        self.tables: list[dict[str | int, Step]] = []
        self.plans: list[dict[tuple[Any, ...], Plan]] = []
        self.cached = 0
        # without ``[n]`` in any pattern every index of a list steps alike
        self.indexed = any(tok[0] == "index" for toks in self.pats for tok in toks)
        self.start = self._id(self._closure({(i, 0) for i in range(len(self.pats))}))

    def _id(self, states: State) -> int:
        if not states:
            return _DEAD
        sid = self.ids.get(states)
        if sid is None:
            sid = self.ids[states] = len(self.sets)
            self.sets.append(states)
            self.tables.append({})
            self.plans.append({})
        return sid

    def _closure(self, states: set[tuple[int, int]]) -> State:
        todo = list(states)
        out = set(states)
        while todo:
            i, pos = todo.pop()
            toks = self.pats[i]
            if pos < len(toks) and toks[pos] is _DEEP and (i, pos + 1) not in out:
                out.add((i, pos + 1))
                todo.append((i, pos + 1))
        return frozenset(out)

    def step(self, sid: int, seg: str | int) -> Step:
        """The state after ``seg`` and what happens to the value there."""
        hit = self.tables[sid].get(seg)
        return hit if hit is not None else self._step(sid, seg)

    def _step(self, sid: int, seg: str | int) -> Step:
        nxt: set[tuple[int, int]] = set()
        for i, pos in self.sets[sid]:
            toks = self.pats[i]
            if pos >= len(toks):
                continue
            tok = toks[pos]
            if tok is _DEEP:
                nxt.add((i, pos))
            elif _token_matches(tok, seg):
                nxt.add((i, pos + 1))
        closed = self._closure(nxt)
        ends = [i for i, pos in closed if pos == len(self.pats[i])]
        what = _DROP if any(i < self.ndrop for i in ends) else _SYM if ends else _KEEP
        out = (self._id(closed), what)
        if self.cached < _CACHE:
            self.tables[sid][seg] = out
            self.cached += 1
        return out

    def walk(self, value: Any, sid: int) -> Any:
        """The canonical form of ``value`` at state ``sid``."""
        if isinstance(value, dict):
            table = self.tables[sid]
            out: dict[str, Any] = {}
            for k in sorted(value):
                nid, what = table.get(k) or self._step(sid, k)
                if what == _DROP:
                    continue
                v = value[k]
                if what == _SYM and _symbolizable(v):
                    out[k] = self.symbol(v)
                elif isinstance(v, (dict, list)):
                    out[k] = _sorted(v) if nid == _DEAD else self.walk(v, nid)
                else:
                    out[k] = v
            return out
        if isinstance(value, list):
            table = self.tables[sid]
            items: list[Any] = []
            for k, v in enumerate(value):
                nid, what = table.get(k) or self._step(sid, k)
                if what == _DROP:
                    continue
                if what == _SYM and _symbolizable(v):
                    items.append(self.symbol(v))
                elif isinstance(v, (dict, list)):
                    items.append(_sorted(v) if nid == _DEAD else self.walk(v, nid))
                else:
                    items.append(v)
            return items
        return value

    def mask(self, value: Any, sid: int, syms: list[Any] | None) -> Any:
        """``walk`` for hashing and comparing, not for showing: what ``walk`` drops is
        dropped and what it symbolizes is symbolized, but keys are left unsorted and every
        part nothing happens to is ``value``'s own, not a copy. Symbolized leaves become
        ``SYMBOL_TEXT``, their raw values appended to ``syms`` in the order ``walk`` meets
        them; without ``syms`` they become ``symbol(value)`` as in ``walk``."""
        if isinstance(value, dict):
            return self._mask_dict(value, sid, syms)
        if isinstance(value, list):
            return self._mask_list(value, sid, syms)
        return value

    def _mask_dict(self, value: dict[Any, Any], sid: int, syms: list[Any] | None) -> Any:
        keys = tuple(value)
        plan = self.plans[sid].get(keys)
        if plan is None:
            plan = self._plan(sid, keys)
        out = None
        for k, nid, what in plan:
            v = value[k]
            if what == _KEEP:  # (below a live state) only a container can change
                if type(v) in _LEAVES:
                    continue
                new = self.mask(v, nid, syms)
                if new is v:
                    continue
            elif what == _DROP:
                if out is None:
                    out = dict(value)
                del out[k]
                continue
            elif isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
                new = self._symbolize(v, syms)  # (symbolizable)
            elif nid != _DEAD and isinstance(v, (dict, list)):
                new = self.mask(v, nid, syms)
                if new is v:
                    continue
            else:
                continue
            if out is None:
                out = dict(value)
            out[k] = new
        return value if out is None else out

    def _mask_list(self, value: list[Any], sid: int, syms: list[Any] | None) -> Any:
        table = self.tables[sid]
        every = None if self.indexed else self.step(sid, _ANY_INDEX)
        if every == (_DEAD, _KEEP):
            return value  # nothing below can match, and the hash sorts the keys
        if every is not None and every[1] == _KEEP:  # the common case: only go down
            nid = every[0]
            changed: list[Any] | None = None
            for k, v in enumerate(value):
                if type(v) in _LEAVES:
                    continue
                new = self.mask(v, nid, syms)
                if new is not v:
                    if changed is None:
                        changed = list(value)
                    changed[k] = new
            return value if changed is None else changed
        items: list[Any] | None = None  # a copy from the first item that changes on
        for k, v in enumerate(value):
            nid, what = every or table.get(k) or self._step(sid, k)
            new = v
            if what == _DROP:
                new = _GONE
            elif what == _SYM and _symbolizable(v):
                new = self._symbolize(v, syms)
            elif nid != _DEAD and isinstance(v, (dict, list)):
                new = self.mask(v, nid, syms)
            if items is None:
                if new is v:
                    continue
                items = value[:k]
            if new is not _GONE:
                items.append(new)
        return value if items is None else items

    def _symbolize(self, value: Any, syms: list[Any] | None) -> Any:
        if syms is None:
            return self.symbol(value)
        syms.append(value)
        return SYMBOL_TEXT

    def _plan(self, sid: int, keys: tuple[Any, ...]) -> Plan:
        """The keys of an object ``mask`` may have anything to do for at state ``sid``,
        in ``walk`` order, stepped: all but those kept with no pattern alive below."""
        table = self.tables[sid]
        plan = []
        for k in sorted(keys):
            nid, what = table.get(k) or self._step(sid, k)
            if what != _KEEP or nid != _DEAD:
                plan.append((k, nid, what))
        out = tuple(plan)
        if self.cached < _CACHE:
            self.plans[sid][keys] = out
            self.cached += len(keys) + 1
        return out


_GONE = object()  # a dropped list item, in ``mask``
_LEAVES = frozenset({str, int, float, bool, type(None)})  # the common leaves, at a glance


def _symbolizable(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _sorted(value: Any) -> Any:
    """Keys sorted all the way down (no pattern can reach inside any more)."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


class Symbols:
    """Renames values to ``«id1»``, ``«id2»`` … by first appearance; equal values share a
    symbol (a string and an integer that print alike do not)."""

    def __init__(self) -> None:
        self.names: dict[tuple[type, Any], str] = {}

    def __call__(self, value: Any) -> str:
        key = (type(value), value)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"«id{len(self.names) + 1}»"
        return name


def canonicalize(value: Any, canon: Canon | None = None, *,
                 symbol: Callable[[Any], Any] | None = None) -> Any:
    """The canonical form of a JSON value: listed paths dropped, keys sorted, symbolized
    leaves renamed by first appearance (in sorted-key order). ``symbol`` replaces the
    renaming (the trace diff keeps the raw values and pairs them across the two sides)."""
    canon = canon or Canon()
    w = _Walker(canon, symbol or Symbols())
    if w.start == _DEAD:
        return _sorted(value)
    return w.walk(value, w.start)


class Canonicalizer:
    """A reusable ``canonicalize`` for many documents (one pattern automaton for all).
    ``canonical`` is the canonical form; ``hashed`` its canonical JSON text with every
    symbol as ``SYMBOL_TEXT``, and the symbolized values in order; ``compared`` the
    canonical form up to key order (and sharing the parts nothing happens to), which
    compares field by field alike and costs far less."""

    def __init__(self, canon: Canon, symbol: Callable[[Any], Any]) -> None:
        self._w = _Walker(canon, symbol)

    def canonical(self, value: Any) -> Any:
        w = self._w
        return _sorted(value) if w.start == _DEAD else w.walk(value, w.start)

    def compared(self, value: Any) -> Any:
        w = self._w
        return value if w.start == _DEAD else w.mask(value, w.start, None)

    def hashed(self, value: Any) -> tuple[str, list[Any]]:
        w = self._w
        syms: list[Any] = []
        masked = value if w.start == _DEAD else w.mask(value, w.start, syms)
        try:
            data = orjson.dumps(masked, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # a Decimal, an integer wider than 64 bits: the exact way
            data = canonical_bytes(masked)
        # as text: a compact copy (orjson's bytes keep the 4 KB buffer they were written in)
        return data.decode(), syms


# -- canonical bytes ------------------------------------------------------------------

def decimal_text(d: Decimal) -> str:
    """One text per decimal value: ``12.50`` and ``1.25E1`` both give ``12.5``; a whole
    number keeps ``.0`` (it was written as a float)."""
    if not d.is_finite():
        raise ValueError(f"{d} is not a JSON number")
    sign, digits_t, exp = d.as_tuple()
    assert isinstance(exp, int)
    digits = list(digits_t)
    # trailing zeros off by hand: Decimal.normalize() rounds to the context's 28 digits
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    if digits == [0]:
        exp = 0
    n = Decimal((sign, tuple(digits), exp))
    if -30 <= len(digits) + exp <= 40:  # plain notation unless very large or very small
        text = format(n, "f")
        return text if "." in text else text + ".0"
    return format(n, "E")


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return orjson.Fragment(decimal_text(value).encode())
    raise TypeError(type(value).__name__)


def canonical_bytes(value: Any) -> bytes:
    """Compact JSON with sorted keys, integers of any width and ``Decimal`` exact."""
    try:
        return orjson.dumps(value, default=_default, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return _slow(value).encode("utf-8")


def _slow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + _slow(value[k])
                              for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_slow(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return decimal_text(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def digest(value: Any) -> str:
    """sha256 of the canonical bytes."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


# -- the canon file -------------------------------------------------------------------

def load_canon(path: str | Path) -> Canon:
    """Read and check a canon file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CanonError(f"no canon file {p}", code="FILE_NOT_FOUND", hint="check the path",
                         file=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CanonError(f"cannot read canon file {p}: {exc}", file=str(p)) from None
    return parse_canon(text, source=str(p))


def parse_canon(text: str, source: str = "<canon>") -> Canon:
    """Check a canon file given as YAML text; errors name the file and the line."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise CanonError(f"{source}" + (f" line {line}" if line else "") +
                         f": not valid YAML ({getattr(exc, 'problem', None) or exc})",
                         file=source, line=line) from None
    if not isinstance(node, yaml.MappingNode):
        raise CanonError(f"{source}: a canon file is a mapping with version, drop, symbolize",
                         file=source)
    lists: dict[str, tuple[Pattern, ...]] = {"drop": (), "symbolize": ()}
    version = None
    for knode, vnode in node.value:
        key, line = knode.value, knode.start_mark.line + 1
        if key == "version":
            version = vnode.value
            if version != "1":
                raise CanonError(f"{source} line {line}: version must be 1", file=source,
                                 line=line)
        elif key in lists:
            lists[key] = _patterns(vnode, key, source)
        else:
            raise CanonError(f"{source} line {line}: unknown key {key!r}", file=source,
                             line=line)
    if version is None:
        raise CanonError(f"{source}: `version: 1` is missing", file=source)
    return Canon(lists["drop"], lists["symbolize"], source)


def _patterns(node: Any, key: str, source: str) -> tuple[Pattern, ...]:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode) and node.value in ("", "null", "~"):
        return ()
    if not isinstance(node, yaml.SequenceNode):
        raise CanonError(f"{source} line {line}: {key} must be a list of paths", file=source,
                         line=line)
    out = []
    for item in node.value:
        line = item.start_mark.line + 1
        if not isinstance(item, yaml.ScalarNode):
            raise CanonError(f"{source} line {line}: {key} items must be paths", file=source,
                             line=line)
        try:
            out.append(parse_pattern(item.value))
        except CanonError as exc:
            raise CanonError(f"{source} line {line}: {exc.message}", file=source,
                             line=line) from None
    return tuple(out)
