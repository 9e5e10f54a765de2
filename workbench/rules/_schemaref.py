"""A ``schema`` condition's JSON Schema, read so that it reaches nothing outside the
rules file's folder and cannot loop.

``{$ref: FILE}`` names a schema file by a path inside the rules file's folder
(``config.resolve_ref``: no URL, no absolute path, no ``..`` out of it). Inside a
schema, inline or read, every ``$ref`` points into that schema itself (``#`` or
``#/…``, or a ``#name`` anchor) and must land on something; a reference to another
file or a URL is refused, since the validator would otherwise fetch it while a check
runs. A loop of references that consumes nothing of the value (``{"$ref": "#"}``, two
definitions that name each other through ``allOf``) would never end and is refused
too. Each refusal is a ``RulesError`` naming the rule and its line, at load time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from ..config import RefError, resolve_ref
from ..model import LIMITS, JSONDecodeError, LimitExceededError, json_pointer, loads

if TYPE_CHECKING:
    from ._parse import At

__all__ = ["check_refs", "has_ref_loop", "read_schema_file"]

_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE = ("not", "if", "then", "else")


def read_schema_file(ref: str, what: str, at: At) -> Any:
    """The JSON of the schema file ``ref`` names, inside the rules file's folder."""
    if "#" in ref:
        raise at.error(f"{what}: {{$ref: {ref}}} names a schema file whole; point inside "
                       "a schema with #/… from the schema itself")
    try:
        path = resolve_ref(ref, at.base if at.base is not None else FsPath.cwd())
    except RefError as exc:
        raise at.error(f"{what}: schema {exc.message}", code=exc.code,
                       hint=exc.hint) from None
    where = f"{at.source}" + (f" line {at.line}" if at.line else "") + \
        f", rule {at.rule}: schema file {ref}"
    limit = LIMITS["config_bytes"]
    try:
        size = path.stat().st_size
        if size > limit.value:
            raise limit.breach(where, size, file=at.source, line=at.line)
        data = path.read_bytes()
    except FileNotFoundError:
        raise at.error(f"{what}: schema file {ref} not found") from None
    except OSError as exc:
        raise at.error(f"{what}: schema file {ref} cannot be read: {exc.strerror}") from None
    try:
        return loads(data)
    except LimitExceededError as exc:
        rest = {k: v for k, v in exc.details.items() if k not in ("file", "line")}
        raise LimitExceededError(f"{where}: {exc.message.split(': ', 1)[-1]}",
                                 file=at.source, line=at.line, **rest) from None
    except JSONDecodeError as exc:
        raise at.error(f"{what}: schema file {ref} is not JSON: {exc}") from None


def _pointer(root: Any, ref: str) -> tuple[bool, Any]:
    """(found, target) of a local reference; an anchor (``#name``) counts as found."""
    if ref[1:] and not ref.startswith("#/"):
        return True, None  # a named anchor: the validator finds it within the schema
    try:
        return True, json_pointer(root, ref)
    except KeyError:
        return False, None


def check_refs(schema: Any, what: str, at: At) -> None:
    """Every reference of ``schema`` points inside it, lands, and no loop of them
    consumes nothing (see the module docstring)."""

    def landed(key: str, ref: str) -> Any:
        if not ref.startswith("#"):
            raise at.error(f"{what}: {key} {ref!r} points outside the schema; a "
                           "reference inside a schema points into it (#/…): put "
                           "what it names under $defs", code=RefError.code,
                           hint=RefError.default_hint)
        found, target = _pointer(schema, ref)
        if not found:
            raise at.error(f"{what}: {key} {ref!r} points at nothing in the schema")
        return target

    if _loops(_edges(schema, landed)):
        raise at.error(f"{what}: the schema's references form a loop that validates "
                       "nothing (a $ref to itself, or allOf/anyOf/oneOf/not/if back to "
                       "where it started)", code="REF_CYCLE",
                       hint="a recursive schema must go through properties or items, "
                            "which consume the value")


def has_ref_loop(schema: Any) -> bool:
    """Whether the local references of a JSON Schema form a loop that consumes nothing
    of the value (a validator following it never ends); references that point outside
    or at nothing are left to the caller."""

    def landed(key: str, ref: str) -> Any:
        return _pointer(schema, ref)[1] if ref.startswith("#") else None

    return _loops(_edges(schema, landed))


def _edges(schema: Any, landed: Callable[[str, str], Any]
           ) -> dict[int, tuple[Any, list[Any]]]:
    """For every object of the schema that applies others to the same value, the object
    and those: its in-place subschemas and what its references land on (``landed(key,
    ref)``). An object that applies none can be on no loop and is left out."""
    edges: dict[int, tuple[Any, list[Any]]] = {}
    stack, seen = [schema], set()
    while stack:  # every object of the schema, without recursion
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, list):
            stack.extend(x for x in node if isinstance(x, dict | list))
            continue
        stack.extend(x for x in node.values() if isinstance(x, dict | list))
        out = [node[k] for k in _IN_PLACE if isinstance(node.get(k), dict)]
        out += [x for k in _IN_PLACE_LISTS if isinstance(node.get(k), list)
                for x in node[k] if isinstance(x, dict)]
        for key in _REF_KEYS:
            ref = node.get(key)
            if isinstance(ref, str):
                target = landed(key, ref)
                if isinstance(target, dict):
                    out.append(target)
        if out:
            edges[id(node)] = (node, out)
    return edges


def _loops(edges: dict[int, tuple[Any, list[Any]]]) -> bool:
    state: dict[int, int] = {}  # 1: on the path, 2: done
    for root, _ in edges.values():
        if state.get(id(root)):
            continue
        path: list[tuple[Any, int]] = [(root, 0)]
        state[id(root)] = 1
        while path:
            node, i = path[-1]
            nxt = edges.get(id(node), (None, []))[1]
            if i < len(nxt):
                path[-1] = (node, i + 1)
                child = nxt[i]
                s = state.get(id(child), 0)
                if s == 1:
                    return True
                if s == 0:
                    state[id(child)] = 1
                    path.append((child, 0))
            else:
                state[id(node)] = 2
                path.pop()
    return False
