"""``absent``: no matching event in the trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...model import Event, Trace
from .._conditions import selects
from .._explain import Wording, label
from .._model import Selector
from .._parse import At, selector
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlcond import selector_sql
from .._sqlscan import ID, Found, Sql

__all__ = ["Absent"]


@dataclass(frozen=True)
class Absent:
    """No matching event."""

    kind: ClassVar[str] = "absent"
    event: Selector

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        return cls(selector(spec, "absent", at))

    def violations(self, trace: Trace) -> list[Primary]:
        return [(e.event_id,) for e in trace if selects(self.event, e)]

    def sql(self, at: Sql) -> Found:
        sql = at.rows(selector_sql(at.q, self.event), cols=ID)
        return [(tid, (eid,), seq) for tid, eid, seq in at.run(sql)]

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        e = events[0]
        what = self.event.describe()
        return Wording([e], e.name, f"{label(e)} is not allowed: {what} must be absent",
                       {"absent": what})

    def paths(self) -> BodyPaths:
        return BodyPaths(tuple(self.event.paths()))
