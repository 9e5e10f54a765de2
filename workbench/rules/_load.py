"""Load a rules file (YAML, ``version: 1``) into a ``RuleSet``, or say what is wrong.

The file is read and its version and keys checked by ``config``, which keeps the line
of every node.

Every error names the file, the rule id and the line, so a rule that cannot be
evaluated (unknown path syntax, bad regex, missing schema file) fails at load time,
never half-way through a check.
"""

from __future__ import annotations

import re
from pathlib import Path as FsPath
from typing import Any

from ..config import ConfigError, ConfigFile
from ..model import EVENT_COLUMNS, EVENT_KINDS, STATUSES, WorkbenchError, loads, parse_path
from ..model import Path as JPath
from ._model import (
    BODIES,
    CONDITION_OPS,
    JSON_TYPES,
    Absent,
    Before,
    Body,
    Cond,
    Count,
    Every,
    Exists,
    Flow,
    Never,
    Order,
    Rule,
    RuleSet,
    Selector,
    Where,
)

__all__ = ["RulesError", "load_rules", "parse_rules", "parse_where"]

_SCHEMA_ROOTS = ("args", "result", "error", "attrs")


class RulesError(ConfigError):
    code = "RULES_INVALID"
    default_hint = "see docs/rules.md for the rules language"


_FILE = ConfigFile("rules file", RulesError, keys=("rules",),
                   shape="a rules file is a mapping with `version: 1` and `rules:`",
                   yaml_code="RULES_YAML")


class _Ctx:
    def __init__(self, source: str, base: FsPath | None, rule: str | None = None,
                 line: int | None = None) -> None:
        self.source, self.base, self.rule, self.line = source, base, rule, line

    def error(self, msg: str) -> RulesError:
        part = f"rule {self.rule}" if self.rule else None
        return _FILE.error(self.source, msg, self.line, part=part, rule=self.rule)


def load_rules(path: str | FsPath) -> RuleSet:
    """Read and check a rules file."""
    p = FsPath(path)
    return parse_rules(_FILE.read(p), source=str(p), base=p.parent)


def parse_rules(text: str, source: str = "<rules>", base: FsPath | None = None) -> RuleSet:
    """Check rules given as YAML text; ``base`` resolves schema ``$ref`` files."""
    doc = _FILE.parse(text, source)
    rules = doc.get("rules")
    if rules is None or rules.kind != "mapping" or not rules.value:
        raise (rules or doc).error("`rules:` must map rule ids to rules")
    lines = {str(k.value): k.line for k, _ in rules.entries()}
    out = [_rule(str(rid), spec, _Ctx(source, base, str(rid), lines.get(str(rid))))
           for rid, spec in rules.value.items()]
    return RuleSet(tuple(out), 1, source, text)


def _rule(rid: str, spec: Any, ctx: _Ctx) -> Rule:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", rid):
        raise ctx.error("a rule id is letters, digits, '-', '_' and '.'")
    if not isinstance(spec, dict):
        raise ctx.error("a rule is a mapping with a description, a severity and one body")
    bodies = [k for k in spec if k in BODIES]
    unknown = [k for k in spec if k not in BODIES and k not in ("description", "severity")]
    if unknown:
        raise ctx.error(f"unknown key {unknown[0]!r} (bodies: {', '.join(BODIES)})")
    if len(bodies) != 1:
        raise ctx.error(f"a rule has exactly one body of {', '.join(BODIES)}"
                        f" (found {len(bodies)})")
    severity = spec.get("severity", "error")
    if severity not in ("error", "warn"):
        raise ctx.error(f"severity is error or warn (found {severity!r})")
    description = spec.get("description", "")
    if not isinstance(description, str):
        raise ctx.error("description must be text")
    body = _BODY_PARSERS[bodies[0]](spec[bodies[0]], ctx)
    return Rule(rid, body, description, severity, ctx.line)


# -- bodies ---------------------------------------------------------------------------
def _mapping(value: Any, what: str, ctx: _Ctx, allowed: set[str],
             required: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    if not isinstance(value, dict):
        raise ctx.error(f"{what} must be a mapping")
    extra = set(value) - allowed
    if extra:
        raise ctx.error(f"{what}: unknown key {sorted(extra)[0]!r}")
    missing = required - set(value)
    if missing:
        raise ctx.error(f"{what}: missing {sorted(missing)[0]!r}")
    return value


def _paths(value: Any, what: str, ctx: _Ctx) -> tuple[JPath, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(_event_path(v, what, ctx) for v in items)


def _event_path(text: Any, what: str, ctx: _Ctx) -> JPath:
    path = _path(text, what, ctx)
    if not isinstance(path.root, str) or path.root not in EVENT_COLUMNS:
        raise ctx.error(f"{what}: path {text!r} must start with an event field "
                        f"({', '.join(EVENT_COLUMNS)})")
    return path


def _path(text: Any, what: str, ctx: _Ctx) -> JPath:
    if not isinstance(text, str):
        raise ctx.error(f"{what}: a path is text, found {text!r}")
    try:
        return parse_path(text)
    except WorkbenchError as exc:
        raise ctx.error(f"{what}: {exc.message}") from None


def _before(v: Any, ctx: _Ctx) -> Body:
    m = _mapping(v, "before", ctx, {"first", "then", "same"}, {"first", "then"})
    return Before(_selector(m["first"], "before.first", ctx),
                  _selector(m["then"], "before.then", ctx), _paths(m.get("same"), "same", ctx))


def _never(v: Any, ctx: _Ctx) -> Body:
    m = _mapping(v, "never", ctx, {"event", "after", "same"}, {"event", "after"})
    return Never(_selector(m["event"], "never.event", ctx),
                 _selector(m["after"], "never.after", ctx), _paths(m.get("same"), "same", ctx))


def _count(v: Any, ctx: _Ctx) -> Body:
    m = _mapping(v, "count", ctx, {"event", "per", "min", "max"}, {"event"})
    lo, hi = m.get("min"), m.get("max")
    for name, x in (("min", lo), ("max", hi)):
        if x is not None and (isinstance(x, bool) or not isinstance(x, int) or x < 0):
            raise ctx.error(f"count.{name} must be a whole number >= 0")
    if lo is None and hi is None:
        raise ctx.error("count needs min, max or both")
    if lo is not None and hi is not None and lo > hi:
        raise ctx.error("count.min is larger than count.max")
    return Count(_selector(m["event"], "count.event", ctx), _paths(m.get("per"), "per", ctx),
                 lo, hi)


def _every(v: Any, ctx: _Ctx) -> Body:
    m = _mapping(v, "every", ctx, {"event", "where", "schema"}, {"event"})
    if "where" not in m and "schema" not in m:
        raise ctx.error("every needs where, schema or both")
    schema: tuple[tuple[str, dict[str, Any]], ...] = ()
    if "schema" in m:
        spec = _mapping(m["schema"], "every.schema", ctx, set(_SCHEMA_ROOTS))
        schema = tuple((root, _schema(s, f"schema.{root}", ctx)) for root, s in spec.items())
    return Every(_selector(m["event"], "every.event", ctx),
                 _where(m.get("where") or {}, "every.where", ctx, rooted=True), schema)


def _exists(v: Any, ctx: _Ctx) -> Body:
    return Exists(_selector(v, "exists", ctx))


def _absent(v: Any, ctx: _Ctx) -> Body:
    return Absent(_selector(v, "absent", ctx))


def _order(v: Any, ctx: _Ctx) -> Body:
    m = _mapping(v, "order", ctx, {"steps", "edges"}, {"steps", "edges"})
    steps = _mapping(m["steps"], "order.steps", ctx, set(m["steps"]) if isinstance(
        m["steps"], dict) else set())
    if not steps:
        raise ctx.error("order.steps names at least one step")
    parsed = tuple((str(k), _selector(s, f"order.steps.{k}", ctx)) for k, s in steps.items())
    edges = m["edges"]
    if not isinstance(edges, list) or not all(
            isinstance(e, list) and len(e) == 2 for e in edges):
        raise ctx.error("order.edges is a list of [before, after] pairs")
    names = {k for k, _ in parsed}
    for a, b in edges:
        for x in (a, b):
            if str(x) not in names:
                raise ctx.error(f"order.edges names an unknown step {x!r}")
    pairs = tuple((str(a), str(b)) for a, b in edges)
    if _cyclic(names, pairs):
        raise ctx.error("order.edges form a cycle; no trace can satisfy them")
    return Order(parsed, pairs)


def _cyclic(names: set[str], edges: tuple[tuple[str, str], ...]) -> bool:
    indeg = {n: 0 for n in names}
    for _, b in edges:
        indeg[b] += 1
    todo = [n for n, d in indeg.items() if d == 0]
    seen = 0
    while todo:
        n = todo.pop()
        seen += 1
        for a, b in edges:
            if a == n:
                indeg[b] -= 1
                if indeg[b] == 0:
                    todo.append(b)
    return seen < len(names)


def _flow(v: Any, ctx: _Ctx) -> Body:
    m = _mapping(v, "flow", ctx, {"event", "value", "from", "from_value", "source_where"},
                 {"event", "value", "from", "from_value"})
    return Flow(_selector(m["event"], "flow.event", ctx), _event_path(m["value"], "value", ctx),
                _selector(m["from"], "flow.from", ctx),
                _event_path(m["from_value"], "from_value", ctx),
                _where(m.get("source_where") or {}, "source_where", ctx, rooted=False))


_BODY_PARSERS = {"before": _before, "never": _never, "count": _count, "every": _every,
                 "exists": _exists, "absent": _absent, "order": _order, "flow": _flow}


# -- selectors and conditions -------------------------------------------------------------
def _selector(v: Any, what: str, ctx: _Ctx) -> Selector:
    m = _mapping(v, what, ctx, {"kind", "name", "tool", "status", "where"})
    if not m:
        raise ctx.error(f"{what}: an empty selector would match every event")
    kind, name = m.get("kind"), m.get("name")
    if "tool" in m:
        if "kind" in m or "name" in m:
            raise ctx.error(f"{what}: tool is kind tool_call plus name; give it alone")
        kind, name = "tool_call", m["tool"]
    if kind is not None and kind not in EVENT_KINDS:
        raise ctx.error(f"{what}: unknown kind {kind!r} (kinds: {', '.join(EVENT_KINDS)})")
    if name is not None and not isinstance(name, str):
        raise ctx.error(f"{what}: name must be text")
    status = m.get("status")
    if status is not None and status not in STATUSES:
        raise ctx.error(f"{what}: unknown status {status!r}")
    return Selector(kind, name, status, _where(m.get("where") or {}, f"{what}.where", ctx,
                                                rooted=True))


def parse_where(spec: dict[str, Any], what: str, ctx: _Ctx | None = None,
                rooted: bool = True) -> tuple[Where, ...]:
    """``{path: condition}`` as ``Where`` objects (the Python API uses it too)."""
    return _where(spec, what, ctx or _Ctx("<python>", None), rooted)


def _where(spec: Any, what: str, ctx: _Ctx, rooted: bool) -> tuple[Where, ...]:
    if not isinstance(spec, dict):
        raise ctx.error(f"{what} maps paths to conditions")
    out = []
    for text, cond in spec.items():
        path = _event_path(text, what, ctx) if rooted else _path(text, what, ctx)
        out.append(Where(path, _conds(cond, f"{what}.{text}", ctx)))
    return tuple(out)


def _conds(cond: Any, what: str, ctx: _Ctx) -> tuple[Cond, ...]:
    if isinstance(cond, list):
        raise ctx.error(f"{what}: a list is ambiguous here; write {{in: [...]}}")
    if not isinstance(cond, dict):
        return (Cond("eq", cond),)
    if not cond:
        raise ctx.error(f"{what}: empty condition")
    out = []
    for op, arg in cond.items():
        if op not in CONDITION_OPS:
            raise ctx.error(f"{what}: unknown condition {op!r} "
                            f"(conditions: {', '.join(CONDITION_OPS)})")
        out.append(Cond(op, _operand(op, arg, what, ctx)))
    return tuple(out)


def _operand(op: str, arg: Any, what: str, ctx: _Ctx) -> Any:
    if op in ("eq", "ne") and isinstance(arg, dict | list):
        raise ctx.error(f"{what}: {op} compares scalars; use schema for structures")
    if op in ("in", "not_in") and (not isinstance(arg, list) or any(
            isinstance(x, dict | list) for x in arg)):
        raise ctx.error(f"{what}: {op} takes a list of scalars")
    if op == "exists" and not isinstance(arg, bool):
        raise ctx.error(f"{what}: exists takes true or false")
    if op in ("lt", "le", "gt", "ge") and (isinstance(arg, bool) or
                                           not isinstance(arg, int | float | str)):
        raise ctx.error(f"{what}: {op} takes a number or a text")
    if op == "type" and arg not in JSON_TYPES:
        raise ctx.error(f"{what}: type is one of {', '.join(JSON_TYPES)}")
    if op == "matches":
        if not isinstance(arg, str):
            raise ctx.error(f"{what}: matches takes a regular expression")
        _check_regex(arg, what, ctx)
    if op == "schema":
        return _schema(arg, what, ctx)
    return arg


def _check_regex(pattern: str, what: str, ctx: _Ctx) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ctx.error(f"{what}: bad regular expression: {exc}") from None
    import duckdb  # the SQL engine uses RE2: the pattern must mean the same there
    try:
        duckdb.connect().execute("SELECT regexp_matches('', ?)", [pattern]).fetchall()
    except duckdb.Error as exc:
        raise ctx.error(f"{what}: the regular expression uses syntax RE2 lacks "
                        f"(no look-around or back-references): {str(exc)[:120]}") from None


def _schema(spec: Any, what: str, ctx: _Ctx) -> dict[str, Any]:
    if isinstance(spec, dict) and set(spec) == {"$ref"} and isinstance(spec["$ref"], str):
        ref = FsPath(spec["$ref"])
        path = ref if ref.is_absolute() or ctx.base is None else ctx.base / ref
        try:
            spec = loads(path.read_bytes())
        except FileNotFoundError:
            raise ctx.error(f"{what}: schema file {spec['$ref']} not found") from None
        except Exception as exc:
            raise ctx.error(f"{what}: schema file {spec['$ref']} is not JSON: {exc}") from None
    if not isinstance(spec, dict | bool):
        raise ctx.error(f"{what}: a schema is a JSON Schema object or {{$ref: file}}")
    import jsonschema  # only rules with a `schema` condition pay for it

    try:
        jsonschema.validators.validator_for(spec).check_schema(spec)
    except jsonschema.SchemaError as exc:
        raise ctx.error(f"{what}: not a valid JSON Schema: {exc.message}") from None
    return spec  # type: ignore[return-value]
