"""JSON Schemas inside descriptors: checking that one is usable, and following its local
``$ref``s.

A descriptor's ``input`` and ``output`` are JSON Schema (2020-12 unless the schema's own
``$schema`` names another draft). Checked with ``jsonschema``'s meta-schemas, then for
what the meta-schemas let through but no tool can use: a ``$ref`` that resolves to
nothing, a ``$ref`` outside the document (descriptors are self-contained: an importer
inlines what a source keeps elsewhere), and a cycle of ``$ref``s that never reaches a
schema (``A -> B -> A``) or comes back through ``allOf``/``anyOf``/``oneOf``/``not``/``if``
without consuming any of the value (``rules.has_ref_loop``, what a rule's ``schema`` is
held to). A recursive schema (a tree node whose ``children`` are nodes) is fine: its
cycle passes through ``properties`` or ``items``.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from typing import Any

from ...model import json_pointer
from ...rules import has_ref_loop
from ._metaschema import is_schema
from ._shared import Shared, expanded_height, has_loop, refs_in, shared_context

__all__ = ["check_schema", "expanded_depth", "resolve_ref", "walk_refs"]


def resolve_ref(root: Any, schema: Any) -> Any:
    """``schema`` with a chain of bare ``$ref``s followed to the schema they name
    (siblings of a ``$ref`` are kept by merging them over the target)."""
    seen: set[str] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:
            raise ValueError(f"$ref cycle through {ref}")
        seen.add(ref)
        target = json_pointer(root, ref)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings} if isinstance(target, dict) and siblings else target
    return schema


def walk_refs(schema: Any, at: str = "") -> Iterator[tuple[str, str]]:
    """``(path, ref)`` for every ``$ref`` in the schema, paths as JSON pointers."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            yield at or "/", ref
        for k, v in schema.items():
            if k not in ("const", "enum", "default", "examples", "example"):
                yield from walk_refs(v, f"{at}/{k}")
    elif isinstance(schema, list):
        for i, v in enumerate(schema):
            yield from walk_refs(v, f"{at}/{i}")


def expanded_depth(schema: Any) -> int:
    """How deep ``schema`` nests with each local ``$ref`` replaced by what it names, as
    an exporter that inlines references writes it (a chain of hundreds of definitions
    each naming the next is shallow as written and hundreds of levels deep inlined). A
    reference back into a schema being expanded (a recursive schema) counts as a leaf:
    exporters refuse or stop such loops themselves. Walked without recursion; the
    ``$defs`` members many schemas share are walked once (``_shared``)."""
    ctx = _context(schema)
    if ctx is not None:
        return expanded_height(schema, ctx, _lander(schema))
    height: dict[int, int] = {}  # -1: being expanded
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, dict | list) or (not done and id(node) in height):
            continue
        kids = list(node.values()) if isinstance(node, dict) else list(node)
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            with contextlib.suppress(KeyError):
                kids.append(json_pointer(schema, node["$ref"]))
        kids = [k for k in kids if isinstance(k, dict | list)]
        if done:
            height[id(node)] = 1 + max((max(height.get(id(k), 0), 0) for k in kids),
                                       default=0)
            continue
        height[id(node)] = -1
        stack.append((node, True))
        stack.extend((k, False) for k in kids if id(k) not in height)
    return max(height.get(id(schema), 0), 0)


def check_schema(schema: Any) -> str | None:
    """Why ``schema`` is not a usable JSON Schema, or None when it is."""
    import jsonschema  # loaded only when a descriptor is read

    if schema is None or isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"a schema is an object or a boolean, not {type(schema).__name__}"
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    if cls is jsonschema.Draft202012Validator:
        problem = _check_parts(schema, "")
    else:
        problem = _meta_problem(cls, schema, "")
    if problem is not None:
        return problem
    ctx = _context(schema)
    if ctx is not None:
        return _check_refs(schema, refs_in(schema), lambda: has_loop(schema, ctx,
                                                                      _lander(schema)))
    return _check_refs(schema, walk_refs(schema), lambda: has_ref_loop(schema))


def _context(schema: Any) -> Shared | None:
    """The shared context of ``schema``'s ``$defs`` when every member is context-free
    and its references resolve (else None: the plain walk words any problem)."""
    ctx = shared_context(schema)
    if ctx is None:
        return None

    def resolve(ref: str) -> Any:
        return resolve_ref(ctx.view, {"$ref": ref})

    defs = schema["$defs"]
    for member in defs.values():
        free, problem, names = ctx.member(member, resolve)
        if not free or problem is not None or not names <= defs.keys():
            return None
    return ctx


def _lander(schema: Any) -> Any:
    def land(ref: str) -> Any:
        try:
            return json_pointer(schema, ref)
        except KeyError:
            return None
    return land


def _check_refs(schema: Any, found: Any, loops: Any) -> str | None:
    refs = False
    for where, ref in found:
        refs = True
        if not ref.startswith("#"):
            return (f"at {where}: $ref {ref!r} points outside the descriptor "
                    "(inline it, or keep it under $defs)")
        try:
            json_pointer(schema, ref)
        except KeyError:
            return f"at {where}: $ref {ref!r} resolves to nothing"
        try:
            resolve_ref(schema, {"$ref": ref})
        except ValueError as exc:
            return f"at {where}: {exc} (no schema at the end of it)"
    if (refs or "$defs" in schema) and loops():  # a loop that consumes nothing needs a $ref
        return ("at /: $refs (with allOf/anyOf/oneOf/not/if) lead back to where they started "
                "without consuming any of the value: a validator would never end (a "
                "recursive schema goes through properties or items)")
    return None


#: 2020-12 (sub)schemas already checked against the meta-schema, by their JSON text
_CHECKED: set[bytes] = set()
_ONE = frozenset({"items", "additionalProperties", "not", "if", "then", "else", "contains",
                  "propertyNames", "unevaluatedItems", "unevaluatedProperties"})
_MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_NAMED = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})


def _check_parts(schema: Any, at: str) -> str | None:
    """The meta-schema's verdict on a 2020-12 schema, one subschema at a time.

    The 2020-12 meta-schema judges a schema's own keywords and then each subschema on
    its own, so a schema is checked as itself with every subschema replaced by ``true``
    and then subschema by subschema. A subschema seen before (the same component under
    the ``$defs`` of many descriptors, ``{type: string}`` everywhere) is not checked
    again: a document of thousands of operations over shared schemas costs about one
    check per distinct subschema, not one per use."""
    from ...model import dumps_bytes

    if not isinstance(schema, dict):
        return None if isinstance(schema, bool) else _meta_problem(None, schema, at)
    key = dumps_bytes(schema)
    if key in _CHECKED:
        return None
    if "$schema" in schema and at:  # an embedded resource of its own dialect
        return _meta_problem(None, schema, at)
    shallow: dict[str, Any] = {}
    children: list[tuple[str, Any]] = []
    for k, v in schema.items():
        if k in _ONE and isinstance(v, dict | bool):
            shallow[k] = True
            children.append((f"{at}/{k}", v))
        elif k in _MANY and isinstance(v, list):
            shallow[k] = [True if isinstance(s, dict | bool) else s for s in v]
            children += [(f"{at}/{k}/{i}", s) for i, s in enumerate(v) if isinstance(s, dict)]
        elif k in _NAMED and isinstance(v, dict):  # names are free (patternProperties': regexes)
            shallow[k] = {n: True if isinstance(s, dict | bool) else s for n, s in v.items()
                          if k == "patternProperties" or not isinstance(s, dict | bool)}
            children += [(f"{at}/{k}/{_escape(n)}", s) for n, s in v.items()
                         if isinstance(s, dict)]
        else:
            shallow[k] = v
    # the compiled meta-schema answers for the shallow part; jsonschema only words a refusal
    problem = None if is_schema(shallow) else _meta_problem(None, shallow, at)
    for where, child in children:
        problem = problem or _check_parts(child, where)
    if problem is None:
        if len(_CHECKED) > 100_000:
            _CHECKED.clear()
        _CHECKED.add(key)
    return problem


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _meta_problem(cls: Any, schema: Any, at: str) -> str | None:
    """The best meta-schema error for ``schema`` (of ``cls``'s dialect, or its own
    ``$schema``'s, 2020-12 by default), worded with its path, or None."""
    import jsonschema

    if cls is None:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    error = jsonschema.exceptions.best_match(_meta_validator(cls).iter_errors(schema))
    if error is None:
        return None
    where = at + "".join(f"/{p}" for p in error.absolute_path)
    return f"at {where or '/'}: {error.message}"


@functools.lru_cache(maxsize=8)
def _meta_validator(cls: Any) -> Any:
    import jsonschema
    from jsonschema_specifications import REGISTRY
    from referencing.jsonschema import specification_with

    if cls is not jsonschema.Draft202012Validator:
        return cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER, registry=REGISTRY)
    # the joined meta-schema registered beside the published ones it was built from, so
    # every reference in it (anchors included) resolves offline
    meta = _flat_2020_12()
    resource = specification_with(_DIALECT + "schema").create_resource(meta)
    return cls(meta, format_checker=cls.FORMAT_CHECKER,
               registry=REGISTRY.with_resource(meta["$id"], resource))


_DIALECT = "https://json-schema.org/draft/2020-12/"


def _flat_2020_12() -> dict[str, Any]:
    """The 2020-12 meta-schema as one schema: its vocabularies' keywords side by side,
    each ``$dynamicRef: #meta`` a plain ``$ref: #``. It says what the published one says
    of any schema that does not extend the dialect, and jsonschema checks a schema
    against it about four times faster (no ``allOf`` over seven vocabularies, no
    dynamic scope at every subschema). Built from jsonschema's own copies at run time."""
    from jsonschema_specifications import REGISTRY

    top = REGISTRY[_DIALECT + "schema"].contents
    props: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    for part in top["allOf"]:
        vocab = REGISTRY[_DIALECT + part["$ref"]].contents
        props.update(vocab.get("properties", {}))
        defs.update(vocab.get("$defs", {}))
    props.update(top["properties"])
    return {"$schema": _DIALECT + "schema", "$id": "urn:workbench:flat-meta-2020-12",
            "type": ["object", "boolean"], "properties": _static(props),
            "$defs": _static(defs)}


_VOCAB_REF = re.compile(r"^meta/[a-z-]+#/\$defs/(.+)$")


def _static(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _static(v) for k, v in value.items() if k != "$dynamicRef"}
        ref = out.get("$ref")
        if isinstance(ref, str) and (m := _VOCAB_REF.match(ref)) is not None:
            out["$ref"] = f"#/$defs/{m.group(1)}"  # the vocabularies' $defs are joined here
        return {"$ref": "#", **out} if value.get("$dynamicRef") == "#meta" else out
    if isinstance(value, list):
        return [_static(v) for v in value]
    return value
