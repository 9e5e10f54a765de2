"""``diff_traces``: what did the agent do differently between a golden trace and a new one?

Each event is compared as its content document ``{kind, name, status, args, result,
error, attrs}`` after canonicalization (listed paths dropped, keys sorted). Identity and
clock — trace and event ids, parent ids, seq, start and end times — always differ
between two runs, so they decide the alignment, not the field comparison. Symbolized
values (ids) are compared through one pairing grown in alignment order: ``p17`` in A
matches ``p91`` in B as long as the two always stand for each other, so an inserted
event does not renumber every later id.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, overload

import orjson

from ..model import Event, Trace
from ..rules import RuleSet
from ._align import align, pair_moves
from ._canon import Canonicalizer, sorted_keys
from ._canonfile import Canon
from ._digest import canonical_bytes
from ._values import Pairing, PathChange, Sym, diff_values

__all__ = ["EventChange", "EventRef", "Reorder", "TraceDiff", "content", "diff_traces"]

CONTENT = ("kind", "name", "status", "args", "result", "error", "attrs")


@dataclass(frozen=True, slots=True)
class EventRef:
    """Which event, in words a reader and a script can both use."""

    event_id: str
    seq: int
    kind: str
    name: str

    @classmethod
    def of(cls, e: Event) -> EventRef:
        return cls(e.event_id, e.seq, e.kind, e.name)

    def to_dict(self) -> dict[str, Any]:
        return {"event_id": self.event_id, "seq": self.seq, "kind": self.kind,
                "name": self.name}


@dataclass(frozen=True)
class EventChange:
    a: EventRef
    b: EventRef
    paths: tuple[PathChange, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.to_dict(), "b": self.b.to_dict(),
                "paths": [p.to_dict() for p in self.paths]}


@dataclass(frozen=True)
class Reorder:
    """An event that moved past others. ``verdict``: ``breaks`` (a rule of the given
    rules file fails in B because of it), ``allowed`` (the rules still hold),
    ``unordered`` (A's partial order never ordered these events: they overlapped) or
    ``unchecked`` (no rules were given)."""

    a: EventRef
    b: EventRef
    crossed: tuple[EventRef, ...]
    verdict: str = "unchecked"
    rules: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.to_dict(), "b": self.b.to_dict(),
                "crossed": [c.to_dict() for c in self.crossed], "verdict": self.verdict,
                "rules": list(self.rules)}


@dataclass
class TraceDiff:
    """The difference of trace B against trace A."""

    a: str
    b: str
    added: list[EventRef] = field(default_factory=list)
    removed: list[EventRef] = field(default_factory=list)
    changed: list[EventChange] = field(default_factory=list)
    reordered: list[Reorder] = field(default_factory=list)
    aligned: int = 0
    pairs: list[tuple[str, str]] = field(default_factory=list, repr=False)
    findings: dict[str, list[dict[str, Any]]] | None = None

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.changed or self.reordered)

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "same": self.same, "a": self.a, "b": self.b,
            "added": [e.to_dict() for e in self.added],
            "removed": [e.to_dict() for e in self.removed],
            "changed": [c.to_dict() for c in self.changed],
            "reordered": [r.to_dict() for r in self.reordered],
            "aligned": self.aligned}
        if self.findings is not None:
            doc["findings"] = self.findings
        return doc


def content(e: Event) -> dict[str, Any]:
    """The part of an event the diff compares."""
    return {"kind": e.kind, "name": e.name, "status": e.status, "args": e.args,
            "result": e.result, "error": e.error, "attrs": e.attrs}


class _Side:
    """One trace, tokenized: per event its exact token (kind, name and the canonical JSON
    of its content), its graph token, its kind and name; with a canon, the symbolized
    values of each event too, in walk order."""

    def __init__(self, trace: Trace, canon: Canonicalizer | None) -> None:
        self.events = trace.events
        self.canon = canon
        self.syms: list[list[Any]] | None = None
        if canon is None:
            # no walk: documents are built only for the pairs that differ. The canonical
            # JSON is kept as text: a bytes object from orjson keeps the whole page it was
            # written in, 4 KB a token, and faulting those pages in cost more than the
            # serializing (UTF-8 text compares and sorts exactly as its bytes do)
            dumps, sort = orjson.dumps, orjson.OPT_SORT_KEYS
            try:
                exact: list[Hashable] = [
                    (e.kind, e.name, dumps((e.status, e.args, e.result, e.error, e.attrs),
                                           option=sort).decode()) for e in self.events]
            except TypeError:  # an integer wider than 64 bits somewhere: the exact way
                exact = [(e.kind, e.name, canonical_bytes(
                    (e.status, e.args, e.result, e.error, e.attrs)).decode())
                         for e in self.events]
        else:
            exact = self._walk(canon)
        self.exact = exact
        keys: list[Hashable] = [(e.kind, e.name) for e in self.events]
        self.levels: list[Sequence[Hashable]] = [exact, _GraphTokens(trace), keys]

    def _walk(self, canon: Canonicalizer) -> list[Hashable]:
        # the canonical documents are not kept: only the pairs that differ need them
        hashed = canon.hashed
        self.syms = []
        exact: list[Hashable] = []
        for e in self.events:
            text, syms = hashed(content(e))
            self.syms.append(syms)
            exact.append((e.kind, e.name, text))
        return exact

    def intern(self, ids: dict[Hashable, int]) -> None:
        """Exact tokens as small integers (equal tokens, equal integers): alignment hashes
        and compares them over and over, and the canonical texts can go."""
        exact: list[Hashable] = [ids.setdefault(t, len(ids)) for t in self.exact]
        self.exact = exact
        self.levels[0] = exact

    def doc(self, i: int) -> Any:
        """Event ``i``'s content to diff field by field: canonical up to key order (the
        diff goes by sorted keys; ``_shown`` sorts what it reports)."""
        doc = content(self.events[i])
        return doc if self.canon is None else self.canon.compared(doc)


class _GraphTokens(Sequence[Hashable]):
    """Kind and name with the parent's and the data sources' kinds and names; computed
    for the events of the windows that need them only."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace  # finds the parent and the sources by id, with its own index
        self.events = trace.events
        self.cache: list[Hashable | None] = [None] * len(self.events)

    def __len__(self) -> int:
        return len(self.events)

    @overload
    def __getitem__(self, i: int) -> Hashable: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Hashable]: ...

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        tok = self.cache[i]
        if tok is None:
            e, trace = self.events[i], self.trace
            parent = trace[e.parent_id] if e.parent_id and e.parent_id in trace else None
            sources = {(s.kind, s.name) for s in (trace[r.event_id] for r in e.refs
                                                  if r.event_id in trace)}
            tok = self.cache[i] = (
                e.kind, e.name, (parent.kind, parent.name) if parent is not None else None,
                tuple(sorted(sources)))
        return tok


def diff_traces(a: Trace, b: Trace, canon: Canon | None = None,
                rules: RuleSet | None = None) -> TraceDiff:
    """Align the events of ``a`` and ``b`` and diff the aligned pairs field by field.

    ``rules`` (a ``RuleSet``) judges each reordering: does B break a rule A kept?
    """
    with _no_gc():
        return _diff_traces(a, b, canon or Canon(), rules)


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic GC off for the call: a diff allocates hundreds of thousands of small
    containers (and frees none), so collections would scan the whole heap again and
    again for nothing — half the time at 100k events."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _diff_traces(a: Trace, b: Trace, canon: Canon, rules: RuleSet | None) -> TraceDiff:
    # one pattern automaton for both sides; symbols keep their raw values (``Sym``)
    walk = None if canon.empty else Canonicalizer(canon, Sym)
    sa, sb = _Side(a, walk), _Side(b, walk)
    # align in one canonical orientation so that diff(a, b) and diff(b, a) pair the same
    # events (tie-breaks inside the alignment would otherwise depend on the order)
    flip = not sa.exact <= sb.exact
    ids: dict[Hashable, int] = {}
    sa.intern(ids)
    sb.intern(ids)
    del ids
    pairs = _renames(sa.events, sb.events, _align(sa, sb, flip))
    done_a = {i for i, _ in pairs}
    done_b = {j for _, j in pairs}
    moves = pair_moves([i for i in range(len(sa.events)) if i not in done_a],
                       [j for j in range(len(sb.events)) if j not in done_b],
                       sa.exact, sb.exact)
    out = TraceDiff(a.trace_id, b.trace_id, aligned=len(pairs) + len(moves))
    pairing = Pairing()
    everything = sorted([*pairs, *moves], key=lambda p: p[1])
    xa, xb, syms_a, syms_b = sa.exact, sb.exact, sa.syms, sb.syms
    for i, j in everything:
        if xa[i] == xb[j]:  # same content (up to ids): the common case, without a call
            if syms_a is None or syms_b is None:
                continue
            # bind the ids in order; a clash means a real change
            if pairing.bind_all(syms_a[i], syms_b[j]):
                continue
        paths = diff_values(sa.doc(i), sb.doc(j), pairing)
        if paths:
            out.changed.append(EventChange(EventRef.of(sa.events[i]), EventRef.of(sb.events[j]),
                                           _shown(paths) if walk else tuple(paths)))
    moved_a = {i for i, _ in moves}
    moved_b = {j for _, j in moves}
    out.removed = [EventRef.of(sa.events[i]) for i in range(len(sa.events))
                   if i not in done_a and i not in moved_a]
    out.added = [EventRef.of(sb.events[j]) for j in range(len(sb.events))
                 if j not in done_b and j not in moved_b]
    out.pairs = [(sa.events[i].event_id, sb.events[j].event_id) for i, j in everything]
    from ._reorder import judge, reorders
    out.reordered = reorders(a, sa.events, sb.events, pairs, moves)
    if rules is not None:
        out.reordered, out.findings = judge(a, b, out.reordered, out.pairs, rules)
    return out


_HTTP = re.compile(r"(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE|CONNECT) (/\S*)")
_PREFIX = re.compile(r"v\d+(?:\.\d+)*|api", re.I)   # a version or API prefix segment


def _resource(path: str) -> tuple[str, ...]:
    """A path's segments without its version or API prefix: ``/api/v1/projects`` and
    ``/projects`` name the same resource."""
    parts = [x for x in path.split("?", 1)[0].split("/") if x]
    while parts and _PREFIX.fullmatch(parts[0]):
        parts.pop(0)
    return tuple(parts)


def _renames(ea: Sequence[Event], eb: Sequence[Event],
             pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``pairs`` plus renamed HTTP calls: between two aligned pairs, an event of A named
    ``METHOD /path`` pairs with one of B of the same kind, method and status whose path
    names the same resource under another version or API prefix (``GET /v1/projects``
    and ``GET /projects``), in order: one changed event (its name, path, query…), not
    a removal and an addition."""
    def key(e: Event) -> Hashable | None:
        m = _HTTP.fullmatch(e.name)
        return None if m is None else (e.kind, m.group(1), e.status, _resource(m.group(2)))

    out = list(pairs)
    bounds = [(-1, -1), *sorted(pairs), (len(ea), len(eb))]
    for (i0, j0), (i1, j1) in pairwise(bounds):
        if i1 - i0 < 2 or j1 - j0 < 2:
            continue
        free_b: dict[Hashable, list[int]] = {}
        for j in range(j0 + 1, j1):
            k = key(eb[j])
            if k is not None:
                free_b.setdefault(k, []).append(j)
        if not free_b:
            continue
        last = j0
        for i in range(i0 + 1, i1):
            k = key(ea[i])
            for j in free_b.get(k, []) if k is not None else []:
                if j > last and eb[j].name != ea[i].name:
                    out.append((i, j))
                    last = j
                    break
    return sorted(out) if len(out) != len(pairs) else pairs


def _shown(paths: list[PathChange]) -> tuple[PathChange, ...]:
    """Changes of canonicalized documents show their values as canonical: keys sorted."""
    return tuple(PathChange(p.path, sorted_keys(p.old), sorted_keys(p.new), p.change)
                 for p in paths)


def _align(sa: _Side, sb: _Side, flip: bool) -> list[tuple[int, int]]:
    if not flip:
        return align(sa.levels, sb.levels)
    return sorted((i, j) for j, i in align(sb.levels, sa.levels))
