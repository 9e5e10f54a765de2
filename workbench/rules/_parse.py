"""The pieces of a rules file every body is parsed with: paths, selectors, conditions,
JSON Schemas, and ``At``, which says where in the file an error is.

Every error names the file, the rule id and the rule's line (``RulesError``,
``RULES_INVALID``), so a rule that cannot be evaluated (unknown path syntax, bad regex,
missing schema file) fails at load time, never half-way through a check. The Python API
(``sel()``, ``tool()``) builds selectors with the same code.
"""

from __future__ import annotations

from pathlib import Path as FsPath
from typing import Any

from ..config import ConfigError, ConfigFile
from ..model import EVENT_COLUMNS, EVENT_KINDS, LIMITS, STATUSES, WorkbenchError, parse_path
from ..model import Path as JPath
from ._conditions import compile_regex
from ._model import CONDITION_OPS, JSON_TYPES, Cond, Selector, Where
from ._schemaref import check_refs, read_schema_file

__all__ = ["RULES_FILE", "At", "RulesError", "correlated", "event_path", "mapping",
           "parse_where", "paths", "schema", "sel", "selector", "tool", "where"]


class RulesError(ConfigError):
    code = "RULES_INVALID"
    default_hint = "see docs/rules.md for the rules language"


RULES_FILE = ConfigFile("rules file", RulesError, keys=("rules",),
                        shape="a rules file is a mapping with `version: 1` and `rules:`",
                        yaml_code="RULES_YAML")


class At:
    """Where a rule is: the file, the folder schema ``$ref`` files are read from, the rule
    id and its line."""

    def __init__(self, source: str, base: FsPath | None, rule: str | None = None,
                 line: int | None = None) -> None:
        self.source, self.base, self.rule, self.line = source, base, rule, line

    def error(self, msg: str, **details: Any) -> RulesError:
        """The rules file's error here; ``details`` may give a ``code`` and a ``hint``."""
        part = f"rule {self.rule}" if self.rule else None
        return RULES_FILE.error(self.source, msg, self.line, part=part, rule=self.rule,
                                **details)


def mapping(value: Any, what: str, at: At, allowed: set[str],
            required: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """``value`` as a mapping with keys from ``allowed``, all of ``required`` among them."""
    if not isinstance(value, dict):
        raise at.error(f"{what} must be a mapping")
    extra = set(value) - allowed
    if extra:
        raise at.error(f"{what}: unknown key {sorted(extra)[0]!r}")
    missing = required - set(value)
    if missing:
        raise at.error(f"{what}: missing {sorted(missing)[0]!r}")
    return value


def paths(value: Any, what: str, at: At) -> tuple[JPath, ...]:
    """A path or a list of paths from an event field (``same``, ``per``)."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(event_path(v, what, at) for v in items)


def event_path(text: Any, what: str, at: At) -> JPath:
    """A path whose first name is an event field."""
    path = _path(text, what, at)
    if not isinstance(path.root, str) or path.root not in EVENT_COLUMNS:
        raise at.error(f"{what}: path {text!r} must start with an event field "
                       f"({', '.join(EVENT_COLUMNS)})")
    return path


def _path(text: Any, what: str, at: At) -> JPath:
    if not isinstance(text, str):
        raise at.error(f"{what}: a path is text, found {text!r}")
    try:
        return parse_path(text)
    except WorkbenchError as exc:
        raise at.error(f"{what}: {exc.message}") from None


# -- selectors and conditions -------------------------------------------------------------
def selector(v: Any, what: str, at: At) -> Selector:
    m = mapping(v, what, at, {"kind", "name", "tool", "status", "where"})
    if not m:
        raise at.error(f"{what}: an empty selector would match every event")
    kind, name = m.get("kind"), m.get("name")
    if "tool" in m:
        if "kind" in m or "name" in m:
            raise at.error(f"{what}: tool is kind tool_call plus name; give it alone")
        kind, name = "tool_call", m["tool"]
    if kind is not None and kind not in EVENT_KINDS:
        raise at.error(f"{what}: unknown kind {kind!r} (kinds: {', '.join(EVENT_KINDS)})")
    if name is not None and not isinstance(name, str):
        raise at.error(f"{what}: name must be text")
    status = m.get("status")
    if status is not None and status not in STATUSES:
        raise at.error(f"{what}: unknown status {status!r}")
    return Selector(kind, name, status, where(m.get("where") or {}, f"{what}.where", at,
                                              rooted=True))


def correlated(spec: Any, kind: str, names: tuple[str, str], at: At
               ) -> tuple[Selector, Selector, tuple[JPath, ...]]:
    """Two selectors named ``names`` and ``same`` paths: ``before`` and ``never``."""
    a, b = names
    m = mapping(spec, kind, at, {a, b, "same"}, {a, b})
    return (selector(m[a], f"{kind}.{a}", at), selector(m[b], f"{kind}.{b}", at),
            paths(m.get("same"), "same", at))


def parse_where(spec: dict[str, Any], what: str, at: At | None = None,
                rooted: bool = True) -> tuple[Where, ...]:
    """``{path: condition}`` as ``Where`` objects (the Python API uses it too)."""
    return where(spec, what, at or At("<python>", None), rooted)


def where(spec: Any, what: str, at: At, rooted: bool) -> tuple[Where, ...]:
    """``{path: condition}``; ``rooted``: the paths start with an event field."""
    if not isinstance(spec, dict):
        raise at.error(f"{what} maps paths to conditions")
    out = []
    for text, cond in spec.items():
        path = event_path(text, what, at) if rooted else _path(text, what, at)
        out.append(Where(path, _conds(cond, f"{what}.{text}", at)))
    return tuple(out)


def _conds(cond: Any, what: str, at: At) -> tuple[Cond, ...]:
    if isinstance(cond, list):
        raise at.error(f"{what}: a list is ambiguous here; write {{in: [...]}}")
    if not isinstance(cond, dict):
        return (Cond("eq", cond),)
    if not cond:
        raise at.error(f"{what}: empty condition")
    out = []
    for op, arg in cond.items():
        if op not in CONDITION_OPS:
            raise at.error(f"{what}: unknown condition {op!r} "
                           f"(conditions: {', '.join(CONDITION_OPS)})")
        out.append(Cond(op, _operand(op, arg, what, at)))
    return tuple(out)


def _operand(op: str, arg: Any, what: str, at: At) -> Any:
    if op in ("eq", "ne") and isinstance(arg, dict | list):
        raise at.error(f"{what}: {op} compares scalars; use schema for structures")
    if op in ("in", "not_in") and (not isinstance(arg, list) or any(
            isinstance(x, dict | list) for x in arg)):
        raise at.error(f"{what}: {op} takes a list of scalars")
    if op == "exists" and not isinstance(arg, bool):
        raise at.error(f"{what}: exists takes true or false")
    if op in ("lt", "le", "gt", "ge") and (isinstance(arg, bool) or
                                           not isinstance(arg, int | float | str)):
        raise at.error(f"{what}: {op} takes a number or a text")
    if op == "type" and arg not in JSON_TYPES:
        raise at.error(f"{what}: type is one of {', '.join(JSON_TYPES)}")
    if op == "matches":
        if not isinstance(arg, str):
            raise at.error(f"{what}: matches takes a regular expression")
        _check_regex(arg, what, at)
    if op == "schema":
        return schema(arg, what, at)
    return arg


def _check_regex(pattern: str, what: str, at: At) -> None:
    try:
        compile_regex(pattern)
    except ValueError as exc:
        raise at.error(f"{what}: bad regular expression (RE2 syntax: no look-around or "
                       f"back-references): {exc}") from None
    import duckdb  # the SQL engine uses RE2: the pattern must mean the same there
    try:
        duckdb.connect().execute("SELECT regexp_matches('', ?)", [pattern]).fetchall()
    except duckdb.Error as exc:
        raise at.error(f"{what}: the regular expression uses syntax RE2 lacks "
                       f"(no look-around or back-references): {str(exc)[:120]}") from None


def schema(spec: Any, what: str, at: At) -> dict[str, Any]:
    """A JSON Schema, inline or ``{$ref: FILE}`` inside the rules file's folder; its
    references confined and free of loops (``_schemaref``); checked."""
    if isinstance(spec, dict) and set(spec) == {"$ref"} and isinstance(spec["$ref"], str):
        spec = read_schema_file(spec["$ref"], what, at)
    if not isinstance(spec, dict | bool):
        raise at.error(f"{what}: a schema is a JSON Schema object or {{$ref: file}}")
    check_refs(spec, what, at)
    import jsonschema  # only rules with a `schema` condition pay for it

    try:
        jsonschema.validators.validator_for(spec).check_schema(spec)
    except jsonschema.SchemaError as exc:
        raise at.error(f"{what}: not a valid JSON Schema: {exc.message}") from None
    except RecursionError:
        where = f"{at.source}" + (f" line {at.line}" if at.line else "")
        raise LIMITS["json_depth"].breach(f"{where}, rule {at.rule}: {what}",
                                          "more than the schema checker can follow",
                                          file=at.source, line=at.line) from None
    from ._schema_re2 import regex_problem  # evaluated by RE2: refuse what it cannot run
    if (bad := regex_problem(spec)) is not None:
        raise at.error(f"{what}: schema {bad}")
    return spec  # type: ignore[return-value]


# -- the Python API -------------------------------------------------------------------------
def sel(kind: str | None = None, name: str | None = None, *, status: str | None = None,
        where: dict[str, Any] | None = None) -> Selector:
    """A selector from Python: ``sel("http", "GET /projects", where={...})``."""
    return Selector(kind, name, status, parse_where(where or {}, "where"))


def tool(name: str, *, status: str | None = None,
         where: dict[str, Any] | None = None) -> Selector:
    """``tool: name`` from Python."""
    return sel("tool_call", name, status=status, where=where)
