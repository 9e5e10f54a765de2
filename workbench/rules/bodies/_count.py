"""``count``: per group of ``per`` values, the matching events number between ``min`` and
``max``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any, ClassVar

from ...model import Event, Trace
from ...model import Path as JPath
from .._conditions import same_key, selects
from .._explain import Wording, keytext, names, quoted
from .._model import Selector
from .._parse import At, mapping, paths, selector
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlcond import key_sql, selector_sql
from .._sqlscan import Found, Sql

__all__ = ["Count"]

_COUNT = FsPath(__file__).with_name("count.sql").read_text()


@dataclass(frozen=True)
class Count:
    """Per group of ``per`` values, the matching events number between min and max."""

    kind: ClassVar[str] = "count"
    event: Selector
    per: tuple[JPath, ...] = ()
    min: int | None = None
    max: int | None = None

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        m = mapping(spec, "count", at, {"event", "per", "min", "max"}, {"event"})
        lo, hi = m.get("min"), m.get("max")
        for name, x in (("min", lo), ("max", hi)):
            if x is not None and (isinstance(x, bool) or not isinstance(x, int) or x < 0):
                raise at.error(f"count.{name} must be a whole number >= 0")
        if lo is None and hi is None:
            raise at.error("count needs min, max or both")
        if lo is not None and hi is not None and lo > hi:
            raise at.error("count.min is larger than count.max")
        return cls(selector(m["event"], "count.event", at), paths(m.get("per"), "per", at),
                   lo, hi)

    def violations(self, trace: Trace) -> list[Primary]:
        groups: dict[tuple[str, ...], list[str]] = {}
        if not self.per:
            groups[()] = []
        for e in trace:
            if selects(self.event, e):
                key = same_key(e, self.per)
                if key is not None:
                    groups.setdefault(key, []).append(e.event_id)
        return [tuple(ids) for ids in groups.values()
                if (self.max is not None and len(ids) > self.max)
                or (self.min is not None and len(ids) < self.min)]

    def sql(self, at: Sql) -> Found:
        q = at.q
        keys = [key_sql(q, p) for p in self.per]
        bad = [f"n > {q.bind(self.max)}"] if self.max is not None else []
        bad += [f"n < {q.bind(self.min)}"] if self.min is not None else []
        empty = (at.scope.traces(q) if not self.per and self.min
                 else 'SELECT NULL::VARCHAR AS "trace_id" LIMIT 0')
        present = " AND ".join(f'"k{i}" IS NOT NULL' for i in range(len(keys))) or "TRUE"
        sql = _COUNT.format(rows=at.rows(selector_sql(q, self.event), keys), present=present,
                            keys="".join(f', "k{i}"' for i in range(len(keys))),
                            empty=empty, bad=" OR ".join(bad))
        return [(tid, tuple(ids), seq) for tid, ids, seq in at.run(sql)]

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        n = len(events)
        what = self.event.describe()
        per = f" for {names(self.per)} {keytext(events[0], self.per)}" if self.per and events \
            else ""
        expected = {"per": [str(p) for p in self.per]}
        if self.max is not None and n > self.max:
            beyond = events[self.max]
            return Wording([beyond, *[e for e in events if e is not beyond]], beyond.name,
                           f"{what} happens {n} times{per}, more than {self.max}: the one at "
                           f"step {beyond.seq} is one too many",
                           {"max": self.max, **expected}, {"count": n},
                           values=quoted(events[0], self.per))
        return Wording(events, events[0].name if events else what,
                       f"{what} happens {n} times{per}, fewer than {self.min}",
                       {"min": self.min, **expected}, {"count": n},
                       values=quoted(events[0], self.per) if events else ())

    def paths(self) -> BodyPaths:
        return BodyPaths(tuple(self.event.paths()), tuple(str(p) for p in self.per))
