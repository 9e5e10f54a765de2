"""The per-trace engine: finds the violations of each rule by walking one ``Trace``.

It is the reference meaning of the rules language: each body's ``violations`` says what
breaks it in one trace. The DuckDB engine (``_sql.py``) is property-tested to find
exactly the same violations. Each violation is worded by ``_explain.explain``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..model import Trace
from ..store import Store
from ._engine import Violation
from ._explain import explain
from ._findings import Finding
from ._rule import Primary, Rule, RuleSet

__all__ = ["PythonEngine", "check_trace", "violations"]

_CHUNK = 256  # traces read per query, not a query per trace


def check_trace(trace: Trace, rules: RuleSet | Iterable[Rule]) -> list[Finding]:
    """Every finding of the rules in one trace, rule by rule, in step order."""
    return [explain(rule, trace, primary) for rule in rules
            for primary in violations(rule, trace)]


def violations(rule: Rule, trace: Trace) -> list[Primary]:
    """The primary event ids of each violation (see ``_rule.Primary``), in step order."""
    return rule.body.violations(trace)


class PythonEngine:
    """The ``Engine`` that reads the traces and judges them one at a time."""

    def violations(self, store: Store, rules: RuleSet,
                   trace_ids: Sequence[str] | None) -> list[Violation]:
        found = [Violation(rule.id, trace.trace_id, primary)
                 for trace in _traces(store, trace_ids) for rule in rules
                 for primary in violations(rule, trace)]
        order = {r.id: i for i, r in enumerate(rules)}
        return sorted(found, key=lambda v: order[v.rule])

    def findings(self, store: Store, rules: RuleSet,
                 trace_ids: Sequence[str] | None) -> list[Finding]:
        return [f for trace in _traces(store, trace_ids) for f in check_trace(trace, rules)]


def _traces(store: Store, trace_ids: Sequence[str] | None) -> Iterator[Trace]:
    ids = sorted(store.trace_ids()) if trace_ids is None else list(trace_ids)
    for i in range(0, len(ids), _CHUNK):
        yield from store.traces(ids[i:i + _CHUNK]).values()
