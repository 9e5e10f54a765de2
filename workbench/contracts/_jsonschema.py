"""JSON Schemas inside descriptors: checking that one is usable, and following its local
``$ref``s.

A descriptor's ``input`` and ``output`` are JSON Schema (2020-12 unless the schema's own
``$schema`` names another draft). Checked with ``jsonschema``'s meta-schemas, then for
what the meta-schemas let through but no tool can use: a ``$ref`` that resolves to
nothing, a ``$ref`` outside the document (descriptors are self-contained: an importer
inlines what a source keeps elsewhere), and a cycle of ``$ref``s that never reaches a
schema (``A -> B -> A``). A recursive schema (a tree node whose ``children`` are nodes)
is fine: its cycle passes through a real schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from ._metaschema import DIALECT_2020_12, is_schema

__all__ = ["check_schema", "pointer", "resolve_ref", "walk_refs"]


def pointer(doc: Any, ref: str) -> Any:
    """The value ``ref`` (``#/$defs/Item``, ``#`` for the root) names in ``doc``;
    ``KeyError`` when it names nothing."""
    if ref == "#":
        return doc
    if not ref.startswith("#/"):
        raise KeyError(ref)
    node = doc
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node


def resolve_ref(root: Any, schema: Any) -> Any:
    """``schema`` with a chain of bare ``$ref``s followed to the schema they name
    (siblings of a ``$ref`` are kept by merging them over the target)."""
    seen: set[str] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen:
            raise ValueError(f"$ref cycle through {ref}")
        seen.add(ref)
        target = pointer(root, ref)
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


def check_schema(schema: Any) -> str | None:
    """Why ``schema`` is not a usable JSON Schema, or None when it is."""
    if schema is None or isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"a schema is an object or a boolean, not {type(schema).__name__}"
    dialect = schema.get("$schema")
    fast = dialect in (None, DIALECT_2020_12, DIALECT_2020_12 + "#")
    if not (fast and is_schema(schema)):
        problem = _meta_problem(schema)
        if problem is not None:
            return problem
    for where, ref in walk_refs(schema):
        if not ref.startswith("#"):
            return (f"at {where}: $ref {ref!r} points outside the descriptor "
                    "(inline it, or keep it under $defs)")
        try:
            pointer(schema, ref)
        except KeyError:
            return f"at {where}: $ref {ref!r} resolves to nothing"
        try:
            resolve_ref(schema, {"$ref": ref})
        except ValueError as exc:
            return f"at {where}: {exc} (no schema at the end of it)"
    return None


def _meta_problem(schema: dict[str, Any]) -> str | None:
    """``jsonschema``'s own verdict and message (the slow path: only for a schema the
    fast check refused, or of another dialect)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/" + "/".join(str(p) for p in exc.absolute_path)
        return f"at {where}: {exc.message}"
    return None
