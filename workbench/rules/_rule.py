"""A rule and the seam every rule body fits: ``RuleBody``.

A rule is an id, a severity, the line it starts on and one body. A body (``before``,
``never``, ``count`` … one module each in ``bodies/``) is a frozen dataclass that says
everything the workbench needs to know of it, in one place:

- ``kind``: its key in a rules file;
- ``parse``: how it is read from YAML (``_parse.py`` has the pieces);
- ``violations``: what the Python engine finds in one trace;
- ``sql``: what the DuckDB engine finds store-wide (``_sqlscan.py`` has the pieces);
- ``explain``: how a violation is worded (``_explain.py``);
- ``paths``: the paths it tests and correlates, which a fixture's policy keeps.

``bodies/_registry.py`` lists the bodies. ``parse`` returns ``RuleBody``, so mypy checks
each body against this protocol where it builds itself (and again at its registration)
and names every member a body lacks or gets wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

if TYPE_CHECKING:
    from ..model import Event, Trace
    from ._explain import Wording
    from ._parse import At
    from ._sqlscan import Found, Sql

__all__ = ["BodyPaths", "Primary", "Rule", "RuleBody", "RuleSet"]

Primary = tuple[str, ...]
"""The primary event ids of one violation: the ``then`` of a ``before``, the ``event`` of
``never``/``every``/``absent``/``flow``, the events of a ``count`` group out of bounds,
nothing for ``exists``/``order``."""


class BodyPaths(NamedTuple):
    """The paths a body tests against values (kept verbatim in a fixture) and those it
    only compares for equality (pseudonymized there)."""

    tested: tuple[str, ...]
    correlated: tuple[str, ...] = ()


class RuleBody(Protocol):
    """What a rule body is (see the module docstring)."""

    kind: ClassVar[str]

    @classmethod
    def parse(cls, spec: Any, at: At) -> RuleBody:
        """The body from its YAML value; ``at.error`` names the rule and its line."""
        ...

    def violations(self, trace: Trace) -> list[Primary]:
        """The primary event ids of each violation in one trace, in step order."""
        ...

    def sql(self, at: Sql) -> Found:
        """Every violation in the traces of ``at.scope``, found by DuckDB: the same as
        ``violations`` in each trace."""
        ...

    def explain(self, trace: Trace, events: Sequence[Event]) -> Wording:
        """The words of one violation, given its primary events."""
        ...

    def paths(self) -> BodyPaths:
        """The paths the body tests and those it correlates."""
        ...


@dataclass(frozen=True)
class Rule:
    id: str
    body: RuleBody
    description: str = ""
    severity: str = "error"
    line: int | None = None  # where the rule starts in its YAML file

    @property
    def kind(self) -> str:
        return self.body.kind


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    version: int = 1
    source: str | None = None  # the file it was loaded from
    text: str = field(default="", repr=False)  # the file's text, for fixtures

    def __iter__(self) -> Iterator[Rule]:
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
