"""The per-trace engine: finds the violations of each rule by walking one ``Trace``.

It is the reference meaning of the rules language; the DuckDB engine (``_sql.py``) is
property-tested to find exactly the same violations. Each violation is worded by
``_explain.explain``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..model import Trace
from ._conditions import selects, where_holds
from ._explain import explain, flow_source, order_assignment, same_key
from ._findings import Finding
from ._model import Absent, Before, Count, Every, Exists, Flow, Never, Order, Rule, RuleSet

__all__ = ["check_trace", "violations"]


def check_trace(trace: Trace, rules: RuleSet | Iterable[Rule]) -> list[Finding]:
    """Every finding of the rules in one trace, rule by rule, in step order."""
    out: list[Finding] = []
    for rule in rules:
        out.extend(explain(rule, trace, primary) for primary in violations(rule, trace))
    return out


def violations(rule: Rule, trace: Trace) -> list[tuple[str, ...]]:
    """The primary event ids of each violation (see ``_explain``), in step order."""
    b = rule.body
    out: list[tuple[str, ...]] = []
    if isinstance(b, Before):
        firsts = [e for e in trace if selects(b.first, e)]
        for t in trace:
            if not selects(b.then, t):
                continue
            key = same_key(t, b.same)
            if key is None or not any(trace.precedes(f, t) and same_key(f, b.same) == key
                                      for f in firsts):
                out.append((t.event_id,))
        return out
    if isinstance(b, Never):
        afters = [a for a in trace if selects(b.after, a)]
        for e in trace:
            if not selects(b.event, e):
                continue
            key = same_key(e, b.same)
            if key is not None and any(trace.precedes(a, e) and same_key(a, b.same) == key
                                       for a in afters):
                out.append((e.event_id,))
        return out
    if isinstance(b, Count):
        groups: dict[tuple[str, ...], list[str]] = {}
        if not b.per:
            groups[()] = []
        for e in trace:
            if selects(b.event, e):
                key = same_key(e, b.per)
                if key is not None:
                    groups.setdefault(key, []).append(e.event_id)
        return [tuple(ids) for ids in groups.values()
                if (b.max is not None and len(ids) > b.max)
                or (b.min is not None and len(ids) < b.min)]
    if isinstance(b, Every):
        return [(e.event_id,) for e in trace if selects(b.event, e) and not _meets(b, e)]
    if isinstance(b, Exists):
        return [] if any(selects(b.event, e) for e in trace) else [()]
    if isinstance(b, Absent):
        return [(e.event_id,) for e in trace if selects(b.event, e)]
    if isinstance(b, Order):
        return [] if order_assignment(b, trace) is not None else [()]
    if isinstance(b, Flow):
        return [(e.event_id,) for e in trace
                if selects(b.event, e) and not flow_source(b, trace, e)[0]]
    raise TypeError(f"unknown rule body {type(b).__name__}")


def _meets(b: Every, e: object) -> bool:
    from ._conditions import cond_holds
    from ._model import Cond
    if not all(where_holds(e.values(w.path), w) for w in b.where):  # type: ignore[attr-defined]
        return False
    return all(cond_holds(getattr(e, root), Cond("schema", schema)) for root, schema in b.schema)
