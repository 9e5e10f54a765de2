"""``every``: each matching event meets ``where`` and validates against ``schema``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...model import Event, Trace, dumps
from .._conditions import cond_holds, selects, where_holds
from .._explain import Wording, label, short
from .._model import Cond, Selector, Where
from .._parse import At, mapping, schema, selector, where
from .._rule import BodyPaths, Primary, RuleBody
from .._sqlcond import SCHEMA_UDF, all_of, event_values, json_root, selector_sql, where_sql
from .._sqlscan import ID, Found, Sql

__all__ = ["Every"]

_SCHEMA_ROOTS = ("args", "result", "error", "attrs")


@dataclass(frozen=True)
class Every:
    """Each matching event meets ``where`` and validates against ``schema`` per root."""

    kind: ClassVar[str] = "every"
    event: Selector
    where: tuple[Where, ...] = ()
    schema: tuple[tuple[str, dict[str, Any]], ...] = ()

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        m = mapping(spec, "every", at, {"event", "where", "schema"}, {"event"})
        if "where" not in m and "schema" not in m:
            raise at.error("every needs where, schema or both")
        schemas: tuple[tuple[str, dict[str, Any]], ...] = ()
        if "schema" in m:
            roots = mapping(m["schema"], "every.schema", at, set(_SCHEMA_ROOTS))
            schemas = tuple((root, schema(s, f"schema.{root}", at)) for root, s in roots.items())
        return cls(selector(m["event"], "every.event", at),
                   where(m.get("where") or {}, "every.where", at, rooted=True), schemas)

    def violations(self, trace: Trace) -> list[Primary]:
        return [(e.event_id,) for e in trace if selects(self.event, e) and not self._meets(e)]

    def _meets(self, e: Event) -> bool:
        if not all(where_holds(e.values(w.path), w) for w in self.where):
            return False
        return all(cond_holds(getattr(e, root), Cond("schema", s)) for root, s in self.schema)

    def sql(self, at: Sql) -> Found:
        q = at.q
        meets = [where_sql(q, w, event_values(q, w.path)) for w in self.where]
        for root, s in self.schema:
            doc = {"attrs": "COALESCE(NULLIF(\"attrs\", ''), '{}')"}.get(root, json_root(root))
            meets.append(f"{SCHEMA_UDF}(CAST({doc} AS VARCHAR), {q.bind(dumps(s))})")
        sql = at.rows(selector_sql(q, self.event, [f"NOT ({all_of(meets)})"]), cols=ID)
        return [(tid, (eid,), seq) for tid, eid, seq in at.run(sql)]

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        e = events[0]
        for w in self.where:
            if not where_holds(e.values(w.path), w):
                vals = e.values(w.path)
                return Wording([e], e.name, f"{label(e)}: {_where_failure(e, w)}",
                               {"where": {str(w.path): [c.op for c in w.conds]}},
                               values=(short(vals[0]),) if vals else ())
        for root, s in self.schema:
            import jsonschema  # only rules with a `schema` condition pay for it

            from .._schema_re2 import schema_validator
            err = jsonschema.exceptions.best_match(
                schema_validator(s).iter_errors(getattr(e, root)))
            if err is not None:
                loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                             for p in err.absolute_path)
                return Wording([e], e.name, f"{label(e)}: {root}{loc} does not match the schema "
                               f"({short(err.message, 80)})", {"schema": root})
        raise ValueError(f"{e.event_id} meets every condition of the rule")

    def paths(self) -> BodyPaths:
        return BodyPaths((*self.event.paths(), *(str(w.path) for w in self.where),
                          *(root for root, _ in self.schema)))


def _where_failure(e: Event, w: Where) -> str:
    vals = e.values(w.path)
    for c in w.conds:
        if c.op == "exists":
            if c.value and not vals:
                return f"{w.path} is missing"
            if not c.value and vals:
                return f"{w.path} is present"
    if not vals:
        return f"{w.path} is missing"
    tests = ", ".join(f"{c.op} {short(c.value, 60)}" for c in w.conds if c.op != "exists")
    return f"{w.path} is {short(vals[0])}, which does not meet {tests}"
