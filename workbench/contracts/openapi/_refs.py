"""An OpenAPI document's shared schemas, made part of each descriptor that uses them.

A descriptor is self-contained: its schemas may only ``$ref`` inside themselves. So each
``#/components/schemas/NAME[/…]`` becomes ``#/$defs/NAME[/…]``, and every component a
descriptor's schema reaches (directly, or through another component) is copied under
that schema's own ``$defs``. A recursive component (a tree whose children are trees)
stays recursive: its ``$ref`` now points at its own copy under ``$defs``.

A ``$ref`` to a file beside the document (``./schemas/pet.yaml``,
``common.yaml#/components/schemas/Error``) is followed inside the document's folder,
never out of it (``config.resolve_ref``: ``REF_OUTSIDE`` for a URL, an absolute path or
``..`` that leaves it); what it names is copied under ``$defs`` too, named after the
file and the place (``common.yaml#/components/schemas/Error`` →
``common.yaml.components.schemas.Error``), and its own ``$ref``s are read relative to
that file.

Each component is converted once (``schema.to_json_schema``) and its direct references
recorded, so a document of thousands of operations over the same components costs one
conversion per component plus a walk of each operation's closure. The converted
schemas are shared between descriptors and never changed after conversion; what a
conversion warns of is said once, for the component.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ...config import RefError
from ...config import resolve_ref as resolve_file
from ...model import json_pointer
from .._errors import SchemaInvalidError
from .._notes import warn
from ..schema import to_json_schema

__all__ = ["Components", "Origin"]

_PREFIX = "#/components/schemas/"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:|^//")
#: a place in a document: the file it lives in (None: the document itself)
Origin = Path | None


def _name(part: str) -> str:
    return unquote(part).replace("~1", "/").replace("~0", "~")


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _nodes(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object under ``node`` with its ``$ref`` (``where`` is ``node``'s)."""
    stack: list[tuple[Any, str]] = [(node, where)]
    while stack:
        n, at = stack.pop()
        if isinstance(n, dict):
            yield at, n
            stack += [(v, f"{at}/{_escape(k)}") for k, v in n.items()]
        elif isinstance(n, list):
            stack += [(v, f"{at}/{i}") for i, v in enumerate(n)]


class _Anchors(Mapping[str, str]):
    """A component's ``$dynamicAnchor``s, looked for only when a ``$dynamicRef`` asks."""

    def __init__(self, find: Callable[[], dict[str, str]]) -> None:
        self._find = find
        self._found: dict[str, str] | None = None

    def _all(self) -> dict[str, str]:
        if self._found is None:
            self._found = self._find()
        return self._found

    def __getitem__(self, name: str) -> str:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class Components:
    """``components.schemas`` of one document, converted on first use; ``folder``: where
    files the document names may be read (None: nowhere)."""

    def __init__(self, doc: dict[str, Any], file: str, *, oas30: bool,
                 folder: Path | None = None) -> None:
        comps = doc.get("components")
        schemas = comps.get("schemas") if isinstance(comps, dict) else None
        self.doc = doc
        self.raw: dict[str, Any] = schemas if isinstance(schemas, dict) else {}
        self.file = file
        self.oas30 = oas30
        self.folder = folder
        self._done: dict[str, tuple[Any, frozenset[str]]] = {}
        #: a def name for what another file names: (that file, the pointer in it)
        self._extra: dict[str, tuple[Path, str]] = {}
        self._by_place: dict[tuple[Path, str], str] = {}
        self._files: dict[Path, Any] = {}
        self._anchors: dict[str, dict[str, str]] = {}
        self._ids: dict[str, str] | None = None

    # --- files beside the document -----------------------------------------------
    def _open(self, ref: str, origin: Origin, at: str, tool: str | None) -> tuple[Path, str]:
        """The file and the fragment a ``$ref`` to another file names."""
        if self.folder is None:
            raise SchemaInvalidError(f"{self.file}, tool {tool}, {at}: $ref {ref!r} points "
                                     "outside the document (descriptors hold their own "
                                     "schemas)", file=self.file, tool=tool, path=at)
        name, _, frag = ref.partition("#")
        name = unquote(name)
        if origin is not None and not _SCHEME.match(name) and not os.path.isabs(name):
            # relative to the file that names it, still confined to the document's folder
            here = origin.parent.relative_to(self.folder.resolve())
            name = os.path.normpath(os.path.join(here, name))
        try:
            target = resolve_file(name, self.folder)
        except RefError as exc:
            raise RefError(f"{self.file}, tool {tool}, {at}: {exc.message}", ref=ref,
                           file=self.file, tool=tool, path=at) from None
        if target not in self._files:
            from .._read import load_document  # the same limits as the document itself
            self._files[target] = load_document(target)
        return target, "#" + frag if frag else "#"

    def _external(self, ref: str, origin: Origin, at: str, tool: str | None) -> str:
        """The def name of what another file's ``$ref`` names, registered."""
        if ref.startswith("#"):
            assert origin is not None
            place = (origin, ref)
        else:
            place = self._open(ref, origin, at, tool)
        name = self._by_place.get(place)
        if name is None:
            rel = place[0].relative_to(self.folder.resolve()) if self.folder else place[0]
            base = _UNSAFE.sub("_", str(rel).replace("/", "."))
            frag = ".".join(_UNSAFE.sub("_", _name(p)) for p in place[1][2:].split("/") if p)
            name = f"{base}.{frag}" if frag else base
            while name in self.raw or name in self._extra:
                name += "_"
            self._by_place[place] = name
            self._extra[name] = place
        return name

    def _target(self, name: str, tool: str | None, at: str) -> tuple[Any, Origin, str]:
        """A def's raw schema, the file it lives in and its home ``$ref``."""
        if name in self._extra:
            path, frag = self._extra[name]
            try:
                node = json_pointer(self._files[path], frag)
            except KeyError:
                raise SchemaInvalidError(f"{self.file}, tool {tool}, {at}: $ref "
                                         f"{path.name}{frag} resolves to nothing",
                                         file=self.file, tool=tool, path=at) from None
            return node, path, frag
        return self.raw[name], None, _PREFIX + _escape(name)

    def follow(self, node: Any, at: str, tool: str | None) -> tuple[Any, Origin]:
        """``node`` with its chain of ``$ref``s followed (local or to a file beside the
        document), and the file it was found in."""
        origin: Origin = None
        seen: set[tuple[Origin, str]] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if (origin, ref) in seen:
                raise SchemaInvalidError(f"{self.file}, {at}: $ref {ref!r} is a cycle",
                                         file=self.file, tool=tool, path=at)
            seen.add((origin, ref))
            if ref.startswith("#"):
                doc = self.doc if origin is None else self._files[origin]
                frag = ref
            else:
                origin, frag = self._open(ref, origin, at, tool)
                doc = self._files[origin]
            try:
                node = json_pointer(doc, frag)
            except KeyError:
                raise SchemaInvalidError(f"{self.file}, {at}: $ref {ref!r} resolves to "
                                         "nothing", file=self.file, tool=tool,
                                         path=at) from None
        return node, origin

    # --- conversion ----------------------------------------------------------------
    def convert(self, schema: Any, at: str, tool: str | None, origin: Origin = None,
                home: str | None = None) -> tuple[Any, set[str]]:
        """``schema`` in JSON Schema with its ``$ref``s rewritten, and the components it
        names directly. ``origin``: the file it was written in (None: the document)."""
        names: set[str] = set()

        def ref(target: str, path: str) -> str:
            if origin is None and not target.startswith("#"):
                by_id = self._by_id(target)
                if by_id is not None:
                    warn("id-ref", f"$ref {target!r} names {by_id!r} by its $id",
                         file=self.file, tool=None if home else tool, path=path)
                    target = by_id
            if origin is not None or not target.startswith("#"):
                name = self._external(target, origin, path, tool)
                names.add(name)
                return "#/$defs/" + _escape(name)
            if not target.startswith(_PREFIX):
                raise SchemaInvalidError(f"{self.file}, tool {tool}, {path}: $ref {target!r} "
                                         "is not under #/components/schemas (descriptors "
                                         "hold their own schemas)", file=self.file, tool=tool,
                                         path=path)
            rest = target[len(_PREFIX):]
            name = _name(rest.split("/", 1)[0])
            if name not in self.raw:
                raise SchemaInvalidError(f"{self.file}, tool {tool}, {path}: $ref {target!r} "
                                         "resolves to nothing", file=self.file, tool=tool,
                                         path=path)
            names.add(name)
            return "#/$defs/" + rest

        def said(kind: str, path: str, message: str) -> None:
            warn(kind, message, file=self.file, tool=None if home else tool, path=path)

        anchors = _Anchors(lambda: self._anchors_of(schema, home)) if home is not None else None
        return to_json_schema(schema, oas30=self.oas30, ref=ref, at=at, warn=said,
                              home=home, anchors=anchors, resources=True), names

    def _by_id(self, target: str) -> str | None:
        """The local ``$ref`` of the component whose ``$id`` a reference names (3.1: a
        schema may be referred to by its ``$id``, and a place in it by its
        ``$anchor``), or None."""
        if self._ids is None:
            self._ids = {v["$id"].rstrip("#"): n for n, v in self.raw.items()
                         if isinstance(v, dict) and isinstance(v.get("$id"), str)}
        uri, _, frag = target.partition("#")
        name = self._ids.get(uri)
        if name is None:
            return None
        home = _PREFIX + _escape(name)
        if not frag or frag.startswith("/"):
            return home + frag
        for place, node in _nodes(self.raw[name], home):
            if node.get("$anchor") == frag:
                return place
        return None

    def _anchors_of(self, schema: Any, home: str) -> dict[str, str]:
        """``$dynamicAnchor`` name → its place, inside one component."""
        found = self._anchors.get(home)
        if found is None:
            found = self._anchors[home] = {}
            stack: list[tuple[Any, str]] = [(schema, home)]
            while stack:
                node, where = stack.pop()
                if isinstance(node, dict):
                    if isinstance(node.get("$dynamicAnchor"), str):
                        found.setdefault(node["$dynamicAnchor"], where)
                    stack += [(v, f"{where}/{_escape(k)}") for k, v in node.items()
                              if isinstance(v, dict | list)]
                elif isinstance(node, list):
                    stack += [(v, f"{where}/{i}") for i, v in enumerate(node)
                              if isinstance(v, dict | list)]
        return found

    def _component(self, name: str, tool: str | None) -> tuple[Any, frozenset[str]]:
        done = self._done.get(name)
        if done is None:
            at = f"components.schemas.{name}"
            node, origin, home = self._target(name, tool, at)
            if origin is not None:
                at = f"{origin.name}{home}"
            converted, names = self.convert(node, at, tool, origin, home)
            done = self._done[name] = (converted, frozenset(names))
        return done

    def closure(self, names: set[str], tool: str | None) -> dict[str, Any]:
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
