"""An OpenAPI document's shared schemas, made part of each descriptor that uses them.

A descriptor is self-contained: its schemas may only ``$ref`` inside themselves. So each
``#/components/schemas/NAME[/…]`` becomes ``#/$defs/NAME[/…]``, and every component a
descriptor's schema reaches (directly, or through another component) is copied under
that schema's own ``$defs``. A recursive component (a tree whose children are trees)
stays recursive: its ``$ref`` now points at its own copy under ``$defs``.

Each component is converted once (``schema.to_json_schema``) and its direct references
recorded, so a document of thousands of operations over the same components costs one
conversion per component plus a walk of each operation's closure. The converted
schemas are shared between descriptors and never changed after conversion.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from .._errors import SchemaInvalidError
from ..schema import pointer, to_json_schema

__all__ = ["Components", "resolve"]

_PREFIX = "#/components/schemas/"


def resolve(doc: Any, node: Any, file: str, at: str, tool: str | None = None) -> Any:
    """``node`` with a chain of local ``$ref``s (to a parameter, a request body, a
    response) followed; ``SchemaInvalidError`` naming the file, the tool and the path for
    one that is not local or resolves to nothing, or a cycle."""
    seen: set[str] = set()
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if not ref.startswith("#/") or ref in seen:
            why = "is a cycle" if ref in seen else "points outside the document"
            raise SchemaInvalidError(f"{file}, {at}: $ref {ref!r} {why}", file=file,
                                     tool=tool, path=at)
        seen.add(ref)
        try:
            node = pointer(doc, ref)
        except KeyError:
            raise SchemaInvalidError(f"{file}, {at}: $ref {ref!r} resolves to nothing",
                                     file=file, tool=tool, path=at) from None
    return node


class Components:
    """``components.schemas`` of one document, converted on first use."""

    def __init__(self, doc: dict[str, Any], file: str, *, oas30: bool) -> None:
        comps = doc.get("components")
        schemas = comps.get("schemas") if isinstance(comps, dict) else None
        self.raw: dict[str, Any] = schemas if isinstance(schemas, dict) else {}
        self.file = file
        self.oas30 = oas30
        self._done: dict[str, tuple[Any, frozenset[str]]] = {}

    def convert(self, schema: Any, at: str, tool: str) -> tuple[Any, set[str]]:
        """``schema`` in JSON Schema with its ``$ref``s rewritten, and the components it
        names directly."""
        names: set[str] = set()

        def ref(target: str, path: str) -> str:
            if not target.startswith(_PREFIX):
                where = "points outside the document" if not target.startswith("#") else (
                    "is not under #/components/schemas")
                raise SchemaInvalidError(f"{self.file}, tool {tool}, {path}: $ref {target!r} "
                                         f"{where} (descriptors hold their own schemas)",
                                         file=self.file, tool=tool, path=path)
            rest = target[len(_PREFIX):]
            name = unquote(rest.split("/", 1)[0]).replace("~1", "/").replace("~0", "~")
            if name not in self.raw:
                raise SchemaInvalidError(f"{self.file}, tool {tool}, {path}: $ref {target!r} "
                                         "resolves to nothing", file=self.file, tool=tool,
                                         path=path)
            names.add(name)
            return "#/$defs/" + rest

        return to_json_schema(schema, oas30=self.oas30, ref=ref, at=at), names

    def _component(self, name: str, tool: str) -> tuple[Any, frozenset[str]]:
        done = self._done.get(name)
        if done is None:
            converted, names = self.convert(self.raw[name], f"components/schemas/{name}", tool)
            done = self._done[name] = (converted, frozenset(names))
        return done

    def closure(self, names: set[str], tool: str) -> dict[str, Any]:
        """Every component ``names`` reach, by name (sorted), converted."""
        todo = sorted(names)
        seen = set(todo)
        out: dict[str, Any] = {}
        while todo:
            name = todo.pop()
            schema, refs = self._component(name, tool)
            out[name] = schema
            for r in refs:
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return dict(sorted(out.items()))
