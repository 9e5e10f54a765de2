"""The Anthropic profile: tools under strict tool use (``strict: true``).

Strict tool use takes a subset of JSON Schema (Anthropic's structured-outputs
limitations; see docs/contracts.md for what could not be confirmed):

- the name matches ``^[a-zA-Z0-9_-]{1,64}$``; the root is an object;
- every object says ``additionalProperties: false`` (optional properties are fine);
- no numeric bounds (``minimum``, ``maximum``, the exclusive ones, ``multipleOf``), no
  string lengths (``minLength``, ``maxLength``), arrays bounded only by ``minItems`` 0
  or 1; ``enum`` of primitives; ``format`` from a fixed list; ``pattern`` without
  backreferences or lookaround;
- ``$ref`` local only and never recursive; ``allOf`` not over a ``$ref``; ``not``,
  ``if``/``then``/``else``, the dependent and unevaluated keywords, ``patternProperties``
  and ``propertyNames`` are not among the supported keywords, nor is ``oneOf`` (``anyOf``
  is);
- per request: at most 20 strict tools and 24 optional parameters across them.

Export writes ``[{name, description, input_schema, strict: true}]``. Lossless there:
adding ``additionalProperties: false`` where it was absent.
"""

from __future__ import annotations

import re
from typing import Any

from .._descriptor import Descriptor
from .._profile import Problem, Profile, Report, ToolRules, declared, is_object, rebuild
from ..schema import walk_refs

__all__ = ["FORMATS", "PROFILE"]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_RULES = ToolRules(
    names=NAME,
    bad_name=f"Anthropic tool names match {NAME.pattern}: no dots, slashes or colons",
    unknown_input="the input is unknown; export declares a tool that takes no arguments",
    stand_in={"type": "object", "properties": {}},
    not_object="input_schema must be `type: object`")

FORMATS = frozenset({"date-time", "time", "date", "email", "uri", "uuid", "ipv4", "ipv6"})
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
           "minLength", "maxLength", "maxItems", "uniqueItems", "contains", "minContains",
           "maxContains")
_UNLISTED = ("not", "if", "then", "else", "dependentRequired", "dependentSchemas",
             "patternProperties", "propertyNames", "unevaluatedProperties",
             "unevaluatedItems")
#: regex constructs outside the supported subset: backreferences and lookaround
_REGEX = re.compile(r"\\[1-9]|\\k<|\(\?[=!<]")
MAX_STRICT_TOOLS, MAX_OPTIONAL = 20, 24


def _node(report: Report) -> Any:
    def node(n: Any, path: str) -> Any:
        if not isinstance(n, dict):
            return n
        for kw in _BOUNDS:
            if kw in n:
                del n[kw]
                report(f"{path}/{kw}", kw, "reject", "lossy",
                       f"strict tool use takes no `{kw}`; export drops it", drop=True)
        if isinstance(n.get("minItems"), int) and n["minItems"] > 1:
            report(f"{path}/minItems", "minItems", "reject", "lossy",
                   f"minItems {n['minItems']}: strict tool use takes only 0 or 1; export "
                   "makes it 1")
            n["minItems"] = 1
        for kw in _UNLISTED:
            if kw in n:
                del n[kw]
                report(f"{path}/{kw}", kw, "reject", "lossy",
                       f"`{kw}` is not among strict tool use's supported keywords; export "
                       "drops it", drop=True)
        if "oneOf" in n:
            report(f"{path}/oneOf", "oneOf", "reject", "lossy",
                   "`oneOf` is not among the supported keywords; export makes it `anyOf`")
            n.setdefault("anyOf", n.pop("oneOf"))
        if isinstance(n.get("allOf"), list) and any(
                isinstance(s, dict) and "$ref" in s for s in n["allOf"]):
            del n["allOf"]
            report(f"{path}/allOf", "allOf", "reject", "lossy",
                   "`allOf` over a `$ref` is not supported; export drops it", drop=True)
        _values(n, path, report)
        if is_object(n):
            if "additionalProperties" not in n:
                report(f"{path}/additionalProperties", "additionalProperties", "reject",
                       "lossless", "strict tool use needs `additionalProperties: false` on "
                       "every object; export adds it")
            elif n["additionalProperties"] is not False:
                report(f"{path}/additionalProperties", "additionalProperties", "reject",
                       "lossy", "strict tool use needs `additionalProperties: false`; this "
                       "object takes other keys, which export forbids")
            n["additionalProperties"] = False
        return n
    return node


def _values(n: dict[str, Any], path: str, report: Report) -> None:
    """``enum``, ``format`` and ``pattern``: what strict tool use says of values."""
    enum = n.get("enum")
    if isinstance(enum, list) and any(isinstance(v, dict | list) for v in enum):
        del n["enum"]
        report(f"{path}/enum", "enum", "reject", "lossy",
               "an enum of objects or arrays: strict tool use takes primitives; export "
               "drops it")
    if isinstance(n.get("format"), str) and n["format"] not in FORMATS:
        report(f"{path}/format", "format", "reject", "lossy",
               f"format {n.pop('format')!r} is not one strict tool use supports; export "
               "drops it")
    if isinstance(n.get("pattern"), str) and _REGEX.search(n["pattern"]):
        del n["pattern"]
        report(f"{path}/pattern", "pattern", "reject", "lossy",
               "the pattern uses backreferences or lookaround, outside the supported "
               "regex subset; export drops it")


def _recursion(schema: Any, report: Report) -> None:
    """Report each ``$ref`` that can reach itself again (a recursive schema): whether a
    target loops is worked out once per target, not once per use."""
    from ...model import json_pointer

    uses = list(walk_refs(schema))
    graph: dict[str, set[str]] = {}
    for _, ref in uses:
        if ref not in graph:
            try:
                graph[ref] = {r for _, r in walk_refs(json_pointer(schema, ref))}
            except KeyError:
                graph[ref] = set()
    loops: dict[str, bool] = {}
    for path, ref in uses:
        if ref not in loops:
            loops[ref] = _reaches(graph, ref)
        if loops[ref]:
            report(f"/input{path if path != '/' else ''}/$ref", "$ref", "reject", "none",
                   f"$ref {ref!r} is recursive; strict tool use takes no recursive schema")


def _reaches(graph: dict[str, set[str]], ref: str) -> bool:
    seen: set[str] = set()
    todo = list(graph.get(ref, ()))
    while todo:
        r = todo.pop()
        if r == ref:
            return True
        if r not in seen:
            seen.add(r)
            todo.extend(graph.get(r, ()))
    return False


def convert(d: Descriptor, report: Report) -> dict[str, Any]:
    schema, _ = _RULES.check(d, report)
    _recursion(schema, report)
    tool = declared(d, "description")
    tool["input_schema"] = rebuild(schema, "/input", _node(report))
    tool["strict"] = True
    return tool


def check_set(tools: list[tuple[Descriptor, dict[str, Any]]]) -> list[Problem]:
    """The per-request limits: 20 strict tools, 24 optional parameters in all."""
    out = []
    optional = 0
    for i, (d, tool) in enumerate(tools):
        if i == MAX_STRICT_TOOLS:
            out.append(Problem(d.tool, "anthropic", "/", "strict", "reject", "per-request",
                               f"{len(tools)} strict tools: one request takes at most "
                               f"{MAX_STRICT_TOOLS}"))
        schema = tool["input_schema"]
        props = schema.get("properties") if isinstance(schema, dict) else None
        required = schema.get("required") or [] if isinstance(schema, dict) else []
        before = optional
        optional += len([p for p in (props or {}) if p not in required])
        if before <= MAX_OPTIONAL < optional:
            out.append(Problem(d.tool, "anthropic", "/input/properties", "required", "reject",
                               "per-request", f"{optional} optional parameters up to this "
                               f"tool: one request's strict tools take at most {MAX_OPTIONAL}"))
    return out


PROFILE = Profile("anthropic", convert, lambda tools: tools, ("tool", "description", "input"),
                  check_set)
