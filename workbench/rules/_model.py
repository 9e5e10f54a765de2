"""Rule objects: selectors, conditions and the eight bodies of the rules language.

The YAML loader (``_load.py``) and the Python API (``rule()``, ``sel()``, ``tool()``)
build the same frozen objects; both engines (``_python.py`` and ``_sql.py``) read them.
See docs/rules.md for the language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model import Path, parse_path

__all__ = [
    "BODIES",
    "CONDITION_OPS",
    "Absent",
    "Before",
    "Body",
    "Cond",
    "Count",
    "Every",
    "Exists",
    "Flow",
    "Never",
    "Order",
    "Rule",
    "RuleSet",
    "Selector",
    "Where",
    "sel",
    "tool",
]

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


@dataclass(frozen=True)
class Before:
    """Every ``then`` event has an earlier ``first`` event (same values at ``same``)."""

    first: Selector
    then: Selector
    same: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Never:
    """No ``event`` happens after an ``after`` event (same values at ``same``)."""

    event: Selector
    after: Selector
    same: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Count:
    """Per group of ``per`` values, the matching events number between min and max."""

    event: Selector
    per: tuple[Path, ...] = ()
    min: int | None = None
    max: int | None = None


@dataclass(frozen=True)
class Every:
    """Each matching event meets ``where`` and validates against ``schema`` per root."""

    event: Selector
    where: tuple[Where, ...] = ()
    schema: tuple[tuple[str, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class Exists:
    """At least one matching event."""

    event: Selector


@dataclass(frozen=True)
class Absent:
    """No matching event."""

    event: Selector


@dataclass(frozen=True)
class Order:
    """Distinct events can be assigned to the steps so that every edge a -> b has the
    event of a happen before the event of b (a partial order, not a sequence)."""

    steps: tuple[tuple[str, Selector], ...]
    edges: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Flow:
    """Each ``value`` of a matching event came from an earlier ``source`` event: it equals
    a value at ``from_value`` there, and the item holding it meets ``source_where``."""

    event: Selector
    value: Path
    source: Selector
    from_value: Path
    source_where: tuple[Where, ...] = ()


Body = Before | Never | Count | Every | Exists | Absent | Order | Flow
BODIES: dict[str, type] = {"before": Before, "never": Never, "count": Count, "every": Every,
                           "exists": Exists, "absent": Absent, "order": Order, "flow": Flow}


@dataclass(frozen=True)
class Rule:
    id: str
    body: Body
    description: str = ""
    severity: str = "error"
    line: int | None = None  # where the rule starts in its YAML file

    @property
    def kind(self) -> str:
        return next(k for k, t in BODIES.items() if isinstance(self.body, t))


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    version: int = 1
    source: str | None = None  # the file it was loaded from
    text: str = field(default="", repr=False)  # the file's text, for fixtures

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def get(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)

    def only(self, rule_ids: list[str]) -> RuleSet:
        return RuleSet(tuple(r for r in self.rules if r.id in rule_ids), self.version,
                       self.source, self.text)


def sel(kind: str | None = None, name: str | None = None, *, status: str | None = None,
        where: dict[str, Any] | None = None) -> Selector:
    """A selector from Python: ``sel("http", "GET /projects", where={...})``."""
    from ._load import parse_where
    return Selector(kind, name, status, parse_where(where or {}, "where"))


def tool(name: str, *, status: str | None = None,
         where: dict[str, Any] | None = None) -> Selector:
    """``tool: name`` from Python."""
    return sel("tool_call", name, status=status, where=where)


def paths(items: list[str] | tuple[str, ...]) -> tuple[Path, ...]:
    return tuple(parse_path(p) for p in items)
