"""The DuckDB engine: the violations of each rule, store-wide, in one query per rule.

It finds exactly what ``_python.violations`` finds in each trace (property-tested in
tests/property/test_engines_agree.py) and reports the same primary event ids, so
``_explain`` words both engines' findings alike. How paths, conditions and selectors
become SQL, and where DuckDB differs from Python, is ``_sqlcond``'s docstring.

How rule bodies become queries over the ``events`` view:

- ``before``, ``never`` and ``flow`` share ``earlier.sql`` (one aggregate per trace and
  key, so linear); ``count`` is ``count.sql``; ``every``, ``absent``, ``exists`` are one
  scan. ``schema`` tests call ``_conditions.cond_holds`` through a DuckDB function
  registered for the call, only on rows that passed every other test.
- ``order``: SQL settles the traces that lack a step and, with a greedy pick per step,
  most others (see ``_order``); ``order_assignment`` searches the rest.
- ``flow`` with ``source_where`` and a ``from_value`` that ends in two names: which item
  holds the value depends on the key the fallback read, so SQL settles only the events
  with no equal value and ``flow_source`` the others.
- Python finishing loads only the candidate events of the traces concerned, in one
  query (the answer depends on nothing else), not whole traces: ``load_trace`` is unused.

Not a difference, though DuckDB alone would make it one: ``flow_source`` finding nothing
under ``refs`` (it walks ``Ref`` objects).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path as FsPath
from typing import Any

import duckdb

from ..model import EVENTS, STAR, Event, Trace, dumps, loads
from ._conditions import cond_holds
from ._explain import flow_source, order_assignment
from ._model import (
    Absent,
    Before,
    Cond,
    Count,
    Every,
    Exists,
    Flow,
    Never,
    Order,
    Rule,
    RuleSet,
    Selector,
)
from ._sqlcond import (
    SCHEMA_UDF,
    Column,
    Json,
    Query,
    all_of,
    columns_any,
    event_values,
    has_schema,
    json_root,
    json_values,
    key_sql,
    many_sql,
    quote,
    selector_sql,
    where_sql,
)

__all__ = ["sql_violations"]

Violation = tuple[str, str, tuple[str, ...]]

_HERE = FsPath(__file__).parent
_EARLIER = (_HERE / "earlier.sql").read_text()
_COUNT = (_HERE / "count.sql").read_text()
_EVENT = '"trace_id", "event_id", "seq", "start_ns", "end_ns"'
_TIMES = '"trace_id", "seq", "start_ns", "end_ns"'  # all happens-before needs
_ID = '"trace_id", "event_id", "seq"'


# -- bodies -------------------------------------------------------------------------------
class _Scope:
    """The traces a check covers: the ``traces`` view, or the ids given."""

    def __init__(self, trace_ids: list[str] | None) -> None:
        self.ids = trace_ids

    def events(self, q: Query) -> str:
        if self.ids is None:
            return "TRUE"
        return f'"trace_id" IN (SELECT unnest(CAST({q.bind(list(self.ids))} AS VARCHAR[])))'

    def traces(self, q: Query) -> str:
        return f'SELECT DISTINCT "trace_id" FROM "traces" WHERE {self.events(q)}'


def _rows(q: Query, scope: _Scope, where: str, keys: Sequence[str] = (),
          cols: str = _EVENT) -> str:
    ks = "".join(f', {k} AS "k{i}"' for i, k in enumerate(keys))
    return f'SELECT {cols}{ks} FROM "events" WHERE {scope.events(q)} AND {where}'


def _earlier(a: str, t: str, nkeys: int) -> str:
    keys = "".join(f', "k{i}"' for i in range(nkeys))
    on = "".join(f' AND agg."k{i}" = t."k{i}"' for i in range(nkeys))
    return _EARLIER.format(a=a, t=t, keys=keys, on=on)


Found = list[tuple[str, tuple[str, ...], int | None]]  # trace, primaries, first seq


def _before(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Before,
            never: bool = False) -> Found:
    keys = [key_sql(q, p) for p in b.same]
    a = _rows(q, scope, selector_sql(q, b.first), keys, _TIMES)
    t = _rows(q, scope, selector_sql(q, b.then), keys)
    cond = "earlier" if never else "NOT earlier"
    sql = f'SELECT "trace_id", "event_id", "seq" FROM ({_earlier(a, t, len(keys))}) WHERE {cond}'
    return [(tid, (eid,), seq) for tid, eid, seq in q.run(con, sql)]


def _count(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, c: Count) -> Found:
    keys = [key_sql(q, p) for p in c.per]
    bad = [f"n > {q.bind(c.max)}"] if c.max is not None else []
    bad += [f"n < {q.bind(c.min)}"] if c.min is not None else []
    empty = (scope.traces(q) if not c.per and c.min
             else 'SELECT NULL::VARCHAR AS "trace_id" LIMIT 0')
    sql = _COUNT.format(rows=_rows(q, scope, selector_sql(q, c.event), keys),
                        present=" AND ".join(f'"k{i}" IS NOT NULL' for i in range(len(keys)))
                        or "TRUE", keys="".join(f', "k{i}"' for i in range(len(keys))),
                        empty=empty, bad=" OR ".join(bad))
    return [(tid, tuple(ids), seq) for tid, ids, seq in q.run(con, sql)]


def _every(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Every) -> Found:
    meets = [where_sql(q, w, event_values(q, w.path)) for w in b.where]
    for root, schema in b.schema:
        doc = {"attrs": "COALESCE(NULLIF(\"attrs\", ''), '{}')"}.get(root, json_root(root))
        meets.append(f"{SCHEMA_UDF}(CAST({doc} AS VARCHAR), {q.bind(dumps(schema))})")
    sql = _rows(q, scope, selector_sql(q, b.event, [f"NOT ({all_of(meets)})"]), cols=_ID)
    return [(tid, (eid,), seq) for tid, eid, seq in q.run(con, sql)]


def _absent(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Absent) -> Found:
    return [(tid, (eid,), seq) for tid, eid, seq in
            q.run(con, _rows(q, scope, selector_sql(q, b.event), cols=_ID))]


def _exists(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Exists) -> Found:
    sql = (f'{scope.traces(q)} EXCEPT SELECT "trace_id" FROM "events" '
           f"WHERE {scope.events(q)} AND {selector_sql(q, b.event)}")
    return [(tid, (), None) for (tid,) in q.run(con, sql)]


def _candidates(q: Query, con: duckdb.DuckDBPyConnection, trace_ids: list[str],
                selectors: Sequence[Selector]) -> dict[str, Trace]:
    """The events of these traces that some selector picks, as one sub-trace each."""
    if not trace_ids:
        return {}
    cols = ", ".join(quote(n) for n in EVENTS.names)
    sql = (f'SELECT {cols} FROM "events" WHERE {_Scope(trace_ids).events(q)} AND ('
           + " OR ".join(selector_sql(q, s) for s in selectors) + ') ORDER BY "trace_id", "seq"')
    by: dict[str, list[Event]] = {}
    for values in q.run(con, sql):
        row = dict(zip(EVENTS.names, values, strict=True))
        by.setdefault(row["trace_id"], []).append(Event.from_row(row))
    return {tid: Trace(tid, tuple(evs)) for tid, evs in by.items()}


def _precedes(a: str, b: str) -> str:
    """``Trace.precedes`` of two rows (or structs) with seq, start_ns and end_ns."""
    return (f"CASE WHEN {a}.start_ns IS NOT NULL AND {a}.end_ns IS NOT NULL AND "
            f"{b}.start_ns IS NOT NULL THEN {a}.end_ns <= {b}.start_ns ELSE {a}.seq < {b}.seq END")


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
# and the traces without one go to `order_assignment`.
_EVENT_PICK = ('arg_min(struct_pack(seq := c."seq", start_ns := c."start_ns", end_ns := '
               'c."end_ns"), COALESCE(c."end_ns", {late} + c."seq")) AS e')


def _order(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, o: Order) -> Found:
    """SQL settles the traces that lack a step and those a greedy pick settles (see above);
    ``order_assignment`` searches the candidates of the rest."""
    steps = dict(o.steps)
    topo: list[str] = []
    while len(topo) < len(steps):
        topo.append(next(n for n in steps if n not in topo
                         and all(a in topo for a, b in o.edges if b == n)))
    disjoint = not any(_overlap(steps[a], steps[b]) for i, a in enumerate(topo)
                       for b in topo[i + 1:])
    flags = "".join(f', {selector_sql(q, steps[n])} AS "s{i}"' for i, n in enumerate(topo))
    ctes = [f'cand AS (SELECT "trace_id", "seq", "start_ns", "end_ns", {_DONE} AS done, '
            f'{_READY} AS ready{flags} FROM "events" WHERE {scope.events(q)} AND '
            f'{columns_any(q, list(steps.values()))})']
    pick = "min(c.done) AS e" if disjoint else _EVENT_PICK.format(late=q.bind(1 << 62))
    for k, n in enumerate(topo):
        preds = [topo.index(a) for a, b in o.edges if b == n]
        others = [] if disjoint else [j for j in range(k) if _overlap(steps[topo[j]], steps[n])]
        fits = [f'c."s{k}"'] + [f'c."seq" <> g{j}.e.seq' for j in others]
        fits += [f"c.ready >= g{j}.e" if disjoint else _precedes(f"g{j}.e", "c") for j in preds]
        joins = "".join(f' JOIN g{j} ON g{j}."trace_id" = c."trace_id"'
                        for j in sorted(set(preds) | set(others)))
        ctes.append(f'g{k} AS (SELECT c."trace_id", {pick} FROM cand c{joins} '
                    f'WHERE {" AND ".join(fits)} GROUP BY c."trace_id")')
    ctes.append(f'u AS ({scope.traces(q)} EXCEPT ('
                + " INTERSECT ".join(f'SELECT "trace_id" FROM g{k}' for k in range(len(topo)))
                + "))")
    have = " AND ".join(f'bool_or("s{i}")' for i in range(len(topo)))
    some = "WHERE " + " OR ".join(f'"s{i}"' for i in range(len(topo)))
    sql = (f'WITH {", ".join(ctes)} SELECT u."trace_id", COALESCE(h.ok, FALSE), h.pure '
           f'FROM u LEFT JOIN (SELECT "trace_id", {have} AS ok, bool_and({_TIMED}) FILTER '
           f'({some}) OR NOT bool_or({_TIMED}) FILTER ({some}) AS pure FROM cand '
           'WHERE "trace_id" IN (SELECT "trace_id" FROM u) GROUP BY "trace_id") h '
           'ON h."trace_id" = u."trace_id"')
    rows = q.run(con, sql)
    out: Found = [(tid, (), None) for tid, ok, pure in rows if not ok or (disjoint and pure)]
    hard = [tid for tid, ok, pure in rows if ok and not (disjoint and pure)]
    subs = _candidates(q, con, hard, list(steps.values()))
    out += [(tid, (), None) for tid, sub in subs.items() if order_assignment(o, sub) is None]
    return out


def _flow_keys(q: Query, f: Flow) -> tuple[str, bool]:
    """The keys of the values a source event offers (the items meeting ``source_where``),
    and whether that is exact (else ``source_where`` is left to ``flow_source``)."""
    root, tail = str(f.from_value.root), f.from_value.segments[1:]
    if root == "refs":  # flow_source walks the Ref tuple, where a path finds nothing
        return "[]::VARCHAR[]", True
    doc = json_root(root) or Column(root).json
    x = q.var()
    if not f.source_where:
        return f"list_transform({many_sql(q, doc, tail)}, lambda {x}: {Json(x).key(True)})", True
    if tail and isinstance(tail[-1], str) and len(tail) > 1 and isinstance(tail[-2], str):
        return f"list_transform({many_sql(q, doc, tail)}, lambda {x}: {Json(x).key(True)})", False
    # the item is what holds the value: the value itself for a bare root, else its parent
    items = f"[{doc}]" if not tail else many_sql(q, doc, tail[:-1])
    it = q.var()
    ok = all_of([where_sql(q, w, json_values(q, it, w.path.segments)) for w in f.source_where])
    if not tail:
        values = f"[{it}]"
    elif tail[-1] is STAR:
        values = f"list_concat(json_extract({it}, {q.bind('$[*]')}), json_extract({it}, " \
                 f"{q.bind('$.*')}))"
    else:
        values = many_sql(q, it, tail[-1:])
    keys = f"list_transform({values}, lambda {x}: {Json(x).key(True)})"
    return (f"flatten(list_transform(list_filter({items}, lambda {it}: {ok}), "
            f"lambda {it}: {keys}))"), True


def _flow(q: Query, con: duckdb.DuckDBPyConnection, scope: _Scope, f: Flow) -> Found:
    xkeys, exact = _flow_keys(q, f)
    a = (f'SELECT DISTINCT {_TIMES}, "k0" FROM (SELECT {_TIMES}, unnest({xkeys}) AS "k0" '
         f'FROM "events" WHERE {scope.events(q)} AND {selector_sql(q, f.source)}) '
         'WHERE "k0" IS NOT NULL')
    t = _rows(q, scope, selector_sql(q, f.event), [key_sql(q, f.value, flow=True)])
    rows = q.run(con, f'SELECT "trace_id", "event_id", "seq", earlier FROM ({_earlier(a, t, 1)})')
    out: Found = [(tid, (eid,), seq) for tid, eid, seq, earlier in rows if not earlier]
    if not exact:
        check = [(tid, eid, seq) for tid, eid, seq, earlier in rows if earlier]
        subs = _candidates(q, con, sorted({tid for tid, _, _ in check}), [f.event, f.source])
        out += [(tid, (eid,), seq) for tid, eid, seq in check
                if not flow_source(f, subs[tid], subs[tid][eid])[0]]
    return out


_BODIES: dict[type, Callable[..., Found]] = {
    Before: _before, Never: lambda q, con, scope, b: _before(q, con, scope, Before(
        b.after, b.event, b.same), never=True),
    Count: _count, Every: _every, Exists: _exists, Absent: _absent, Order: _order, Flow: _flow}


# -- schema tests, in Python ----------------------------------------------------------------
@functools.lru_cache(maxsize=128)
def _schema(text: str) -> Any:
    return loads(text)


def _schema_holds(value: str, schema: str) -> bool:
    return cond_holds(loads(value), Cond("schema", _schema(schema)))


def _selectors(b: Any) -> list[Selector]:
    if isinstance(b, Before):
        return [b.first, b.then]
    if isinstance(b, Never):
        return [b.event, b.after]
    if isinstance(b, Order):
        return [s for _, s in b.steps]
    if isinstance(b, Flow):
        return [b.event, b.source]
    return [b.event]


def _uses_schema(rule: Rule) -> bool:
    b = rule.body
    wheres = [w for s in _selectors(b) for w in s.where]
    wheres += list(getattr(b, "where", ())) + list(getattr(b, "source_where", ()))
    return bool(getattr(b, "schema", ())) or any(has_schema(w) for w in wheres)


# -- the engine -----------------------------------------------------------------------------
def sql_violations(con: duckdb.DuckDBPyConnection, rules: RuleSet,
                   trace_ids: list[str] | None,
                   load_trace: Callable[[str], Trace]) -> list[Violation]:
    """(rule id, trace id, primary event ids) of every violation, store-wide in one pass
    per rule: what ``_python.violations`` finds in each trace (``trace_ids`` None: every
    trace of the ``traces`` view), rule by rule, then by trace and step.

    ``load_trace`` is part of the engines' common signature; this engine loads only the
    candidate events it needs (see the module docstring).
    """
    del load_trace
    if trace_ids is not None and not trace_ids:
        return []
    scope = _Scope(trace_ids)
    registered = False
    if any(_uses_schema(r) for r in rules):
        try:
            con.create_function(SCHEMA_UDF, _schema_holds, ["VARCHAR", "VARCHAR"], "BOOLEAN",
                                side_effects=False)
            registered = True
        except duckdb.NotImplementedException:  # already there: a call in progress
            pass
    out: list[Violation] = []
    try:
        for rule in rules:
            found = _BODIES[type(rule.body)](Query(), con, scope, rule.body)
            found.sort(key=lambda f: (f[0], -1 if f[2] is None else f[2], f[1]))
            out.extend((rule.id, tid, ids) for tid, ids, _ in found)
    finally:
        if registered:
            con.remove_function(SCHEMA_UDF)
    return out
