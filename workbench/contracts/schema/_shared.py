"""Checking many schemas that share their ``$defs`` without walking the shared part again.

An OpenAPI document of hundreds of operations becomes hundreds of descriptors, each
holding under its own ``$defs`` the components its schemas reach — the *same* converted
objects, shared (``openapi.Components``). Each descriptor's schema is checked as a whole
(its ``$ref``s resolve, no ``$ref`` loop consumes nothing, its depth with the
references inlined stays within ``contract_depth``); done naively, every descriptor
walks every component it reaches again. Here what is learnt of a ``$defs`` member is
kept while the members of that name stay the same objects (the ``Shared`` context):
the references inside it and whether they resolve, the nodes proven to lead to no loop,
and the inlined height of each node. A descriptor then walks only its own root part.

A member whose ``$ref``s point anywhere but into ``$defs`` (``#``, ``#/properties/…``)
depends on the root it sits under: a schema holding one is checked the plain way.
A ``$defs`` name bound to another object than before starts a new context.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote

__all__ = ["Shared", "expanded_height", "has_loop", "out_edges", "refs_in", "shared_context"]

_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")
_IN_PLACE = ("not", "if", "then", "else")
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_SKIP = frozenset({"const", "enum", "default", "examples", "example"})
_MAX_NAMES = 50_000


class Shared:
    """What is known of the ``$defs`` members bound to these names."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}
        self.view: dict[str, Any] = {"$defs": self.names}  # what their refs resolve in
        self.height: dict[int, int] = {}
        self.safe: set[int] = set()           # nodes from which no loop is reached
        self.walked: set[int] = set()         # members whose every node was searched
        #: member → (context-free, the first unresolved ref, the member names it names)
        self.refs: dict[int, tuple[bool, str | None, frozenset[str]]] = {}

    def bind(self, defs: dict[str, Any]) -> bool:
        """Take ``defs`` into the context; False when a name is bound to another object
        (the caller then starts a new context)."""
        for name, obj in defs.items():
            have = self.names.get(name)
            if have is not None and have is not obj:
                return False
        self.names.update(defs)
        return True

    def member(self, obj: Any, resolve: Callable[[str], Any]
               ) -> tuple[bool, str | None, frozenset[str]]:
        """Whether a member's refs all point into ``$defs``, the first that does not
        resolve (worded as ``check_schema`` words it), and the members it names, found
        once per member."""
        known = self.refs.get(id(obj))
        if known is None:
            known = self.refs[id(obj)] = _member_refs(obj, resolve)
        return known


_CONTEXT: list[Shared] = [Shared()]


def shared_context(schema: Any) -> Shared | None:
    """The context ``schema``'s ``$defs`` belong to (a new one when a name is bound to
    another object), or None when it has no ``$defs`` worth sharing."""
    defs = schema.get("$defs") if isinstance(schema, dict) else None
    if not isinstance(defs, dict) or not defs or "$id" in schema or "$schema" in schema:
        return None
    ctx = _CONTEXT[0]
    if not ctx.bind(defs) or len(ctx.names) > _MAX_NAMES:
        ctx = _CONTEXT[0] = Shared()
        ctx.bind(defs)
    return ctx


def refs_in(node: Any, at: str = "") -> Iterator[tuple[str, str]]:
    """``(path, ref)`` for every ``$ref`` under ``node``, ``$defs`` of the root left out
    when ``at`` is empty."""
    stack: list[tuple[Any, str]] = [(node, at)]
    while stack:
        n, where = stack.pop()
        if isinstance(n, dict):
            ref = n.get("$ref")
            if isinstance(ref, str):
                yield where or "/", ref
            stack += [(v, f"{where}/{k}") for k, v in n.items()
                      if k not in _SKIP and isinstance(v, dict | list)
                      and not (k == "$defs" and n is node and not at)]
        elif isinstance(n, list):
            stack += [(v, f"{where}/{i}") for i, v in enumerate(n) if isinstance(v, dict | list)]


def _member_refs(obj: Any, resolve: Callable[[str], Any]
                 ) -> tuple[bool, str | None, frozenset[str]]:
    free = True
    problem = None
    names: set[str] = set()
    stack = [obj]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            for key in _REF_KEYS:
                ref = n.get(key)
                if isinstance(ref, str) and not ref.startswith("#/$defs/"):
                    free = False
            ref = n.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                names.add(unquote(ref[8:].split("/", 1)[0]).replace("~1", "/").replace(
                    "~0", "~"))
                if problem is None:
                    problem = _unresolved(ref, resolve)
            stack += [v for k, v in n.items() if k not in _SKIP and isinstance(v, dict | list)]
        elif isinstance(n, list):
            stack += [v for v in n if isinstance(v, dict | list)]
    return free, problem, frozenset(names)


def _unresolved(ref: str, resolve: Callable[[str], Any]) -> str | None:
    try:
        resolve(ref)
    except KeyError:
        return f"$ref {ref!r} resolves to nothing"
    except ValueError as exc:
        return f"{exc} (no schema at the end of it)"
    return None


def out_edges(node: dict[str, Any], land: Callable[[str], Any]) -> list[Any]:
    """What ``node`` applies to the same value: its in-place subschemas and where its
    references land (``rules.has_ref_loop``'s edges)."""
    out = [node[k] for k in _IN_PLACE if isinstance(node.get(k), dict)]
    out += [x for k in _IN_PLACE_LISTS if isinstance(node.get(k), list)
            for x in node[k] if isinstance(x, dict)]
    for key in _REF_KEYS:
        ref = node.get(key)
        if isinstance(ref, str) and ref.startswith("#"):
            target = land(ref)
            if isinstance(target, dict):
                out.append(target)
    return out


def _root_ids(schema: dict[str, Any]) -> set[int]:
    """The containers of the root part (``$defs`` itself, not its members' insides)."""
    ids = {id(schema)}
    stack: list[Any] = [v for k, v in schema.items() if isinstance(v, dict | list)]
    defs = schema.get("$defs")
    while stack:
        n = stack.pop()
        ids.add(id(n))
        if n is defs:
            continue
        stack += [v for v in (n.values() if isinstance(n, dict) else n)
                  if isinstance(v, dict | list)]
    return ids


def has_loop(schema: dict[str, Any], ctx: Shared, land: Callable[[str], Any]) -> bool:
    """``rules.has_ref_loop`` of a schema whose members are context-free, the members'
    nodes searched once per context."""
    local = _root_ids(schema)
    done: set[int] = set()

    def search(start: Any) -> bool:
        if id(start) in ctx.safe or id(start) in done:
            return False
        path = [(start, iter(out_edges(start, land)))]
        on = {id(start)}
        while path:
            node, it = path[-1]
            child = next(it, None)
            if child is None:
                path.pop()
                on.discard(id(node))
                (done if id(node) in local else ctx.safe).add(id(node))
                continue
            if id(child) in on:
                return True
            if id(child) not in ctx.safe and id(child) not in done:
                on.add(id(child))
                path.append((child, iter(out_edges(child, land))))
        return False

    defs = schema.get("$defs") or {}
    stack: list[Any] = [schema]
    for member in defs.values():
        if id(member) not in ctx.walked:
            stack.append(member)
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if search(n):
                return True
            stack += [v for k, v in n.items() if isinstance(v, dict | list)
                      and not (n is schema and k == "$defs")]
        elif isinstance(n, list):
            stack += [v for v in n if isinstance(v, dict | list)]
    ctx.walked.update(id(m) for m in defs.values())
    return False


def expanded_height(schema: dict[str, Any], ctx: Shared, land: Callable[[str], Any]) -> int:
    """``expanded_depth`` of a schema whose members are context-free, the members'
    heights kept in the context (a reference back into a node being expanded counts as
    a leaf, as there)."""
    local_ids = _root_ids(schema)
    height: dict[int, int] = {}

    def known(node: Any) -> int | None:
        h = height.get(id(node))
        return h if h is not None else ctx.height.get(id(node))

    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, finished = stack.pop()
        if not isinstance(node, dict | list) or (not finished and known(node) is not None):
            continue
        kids = list(node.values()) if isinstance(node, dict) else list(node)
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target = land(node["$ref"])
            if target is not None:
                kids.append(target)
        kids = [k for k in kids if isinstance(k, dict | list)]
        if finished:
            h = 1 + max((max(known(k) or 0, 0) for k in kids), default=0)
            if id(node) in local_ids:
                height[id(node)] = h
            else:
                height.pop(id(node), None)
                ctx.height[id(node)] = h
            continue
        height[id(node)] = -1
        stack.append((node, True))
        stack.extend((k, False) for k in kids if known(k) is None)
    return max(known(schema) or 0, 0)
