"""The DuckDB engine: the violations of each rule, store-wide, in one query per rule.

It finds exactly what ``_python.violations`` finds in each trace (property-tested in
tests/property/test_engines_agree.py) and reports the same primary event ids, so
``_explain`` words both engines' findings alike. Each body compiles its own query
(``RuleBody.sql``) from the pieces in ``_sqlscan`` and ``_sqlcond``; how paths,
conditions and selectors become SQL, and where DuckDB differs from Python, is
``_sqlcond``'s docstring.

- ``before``, ``never`` and ``flow`` share ``earlier.sql`` (one aggregate per trace and
  key, so linear); ``count`` is ``bodies/count.sql``; ``every``, ``absent``, ``exists``
  are one scan. ``schema`` tests call ``_conditions.cond_holds`` through a DuckDB
  function registered while the call runs, only on rows that passed every other test.
- ``order`` and ``flow`` settle most traces in SQL and finish the rest in Python, from
  only the candidate events of the traces concerned, loaded in one query (their
  modules say how).

Not a difference, though DuckDB alone would make it one: ``Flow.came_from`` finding
nothing under ``refs`` (it walks ``Ref`` objects).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import duckdb

from ..model import Trace
from ..store import Store
from ._engine import Violation, word
from ._findings import Finding
from ._rule import RuleSet
from ._sqlscan import SchemaTest, Scope, Sql

__all__ = ["DuckDBEngine", "sql_violations"]


def sql_violations(con: duckdb.DuckDBPyConnection, rules: RuleSet,
                   trace_ids: Sequence[str] | None,
                   load_trace: Callable[[str], Trace] | None = None) -> list[Violation]:
    """(rule id, trace id, primary event ids) of every violation, store-wide in one pass
    per rule: what ``_python.violations`` finds in each trace (``trace_ids`` None: every
    trace of the ``traces`` view), rule by rule, then by trace and step.

    ``load_trace`` is not used: this engine loads only the candidate events it needs.
    """
    del load_trace
    if trace_ids is not None and not trace_ids:
        return []
    scope = Scope(None if trace_ids is None else list(trace_ids))
    schema = SchemaTest(con)
    out: list[Violation] = []
    try:
        for rule in rules:
            found = rule.body.sql(Sql(con, scope, schema))
            found.sort(key=lambda f: (f[0], -1 if f[2] is None else f[2], f[1]))
            out.extend(Violation(rule.id, tid, ids) for tid, ids, _ in found)
    finally:
        schema.close()
    return out


class DuckDBEngine:
    """The ``Engine`` that compiles each rule to one DuckDB query over the store."""

    def violations(self, store: Store, rules: RuleSet,
                   trace_ids: Sequence[str] | None) -> list[Violation]:
        con = store.connect()
        try:
            return sql_violations(con, rules, trace_ids)
        except duckdb.Error as exc:  # a damaged store file says so; else a bug of ours
            error = store.read_error(exc)
            if error.code == "STORE_CORRUPT":
                raise error from None
            raise
        finally:
            con.close()

    def findings(self, store: Store, rules: RuleSet,
                 trace_ids: Sequence[str] | None) -> list[Finding]:
        return word(store, rules, self.violations(store, rules, trace_ids))
