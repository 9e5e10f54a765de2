"""The pieces of SQL every body's query is built from, and what a body's ``sql`` is given.

A body compiles its own query (``RuleBody.sql``) with ``_sqlcond`` (paths, conditions,
selectors) and these: ``Sql``, one rule's bound parameters, connection and scope; rows of
the ``events`` view with keys; ``earlier.sql``, whether an event has an earlier one with
the same keys (``before``, ``never``, ``flow``); ``candidates``, the events a Python
finish needs; and the ``schema`` test, a Python function DuckDB calls, registered on the
connection only while a query that uses it runs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path as FsPath
from typing import Any

import duckdb

from ..model import EVENTS, Event, Trace, loads
from ..model import Path as JPath
from ._conditions import cond_holds
from ._model import Cond, Selector
from ._sqlcond import SCHEMA_UDF, Query, key_sql, quote, selector_sql

__all__ = ["EVENT", "ID", "TIMES", "Found", "SchemaTest", "Scope", "Sql", "earlier",
           "preceded", "precedes"]

Found = list[tuple[str, tuple[str, ...], int | None]]
"""What a body's ``sql`` finds: (trace id, primary event ids, step of the first)."""

EVENT = '"trace_id", "event_id", "seq", "start_ns", "end_ns"'
TIMES = '"trace_id", "seq", "start_ns", "end_ns"'  # all happens-before needs
ID = '"trace_id", "event_id", "seq"'


_EARLIER = FsPath(__file__).with_name("earlier.sql").read_text()


class Scope:
    """The traces a check covers: the ``traces`` view, or the ids given."""

    def __init__(self, trace_ids: list[str] | None) -> None:
        self.ids = trace_ids

    def events(self, q: Query) -> str:
        if self.ids is None:
            return "TRUE"
        return f'"trace_id" IN (SELECT unnest(CAST({q.bind(list(self.ids))} AS VARCHAR[])))'

    def traces(self, q: Query) -> str:
        return f'SELECT DISTINCT "trace_id" FROM "traces" WHERE {self.events(q)}'


class SchemaTest:
    """The ``schema`` condition as a DuckDB function, on one connection: registered by the
    first query that calls it, removed by ``close``."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.tried = self.registered = False

    def need(self) -> None:
        if self.tried:
            return
        self.tried = True
        try:
            self.con.create_function(SCHEMA_UDF, _schema_holds, ["VARCHAR", "VARCHAR"],
                                     "BOOLEAN", side_effects=False)
            self.registered = True
        except duckdb.NotImplementedException:  # already there: a call in progress
            pass

    def close(self) -> None:
        if self.registered:
            self.con.remove_function(SCHEMA_UDF)


@functools.lru_cache(maxsize=128)
def _schema(text: str) -> Any:
    return loads(text)


def _schema_holds(value: str, schema: str) -> bool:
    return cond_holds(loads(value), Cond("schema", _schema(schema)))


class Sql:
    """What a body's ``sql`` is given: ``q``, the bound parameters of this rule's queries,
    the connection and ``scope``, the traces to check."""

    def __init__(self, con: duckdb.DuckDBPyConnection, scope: Scope, schema: SchemaTest) -> None:
        self.q = Query()
        self.con, self.scope, self._schema = con, scope, schema

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        if SCHEMA_UDF in sql:
            self._schema.need()
        return self.q.run(self.con, sql)

    def rows(self, where: str, keys: Sequence[str] = (), cols: str = EVENT) -> str:
        """The events in scope that meet ``where``, with ``keys`` as "k0", "k1" …"""
        ks = "".join(f', {k} AS "k{i}"' for i, k in enumerate(keys))
        return f'SELECT {cols}{ks} FROM "events" WHERE {self.scope.events(self.q)} AND {where}'

    def candidates(self, trace_ids: list[str], selectors: Sequence[Selector]) -> dict[str, Trace]:
        """The events of these traces that some selector picks, as one sub-trace each."""
        if not trace_ids:
            return {}
        q = self.q
        cols = ", ".join(quote(n) for n in EVENTS.names)
        sql = (f'SELECT {cols} FROM "events" WHERE {Scope(trace_ids).events(q)} AND ('
               + " OR ".join(selector_sql(q, s) for s in selectors)
               + ') ORDER BY "trace_id", "seq"')
        by: dict[str, list[Event]] = {}
        for values in self.run(sql):
            row = dict(zip(EVENTS.names, values, strict=True))
            by.setdefault(row["trace_id"], []).append(Event.from_row(row))
        return {tid: Trace(tid, tuple(evs)) for tid, evs in by.items()}


def earlier(a: str, t: str, nkeys: int) -> str:
    """``earlier.sql``: each row of ``t`` and whether a row of ``a`` with the same keys
    happens before it."""
    keys = "".join(f', "k{i}"' for i in range(nkeys))
    on = "".join(f' AND agg."k{i}" = t."k{i}"' for i in range(nkeys))
    return _EARLIER.format(a=a, t=t, keys=keys, on=on)


def preceded(at: Sql, first: Selector, then: Selector, same: tuple[JPath, ...],
             *, want: bool) -> Found:
    """The ``then`` events that have (``want``) or lack an earlier ``first`` event with the
    same values at ``same``: ``never`` and ``before``."""
    q = at.q
    keys = [key_sql(q, p) for p in same]
    a = at.rows(selector_sql(q, first), keys, TIMES)
    t = at.rows(selector_sql(q, then), keys)
    cond = "earlier" if want else "NOT earlier"
    sql = f'SELECT "trace_id", "event_id", "seq" FROM ({earlier(a, t, len(keys))}) WHERE {cond}'
    return [(tid, (eid,), seq) for tid, eid, seq in at.run(sql)]


def precedes(a: str, b: str) -> str:
    """``Trace.precedes`` of two rows (or structs) with seq, start_ns and end_ns."""
    return (f"CASE WHEN {a}.start_ns IS NOT NULL AND {a}.end_ns IS NOT NULL AND "
            f"{b}.start_ns IS NOT NULL THEN {a}.end_ns <= {b}.start_ns ELSE {a}.seq < {b}.seq END")
