"""``flow``: each ``value`` of a matching event came from an earlier ``from`` event: it
equals a value at ``from_value`` there, and the item holding it meets ``source_where``.

In SQL, ``earlier.sql`` over the keys the sources offer settles every event with no
equal earlier value. With ``source_where`` and a ``from_value`` that ends in two names,
which item holds a value depends on the key the flat-dotted fallback read, so SQL settles
only the events with no equal value and ``source`` the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...model import STAR, Event, Trace, format_path
from ...model import Path as JPath
from .._conditions import eq, selects, where_holds
from .._explain import Wording, label, quoted
from .._model import Selector, Where
from .._parse import At, event_path, mapping, selector, where
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlcond import (
    Column,
    Json,
    all_of,
    json_root,
    json_values,
    key_sql,
    many_sql,
    selector_sql,
    where_sql,
)
from .._sqlscan import TIMES, Found, Sql, earlier

__all__ = ["Flow"]


@dataclass(frozen=True)
class Flow:
    """Each ``value`` of a matching event came from an earlier ``source`` event: it equals
    a value at ``from_value`` there, and the item holding it meets ``source_where``."""

    kind: ClassVar[str] = "flow"
    event: Selector
    value: JPath
    source: Selector
    from_value: JPath
    source_where: tuple[Where, ...] = ()

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        m = mapping(spec, "flow", at, {"event", "value", "from", "from_value", "source_where"},
                    {"event", "value", "from", "from_value"})
        return cls(selector(m["event"], "flow.event", at), event_path(m["value"], "value", at),
                   selector(m["from"], "flow.from", at),
                   event_path(m["from_value"], "from_value", at),
                   where(m.get("source_where") or {}, "source_where", at, rooted=False))

    def violations(self, trace: Trace) -> list[Primary]:
        return [(e.event_id,) for e in trace
                if selects(self.event, e) and not self.came_from(trace, e)[0]]

    def came_from(self, trace: Trace, e: Event) -> tuple[bool, tuple[Event, str] | None]:
        """Whether the event's value came from a qualifying source; else the nearest miss:
        a source that had the value, and where its item is."""
        vals = e.values(self.value)
        if not vals:
            return False, None
        v = vals[0]
        miss = None
        root = self.from_value.root
        for s in trace:
            if not selects(self.source, s) or not trace.precedes(s, e):
                continue
            base = getattr(s, str(root))
            for segs, x in self.from_value.tail().find(base):
                if not _same_value(x, v):
                    continue
                item = _at(base, segs[:-1])
                if all(where_holds(w.path.values(item), w) for w in self.source_where):
                    return True, None
                if miss is None:
                    miss = (s, f"{root}" + "".join(
                        f"[{k}]" if isinstance(k, int) else f".{k}" for k in segs[:-1]))
        return False, miss

    def sql(self, at: Sql) -> Found:
        q = at.q
        xkeys, exact = self._keys(at)
        a = (f'SELECT DISTINCT {TIMES}, "k0" FROM (SELECT {TIMES}, unnest({xkeys}) AS "k0" '
             f'FROM "events" WHERE {at.scope.events(q)} AND {selector_sql(q, self.source)}) '
             'WHERE "k0" IS NOT NULL')
        t = at.rows(selector_sql(q, self.event), [key_sql(q, self.value, flow=True)])
        rows = at.run(f'SELECT "trace_id", "event_id", "seq", earlier FROM ({earlier(a, t, 1)})')
        out: Found = [(tid, (eid,), seq) for tid, eid, seq, before in rows if not before]
        if not exact:
            check = [(tid, eid, seq) for tid, eid, seq, before in rows if before]
            subs = at.candidates(sorted({tid for tid, _, _ in check}), [self.event, self.source])
            out += [(tid, (eid,), seq) for tid, eid, seq in check
                    if not self.came_from(subs[tid], subs[tid][eid])[0]]
        return out

    def _keys(self, at: Sql) -> tuple[str, bool]:
        """The keys of the values a source event offers (the items meeting ``source_where``),
        and whether that is exact (else ``source_where`` is left to ``came_from``)."""
        q = at.q
        root, tail = str(self.from_value.root), self.from_value.segments[1:]
        if root == "refs":  # came_from walks the Ref tuple, where a path finds nothing
            return "[]::VARCHAR[]", True
        doc = json_root(root) or Column(root).json
        x = q.var()
        if not self.source_where:
            return f"list_transform({many_sql(q, doc, tail)}, lambda {x}: {Json(x).key(True)})", \
                True
        if tail and isinstance(tail[-1], str) and len(tail) > 1 and isinstance(tail[-2], str):
            return f"list_transform({many_sql(q, doc, tail)}, lambda {x}: {Json(x).key(True)})", \
                False
        # the item is what holds the value: the value itself for a bare root, else its parent
        items = f"[{doc}]" if not tail else many_sql(q, doc, tail[:-1])
        it = q.var()
        ok = all_of([where_sql(q, w, json_values(q, it, w.path.segments))
                     for w in self.source_where])
        if not tail:
            held = f"[{it}]"
        elif tail[-1] is STAR:
            held = f"list_concat(json_extract({it}, {q.bind('$[*]')}), json_extract({it}, " \
                   f"{q.bind('$.*')}))"
        else:
            held = many_sql(q, it, tail[-1:])
        keys = f"list_transform({held}, lambda {x}: {Json(x).key(True)})"
        return (f"flatten(list_transform(list_filter({items}, lambda {it}: {ok}), "
                f"lambda {it}: {keys}))"), True

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        e = events[0]
        _, miss = self.came_from(trace, e)
        said = label(e, (self.value,))
        values = quoted(e, (self.value,))
        expected = {"from": self.source.describe(), "from_value": str(self.from_value),
                    "source_where": [str(w.path) for w in self.source_where]}
        if not e.values(self.value):
            return Wording([e], e.name, f"{said} has no {self.value}", expected)
        if miss is not None:
            s, held = miss
            conds = ", ".join(str(w.path) for w in self.source_where)
            return Wording([e, s], e.name, f"{said} came from {s.name} at step {s.seq} ({held}), "
                           f"whose {conds} does not qualify", expected, values=values)
        return Wording([e], e.name, f"{said} did not come from an earlier "
                       f"{self.source.describe()}", expected, values=values)

    def paths(self) -> BodyPaths:
        item = self.from_value.segments[:-1]
        tested = (*self.event.paths(), *self.source.paths(),
                  *(format_path((*item, *w.path.segments)) for w in self.source_where))
        return BodyPaths(tested, (str(self.value), str(self.from_value)))


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return eq(a, b)


def _at(base: Any, segs: tuple[Any, ...]) -> Any:
    for k in segs:
        base = base[k]
    return base
