"""``order``: distinct events can be assigned to the named steps so that every edge
``[a, b]`` has the event of ``a`` happen before the event of ``b``.

In SQL, a greedy pick settles the traces that lack a step and most others; a search
(``assignment``) decides the rest from their candidate events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...model import Event, Trace
from .._conditions import selects
from .._explain import Wording
from .._model import Selector
from .._parse import At, mapping, selector
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlcond import columns_any, selector_sql
from .._sqlscan import Found, Sql, precedes

__all__ = ["Order"]


@dataclass(frozen=True)
class Order:
    """Distinct events can be assigned to the steps so that every edge a -> b has the
    event of a happen before the event of b (a partial order, not a sequence)."""

    kind: ClassVar[str] = "order"
    steps: tuple[tuple[str, Selector], ...]
    edges: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        m = mapping(spec, "order", at, {"steps", "edges"}, {"steps", "edges"})
        steps = mapping(m["steps"], "order.steps", at, set(m["steps"]) if isinstance(
            m["steps"], dict) else set())
        if not steps:
            raise at.error("order.steps names at least one step")
        parsed = tuple((str(k), selector(s, f"order.steps.{k}", at)) for k, s in steps.items())
        edges = m["edges"]
        if not isinstance(edges, list) or not all(
                isinstance(e, list) and len(e) == 2 for e in edges):
            raise at.error("order.edges is a list of [before, after] pairs")
        names = {k for k, _ in parsed}
        for a, b in edges:
            for x in (a, b):
                if str(x) not in names:
                    raise at.error(f"order.edges names an unknown step {x!r}")
        pairs = tuple((str(a), str(b)) for a, b in edges)
        if _cyclic(names, pairs):
            raise at.error("order.edges form a cycle; no trace can satisfy them")
        return cls(parsed, pairs)

    def violations(self, trace: Trace) -> list[Primary]:
        return [] if self.assignment(trace) is not None else [()]

    def assignment(self, trace: Trace) -> dict[str, Event] | None:
        """Distinct events for the steps such that every edge a -> b has a before b."""
        cands = {name: [e for e in trace if selects(s, e)] for name, s in self.steps}
        preds = {name: [a for a, b in self.edges if b == name] for name, _ in self.steps}
        order = _topological([n for n, _ in self.steps], self.edges)
        chosen: dict[str, Event] = {}
        used: set[str] = set()

        def place(i: int) -> bool:
            if i == len(order):
                return True
            name = order[i]
            for e in sorted(cands[name], key=lambda x: (x.end_ns is None, x.end_ns or 0, x.seq)):
                if e.event_id in used or not all(trace.precedes(chosen[p], e)
                                                 for p in preds[name]):
                    continue
                chosen[name] = e
                used.add(e.event_id)
                if place(i + 1):
                    return True
                used.discard(e.event_id)
                del chosen[name]
            return False

        return dict(chosen) if place(0) else None

    def sql(self, at: Sql) -> Found:
        """SQL settles the traces that lack a step and those a greedy pick settles (see
        ``_DONE``); ``assignment`` searches the candidates of the rest."""
        steps = dict(self.steps)
        topo = _topological([n for n, _ in self.steps], self.edges)
        disjoint = not any(_overlap(steps[a], steps[b]) for i, a in enumerate(topo)
                           for b in topo[i + 1:])
        rows = at.run(self._sql(at, topo, disjoint))
        out: Found = [(tid, (), None) for tid, ok, pure in rows
                      if not ok or (disjoint and pure)]
        hard = [tid for tid, ok, pure in rows if ok and not (disjoint and pure)]
        subs = at.candidates(hard, list(steps.values()))
        out += [(tid, (), None) for tid, sub in subs.items() if self.assignment(sub) is None]
        return out

    def _sql(self, at: Sql, topo: list[str], disjoint: bool) -> str:
        """(trace, has every step, all candidates timed or none) of the traces the greedy
        pick finds no assignment in."""
        q, steps = at.q, dict(self.steps)
        flags = "".join(f', {selector_sql(q, steps[n])} AS "s{i}"' for i, n in enumerate(topo))
        ctes = [f'cand AS (SELECT "trace_id", "seq", "start_ns", "end_ns", {_DONE} AS done, '
                f'{_READY} AS ready{flags} FROM "events" WHERE {at.scope.events(q)} AND '
                f'{columns_any(q, list(steps.values()))})']
        pick = "min(c.done) AS e" if disjoint else _EVENT_PICK.format(late=q.bind(1 << 62))
        for k, n in enumerate(topo):
            preds = [topo.index(a) for a, b in self.edges if b == n]
            others = [] if disjoint else [j for j in range(k)
                                          if _overlap(steps[topo[j]], steps[n])]
            fits = [f'c."s{k}"'] + [f'c."seq" <> g{j}.e.seq' for j in others]
            fits += [f"c.ready >= g{j}.e" if disjoint else precedes(f"g{j}.e", "c")
                     for j in preds]
            joins = "".join(f' JOIN g{j} ON g{j}."trace_id" = c."trace_id"'
                            for j in sorted(set(preds) | set(others)))
            ctes.append(f'g{k} AS (SELECT c."trace_id", {pick} FROM cand c{joins} '
                        f'WHERE {" AND ".join(fits)} GROUP BY c."trace_id")')
        ctes.append(f'u AS ({at.scope.traces(q)} EXCEPT ('
                    + " INTERSECT ".join(f'SELECT "trace_id" FROM g{k}' for k in range(len(topo)))
                    + "))")
        have = " AND ".join(f'bool_or("s{i}")' for i in range(len(topo)))
        some = "WHERE " + " OR ".join(f'"s{i}"' for i in range(len(topo)))
        return (f'WITH {", ".join(ctes)} SELECT u."trace_id", COALESCE(h.ok, FALSE), h.pure '
                f'FROM u LEFT JOIN (SELECT "trace_id", {have} AS ok, bool_and({_TIMED}) FILTER '
                f'({some}) OR NOT bool_or({_TIMED}) FILTER ({some}) AS pure FROM cand '
                'WHERE "trace_id" IN (SELECT "trace_id" FROM u) GROUP BY "trace_id") h '
                'ON h."trace_id" = u."trace_id"')

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        steps = dict(self.steps)
        missing = [n for n, s in self.steps if not any(selects(s, e) for e in trace)]
        chain = ", ".join(f"{steps[a].describe()} before {steps[b].describe()}"
                          for a, b in self.edges)
        if missing:
            what = steps[missing[0]].describe()
            message = f"no {what} in the trace, so the required order ({chain}) cannot hold"
            operation = what
        else:
            message = f"no choice of distinct events puts them in the required order ({chain})"
            operation = steps[self.steps[0][0]].describe()
        witnesses = sorted({e.event_id: e for n, s in self.steps for e in trace if selects(s, e)}
                           .values(), key=lambda e: e.seq)[:20]
        return Wording(witnesses, operation, message,
                       {"order": [[a, b] for a, b in self.edges]}, {"events": len(witnesses)},
                       stepless=True)

    def paths(self) -> BodyPaths:
        return BodyPaths(tuple(p for _, s in self.steps for p in s.paths()))


def _cyclic(names: set[str], edges: tuple[tuple[str, str], ...]) -> bool:
    indeg = {n: 0 for n in names}
    for _, b in edges:
        indeg[b] += 1
    todo = [n for n, d in indeg.items() if d == 0]
    seen = 0
    while todo:
        n = todo.pop()
        seen += 1
        for a, b in edges:
            if a == n:
                indeg[b] -= 1
                if indeg[b] == 0:
                    todo.append(b)
    return seen < len(names)


def _topological(names: list[str], edges: tuple[tuple[str, str], ...]) -> list[str]:
    out: list[str] = []
    left = list(names)
    while left:
        ready = [n for n in left if all(a in out for a, b in edges if b == n)]
        out.append(ready[0])
        left.remove(ready[0])
    return out


def _overlap(a: Selector, b: Selector) -> bool:
    """Whether one event might meet both selectors."""
    return all(x is None or y is None or x == y for x, y in
               ((a.kind, b.kind), (a.name, b.name), (a.status, b.status)))


_TIMED = '"start_ns" IS NOT NULL AND "end_ns" IS NOT NULL'
# When the steps are disjoint (no event meets two) and a trace's candidates all have both
# times, `a` precedes `c` exactly when a.end <= c.start; when none has both, exactly when
# a.seq <= c.seq - 1. Either way "p.done <= c.ready", and picking at each step (in
# topological order) the fitting candidate that is done first finds an assignment if
# there is one: by induction, it is done no later than the same step of any assignment.
_DONE = f'CASE WHEN {_TIMED} THEN "end_ns" ELSE "seq" END'
_READY = f'CASE WHEN {_TIMED} THEN "start_ns" ELSE "seq" - 1 END'
# Otherwise (steps that overlap) the pick is the whole event, checked with Trace.precedes
# and kept apart from the picks of overlapping steps; a pick that fits all is a witness,
# and the traces without one go to `assignment`.
_EVENT_PICK = ('arg_min(struct_pack(seq := c."seq", start_ns := c."start_ns", end_ns := '
               'c."end_ns"), COALESCE(c."end_ns", {late} + c."seq")) AS e')
