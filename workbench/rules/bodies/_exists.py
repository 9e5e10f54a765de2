"""``exists``: at least one matching event in the trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...model import Event, Trace
from .._conditions import selects
from .._explain import Wording
from .._model import Selector
from .._parse import At, selector
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlcond import selector_sql
from .._sqlscan import Found, Sql

__all__ = ["Exists"]


@dataclass(frozen=True)
class Exists:
    """At least one matching event."""

    kind: ClassVar[str] = "exists"
    event: Selector

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        return cls(selector(spec, "exists", at))

    def violations(self, trace: Trace) -> list[Primary]:
        return [] if any(selects(self.event, e) for e in trace) else [()]

    def sql(self, at: Sql) -> Found:
        q = at.q
        sql = (f'{at.scope.traces(q)} EXCEPT SELECT "trace_id" FROM "events" '
               f"WHERE {at.scope.events(q)} AND {selector_sql(q, self.event)}")
        return [(tid, (), None) for (tid,) in at.run(sql)]

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        what = self.event.describe()
        return Wording([], what, f"no {what} in the trace", {"exists": what},
                       {"events": len(trace)})

    def paths(self) -> BodyPaths:
        return BodyPaths(tuple(self.event.paths()))
