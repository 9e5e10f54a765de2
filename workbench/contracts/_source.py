"""What the importers share: the ``Source`` triple, and building a descriptor from what a
source said.

An importer gathers the descriptor fields its source states into a mapping, names the
fields the source cannot say, and calls ``build``: the mapping goes through
``descriptor_from_dict`` (the schema file, then JSON Schema checks), so an imported
descriptor is held to exactly the rules of a written one, and every error names the
file, the tool and the path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._descriptor import FIELDS, VERSION, Descriptor, descriptor_from_dict
from ._errors import DuplicateToolError
from ._notes import attempt, warn
from .schema import recursive_as_ref

__all__ = ["CONTRACT_FIELDS", "Source", "build", "is_str_list", "unique", "where"]

#: a source format: (name, sniff(doc) -> score 0..100, read(doc, file) -> descriptors)
Source = tuple[str, Callable[[Any], int], Callable[[Any, str], list[Descriptor]]]

#: the fields a source may or may not be able to say (``version``, ``tool`` and
#: ``source`` are always there)
CONTRACT_FIELDS: tuple[str, ...] = tuple(f for f in FIELDS if f not in ("version", "tool",
                                                                       "source"))


def where(file: str, at: str) -> str:
    """How an error names a tool's place: ``tools.json tools[3]``."""
    return f"{file} {at}" if at else file


def build(fmt: str, file: str, at: str, fields: Mapping[str, Any],
          unknown: Iterable[str]) -> Descriptor:
    """The descriptor of one tool: ``fields`` as the source stated them (None: not
    stated), ``unknown`` the fields the source cannot say, in descriptor field order
    (dotted sub-fields such as ``errors.retryable`` after their field)."""
    said = {k: v for k, v in fields.items() if v is not None}
    for side in ("input", "output"):
        if side in said:
            said[side] = recursive_as_ref(said[side], functools.partial(
                _said, file, said.get("tool"), side), side)
    names = set(unknown)
    order = {f: i for i, f in enumerate(CONTRACT_FIELDS)}
    listed = sorted(names, key=lambda n: (order.get(n.split(".")[0], len(order)), n))
    doc = {"version": VERSION, **said,
           "source": {"format": fmt, "file": file, "unknown": listed}}
    return descriptor_from_dict(doc, where(file, at))


def _said(file: str, tool: Any, side: str, kind: str, path: str, message: str) -> None:
    warn(kind, message, file=file, tool=tool if isinstance(tool, str) else None,
         path=path or side)


def is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def unique(found: Iterable[tuple[str, Descriptor | Callable[[], Descriptor]]],
           file: str) -> list[Descriptor]:
    """The descriptors of one file, each ``(where, descriptor)``, or ``(where, read)``
    read tool by tool (``attempt``: a tool that cannot be used is refused on its own
    where the caller collects refusals). A name twice is refused, naming both places."""
    seen: dict[str, str] = {}
    out = []
    for at, got in found:
        d = attempt(got, file=file, tool=None, path=at) if callable(got) else got
        if d is None:
            continue
        if d.tool in seen:
            first = seen[d.tool]
            attempt(functools.partial(_twice, file, d.tool, first, at), file=file,
                    tool=d.tool, path=at)
            continue
        seen[d.tool] = at
        out.append(d)
    return out


def _twice(file: str, tool: str, first: str, at: str) -> Descriptor:
    raise DuplicateToolError(f"{file}: tool {tool} is described twice ({first} and {at})",
                             file=file, tool=tool, path=at)
