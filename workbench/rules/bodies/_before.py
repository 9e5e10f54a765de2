"""``before``: every ``then`` event has an earlier ``first`` event with the same values
at ``same``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...model import Event, Trace
from ...model import Path as JPath
from .._conditions import earlier, selects
from .._explain import Wording, label, names, quoted
from .._model import Selector
from .._parse import At, correlated
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlscan import Found, Sql, preceded

__all__ = ["Before"]


@dataclass(frozen=True)
class Before:
    """Every ``then`` event has an earlier ``first`` event (same values at ``same``)."""

    kind: ClassVar[str] = "before"
    first: Selector
    then: Selector
    same: tuple[JPath, ...] = ()

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        return cls(*correlated(spec, "before", ("first", "then"), at))

    def violations(self, trace: Trace) -> list[Primary]:
        firsts = [e for e in trace if selects(self.first, e)]
        return [(t.event_id,) for t in trace
                if selects(self.then, t) and earlier(trace, firsts, t, self.same) is None]

    def sql(self, at: Sql) -> Found:
        return preceded(at, self.first, self.then, self.same, want=False)

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        t = events[0]
        same = f" for the same {names(self.same)}" if self.same else ""
        return Wording([t], t.name,
                       f"{label(t, self.same)} has no earlier {self.first.describe()}{same}",
                       {"before": self.first.describe(), "same": [str(p) for p in self.same]},
                       values=quoted(t, self.same))

    def paths(self) -> BodyPaths:
        return BodyPaths((*self.first.paths(), *self.then.paths()),
                         tuple(str(p) for p in self.same))
