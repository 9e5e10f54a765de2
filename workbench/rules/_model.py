"""Selectors and conditions: which events a rule speaks of and what their values must be.

The YAML loader (``_parse.py``) and the Python API (``sel()``, ``tool()``) build the same
frozen objects; both engines read them. The bodies that use them are in ``bodies/``.
See docs/rules.md for the language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Path

__all__ = ["CONDITION_OPS", "JSON_TYPES", "Cond", "Selector", "Where"]

CONDITION_OPS = ("eq", "ne", "in", "not_in", "exists", "matches", "lt", "le", "gt", "ge",
                 "type", "schema")
JSON_TYPES = ("string", "number", "integer", "boolean", "null", "object", "array")


@dataclass(frozen=True)
class Cond:
    """One test of the values at a path: ``op`` from ``CONDITION_OPS`` and its operand."""

    op: str
    value: Any


@dataclass(frozen=True)
class Where:
    """All ``conds`` hold for some value at ``path`` (``exists: false``: for none)."""

    path: Path
    conds: tuple[Cond, ...]


@dataclass(frozen=True)
class Selector:
    """Which events a rule speaks of. ``tool: X`` is ``kind: tool_call, name: X``."""

    kind: str | None = None
    name: str | None = None
    status: str | None = None
    where: tuple[Where, ...] = ()

    def describe(self) -> str:
        """How a message names these events: ``request_approval`` or ``http GET /x``."""
        if self.kind == "tool_call" and self.name:
            base = self.name
        elif self.name:
            base = f"{self.kind} {self.name}" if self.kind else self.name
        else:
            base = self.kind or "event"
        return base + (f" ({self.status})" if self.status else "")

    def paths(self) -> list[str]:
        """The paths its ``where`` tests (what a fixture's policy must keep)."""
        return [str(w.path) for w in self.where]
