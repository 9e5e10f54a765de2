"""What an engine is: how ``check`` finds the violations of a rule set in a store.

Three engines satisfy ``Engine``: ``PythonEngine`` (``_python.py``) walks one ``Trace``
at a time and is the reference meaning of the language; ``DuckDBEngine`` (``_sql.py``)
compiles each rule to one SQL query over the store's ``events`` view; ``SparkEngine``
(``_spark.py``) deals whole traces into Spark partitions and runs the DuckDB engine's
queries on each. All of them find
the same violations (tests/property/test_engines_agree.py) and word them with the same
code (``_explain.explain``), so their findings are identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from ..store import Store
from ._explain import explain
from ._findings import Finding
from ._rule import Primary, RuleSet

__all__ = ["Engine", "Violation", "word"]


class Violation(NamedTuple):
    """One violation: the rule, the trace and the primary event ids (``_rule.Primary``)."""

    rule: str
    trace_id: str
    events: Primary


class Engine(Protocol):
    """Finds the violations of ``rules`` in the traces ``trace_ids`` of ``store`` (None:
    every trace), rule by rule, then by trace and step."""

    def violations(self, store: Store, rules: RuleSet,
                   trace_ids: Sequence[str] | None) -> list[Violation]:
        """The violations, as primary events (what the engines are compared on)."""
        ...

    def findings(self, store: Store, rules: RuleSet,
                 trace_ids: Sequence[str] | None) -> list[Finding]:
        """The violations as worded findings (``word`` does it for a store-wide engine)."""
        ...


def word(store: Store, rules: RuleSet, found: Sequence[Violation]) -> list[Finding]:
    """The findings of violations found store-wide: the traces that broke a rule are
    loaded in one query and each violation is explained."""
    traces = store.traces(sorted({v.trace_id for v in found}))
    by_id = {r.id: r for r in rules}
    return [explain(by_id[v.rule], traces[v.trace_id], v.events) for v in found]
