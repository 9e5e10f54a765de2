"""From a violation to a finding: the words, the witnesses and the shapes.

Both engines find violations their own way (Python per trace, DuckDB store-wide) and
hand each one here as the rule, the trace and the *primary* events (``_rule.Primary``).
The rule's body says the words (``RuleBody.explain`` gives a ``Wording``, built with the
helpers below); ``explain`` makes the finding. Everything a reader sees is decided by
the body, once, so the engines cannot word the same violation differently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Event, Trace, dumps
from ..model import Path as JPath
from ._findings import Finding, event_shape
from ._rule import Primary, Rule

__all__ = ["Wording", "explain", "keytext", "label", "names", "quoted", "short"]


@dataclass(frozen=True)
class Wording:
    """What a finding says: its witnesses (the offending event first), the operation, the
    message, ``expected`` and ``actual`` (default: the shape of the first witness), the
    values the message quotes (blanked in the signature), and whether it has no step."""

    events: Sequence[Event]
    operation: str
    message: str
    expected: dict[str, Any]
    actual: dict[str, Any] | None = None
    values: tuple[str, ...] = field(default=())
    stepless: bool = False


def explain(rule: Rule, trace: Trace, primary: Primary) -> Finding:
    """The finding for one violation of ``rule`` in ``trace``."""
    w = rule.body.explain(trace, [trace[i] for i in primary])
    events = w.events
    actual = w.actual if w.actual is not None else (event_shape(events[0]) if events else {})
    return Finding(rule.id, rule.severity, trace.trace_id, tuple(e.event_id for e in events),
                   events[0].seq if events and not w.stepless else None, w.operation,
                   w.message, w.expected, actual, w.values)


def short(value: Any, width: int = 40) -> str:
    """A value as a reader sees it in a message: text bare, the rest as JSON, cut."""
    s = value if isinstance(value, str) else dumps(value)
    return s if len(s) <= width else s[: width - 1] + "…"


def names(paths: tuple[JPath, ...]) -> str:
    """The last names of paths: ``project_id, cart_id``."""
    return ", ".join(str(p.segments[-1]) for p in paths)


def keytext(e: Event, paths: tuple[JPath, ...]) -> str:
    """The event's values at the paths, as a message quotes them: ``p17/c-2``."""
    vals = [e.values(p) for p in paths]
    return "/".join(short(v[0], 24) for v in vals if v)


def label(e: Event, paths: tuple[JPath, ...] = ()) -> str:
    """``archive_project p17 at step 7``: the event, its values at ``paths`` and its step."""
    key = keytext(e, paths)
    return f"{e.name} {key} at step {e.seq}" if key else f"{e.name} at step {e.seq}"


def quoted(e: Event, paths: tuple[JPath, ...]) -> tuple[str, ...]:
    """The texts ``label`` quotes for these paths (blanked in the signature)."""
    return tuple(short(v[0], 24) for v in (e.values(p) for p in paths) if v)
