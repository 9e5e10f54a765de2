"""The per-trace engine: finds the violations of each rule by walking one ``Trace``.

It is the reference meaning of the rules language: each body's ``violations`` says what
breaks it in one trace. The DuckDB engine (``_sql.py``) is property-tested to find
exactly the same violations. Each violation is worded by ``_explain.explain``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Trace
from ._explain import explain
from ._findings import Finding
from ._rule import Primary, Rule, RuleSet

__all__ = ["check_trace", "violations"]


def check_trace(trace: Trace, rules: RuleSet | Iterable[Rule]) -> list[Finding]:
    """Every finding of the rules in one trace, rule by rule, in step order."""
    return [explain(rule, trace, primary) for rule in rules
            for primary in violations(rule, trace)]


def violations(rule: Rule, trace: Trace) -> list[Primary]:
    """The primary event ids of each violation (see ``_rule.Primary``), in step order."""
    return rule.body.violations(trace)
