"""OpenAPI's Schema Object to JSON Schema 2020-12: the OpenAPI 3.0 dialect (and Gemini's
``parameters``, the same dialect with upper-case types), and the few OpenAPI-only
keywords 3.1 still has.

3.0 → 2020-12, each a change of spelling, not of meaning:

- ``nullable: true`` adds ``"null"`` to ``type`` (and ``null`` to an ``enum``; to an
  ``anyOf`` without a type, a ``{type: null}`` branch); ``nullable: false`` goes;
- ``exclusiveMinimum: true`` beside ``minimum: x`` becomes ``exclusiveMinimum: x`` (and
  the same for the maximum); ``false`` goes;
- a ``$ref``'s siblings go (3.0 says they are ignored);
- Gemini only: ``OBJECT`` → ``object`` (``TYPE_UNSPECIFIED`` goes), the lengths and
  counts its protocol writes as strings (``"minItems": "1"``) become integers,
  ``format: enum`` goes (it only marks an ``enum``), and ``propertyOrdering`` orders
  ``properties`` and goes.

Both versions: ``example`` becomes ``examples: [example]``; ``discriminator``, ``xml``
and ``externalDocs`` (code generators' and documentation hints; the ``oneOf`` carries
the meaning) go; a ``$ref`` is rewritten by the caller's ``ref`` function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["LIST_KEYWORDS", "MAP_KEYWORDS", "SCHEMA_KEYWORDS", "to_json_schema"]

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

Ref = Callable[[str, str], str]


def to_json_schema(schema: Any, *, oas30: bool, gemini: bool = False,
                   ref: Ref | None = None, at: str = "") -> Any:
    """``schema`` in JSON Schema 2020-12; ``ref(target, path)`` gives each ``$ref``'s new
    target (None: kept). ``at`` is the schema's path, for ``ref``'s errors."""
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema and isinstance(schema["$ref"], str):
        target = ref(schema["$ref"], at) if ref is not None else schema["$ref"]
        if oas30:
            return {"$ref": target}
        schema = {**schema, "$ref": target}
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k in _HINTS or k == "$ref":
            if k == "$ref":
                out[k] = v
            continue
        if k in SCHEMA_KEYWORDS and isinstance(v, dict):
            out[k] = to_json_schema(v, oas30=oas30, gemini=gemini, ref=ref, at=f"{at}/{k}")
        elif k in LIST_KEYWORDS and isinstance(v, list):
            out[k] = [to_json_schema(s, oas30=oas30, gemini=gemini, ref=ref, at=f"{at}/{k}/{i}")
                      for i, s in enumerate(v)]
        elif k in MAP_KEYWORDS and isinstance(v, dict):
            out[k] = {n: to_json_schema(s, oas30=oas30, gemini=gemini, ref=ref,
                                        at=f"{at}/{k}/{_escape(n)}") for n, s in v.items()}
        elif k == "example":
            out.setdefault("examples", [v])
        else:
            out[k] = v
    if oas30:
        _nullable(out)
        for side in ("Minimum", "Maximum"):
            _exclusive(out, side)
    if gemini:
        _gemini(out)
    return out


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _nullable(s: dict[str, Any]) -> None:
    if s.pop("nullable", False) is not True:
        return
    kind = s.get("type")
    if isinstance(kind, str):
        s["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list) and "null" not in kind:
        s["type"] = [*kind, "null"]
    elif kind is None and isinstance(s.get("anyOf"), list):
        s["anyOf"] = [*s["anyOf"], {"type": "null"}]
    if isinstance(s.get("enum"), list) and None not in s["enum"] and kind is not None:
        s["enum"] = [*s["enum"], None]


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
