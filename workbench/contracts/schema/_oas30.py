"""OpenAPI's Schema Object to JSON Schema 2020-12: the OpenAPI 3.0 dialect (and Gemini's
``parameters``, the same dialect with upper-case types), the few OpenAPI-only keywords
3.1 still has, and the 3.0 constructs real 3.1 documents keep writing.

3.0 → 2020-12, each a change of spelling, not of meaning:

- ``nullable: true`` allows ``null`` (``nullable_node``): ``type`` gains ``"null"`` (and
  an ``enum`` gains ``null``), an ``anyOf`` gains a ``{type: null}`` branch, a ``$ref``,
  ``allOf`` or ``oneOf`` without a type becomes ``anyOf: [it, {type: null}]``;
  ``nullable: false`` goes;
- ``exclusiveMinimum: true`` beside ``minimum: x`` becomes ``exclusiveMinimum: x`` (and
  the same for the maximum); ``false`` goes;
- a ``$ref``'s siblings go (3.0 says they are ignored);
- Gemini only: ``OBJECT`` → ``object`` (``TYPE_UNSPECIFIED`` goes), the lengths and
  counts its protocol writes as strings (``"minItems": "1"``) become integers,
  ``format: enum`` goes (it only marks an ``enum``), and ``propertyOrdering`` orders
  ``properties`` and goes.

In a 3.1 document the same ``nullable`` and boolean exclusive bounds are converted the
same way, each with a warning naming the place (a keyword 3.1 does not define has no
other meaning to lose; OpenAI's document writes ``nullable: true`` over a hundred times).

Both versions: ``example`` becomes ``examples: [example]`` (a warning in 3.1, which
deprecates it); a ``required`` entry given twice is kept once, with a warning;
``discriminator``, ``xml`` and ``externalDocs`` (code generators' and documentation
hints; the ``oneOf`` carries the meaning) go; a ``$ref`` is rewritten by the caller's
``ref`` function. ``$recursiveRef: "#"`` (2019-09) and ``$dynamicRef: "#name"``
(2020-12) become the static ``$ref`` they resolve to when nothing extends the schema:
the schema ``home`` names (the component they are written in) and the schema holding
``$dynamicAnchor: name`` (``anchors``), each with a warning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["LIST_KEYWORDS", "MAP_KEYWORDS", "SCHEMA_KEYWORDS", "Convert", "nullable_31",
           "nullable_node", "recursive_as_ref", "to_json_schema"]

#: keywords whose value is one schema, a list of schemas, a map of schemas
SCHEMA_KEYWORDS = frozenset({"items", "additionalProperties", "not", "if", "then", "else",
                             "contains", "propertyNames", "unevaluatedItems",
                             "unevaluatedProperties", "additionalItems"})
LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                          "dependentSchemas"})
_COUNTS = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties",
                     "maxProperties"})
_HINTS = frozenset({"discriminator", "xml", "externalDocs"})
_NULL = {"type": "null"}
_DIALECT = "https://json-schema.org/draft/2020-12/schema"

Ref = Callable[[str, str], str]
#: ``warn(kind, path, message)``: a construct converted at ``path``
Warn = Callable[[str, str, str], None]


@dataclass(frozen=True)
class Convert:
    """How one schema is converted: the dialect, the caller's ``$ref`` rewrite and
    warnings, and what a ``$recursiveRef``/``$dynamicRef`` resolves to."""

    oas30: bool
    gemini: bool = False
    ref: Ref | None = None
    warn: Warn | None = None
    home: str | None = None                 # what ``$recursiveRef: "#"`` names
    anchors: Mapping[str, str] | None = None  # ``$dynamicAnchor`` name → its ``$ref``
    resources: bool = False                 # copied under another schema's ``$defs``


def to_json_schema(schema: Any, *, oas30: bool, gemini: bool = False,
                   ref: Ref | None = None, at: str = "", warn: Warn | None = None,
                   home: str | None = None, anchors: Mapping[str, str] | None = None,
                   resources: bool = False) -> Any:
    """``schema`` in JSON Schema 2020-12; ``ref(target, path)`` gives each ``$ref``'s new
    target (None: kept). ``at`` is the schema's path, for ``ref``'s errors and ``warn``.
    ``resources``: the schema is copied under another one's ``$defs``, so its ``$id``
    (which ``ref`` resolves) would move the base its rewritten ``$ref``s resolve
    against: it goes, and so do a 2020-12 ``$schema`` and ``$vocabulary`` (meta-schema
    only)."""
    return _convert(schema, Convert(oas30, gemini, ref, warn, home, anchors, resources), at)


def _convert(schema: Any, c: Convert, at: str) -> Any:
    if not isinstance(schema, dict):
        return schema
    schema = _static_dynamic(schema, c, at)
    if "$ref" in schema and isinstance(schema["$ref"], str):
        target = c.ref(schema["$ref"], at) if c.ref is not None else schema["$ref"]
        if c.oas30:
            return {"$ref": target}
        schema = {**schema, "$ref": target}
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k in _HINTS or (c.resources and (k in ("$id", "$vocabulary") or (
                k == "$schema" and v == _DIALECT))):
            continue
        if k in SCHEMA_KEYWORDS and isinstance(v, dict):
            out[k] = _convert(v, c, f"{at}.{k}")
        elif k in LIST_KEYWORDS and isinstance(v, list):
            out[k] = [_convert(s, c, f"{at}.{k}[{i}]") for i, s in enumerate(v)]
        elif k in MAP_KEYWORDS and isinstance(v, dict):
            out[k] = {n: _convert(s, c, f"{at}.{k}.{n}") for n, s in v.items()}
        elif k == "example":
            if not c.oas30 and c.warn is not None:
                c.warn("oas30-example", at, "`example` (deprecated in 3.1) read as `examples`")
            out.setdefault("examples", [v])
        elif k == "required" and isinstance(v, list):
            out[k] = _required(v, c, at)
        else:
            out[k] = v
    if c.oas30:
        out = nullable_node(out)
    elif "nullable" in out and isinstance(out["nullable"], bool):
        if c.warn is not None:
            c.warn("oas30-nullable", at, "OpenAPI 3.0's `nullable` in a 3.1 document, read "
                   "as allowing null")
        out = nullable_node(out)
    for side in ("Minimum", "Maximum"):
        if isinstance(out.get(f"exclusive{side}"), bool):
            if not c.oas30 and c.warn is not None:
                c.warn("oas30-exclusive-bound", at, f"a boolean `exclusive{side}` (OpenAPI "
                       f"3.0) in a 3.1 document, read as an exclusive `{side.lower()}`")
            _exclusive(out, side)
    if c.gemini:
        _gemini(out)
    return out


def _required(names: list[Any], c: Convert, at: str) -> list[Any]:
    kept = list(dict.fromkeys(n if isinstance(n, str) else _Unhashable(n) for n in names))
    if len(kept) == len(names):
        return names
    if c.warn is not None:
        twice = sorted({n for n in names if isinstance(n, str) and names.count(n) > 1})
        c.warn("duplicate-required", at, f"`required` names {', '.join(twice)} more than "
               "once; kept once")
    return [n.value if isinstance(n, _Unhashable) else n for n in kept]


class _Unhashable:
    """A non-string ``required`` entry kept as it is (the meta-schema words it)."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _static_dynamic(schema: dict[str, Any], c: Convert, at: str) -> dict[str, Any]:
    """``$recursiveRef: "#"`` and ``$dynamicRef: "#name"`` as the ``$ref`` they resolve to
    when nothing extends the schema; ``$recursiveAnchor`` goes with them."""
    dyn, rec = schema.get("$dynamicRef"), schema.get("$recursiveRef")
    if "$ref" in schema or not (isinstance(dyn, str) or isinstance(rec, str)
                                or "$recursiveAnchor" in schema):
        return schema
    out = {k: v for k, v in schema.items() if k != "$recursiveAnchor"}
    if rec == "#" and c.home is not None:
        del out["$recursiveRef"]
        out["$ref"] = c.home
        if c.warn is not None:
            c.warn("recursive-ref", at, f"$recursiveRef '#' read as $ref {c.home!r}")
    elif (isinstance(dyn, str) and dyn.startswith("#") and c.anchors is not None
          and dyn[1:] in c.anchors):
        del out["$dynamicRef"]
        out["$ref"] = c.anchors[dyn[1:]]
        if c.warn is not None:
            c.warn("dynamic-ref", at, f"$dynamicRef {dyn!r} read as $ref {out['$ref']!r}")
    return out


def recursive_as_ref(schema: Any, warn: Warn | None = None, at: str = "") -> Any:
    """A 2020-12 schema (no ``$schema`` of an older draft) in which 2019-09's
    ``$recursiveAnchor``/``$recursiveRef: "#"`` were written: as the static ``$ref: "#"``
    they resolve to when nothing extends the schema (2020-12 has no such keywords, and
    its meta-schema refuses ``$recursiveAnchor: true``)."""
    if not isinstance(schema, dict) or "$schema" in schema:
        return schema
    from ...model import dumps_bytes

    if b'"$recursive' not in dumps_bytes(schema):
        return schema
    return _convert_recursive(schema, Convert(oas30=False, warn=warn, home="#"), at)


def _convert_recursive(node: Any, c: Convert, at: str) -> Any:
    if isinstance(node, list):
        return [_convert_recursive(v, c, f"{at}[{i}]") for i, v in enumerate(node)]
    if not isinstance(node, dict):
        return node
    if "$recursiveAnchor" in node or node.get("$recursiveRef") == "#":
        node = _static_dynamic(node, c, at)
    return {k: v if k in ("const", "enum", "default", "examples") else
            _convert_recursive(v, c, f"{at}.{k}" if at else k) for k, v in node.items()}


def nullable_node(s: dict[str, Any]) -> dict[str, Any]:
    """One schema with its own ``nullable`` (3.0's spelling) read as allowing null."""
    if "nullable" not in s:
        return s
    out = dict(s)
    if out.pop("nullable") is not True:
        return out
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list):
        out["type"] = kind if "null" in kind else [*kind, "null"]
    elif isinstance(out.get("anyOf"), list):
        out["anyOf"] = [*out["anyOf"], _NULL]
        return out
    else:
        inner = {k: out.pop(k) for k in ("$ref", "allOf", "oneOf") if k in out}
        if inner:
            out["anyOf"] = [inner, _NULL]
        return out
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def nullable_31(node: Any) -> Any:
    """``node`` (an OpenAPI 3.1 document or any part of it) with each ``nullable: true``
    rewritten as ``nullable_node`` reads it."""
    if isinstance(node, list):
        return [nullable_31(v) for v in node]
    if not isinstance(node, dict):
        return node
    return nullable_node({k: nullable_31(v) for k, v in node.items()})


def _exclusive(s: dict[str, Any], side: str) -> None:
    flag = s.get(f"exclusive{side}")
    if not isinstance(flag, bool):
        return
    del s[f"exclusive{side}"]
    bound = side.lower()
    if flag and bound in s:
        s[f"exclusive{side}"] = s.pop(bound)


def _gemini(s: dict[str, Any]) -> None:
    kind = s.get("type")
    if isinstance(kind, str):
        if kind.upper() == "TYPE_UNSPECIFIED":
            del s["type"]
        else:
            s["type"] = kind.lower()
    elif isinstance(kind, list):
        s["type"] = [k.lower() if isinstance(k, str) else k for k in kind]
    for k in _COUNTS & s.keys():
        if isinstance(s[k], str) and s[k].isdigit():
            s[k] = int(s[k])
    if s.get("format") == "enum":
        del s["format"]
    order = s.pop("propertyOrdering", None)
    props = s.get("properties")
    if isinstance(order, list) and isinstance(props, dict):
        first = {n: props[n] for n in order if isinstance(n, str) and n in props}
        s["properties"] = {**first, **{n: v for n, v in props.items() if n not in first}}
