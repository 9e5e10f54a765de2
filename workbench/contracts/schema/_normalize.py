"""A JSON Schema read as what it accepts, not as text: the ``Shape`` the schema diff
compares.

Written forms that accept the same values read the same: ``$ref``s are followed (their
siblings merged over the target), ``type: [string, "null"]``, ``nullable: true`` and
``anyOf: [{type: string}, {type: "null"}]`` are one string that may be null (null is
kept as a flag, never as a type or an enum value), ``const: x`` is ``enum: [x]``, a
one-member ``allOf`` is its member, ``minLength: 0``, ``minItems: 0`` and
``uniqueItems: false`` say nothing, ``additionalProperties`` absent, ``true`` or ``{}`` is
an open content model, a schema with ``properties`` but no ``type`` is an object (as
every tool runtime reads it), the draft-4 boolean ``exclusiveMinimum`` is the 2020-12
number, and key order, ``required`` order and ``enum`` order do not matter. Annotations
(``title``, ``examples``, ``$comment``, ``readOnly``, ``x-*`` …) are not compared;
descriptions are compared with their whitespace collapsed. A keyword this module does
not model (``not``, ``if``, ``patternProperties`` …) is kept in ``other`` and compared
as a value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson

from ._jsonschema import resolve_ref

__all__ = ["CLOSED", "OPEN", "Shape", "description_text", "same_json", "shape", "value_key"]

#: the additionalProperties states that are not a schema
OPEN = "open"
CLOSED = "closed"

LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
OTHER_BOUNDS = ("multipleOf", "pattern", "format", "uniqueItems")
BOUNDS = LOWER + UPPER + OTHER_BOUNDS
_BOUND_SET = frozenset(BOUNDS)
_OBJECT_WORDS = ("properties", "required", "additionalProperties", "minProperties",
                 "maxProperties", "unevaluatedProperties")
_ARRAY_WORDS = ("items", "prefixItems", "minItems", "maxItems", "uniqueItems")
_HANDLED = frozenset({
    "type", "nullable", "enum", "const", "default", "properties", "required",
    "additionalProperties", "items", "prefixItems", "anyOf", "oneOf", "$ref",
    "$defs", "definitions", "description", "deprecated", *BOUNDS})
_ANNOTATIONS = frozenset({
    "title", "examples", "example", "$comment", "$id", "$schema", "$anchor",
    "$dynamicAnchor", "$vocabulary", "readOnly", "writeOnly", "contentMediaType",
    "contentEncoding", "discriminator", "xml", "externalDocs"})
_KNOWN = _HANDLED | _ANNOTATIONS
#: keywords a later allOf member (or the schema around it) may restate differently
_OVERRIDE = frozenset({"description", "title", "default", "examples", "deprecated", "$defs"})


@dataclass
class Shape:
    """What one schema accepts, keyword by keyword (raw sub-schemas are left as they
    are, to be read when the walk reaches them)."""

    types: frozenset[str] | None = None   # None: any type; never holds "null"
    nullable: bool = False
    enum: tuple[Any, ...] | None = None   # never holds None
    has_default: bool = False
    default: Any = None
    bounds: dict[str, Any] = field(default_factory=dict)
    properties: dict[str, Any] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    additional: Any = OPEN                # OPEN, CLOSED or a raw schema
    items: Any = None                     # raw schema of every (further) item
    prefix: tuple[Any, ...] = ()
    union: tuple[Any, ...] | None = None  # anyOf / oneOf members that are not null
    description: str | None = None
    deprecated: bool = False
    other: dict[str, Any] = field(default_factory=dict)

    def allows(self, t: str) -> bool:
        return self.types is None or t in self.types


def description_text(text: Any) -> str | None:
    """A description as compared: whitespace runs collapsed to one space, ends stripped
    (a YAML folding or re-indent is not a rewrite); empty is none."""
    if not isinstance(text, str):
        return None
    return " ".join(text.split()) or None


def _num(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list):
        return [_num(x) for x in v]
    if isinstance(v, dict):
        return {k: _num(x) for k, x in v.items()}
    return v


def value_key(v: Any) -> str:
    """A JSON value as a key that equal values share (key order and 1 vs 1.0 aside)."""
    t = type(v)
    if isinstance(v, str) and t is str:
        return "s" + v
    if t is int or t is bool or v is None:
        return json.dumps(v)
    return json.dumps(_num(v), sort_keys=True, separators=(",", ":"), default=str)


def same_json(a: Any, b: Any, refs: bool = True) -> bool:
    """Whether two JSON values are the same value, ``true`` and ``1`` told apart (Python's
    ``==`` alone does not); with ``refs=False``, also False when they hold a ``$ref``
    (two equal sub-schemas of two documents may still point at different things)."""
    if a is b and refs:
        return True
    if a != b:
        return False
    try:
        text = orjson.dumps(a, option=orjson.OPT_SORT_KEYS)
        return text == orjson.dumps(b, option=orjson.OPT_SORT_KEYS) and (
            refs or b'"$ref"' not in text)
    except (TypeError, orjson.JSONEncodeError):
        return False


def _resolve(root: Any, raw: Any) -> Any:
    if not isinstance(raw, dict) or "$ref" not in raw:
        return raw
    try:
        return resolve_ref(root, raw)
    except (KeyError, ValueError) as exc:
        from .._errors import SchemaInvalidError
        raise SchemaInvalidError(f"$ref that cannot be followed: {exc}") from None


def _is_null_only(root: Any, member: Any) -> bool:
    m = _resolve(root, member)
    if not isinstance(m, dict):
        return False
    t = m.get("type")
    if t == "null" or t == ["null"]:
        return True
    if "const" in m and m["const"] is None:
        return True
    return m.get("enum") == [None]


def _merge_all_of(root: Any, s: dict[str, Any], depth: int) -> dict[str, Any]:
    """``allOf`` merged into one schema when its members do not overlap (properties and
    required are united; any other keyword given twice must be equal); else unchanged."""
    members = [_resolve(root, m) for m in s["allOf"]]
    if not all(isinstance(m, dict) for m in members):
        return s
    out: dict[str, Any] = {}
    props: dict[str, Any] = {}
    required: list[str] = []
    for m in [*members, {k: v for k, v in s.items() if k != "allOf"}]:
        m = _fold(root, m, depth + 1) if "allOf" in m else m
        for k, v in m.items():
            if k == "properties" and isinstance(v, dict):
                if set(v) & set(props):
                    return s
                props.update(v)
            elif k == "required" and isinstance(v, list):
                required += [r for r in v if r not in required]
            elif k in out and k not in _OVERRIDE and value_key(out[k]) != value_key(v):
                return s
            else:
                out[k] = v
    if props:
        out["properties"] = props
    if required:
        out["required"] = required
    return out


def _fold(root: Any, s: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """allOf merged in where it can be; an anyOf / oneOf of one schema and null read as
    that schema, nullable."""
    if isinstance(s.get("allOf"), list) and s["allOf"] and depth < 16:
        s = _merge_all_of(root, s, depth)
    for word in ("anyOf", "oneOf"):
        members = s.get(word)
        if not isinstance(members, list) or not members:
            continue
        nulls = [m for m in members if _is_null_only(root, m)]
        rest = [m for m in members if not _is_null_only(root, m)]
        if len(rest) == 1 and isinstance(target := _resolve(root, rest[0]), dict):
            outer = {k: v for k, v in s.items() if k != word}
            s = {**target, **outer, **({"nullable": True} if nulls else {})}
        elif nulls:
            s = {**s, word: rest, "nullable": True}
    return s


def _types(s: dict[str, Any]) -> tuple[frozenset[str] | None, bool]:
    t = s.get("type")
    if isinstance(t, str):
        names = {t}
    elif isinstance(t, list):
        names = {x for x in t if isinstance(x, str)}
    elif any(w in s for w in _OBJECT_WORDS):
        names = {"object"}
    elif any(w in s for w in _ARRAY_WORDS):
        names = {"array"}
    else:
        return None, s.get("nullable") is True
    nullable = "null" in names or s.get("nullable") is True
    names.discard("null")
    return frozenset(names), nullable


def _bounds(s: dict[str, Any]) -> dict[str, Any]:
    out = {k: _num(v) for k, v in s.items() if k in _BOUND_SET}
    if not out:
        return out
    for word, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = out.get(word)
        if isinstance(flag, bool):  # draft 4: a flag on minimum / maximum
            del out[word]
            if flag and plain in out:
                out[word] = out.pop(plain)
    for word in ("minLength", "minItems", "minProperties"):
        if out.get(word) == 0:
            del out[word]
    if out.get("uniqueItems") is False:
        del out["uniqueItems"]
    if out.get("pattern") in (".*", "^.*$"):
        del out["pattern"]
    return out


def _additional(s: dict[str, Any]) -> Any:
    a = s.get("additionalProperties")
    if a is None and s.get("unevaluatedProperties") is False:
        return CLOSED
    if a is None or a is True or a == {}:
        return OPEN
    if a is False:
        return CLOSED
    return a


def _enum(s: dict[str, Any]) -> tuple[tuple[Any, ...] | None, bool]:
    if "const" in s:
        values = [s["const"]]
    elif isinstance(s.get("enum"), list):
        values = list(s["enum"])
    else:
        return None, False
    seen: dict[str, Any] = {}
    for v in values:
        if v is not None:
            seen.setdefault(value_key(v), v)
    return tuple(seen.values()), any(v is None for v in values)


def shape(root: Any, raw: Any) -> Shape:
    """The shape of ``raw``, a schema inside the document ``root`` (its ``$ref``s are
    resolved against ``root``)."""
    s = _resolve(root, raw)
    if s is None or s is True:
        return Shape()
    if s is False:
        return Shape(types=frozenset())
    if not isinstance(s, dict):
        return Shape()
    if "allOf" in s or "anyOf" in s or "oneOf" in s:
        s = _fold(root, s)
    types, nullable = _types(s)
    enum, null_in_enum = _enum(s)
    items, prefix = s.get("items"), s.get("prefixItems")
    if isinstance(items, list):  # draft 4 tuple form
        items, prefix = s.get("additionalItems"), items
    union = None
    for word in ("anyOf", "oneOf"):
        if isinstance(s.get(word), list) and s[word]:
            union = tuple(s[word])
            break
    other = {k: v for k, v in s.items() if k not in _KNOWN and not k.startswith("x-")}
    if other:
        if isinstance(s.get("items"), list):
            other.pop("additionalItems", None)
        if other.get("unevaluatedProperties") is False:
            del other["unevaluatedProperties"]
    if union is not None and isinstance(s.get("anyOf"), list) and isinstance(s.get("oneOf"), list):
        other["oneOf"] = s["oneOf"]
    required = s.get("required")
    return Shape(
        types=types, nullable=nullable or null_in_enum, enum=enum,
        has_default="default" in s, default=_num(s.get("default")), bounds=_bounds(s),
        properties=dict(s["properties"]) if isinstance(s.get("properties"), dict) else {},
        required=frozenset(r for r in required if isinstance(r, str))
        if isinstance(required, list) else frozenset(),
        additional=_additional(s), items=items,
        prefix=tuple(prefix) if isinstance(prefix, list) else (), union=union,
        description=description_text(s.get("description")),
        deprecated=s.get("deprecated") is True, other=other)
