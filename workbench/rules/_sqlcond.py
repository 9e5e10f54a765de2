"""The DuckDB engine's compiler: JSON paths to SQL values, conditions and selectors to
predicates with bound parameters; each body's ``sql`` builds its queries from them (and
from ``_sqlscan``).

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
  text; ``matches`` is ``regexp_matches`` (RE2, as ``matches`` in Python: the same engine).
- ``same``/``per`` keys are text, equal exactly when ``same_key`` is: ``n`` and the
  DOUBLE of a number, else the JSON text. ``flow`` compares values with ``eq`` instead.

Known differences from the Python engine (the property test avoids them):

- DuckDB paths cannot name the empty key (``[""]``): such a path reads nothing.

Not differences, though DuckDB alone would make them so: integers wider than 64 bits
(typed by their literal, compared as DOUBLE), -0.0 (equal to 0, but its own ``same``
key), and a NaN operand (``le``/``ge`` hold for every number, as ``_conditions._order``
has it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

from ..model import EVENTS, JSON_COLUMNS, STAR, dumps, loads
from ..model import Path as JPath
from ._model import Cond, Selector, Where

__all__ = ["SCHEMA_UDF", "Column", "Json", "Query", "all_of", "columns_any", "event_values",
           "has_schema", "json_root", "json_values", "key_sql", "many_sql", "quote",
           "selector_sql", "where_sql"]

SCHEMA_UDF = "workbench_schema_holds"
# plain columns: name -> (is an integer, may be null)
_COLUMNS = {f.name: (pa.types.is_integer(f.type), f.nullable) for f in EVENTS
            if f.name not in JSON_COLUMNS and f.name != "refs"}


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Query:
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
class Json:
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

    def literal(self, q: Query, texts: list[str]) -> str:
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


class Column:
    """A plain column of the events view: text or integer, one value per event."""

    present = "TRUE"

    def __init__(self, name: str) -> None:
        self.col = quote(name)
        self.integer, self.nullable = _COLUMNS[name]
        self.text = f"CAST({self.col} AS VARCHAR)" if self.integer else self.col
        self.json = f"COALESCE(CAST(to_json({self.col}) AS VARCHAR), 'null')"

    def is_(self, t: str) -> str:
        if t == "null":
            return f"{self.col} IS NULL" if self.nullable else "FALSE"
        if t in (("number", "integer") if self.integer else ("string",)):
            return f"{self.col} IS NOT NULL" if self.nullable else "TRUE"
        return "FALSE"

    def literal(self, q: Query, texts: list[str]) -> str:
        strings = [loads(t) for t in texts if t.startswith('"') and not self.integer]
        parts = [_one_of(q, self.col, strings)] if strings else []
        parts += [self.is_("null")] if "null" in texts and self.nullable else []
        return "(" + " OR ".join(parts) + ")" if parts else "FALSE"

    def key(self, flow: bool = False) -> str:
        if self.integer:
            return (f"CASE WHEN {self.col} IS NULL THEN 'bnull' "
                    f"ELSE 'n' || CAST(CAST({self.col} AS DOUBLE) AS VARCHAR) END")
        return f"CASE WHEN {self.col} IS NULL THEN 'bnull' ELSE 's' || {self.col} END"


_Value = Json | Column


class _Values:
    """What a path reaches in an event: at most ``one`` value, ``many`` (a list), or none."""

    def __init__(self, one: _Value | None = None, many: str | None = None,
                 first: _Value | None = None) -> None:
        self.one, self.many = one, many
        self.first = first or one or (Json(f"({many})[1]") if many else None)

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


def _scalar(q: Query, doc: str, segs: Sequence[Any]) -> str:
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


def many_sql(q: Query, doc: str, segs: Sequence[Any]) -> str:
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
            f"json_extract({c}, {q.bind('$.*')})), lambda {v}: {many_sql(q, v, rest)}))")


def json_values(q: Query, doc: str, segs: Sequence[Any]) -> _Values:
    if any(s is STAR for s in segs):
        return _Values(many=many_sql(q, doc, segs))
    if not segs or _forks(segs) or any(s == "" for s in segs if isinstance(s, str)):
        return _Values(one=Json(_scalar(q, doc, segs)))
    path = q.bind(_jsonpath(segs))
    x = f"json_extract({doc}, {path})"
    return _Values(one=Json(x, f"json_extract_string({doc}, {path})"), first=Json(x))


def json_root(name: str) -> str | None:
    """The JSON text of a JSON root of an event (None for a plain column)."""
    if name == "refs":
        return 'to_json("refs")'
    if name == "error":
        return "COALESCE(\"error\", 'null')"
    return quote(name) if name in JSON_COLUMNS else None


def event_values(q: Query, path: JPath) -> _Values:
    root, tail = str(path.root), path.segments[1:]
    doc = json_root(root)
    if doc is not None:
        return json_values(q, '"error"' if root == "error" and tail else doc, tail)
    return _Values() if tail else _Values(one=Column(root))


# -- conditions ---------------------------------------------------------------------------
def _one_of(q: Query, expr: str, values: Sequence[Any]) -> str:
    """``expr`` is one of the values (DuckDB turns ``IN`` into ``OR``, evaluating it again
    for each value; a filter shares no common subexpressions)."""
    if len(values) == 1:
        return f"{expr} = {q.bind(values[0])}"
    return f"list_contains({q.bind(list(values))}, {expr})"


def all_of(preds: Sequence[str]) -> str:
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


def _eq(q: Query, v: _Value, values: Sequence[Any]) -> str:
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


def _test(q: Query, v: _Value, c: Cond) -> str:
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
        return (f"CASE WHEN {v.present} THEN {SCHEMA_UDF}(CAST({v.json} AS VARCHAR), "
                f"{q.bind(dumps(arg))}) ELSE FALSE END")
    raise ValueError(f"unknown condition {op}")


def where_sql(q: Query, w: Where, vals: _Values) -> str:
    """Some value meets every test; ``exists`` asks for a value (or for none)."""
    parts = [vals.present if c.value else f"NOT ({vals.present})"
             for c in w.conds if c.op == "exists"]
    tests = [c for c in w.conds if c.op != "exists"]
    if tests and vals.many is not None:
        x = q.var()
        each = all_of([_test(q, Json(x), c) for c in tests])
        parts.append(f"len(list_filter({vals.many}, lambda {x}: {each})) > 0")
    elif tests and vals.one is not None:
        parts.extend(_test(q, vals.one, c) for c in tests)
    elif tests:
        parts.append("FALSE")
    return all_of(parts)


def has_schema(w: Where) -> bool:
    return any(c.op == "schema" for c in w.conds)


def _columns(q: Query, s: Selector) -> str:
    """The selector's plain column predicates (DuckDB pushes them into the scan)."""
    return " AND ".join(f"{quote(c)} = {q.bind(v)}" for c, v in
                        (("kind", s.kind), ("name", s.name), ("status", s.status))
                        if v is not None) or "TRUE"


def columns_any(q: Query, sels: Sequence[Selector]) -> str:
    """Column predicates that every event some selector picks meets (for the scan)."""
    out = []
    for c in ("kind", "name", "status"):
        values = [getattr(s, c) for s in sels]
        if None not in values:
            out.append(f"{quote(c)} IN ({', '.join(q.bind(v) for v in dict.fromkeys(values))})")
    return " AND ".join(out) or "TRUE"


def selector_sql(q: Query, s: Selector, more: Sequence[str] = ()) -> str:
    """Column predicates first, then the ``where`` tests in order (schema last)."""
    chain = [where_sql(q, w, event_values(q, w.path))
             for w in sorted(s.where, key=has_schema)] + list(more)
    return f"{_columns(q, s)} AND {all_of(chain)}" if chain else _columns(q, s)


def key_sql(q: Query, path: JPath, flow: bool = False) -> str:
    first = event_values(q, path).first
    return first.key(flow) if first is not None else "NULL::VARCHAR"
