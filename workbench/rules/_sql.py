"""The DuckDB engine: the violations of each rule, store-wide, in one query per rule.

It finds exactly what ``_python.violations`` finds in each trace (property-tested in
tests/property/test_engines_agree.py) and reports the same primary event ids, so
``_explain`` words both engines' findings alike.

How rules become SQL over the ``events`` view:

- A selector is its ``kind``/``name``/``status`` as plain column predicates (pushed
  into the Parquet scan), then its ``where`` tests in a ``CASE WHEN`` chain, so costly
  tests run only on the rows that passed the cheap ones. Values are bound parameters
  (``$p0`` ...), JSON paths too; identifiers are quoted.
- A path is ``json_extract`` over the JSON column with a ``$."key"[n][#-n]`` path; the
  flat-dotted-key fallback of ``model._paths`` (``attrs.gen_ai.system`` also reads the
  key ``"gen_ai.system"`` when there is no ``gen_ai``) is rebuilt as ``COALESCE`` of
  the nested path and a ``CASE`` over the longer keys, at every position where two
  names meet. ``[*]`` reads list items and object values (``$[*]`` and ``$.*``, one of
  them empty) and tests are existential: ``len(list_filter(values, lambda ...)) > 0``.
- Types come from the JSON text of a value (``"`` string, ``{`` object, ``t``/``f``
  boolean, ``n`` null, else a number; an integer has no ``.``/``e``), as in Python,
  where ``1.0`` is a float and ``10**30`` an int. Numbers compare as DOUBLE, text as
  text; ``matches`` is ``regexp_matches`` (RE2, which the loader insists on).
- ``same``/``per`` keys are text, equal exactly when ``same_key`` is: ``n`` and the
  DOUBLE of a number, else the JSON text. ``flow`` compares values with ``eq`` instead.
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

Known differences from the Python engine (the property test avoids them):

- RE2 is not Python's ``re``: ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII in RE2,
  ``$`` does not match before a final newline, and case folding differs outside ASCII.
- DuckDB paths cannot name the empty key (``[""]``): such a path reads nothing.

Not differences, though DuckDB alone would make them so: integers wider than 64 bits
(typed by their literal, compared as DOUBLE), -0.0 (equal to 0, but its own ``same``
key), a NaN operand (``le``/``ge`` hold for every number, as ``_conditions._order``
has it), and ``flow_source`` finding nothing under ``refs`` (it walks ``Ref`` objects).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path as FsPath
from typing import Any

import duckdb
import pyarrow as pa

from ..model import EVENTS, JSON_COLUMNS, STAR, Event, Trace, dumps, loads
from ..model import Path as JPath
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
    Where,
)

__all__ = ["sql_violations"]

Violation = tuple[str, str, tuple[str, ...]]

_HERE = FsPath(__file__).parent
_EARLIER = (_HERE / "earlier.sql").read_text()
_COUNT = (_HERE / "count.sql").read_text()
_UDF = "workbench_schema_holds"
_EVENT = '"trace_id", "event_id", "seq", "start_ns", "end_ns"'
_TIMES = '"trace_id", "seq", "start_ns", "end_ns"'  # all happens-before needs
_ID = '"trace_id", "event_id", "seq"'
# plain columns: name -> (is an integer, may be null)
_COLUMNS = {f.name: (pa.types.is_integer(f.type), f.nullable) for f in EVENTS
            if f.name not in JSON_COLUMNS and f.name != "refs"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Query:
    """The bound parameters of one rule's queries: values go in as ``$pN``, never as text."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._names: dict[tuple[str, Any], str] = {}
        self._vars = 0

    def bind(self, value: Any) -> str:
        key = (type(value).__name__, tuple(value) if isinstance(value, list) else value)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = f"p{len(self.params)}"
            self.params[name] = value
        return "$" + name

    def var(self) -> str:
        """A fresh lambda variable."""
        self._vars += 1
        return f"_x{self._vars}"

    def run(self, con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[Any, ...]]:
        return con.execute(sql, self.args(sql)).fetchall()

    def args(self, sql: str) -> dict[str, Any]:
        used = set(re.findall(r"\$(p\d+)\b", sql))
        return {k: v for k, v in self.params.items() if k in used}


# -- values at a path ---------------------------------------------------------------------
class _Json:
    """A JSON value: ``json`` its text (NULL when there is none), ``text`` the string in it."""

    def __init__(self, json: str, text: str | None = None) -> None:
        self.json = json
        self.text = text or f"json_extract_string({json}, '$')"

    @property
    def present(self) -> str:
        return f"{self.json} IS NOT NULL"

    def is_(self, t: str) -> str:
        head = f"left({self.json}, 1)"
        test = {"string": f"{head} = '\"'", "object": f"{head} = '{{'",
                "array": f"{head} = '['", "boolean": f"list_contains(['t', 'f'], {head})",
                "null": f"{head} = 'n'",
                "number": f"contains('-0123456789', {head})"}
        if t == "integer":
            return (f"CASE WHEN {self.is_('number')} THEN NOT regexp_matches("
                    f"CAST({self.json} AS VARCHAR), '[.eE]') ELSE FALSE END")
        return f"COALESCE({test[t]}, FALSE)"

    def literal(self, q: _Query, texts: list[str]) -> str:
        """The JSON text is one of ``texts``."""
        return f"COALESCE({_one_of(q, f'CAST({self.json} AS VARCHAR)', texts)}, FALSE)"

    def key(self, flow: bool = False) -> str:
        """Text that is equal exactly when ``same_key`` says so: ``n`` and the DOUBLE of a
        number, else the JSON text (one path's texts are all written alike). ``flow``:
        when ``eq`` says so, across paths: strings by content, -0.0 is 0, no containers."""
        x = self.json
        if not flow:
            return (f"CASE WHEN {self.is_('number')} THEN 'n' || CAST(TRY_CAST({x} AS DOUBLE)"
                    f" AS VARCHAR) ELSE CAST({x} AS VARCHAR) END")
        return (f"CASE left({x}, 1) WHEN '\"' THEN 's' || json_extract_string({x}, '$') "
                "WHEN '{' THEN NULL WHEN '[' THEN NULL WHEN 't' THEN 'btrue' "
                "WHEN 'f' THEN 'bfalse' WHEN 'n' THEN 'bnull' "
                f"ELSE 'n' || CAST(TRY_CAST({x} AS DOUBLE) + 0.0 AS VARCHAR) END")


class _Column:
    """A plain column of the events view: text or integer, one value per event."""

    present = "TRUE"

    def __init__(self, name: str) -> None:
        self.col = _quote(name)
        self.integer, self.nullable = _COLUMNS[name]
        self.text = f"CAST({self.col} AS VARCHAR)" if self.integer else self.col
        self.json = f"COALESCE(CAST(to_json({self.col}) AS VARCHAR), 'null')"

    def is_(self, t: str) -> str:
        if t == "null":
            return f"{self.col} IS NULL" if self.nullable else "FALSE"
        if t in (("number", "integer") if self.integer else ("string",)):
            return f"{self.col} IS NOT NULL" if self.nullable else "TRUE"
        return "FALSE"

    def literal(self, q: _Query, texts: list[str]) -> str:
        strings = [loads(t) for t in texts if t.startswith('"') and not self.integer]
        parts = [_one_of(q, self.col, strings)] if strings else []
        parts += [self.is_("null")] if "null" in texts and self.nullable else []
        return "(" + " OR ".join(parts) + ")" if parts else "FALSE"

    def key(self, flow: bool = False) -> str:
        if self.integer:
            return (f"CASE WHEN {self.col} IS NULL THEN 'bnull' "
                    f"ELSE 'n' || CAST(CAST({self.col} AS DOUBLE) AS VARCHAR) END")
        return f"CASE WHEN {self.col} IS NULL THEN 'bnull' ELSE 's' || {self.col} END"


_Value = _Json | _Column


class _Values:
    """What a path reaches in an event: at most ``one`` value, ``many`` (a list), or none."""

    def __init__(self, one: _Value | None = None, many: str | None = None,
                 first: _Value | None = None) -> None:
        self.one, self.many = one, many
        self.first = first or one or (_Json(f"({many})[1]") if many else None)

    @property
    def present(self) -> str:
        if self.many is not None:
            return f"len({self.many}) > 0"
        return self.one.present if self.one is not None else "FALSE"


def _jsonpath(segs: Sequence[Any]) -> str:
    out = "$"
    for s in segs:
        if s is STAR:
            out += "[*]"
        elif isinstance(s, int):
            out += f"[{s}]" if s >= 0 else f"[#{s}]"
        else:
            out += '."' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'
    return out


def _forks(segs: Sequence[Any]) -> list[int]:
    """Where the flat-dotted-key fallback may apply: a name followed by a name."""
    return [i for i in range(len(segs) - 1)
            if isinstance(segs[i], str) and isinstance(segs[i + 1], str)]


def _scalar(q: _Query, doc: str, segs: Sequence[Any]) -> str:
    """The value at a path without ``[*]`` (NULL when none), as ``_paths._walk`` finds it."""
    if not segs:
        return doc
    if any(s == "" for s in segs if isinstance(s, str)):
        return "NULL::JSON"  # DuckDB paths cannot name the empty key
    nested = f"json_extract({doc}, {q.bind(_jsonpath(segs))})"
    whens = []
    for i in _forks(segs):
        # the nested walk reached an object at i that lacks the key: longest flat key first
        obj = doc if i == 0 else f"json_extract({doc}, {q.bind(_jsonpath(segs[:i]))})"
        j = i + 1
        while j < len(segs) and isinstance(segs[j], str):
            j += 1
        alts = []
        for end in range(j, i + 1, -1):
            key = q.bind(_jsonpath([".".join(segs[i:end])]))
            inner = _scalar(q, f"json_extract({obj}, {key})", segs[end:])
            alts.append(f"WHEN json_type({obj}, {key}) IS NOT NULL THEN {inner}")
        lacks = (f"left({obj}, 1) = '{{' AND json_type({obj}, {q.bind(_jsonpath(segs[i:i + 1]))})"
                 " IS NULL")
        whens.append(f"WHEN {lacks} THEN CASE {' '.join(alts)} END")
    return f"COALESCE({nested}, CASE {' '.join(whens)} END)" if whens else nested


def _many(q: _Query, doc: str, segs: Sequence[Any]) -> str:
    """Every value at a path, in document order, as a list (empty when none)."""
    if not any(s is STAR for s in segs):
        v = q.var()
        return f"list_filter([{_scalar(q, doc, segs)}], lambda {v}: {v} IS NOT NULL)"
    i = next(k for k, s in enumerate(segs) if s is STAR)
    pre, rest = segs[:i], segs[i + 1:]
    if not any(s is STAR or s == "" for s in rest) and not _forks(rest):
        base, head = (doc, _jsonpath(pre)) if not _forks(pre) else (_scalar(q, doc, pre), "$")
        tail = _jsonpath(rest)[1:]
        # a list's items or an object's values: one of the two is always empty
        return (f"list_concat(json_extract({base}, {q.bind(head + '[*]' + tail)}), "
                f"json_extract({base}, {q.bind(head + '.*' + tail)}))")
    c = _scalar(q, doc, pre)
    v = q.var()
    return (f"flatten(list_transform(list_concat(json_extract({c}, {q.bind('$[*]')}), "
            f"json_extract({c}, {q.bind('$.*')})), lambda {v}: {_many(q, v, rest)}))")


def _json_values(q: _Query, doc: str, segs: Sequence[Any]) -> _Values:
    if any(s is STAR for s in segs):
        return _Values(many=_many(q, doc, segs))
    if not segs or _forks(segs) or any(s == "" for s in segs if isinstance(s, str)):
        return _Values(one=_Json(_scalar(q, doc, segs)))
    path = q.bind(_jsonpath(segs))
    x = f"json_extract({doc}, {path})"
    return _Values(one=_Json(x, f"json_extract_string({doc}, {path})"), first=_Json(x))


def _root(name: str) -> str | None:
    """The JSON text of a JSON root of an event (None for a plain column)."""
    if name == "refs":
        return 'to_json("refs")'
    if name == "error":
        return "COALESCE(\"error\", 'null')"
    return _quote(name) if name in JSON_COLUMNS else None


def _event_values(q: _Query, path: JPath) -> _Values:
    root, tail = str(path.root), path.segments[1:]
    doc = _root(root)
    if doc is not None:
        return _json_values(q, '"error"' if root == "error" and tail else doc, tail)
    return _Values() if tail else _Values(one=_Column(root))


# -- conditions ---------------------------------------------------------------------------
def _one_of(q: _Query, expr: str, values: Sequence[Any]) -> str:
    """``expr`` is one of the values (DuckDB turns ``IN`` into ``OR``, evaluating it again
    for each value; a filter shares no common subexpressions)."""
    if len(values) == 1:
        return f"{expr} = {q.bind(values[0])}"
    return f"list_contains({q.bind(list(values))}, {expr})"


def _all(preds: Sequence[str]) -> str:
    """All hold, tested left to right (DuckDB reorders ``AND``; ``CASE`` it keeps)."""
    if not preds:
        return "TRUE"
    out = preds[-1]
    for p in reversed(preds[:-1]):
        out = f"CASE WHEN {p} THEN {out} ELSE FALSE END"
    return out


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


_PLAIN = re.compile(r'[ !#-\[\]-~]*')  # printable ASCII but " and \: JSON text is "s"


def _eq(q: _Query, v: _Value, values: Sequence[Any]) -> str:
    """JSON-typed equality with any of ``values``; FALSE when there is no value. Plain
    strings, booleans and null compare as JSON text (one parse), other strings by content."""
    texts = [x for x in values if isinstance(x, str) and not _PLAIN.fullmatch(x)]
    nums = [float(x) for x in values if _number(x) and not math.isnan(x)]
    lits = [dumps(x) for x in values if x is None or isinstance(x, bool)
            or (isinstance(x, str) and _PLAIN.fullmatch(x))]
    parts = []
    if texts:
        parts.append(f"CASE WHEN {_one_of(q, v.text, texts)} "
                     f"THEN {v.is_('string')} ELSE FALSE END")
    if nums:
        parts.append(f"CASE WHEN {_one_of(q, f'TRY_CAST({v.text} AS DOUBLE)', nums)}"
                     f" THEN {v.is_('number')} ELSE FALSE END")
    if lits:
        parts.append(v.literal(q, lits))
    return "(" + " OR ".join(parts) + ")" if parts else "FALSE"


_ORDER = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _test(q: _Query, v: _Value, c: Cond) -> str:
    """One condition on one value (see ``_conditions``); FALSE when there is no value."""
    op, arg = c.op, c.value
    if op in ("eq", "in"):
        return _eq(q, v, [arg] if op == "eq" else arg)
    if op in ("ne", "not_in"):
        return f"CASE WHEN {v.present} THEN NOT {_eq(q, v, [arg] if op == 'ne' else arg)} " \
               "ELSE FALSE END"
    if op in _ORDER:
        if isinstance(arg, str):
            return (f"CASE WHEN {v.text} {_ORDER[op]} {q.bind(arg)} THEN {v.is_('string')} "
                    "ELSE FALSE END")
        if math.isnan(arg):  # Python's comparison finds NaN "equal" to every number
            return v.is_("number") if op in ("le", "ge") else "FALSE"
        return (f"CASE WHEN TRY_CAST({v.text} AS DOUBLE) {_ORDER[op]} {q.bind(float(arg))} "
                f"THEN {v.is_('number')} ELSE FALSE END")
    if op == "matches":
        return (f"CASE WHEN {v.is_('string')} THEN regexp_matches({v.text}, {q.bind(arg)}) "
                "ELSE FALSE END")
    if op == "type":
        return v.is_(arg)
    if op == "schema":
        return (f"CASE WHEN {v.present} THEN {_UDF}(CAST({v.json} AS VARCHAR), "
                f"{q.bind(dumps(arg))}) ELSE FALSE END")
    raise ValueError(f"unknown condition {op}")


def _where(q: _Query, w: Where, vals: _Values) -> str:
    """Some value meets every test; ``exists`` asks for a value (or for none)."""
    parts = [vals.present if c.value else f"NOT ({vals.present})"
             for c in w.conds if c.op == "exists"]
    tests = [c for c in w.conds if c.op != "exists"]
    if tests and vals.many is not None:
        x = q.var()
        each = _all([_test(q, _Json(x), c) for c in tests])
        parts.append(f"len(list_filter({vals.many}, lambda {x}: {each})) > 0")
    elif tests and vals.one is not None:
        parts.extend(_test(q, vals.one, c) for c in tests)
    elif tests:
        parts.append("FALSE")
    return _all(parts)


def _has_schema(w: Where) -> bool:
    return any(c.op == "schema" for c in w.conds)


def _columns(q: _Query, s: Selector) -> str:
    """The selector's plain column predicates (DuckDB pushes them into the scan)."""
    return " AND ".join(f"{_quote(c)} = {q.bind(v)}" for c, v in
                        (("kind", s.kind), ("name", s.name), ("status", s.status))
                        if v is not None) or "TRUE"


def _columns_any(q: _Query, sels: Sequence[Selector]) -> str:
    """Column predicates that every event some selector picks meets (for the scan)."""
    out = []
    for c in ("kind", "name", "status"):
        values = [getattr(s, c) for s in sels]
        if None not in values:
            out.append(f"{_quote(c)} IN ({', '.join(q.bind(v) for v in dict.fromkeys(values))})")
    return " AND ".join(out) or "TRUE"


def _selector(q: _Query, s: Selector, more: Sequence[str] = ()) -> str:
    """Column predicates first, then the ``where`` tests in order (schema last)."""
    chain = [_where(q, w, _event_values(q, w.path))
             for w in sorted(s.where, key=_has_schema)] + list(more)
    return f"{_columns(q, s)} AND {_all(chain)}" if chain else _columns(q, s)


def _key(q: _Query, path: JPath, flow: bool = False) -> str:
    first = _event_values(q, path).first
    return first.key(flow) if first is not None else "NULL::VARCHAR"


# -- bodies -------------------------------------------------------------------------------
class _Scope:
    """The traces a check covers: the ``traces`` view, or the ids given."""

    def __init__(self, trace_ids: list[str] | None) -> None:
        self.ids = trace_ids

    def events(self, q: _Query) -> str:
        if self.ids is None:
            return "TRUE"
        return f'"trace_id" IN (SELECT unnest(CAST({q.bind(list(self.ids))} AS VARCHAR[])))'

    def traces(self, q: _Query) -> str:
        return f'SELECT DISTINCT "trace_id" FROM "traces" WHERE {self.events(q)}'


def _rows(q: _Query, scope: _Scope, where: str, keys: Sequence[str] = (),
          cols: str = _EVENT) -> str:
    ks = "".join(f', {k} AS "k{i}"' for i, k in enumerate(keys))
    return f'SELECT {cols}{ks} FROM "events" WHERE {scope.events(q)} AND {where}'


def _earlier(a: str, t: str, nkeys: int) -> str:
    keys = "".join(f', "k{i}"' for i in range(nkeys))
    on = "".join(f' AND agg."k{i}" = t."k{i}"' for i in range(nkeys))
    return _EARLIER.format(a=a, t=t, keys=keys, on=on)


Found = list[tuple[str, tuple[str, ...], int | None]]  # trace, primaries, first seq


def _before(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Before,
            never: bool = False) -> Found:
    keys = [_key(q, p) for p in b.same]
    a = _rows(q, scope, _selector(q, b.first), keys, _TIMES)
    t = _rows(q, scope, _selector(q, b.then), keys)
    cond = "earlier" if never else "NOT earlier"
    sql = f'SELECT "trace_id", "event_id", "seq" FROM ({_earlier(a, t, len(keys))}) WHERE {cond}'
    return [(tid, (eid,), seq) for tid, eid, seq in q.run(con, sql)]


def _count(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, c: Count) -> Found:
    keys = [_key(q, p) for p in c.per]
    bad = [f"n > {q.bind(c.max)}"] if c.max is not None else []
    bad += [f"n < {q.bind(c.min)}"] if c.min is not None else []
    empty = (scope.traces(q) if not c.per and c.min
             else 'SELECT NULL::VARCHAR AS "trace_id" LIMIT 0')
    sql = _COUNT.format(rows=_rows(q, scope, _selector(q, c.event), keys),
                        present=" AND ".join(f'"k{i}" IS NOT NULL' for i in range(len(keys)))
                        or "TRUE", keys="".join(f', "k{i}"' for i in range(len(keys))),
                        empty=empty, bad=" OR ".join(bad))
    return [(tid, tuple(ids), seq) for tid, ids, seq in q.run(con, sql)]


def _every(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Every) -> Found:
    meets = [_where(q, w, _event_values(q, w.path)) for w in b.where]
    for root, schema in b.schema:
        doc = {"attrs": "COALESCE(NULLIF(\"attrs\", ''), '{}')"}.get(root, _root(root))
        meets.append(f"{_UDF}(CAST({doc} AS VARCHAR), {q.bind(dumps(schema))})")
    sql = _rows(q, scope, _selector(q, b.event, [f"NOT ({_all(meets)})"]), cols=_ID)
    return [(tid, (eid,), seq) for tid, eid, seq in q.run(con, sql)]


def _absent(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Absent) -> Found:
    return [(tid, (eid,), seq) for tid, eid, seq in
            q.run(con, _rows(q, scope, _selector(q, b.event), cols=_ID))]


def _exists(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, b: Exists) -> Found:
    sql = (f'{scope.traces(q)} EXCEPT SELECT "trace_id" FROM "events" '
           f"WHERE {scope.events(q)} AND {_selector(q, b.event)}")
    return [(tid, (), None) for (tid,) in q.run(con, sql)]


def _candidates(q: _Query, con: duckdb.DuckDBPyConnection, trace_ids: list[str],
                selectors: Sequence[Selector]) -> dict[str, Trace]:
    """The events of these traces that some selector picks, as one sub-trace each."""
    if not trace_ids:
        return {}
    cols = ", ".join(_quote(n) for n in EVENTS.names)
    sql = (f'SELECT {cols} FROM "events" WHERE {_Scope(trace_ids).events(q)} AND ('
           + " OR ".join(_selector(q, s) for s in selectors) + ') ORDER BY "trace_id", "seq"')
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


def _order(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, o: Order) -> Found:
    """SQL settles the traces that lack a step and those a greedy pick settles (see above);
    ``order_assignment`` searches the candidates of the rest."""
    steps = dict(o.steps)
    topo: list[str] = []
    while len(topo) < len(steps):
        topo.append(next(n for n in steps if n not in topo
                         and all(a in topo for a, b in o.edges if b == n)))
    disjoint = not any(_overlap(steps[a], steps[b]) for i, a in enumerate(topo)
                       for b in topo[i + 1:])
    flags = "".join(f', {_selector(q, steps[n])} AS "s{i}"' for i, n in enumerate(topo))
    ctes = [f'cand AS (SELECT "trace_id", "seq", "start_ns", "end_ns", {_DONE} AS done, '
            f'{_READY} AS ready{flags} FROM "events" WHERE {scope.events(q)} AND '
            f'{_columns_any(q, list(steps.values()))})']
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


def _flow_keys(q: _Query, f: Flow) -> tuple[str, bool]:
    """The keys of the values a source event offers (the items meeting ``source_where``),
    and whether that is exact (else ``source_where`` is left to ``flow_source``)."""
    root, tail = str(f.from_value.root), f.from_value.segments[1:]
    if root == "refs":  # flow_source walks the Ref tuple, where a path finds nothing
        return "[]::VARCHAR[]", True
    doc = _root(root) or _Column(root).json
    x = q.var()
    if not f.source_where:
        return f"list_transform({_many(q, doc, tail)}, lambda {x}: {_Json(x).key(True)})", True
    if tail and isinstance(tail[-1], str) and len(tail) > 1 and isinstance(tail[-2], str):
        return f"list_transform({_many(q, doc, tail)}, lambda {x}: {_Json(x).key(True)})", False
    # the item is what holds the value: the value itself for a bare root, else its parent
    items = f"[{doc}]" if not tail else _many(q, doc, tail[:-1])
    it = q.var()
    ok = _all([_where(q, w, _json_values(q, it, w.path.segments)) for w in f.source_where])
    if not tail:
        values = f"[{it}]"
    elif tail[-1] is STAR:
        values = f"list_concat(json_extract({it}, {q.bind('$[*]')}), json_extract({it}, " \
                 f"{q.bind('$.*')}))"
    else:
        values = _many(q, it, tail[-1:])
    keys = f"list_transform({values}, lambda {x}: {_Json(x).key(True)})"
    return (f"flatten(list_transform(list_filter({items}, lambda {it}: {ok}), "
            f"lambda {it}: {keys}))"), True


def _flow(q: _Query, con: duckdb.DuckDBPyConnection, scope: _Scope, f: Flow) -> Found:
    xkeys, exact = _flow_keys(q, f)
    a = (f'SELECT DISTINCT {_TIMES}, "k0" FROM (SELECT {_TIMES}, unnest({xkeys}) AS "k0" '
         f'FROM "events" WHERE {scope.events(q)} AND {_selector(q, f.source)}) '
         'WHERE "k0" IS NOT NULL')
    t = _rows(q, scope, _selector(q, f.event), [_key(q, f.value, flow=True)])
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
    return bool(getattr(b, "schema", ())) or any(_has_schema(w) for w in wheres)


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
            con.create_function(_UDF, _schema_holds, ["VARCHAR", "VARCHAR"], "BOOLEAN",
                                side_effects=False)
            registered = True
        except duckdb.NotImplementedException:  # already there: a call in progress
            pass
    out: list[Violation] = []
    try:
        for rule in rules:
            found = _BODIES[type(rule.body)](_Query(), con, scope, rule.body)
            found.sort(key=lambda f: (f[0], -1 if f[2] is None else f[2], f[1]))
            out.extend((rule.id, tid, ids) for tid, ids, _ in found)
    finally:
        if registered:
            con.remove_function(_UDF)
    return out
