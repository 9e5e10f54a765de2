"""What an import says besides its descriptors: the tools it refused, and the constructs
it converted.

A document of many tools (an OpenAPI document of hundreds of operations, an MCP tool
list) is read tool by tool: one whose schema cannot be used is refused, with its code,
its path in the document and a hint, and every other one is imported (``contract
import`` then exits 4, "partial"). A construct another dialect put there (an OpenAPI
3.0 ``nullable`` in a 3.1 document, a ``$recursiveRef``, a ``required`` entry given
twice) is converted and named as a warning; warnings never change the outcome.

Both are collected by whoever opened ``collecting()`` around the reading; read without
one (``lint``, ``diff`` and ``check`` reading a document), the first refusal is raised as
it always was, and warnings go nowhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..model import InputError, NotFoundError

__all__ = ["Notes", "Refusal", "Warned", "attempt", "collecting", "warn"]

T = TypeVar("T")


@dataclass(frozen=True)
class Refusal:
    """A tool (or an OpenAPI operation) left out, and why."""

    tool: str | None
    operation: str | None
    file: str | None
    path: str
    code: str
    message: str
    hint: str
    error: Exception | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "operation": self.operation, "file": self.file,
                "path": self.path, "code": self.code, "message": self.message,
                "hint": self.hint}


@dataclass(frozen=True)
class Warned:
    """A construct converted on import: its kind (``oas30-nullable``, …), where it was."""

    kind: str
    file: str | None
    tool: str | None
    path: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "file": self.file, "tool": self.tool, "path": self.path,
                "message": self.message}


@dataclass
class Notes:
    """Refusals and warnings of one import; ``strict``: a refusal is raised instead."""

    strict: bool = False
    refused: list[Refusal] = field(default_factory=list)
    warnings: list[Warned] = field(default_factory=list)
    _seen: set[tuple[str, str | None, str | None, str]] = field(default_factory=set)


_CURRENT: ContextVar[Notes | None] = ContextVar("contract_import_notes", default=None)


@contextlib.contextmanager
def collecting(*, strict: bool = False) -> Iterator[Notes]:
    """Collect the refusals and warnings of what is read inside the block."""
    notes = Notes(strict=strict)
    token = _CURRENT.set(notes)
    try:
        yield notes
    finally:
        _CURRENT.reset(token)


def warn(kind: str, message: str, *, file: str | None, tool: str | None, path: str) -> None:
    """Record a converted construct (once per kind, tool and place)."""
    notes = _CURRENT.get()
    if notes is None:
        return
    key = (kind, file, tool, path)
    if key in notes._seen:
        return
    notes._seen.add(key)
    notes.warnings.append(Warned(kind, file, tool, path, message))


def attempt(read: Callable[[], T], *, file: str | None, tool: str | None, path: str,
            operation: str | None = None) -> T | None:
    """``read()``, or None when it refuses bad input and a non-strict collector is open
    (the refusal is recorded with the error's code, message and hint)."""
    notes = _CURRENT.get()
    if notes is None or notes.strict:
        return read()
    try:
        return read()
    except (InputError, NotFoundError) as exc:  # bad input, a file it names missing
        where = exc.details.get("path")
        notes.refused.append(Refusal(
            tool=exc.details.get("tool") or tool, operation=operation, file=file,
            path=_place(path, where),
            code=exc.code, message=exc.message, hint=exc.hint, error=exc))
        return None


def _place(path: str, where: Any) -> str:
    """The tool's place, made precise by the place the error names inside it."""
    if not isinstance(where, str) or not where or where == path:
        return path
    return where if where.startswith(path) else f"{path} ({where})"
