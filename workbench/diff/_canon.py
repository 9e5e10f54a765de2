"""Canonical JSON: volatile paths dropped, keys sorted, ids renamed to symbols.

What is dropped and symbolized is a ``Canon`` (``_canonfile.py``); this module walks
JSON values with it: ``canonicalize`` for one value, ``Canonicalizer`` for many (one
pattern automaton for all), with a form to show, one to compare and one to hash.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ._canonfile import DEEP, Canon, token_matches
from ._digest import canonical_bytes

__all__ = ["SYMBOL_TEXT", "Canonicalizer", "Symbols", "canonicalize", "sorted_keys"]


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
            if pos < len(toks) and toks[pos] is DEEP and (i, pos + 1) not in out:
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
            if tok is DEEP:
                nxt.add((i, pos))
            elif token_matches(tok, seg):
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
                    out[k] = sorted_keys(v) if nid == _DEAD else self.walk(v, nid)
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
                    items.append(sorted_keys(v) if nid == _DEAD else self.walk(v, nid))
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


def sorted_keys(value: Any) -> Any:
    """Keys sorted all the way down (no pattern can reach inside any more)."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
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
        return sorted_keys(value)
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
        return sorted_keys(value) if w.start == _DEAD else w.walk(value, w.start)

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
