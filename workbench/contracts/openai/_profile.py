"""The OpenAI profile: function tools under strict function calling (``strict: true``).

Strict mode takes a subset of JSON Schema (OpenAI's "Supported schemas"; the copies
read are dated; see docs/contracts.md for what could not be confirmed):

- the name matches ``^[a-zA-Z0-9_-]{1,64}$`` (no dots: an MCP ``projects.archive`` is
  refused);
- the root is an object, not an ``anyOf``;
- every object says ``additionalProperties: false`` and lists every property in
  ``required``; an optional property is spelled ``["T", "null"]``;
- ``allOf``, ``not``, ``if``/``then``/``else``, ``dependentRequired`` and
  ``dependentSchemas`` are refused; ``oneOf`` is not among the supported keywords
  (``anyOf`` is); ``minLength``/``maxLength`` are not either (copies conflict);
  ``format`` is one of a fixed list;
- at most 5,000 properties, 10 levels of nested objects and 1,000 enum values in all.

Export writes Chat Completions tools ``[{type: function, function: {name, description,
parameters, strict: true}}]``. Lossless there: adding ``additionalProperties: false``
where it was absent (the model may then send no key the schema does not name, and the
tool still gets only what it described), and making an optional property required
with ``null`` added (absence and ``null`` mean the same to the tool; lossy when the
property already admitted ``null``, since the two then merge).
"""

from __future__ import annotations

import re
from typing import Any

from .._descriptor import Descriptor
from .._profile import (
    Profile,
    Report,
    ToolRules,
    admits_null,
    declared,
    each,
    escape,
    is_object,
    nullable,
    rebuild,
)

__all__ = ["FORMATS", "PROFILE"]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_RULES = ToolRules(
    names=NAME,
    bad_name=f"OpenAI tool names match {NAME.pattern} (letters, digits, _ and -, at most "
    "64): no dots, slashes or colons",
    unknown_input="the input is unknown; export declares a function that takes no arguments",
    stand_in={"type": "object", "properties": {}},
    not_object="strict mode needs an object at the root",
    object_root=is_object)

#: the string formats strict mode supports
FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4",
                     "ipv6", "uuid"})
_REFUSED = ("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas")
_MAX_PROPERTIES, _MAX_DEPTH, _MAX_ENUM = 5000, 10, 1000


def _node(report: Report) -> Any:
    def node(n: Any, path: str) -> Any:
        if not isinstance(n, dict):
            return n
        for kw in _REFUSED:
            if kw in n:
                del n[kw]
                report(f"{path}/{kw}", kw, "reject", "lossy",
                       f"strict mode refuses `{kw}`; export drops it", drop=True)
        if "oneOf" in n:
            branches = n.pop("oneOf")
            report(f"{path}/oneOf", "oneOf", "reject", "lossy",
                   "`oneOf` is not supported in strict mode; export makes it `anyOf` "
                   "(a value may then match more than one branch)")
            n.setdefault("anyOf", branches)
        for kw in ("minLength", "maxLength"):
            if kw in n:
                del n[kw]
                report(f"{path}/{kw}", kw, "reject", "lossy",
                       f"`{kw}` is not among strict mode's supported keywords (copies of "
                       "the documentation conflict); export drops it")
        if isinstance(n.get("format"), str) and n["format"] not in FORMATS:
            report(f"{path}/format", "format", "reject", "lossy",
                   f"format {n.pop('format')!r} is not one strict mode supports; export "
                   "drops it")
        if is_object(n):
            _strict_object(n, path, report)
        return n
    return node


def _strict_object(n: dict[str, Any], path: str, report: Report) -> None:
    extra = n.get("additionalProperties")
    if extra is None:
        report(f"{path}/additionalProperties", "additionalProperties", "reject", "lossless",
               "strict mode needs `additionalProperties: false` on every object; export "
               "adds it")
    elif extra is not False:
        report(f"{path}/additionalProperties", "additionalProperties", "reject", "lossy",
               "strict mode needs `additionalProperties: false`; this object takes other "
               "keys, which export forbids")
    n["additionalProperties"] = False
    props: dict[str, Any] = n["properties"] if isinstance(n.get("properties"), dict) else {}
    required: list[Any] = n["required"] if isinstance(n.get("required"), list) else []
    for name in [p for p in props if p not in required]:
        merge = admits_null(props[name])
        report(f"{path}/properties/{escape(name)}", "required", "reject",
               "lossy" if merge else "lossless",
               f"strict mode needs every property required; export requires {name!r} "
               "and lets it be null" + (" (it already admits null, so null and absent "
                                       "become one)" if merge else ""))
        props[name] = nullable(props[name])
    if props:
        n["properties"] = props
        n["required"] = [*required, *(p for p in props if p not in required)]


def _limits(params: Any, report: Report) -> None:
    props = enums = 0
    for s in each(params):
        if isinstance(s.get("properties"), dict):
            props += len(s["properties"])
        if isinstance(s.get("enum"), list):
            enums += len(s["enum"])
    depth = _depth(params)
    for what, n, limit in (("properties", props, _MAX_PROPERTIES),
                           ("nesting", depth, _MAX_DEPTH), ("enum", enums, _MAX_ENUM)):
        if n > limit:
            report("/input", what, "reject", "none",
                   f"{n} {what if what != 'nesting' else 'levels of nested objects'}: strict "
                   f"mode takes at most {limit}")


def _depth(s: Any, seen: int = 0) -> int:
    if not isinstance(s, dict):
        return seen
    here = seen + (1 if is_object(s) else 0)
    subs = [v for k, v in s.items() if k in ("items", "additionalProperties")] + [
        v for k in ("anyOf", "prefixItems") for v in (s.get(k) or [])] + list(
        (s.get("properties") or {}).values())
    return max([here, *(_depth(v, here) for v in subs)])


def convert(d: Descriptor, report: Report) -> dict[str, Any]:
    schema, an_object = _RULES.check(d, report)
    if an_object and ("anyOf" in schema or "oneOf" in schema):
        kw = "anyOf" if "anyOf" in schema else "oneOf"
        report(f"/input/{kw}", kw, "reject", "none",
               f"strict mode refuses `{kw}` at the root (alternatives need an object around "
               "them)")
    params = rebuild(schema, "/input", _node(report))
    _limits(params, report)
    fn = declared(d, "description")
    fn["parameters"] = params
    fn["strict"] = True
    return {"type": "function", "function": fn}


PROFILE = Profile("openai", convert, lambda tools: tools, ("tool", "description", "input"))
