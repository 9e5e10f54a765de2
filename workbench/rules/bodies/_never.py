"""``never``: no ``event`` happens after an ``after`` event with the same values at
``same``."""

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

__all__ = ["Never"]


@dataclass(frozen=True)
class Never:
    """No ``event`` happens after an ``after`` event (same values at ``same``)."""

    kind: ClassVar[str] = "never"
    event: Selector
    after: Selector
    same: tuple[JPath, ...] = ()

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        return cls(*correlated(spec, "never", ("event", "after"), at))

    def violations(self, trace: Trace) -> list[Primary]:
        afters = [a for a in trace if selects(self.after, a)]
        return [(e.event_id,) for e in trace
                if selects(self.event, e) and earlier(trace, afters, e, self.same) is not None]

    def sql(self, at: Sql) -> Found:
        return preceded(at, self.after, self.event, self.same, want=True)

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        e = events[0]
        after = earlier(trace, (a for a in trace if selects(self.after, a)), e, self.same)
        if after is None:
            raise ValueError(f"{e.event_id} does not happen after {self.after.describe()}")
        same = f" for the same {names(self.same)}" if self.same else ""
        return Wording([e, after], e.name,
                       f"{label(e, self.same)} happens after {self.after.describe()} at step "
                       f"{after.seq}{same}",
                       {"never_after": self.after.describe(),
                        "same": [str(p) for p in self.same]},
                       values=quoted(e, self.same))

    def paths(self) -> BodyPaths:
        return BodyPaths((*self.event.paths(), *self.after.paths()),
                         tuple(str(p) for p in self.same))
