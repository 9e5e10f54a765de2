"""The Gemini profile: function declarations with ``parameters`` and ``response`` in the
OpenAPI 3.0 subset Gemini's ``Schema`` holds (see docs/contracts.md for what could not
be confirmed).

- the name matches ``^[a-zA-Z0-9_.:-]{1,64}$``; ``parameters`` is an ``OBJECT``;
- a schema has one upper-case ``type`` (``nullable: true`` for ``["T", "null"]``) and
  only these keywords: ``format``, ``title``, ``description``, ``nullable``, ``enum``
  (strings), ``items``, ``minItems``, ``maxItems``, ``properties``, ``required``,
  ``minProperties``, ``maxProperties``, ``propertyOrdering``, ``minLength``,
  ``maxLength``, ``pattern``, ``minimum``, ``maximum``, ``example``, ``default`` and
  ``anyOf``; ``format`` is ``date-time`` or ``enum`` for strings, ``int32``/``int64``,
  ``float``/``double`` for numbers;
- no ``$ref``, ``const``, ``additionalProperties``, ``allOf``, ``oneOf``, ``not``,
  conditionals, exclusive bounds or ``multipleOf``; an ``OBJECT`` has properties.

Export writes ``[{functionDeclarations: [{name, description, parameters, response}]}]``.
Lossless there: ``$ref``s inlined (unless recursive), a string ``const`` written as a
one-value ``enum``, several types written as ``anyOf`` one branch per type, an
``additionalProperties: true`` dropped, ``propertyOrdering`` added from the properties'
order, and a root without properties written as no ``parameters`` (a function that
takes none). ``parametersJsonSchema`` takes any JSON Schema; this profile is the one
that fits every Gemini model and SDK.
"""

from __future__ import annotations

import re
from typing import Any

from ...model import json_pointer
from .._descriptor import Descriptor
from .._profile import Profile, Report, ToolRules, declared, escape, rebuild, type_names

__all__ = ["KEYWORDS", "PROFILE"]

NAME = re.compile(r"^[a-zA-Z0-9_.:-]{1,64}$")
_RULES = ToolRules(
    names=NAME,
    bad_name=f"Gemini function names match {NAME.pattern}: no slashes",
    unknown_input="the input is unknown; export declares a function that takes no arguments",
    stand_in=None,  # a declaration without parameters
    not_object="Gemini's `parameters` is an OBJECT")

#: the keywords of Gemini's Schema
KEYWORDS = frozenset({"type", "format", "title", "description", "nullable", "enum",
                      "maxItems", "minItems", "properties", "required", "minProperties",
                      "maxProperties", "minLength", "maxLength", "pattern", "example",
                      "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"})
_SILENT = frozenset({"$schema", "$id", "$comment", "$anchor"})
_FORMATS = {"string": {"date-time", "enum"}, "integer": {"int32", "int64"},
            "number": {"float", "double"}}
#: which keywords apply to which type, to split ``type: [A, B]`` into branches
_APPLIES = {"string": {"format", "enum", "minLength", "maxLength", "pattern"},
            "integer": {"format", "minimum", "maximum"},
            "number": {"format", "minimum", "maximum"},
            "array": {"items", "minItems", "maxItems"},
            "object": {"properties", "required", "minProperties", "maxProperties"},
            "boolean": set()}
_NULL = ({"type": "null"}, {"type": "NULL"})


class _Convert:
    """One schema (``input`` or ``output``) of one tool, converted."""

    def __init__(self, report: Report, root: str) -> None:
        self.report = report
        self.root = root

    def node(self, n: Any, path: str) -> Any:
        if not isinstance(n, dict):
            return n  # a boolean subschema: its parent decides (``_booleans``)
        n = self.booleans(n, path)
        out: dict[str, Any] = {}
        kinds = type_names(n)
        null = _enum(n, out, path, self.report) or "null" in kinds
        kinds = [k for k in kinds if k != "null"] or (["string"] if "enum" in out else [])
        if "const" in n:
            kinds = self.const(n["const"], out, path) or kinds
        null = self.branches(n, out, path) or null
        for k, v in n.items():
            self.keyword(k, v, kinds, out, path)
        if null:
            out["nullable"] = True
        if len(kinds) == 1:
            out["type"] = kinds[0].upper()
        elif not kinds and null and len(out) == 1:
            out["type"] = "NULL"
            del out["nullable"]
        elif len(kinds) > 1:
            self.report(f"{path}/type", "type", "reject", "lossless",
                        f"Gemini takes one type, not {kinds}; export writes `anyOf`, one "
                        "branch per type")
            out = _split(out, kinds)
        return self.finish(out, path)

    def booleans(self, n: dict[str, Any], path: str) -> dict[str, Any]:
        """``n`` with boolean subschemas (``true``: anything, ``false``: nothing) in
        ``properties``, ``items`` and ``anyOf`` spelled as Gemini can: ``true`` as an
        empty schema; ``false`` cannot be said."""
        def one(v: Any, where: str) -> Any:
            if v is False:
                self.report(where, "false", "reject", "none",
                            "a schema nothing matches (`false`) cannot be said in Gemini's "
                            "Schema")
            return {} if isinstance(v, bool) else v

        out = dict(n)
        if isinstance(out.get("properties"), dict):
            out["properties"] = {k: one(v, f"{path}/properties/{escape(k)}")
                                 for k, v in out["properties"].items()}
        if isinstance(out.get("items"), bool):
            out["items"] = one(out["items"], f"{path}/items")
        for kw in ("anyOf", "oneOf"):
            if isinstance(out.get(kw), list):
                out[kw] = [one(v, f"{path}/{kw}/{i}") for i, v in enumerate(out[kw])]
        return out

    def const(self, value: Any, out: dict[str, Any], path: str) -> list[str]:
        if isinstance(value, str):
            self.report(f"{path}/const", "const", "reject", "lossless",
                        "Gemini has no `const`; export writes a one-value `enum`")
            out["enum"] = [value]
            return ["string"]
        self.report(f"{path}/const", "const", "reject", "lossy",
                    f"Gemini has no `const`, and its enums are strings: {value!r} cannot be "
                    "said; export drops it")
        return []

    def branches(self, n: dict[str, Any], out: dict[str, Any], path: str) -> bool:
        """``anyOf`` (and ``oneOf``, made ``anyOf``) into ``out``; whether a branch was
        ``null`` (which becomes ``nullable``)."""
        branches = n.get("anyOf") if isinstance(n.get("anyOf"), list) else None
        if isinstance(n.get("oneOf"), list):
            self.report(f"{path}/oneOf", "oneOf", "reject", "lossy",
                        "Gemini has no `oneOf`; export makes it `anyOf` (a value may then "
                        "match more than one branch)")
            branches = [*(branches or []), *n["oneOf"]]
        if branches is None:
            return False
        kept = [b for b in branches if b not in _NULL]
        if len(kept) == 1 and isinstance(kept[0], dict) and not set(kept[0]) & set(n):
            out.update(kept[0])
        elif kept:
            out["anyOf"] = kept
        return len(kept) < len(branches)

    def keyword(self, k: str, v: Any, kinds: list[str], out: dict[str, Any],
                path: str) -> None:
        if k in ("type", "enum", "const", "anyOf", "oneOf", "nullable") or k in _SILENT:
            return
        where = f"{path}/{escape(k)}"
        if k == "format":
            if any(v in _FORMATS.get(t, ()) for t in kinds):
                out[k] = v
            else:
                self.report(where, k, "reject", "lossy",
                            f"format {v!r} is not one Gemini takes for {kinds or 'this'}; "
                            "export drops it")
        elif k == "examples" and isinstance(v, list) and v:
            out.setdefault("example", v[0])
            if len(v) > 1:
                self.report(where, k, "drop", "lossy",
                            "Gemini keeps one `example`; export drops the others")
        elif k == "additionalProperties":
            if v is not True and v != {}:
                self.report(where, k, "reject", "lossy",
                            "Gemini's Schema has no `additionalProperties`; export drops it "
                            "(`parametersJsonSchema` would keep it)", drop=True)
        elif k in KEYWORDS or k in ("$ref", "$defs", "definitions"):
            out[k] = v
        elif k.startswith("x-"):
            self.report(where, k, "reject", "lossless",
                        f"Gemini's Schema has no `{k}`; export drops it (an extension: "
                        "no validator or model reads it)", drop=True)
        else:
            self.report(where, k, "reject", "lossy",
                        f"Gemini's Schema has no `{k}`; export drops it", drop=True)

    def finish(self, out: dict[str, Any], path: str) -> dict[str, Any]:
        props = out.get("properties")
        if out.get("type") == "OBJECT" and path != self.root and not props:
            self.report(path, "properties", "reject", "none",
                        "Gemini needs an OBJECT to name its properties; this one names none")
        if isinstance(props, dict) and len(props) > 1:
            out["propertyOrdering"] = list(props)
        return out


def _enum(n: dict[str, Any], out: dict[str, Any], path: str, report: Report) -> bool:
    """A string ``enum`` into ``out``; whether it held ``null``."""
    enum = n.get("enum")
    if not isinstance(enum, list):
        return False
    values = [v for v in enum if v is not None]
    if all(isinstance(v, str) for v in values):
        out["enum"] = values
    else:
        report(f"{path}/enum", "enum", "reject", "lossy",
               "Gemini's enums are strings; export drops this one")
    return len(values) < len(enum)


def _split(out: dict[str, Any], kinds: list[str]) -> dict[str, Any]:
    typed = set().union(*_APPLIES.values())
    common = {k: v for k, v in out.items() if k not in typed}
    branches = [{"type": t.upper(), **{k: v for k, v in out.items()
                                      if k in _APPLIES.get(t, set())}} for t in kinds]
    return {**common, "anyOf": branches}


def _inline(schema: Any, root: Any, path: str, stack: tuple[str, ...], report: Report) -> Any:
    """``schema`` with every ``$ref`` replaced by what it names in ``root`` (both
    converted), and ``$defs`` gone; a recursive ``$ref`` is reported and left empty."""
    if isinstance(schema, list):
        return [_inline(s, root, f"{path}/{i}", stack, report) for i, s in enumerate(schema)]
    if not isinstance(schema, dict):
        return schema
    out = {}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        report(f"{path}/$ref", "$ref", "reject", "lossless" if ref not in stack else "none",
               "Gemini's Schema has no `$ref`; export inlines it" if ref not in stack else
               f"$ref {ref!r} is recursive; Gemini's Schema cannot say a recursive schema")
        if ref in stack:
            return {}
        try:
            target = json_pointer(root, ref)
        except KeyError:
            target = {}
        out.update(_inline(target, root, path, (*stack, ref), report))
    for k, v in schema.items():
        if k not in ("$ref", "$defs", "definitions"):
            out[k] = v if k in ("enum", "default", "example") else _inline(
                v, root, f"{path}/{escape(k)}", stack, report)
    return out


def _schema(schema: Any, path: str, report: Report) -> Any:
    converted = rebuild(schema, path, _Convert(report, path).node)
    return _inline(converted, converted, path, (), report)


def convert(d: Descriptor, report: Report) -> dict[str, Any]:
    decl = declared(d, "description")
    schema, an_object = _RULES.check(d, report)
    if an_object and not _takes_nothing(schema):
        params = _schema(schema, "/input", report)
        if params.get("properties"):
            decl["parameters"] = params
    if d.output is not None:
        decl.update(_response(d.output, report))
    return decl


def _takes_nothing(schema: dict[str, Any]) -> bool:
    """An object schema that names no property and says no more than that (``{type:
    object}``, with ``additionalProperties: false`` or a description): a function
    without ``parameters`` says the same."""
    return (not schema.get("properties") and not schema.get("required")
            and schema.get("additionalProperties") in (None, False, True)
            and set(schema) <= {"type", "properties", "additionalProperties", "required",
                                "title", "description", "$schema"})


def _response(output: Any, report: Report) -> dict[str, Any]:
    """``{response: …}``, or nothing when Gemini cannot say the output: the response is
    optional, so what cannot be said there is lost with it (lossy), not refused."""
    sub = Report(report.tool, report.provider)
    schema = _schema(output, "/output", sub)
    if isinstance(schema, dict) and schema.get("type") == "OBJECT" and not schema.get(
            "properties"):
        sub("/output", "properties", "reject", "none",
            "Gemini needs an OBJECT to name its properties; this one names none")
    found = sub.found()
    whole = any(p.fix == "none" for p in found)
    for p in found:
        fix = "lossy" if p.fix == "none" else p.fix
        note = "; export leaves the response out" if p.fix == "none" else ""
        report(p.path, p.keyword, p.severity, fix, p.message + note)
    return {} if whole else {"response": schema}


PROFILE = Profile("gemini", convert, lambda tools: [{"functionDeclarations": tools}],
                  ("tool", "description", "input", "output"))
