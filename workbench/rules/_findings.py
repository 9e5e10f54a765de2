"""Findings: which rule broke, on which call, after which steps — and their signatures.

A finding's message is operational ("archive_project p17 at step 41 has no earlier
request_approval for the same project_id"); its ``expected`` and ``actual`` are
*shapes* (field names, types, lengths, status), never values. Its signature is a hash
of the rule, the operation and the message with every token holding a digit blanked,
so the same failure on other ids, steps or times groups together.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..model import Event, dumps, loads

__all__ = ["Finding", "blank", "finding_json", "shape", "signature"]

_TOKEN = re.compile(r"[\w][\w\-:.+/]*")


def blank(message: str) -> str:
    """The message with ids, stamps and numbers (any token holding a digit) as ``#``."""
    return _TOKEN.sub(lambda m: "#" if any(c.isdigit() for c in m.group()) else m.group(),
                      message)


def signature(rule: str, operation: str, message: str, values: tuple[str, ...] = ()) -> str:
    """``values`` are the data the message quotes (ids, statuses); they are blanked too,
    so ``archive_project billing`` and ``archive_project search`` group together."""
    for v in sorted(values, key=len, reverse=True):
        if v:
            message = message.replace(v, "#")
    text = "\x1f".join((rule, blank(operation), blank(message)))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def finding_json(row: dict[str, Any]) -> dict[str, Any]:
    """A row of the store's ``findings`` or ``finding_groups`` as JSON would carry it:
    ``expected`` and ``actual`` parsed, times in ISO 8601."""
    out = {}
    for k, v in row.items():
        if k in ("expected", "actual") and isinstance(v, str):
            v = loads(v)
        elif hasattr(v, "isoformat"):
            v = v.isoformat()
        out[k] = v
    return out


def shape(value: Any, *, tokens: bool = False) -> Any:
    """A JSON value's shape: keys kept, scalars as the names of their types.

    Two spellings, on purpose. A finding's ``expected``/``actual`` (the default) sums a
    value up for a reader and for grouping: ``string(12)``, ``number``, ``boolean``,
    ``null``, a list as its length and the shape of its first item, at most 7 levels.
    A promotion policy (``tokens``, ``redact``'s ``shape_of``) puts the shape in place of
    the value, in a document that must keep its structure: every item of every list at
    every depth, null stays null, ints and floats apart (``«int»``, ``«float»``), and each
    scalar a token that cannot be mistaken for data (``«str:12»``, ``«bool»``).
    Both are recorded (findings, fixture content), so neither may change.
    """
    return _tokens(value) if tokens else _summary(value, 0)


def _summary(value: Any, depth: int) -> Any:
    if depth > 6:
        return "…"
    if isinstance(value, dict):
        return {k: _summary(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return {"array": len(value), "items": _summary(value[0], depth + 1)} if value else {
            "array": 0}
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return f"string({len(value)})"
    return "null"


def _tokens(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool):
        return "«bool»"
    if isinstance(value, int):
        return "«int»"
    if isinstance(value, float):
        return "«float»"
    if isinstance(value, str):
        return f"«str:{len(value)}»"
    if isinstance(value, dict):
        return {k: _tokens(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tokens(v) for v in value]
    return f"«{type(value).__name__}»"


def event_shape(e: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": e.kind, "name": e.name, "status": e.status,
                           "args": shape(e.args), "result": shape(e.result)}
    if e.error is not None:
        out["error"] = shape(e.error)
    return out


@dataclass(frozen=True)
class Finding:
    """One violation of one rule in one trace."""

    rule: str
    severity: str
    trace_id: str
    event_ids: tuple[str, ...]
    seq: int | None
    operation: str
    message: str
    expected: dict[str, Any] = field(default_factory=dict)
    actual: dict[str, Any] = field(default_factory=dict)
    values: tuple[str, ...] = field(default=(), compare=False)  # data quoted in the message

    @property
    def signature(self) -> str:
        return signature(self.rule, self.operation, self.message, self.values)

    def key(self) -> tuple[Any, ...]:
        """What makes two findings the same (engines are compared on it)."""
        return (self.rule, self.trace_id, self.event_ids, self.seq, self.operation,
                self.message)

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "trace_id": self.trace_id,
                "event_ids": list(self.event_ids), "seq": self.seq,
                "operation": self.operation, "message": self.message,
                "signature": self.signature, "expected": self.expected,
                "actual": self.actual}

    def to_row(self, run_id: str, checked_at: Any, rules_source: str | None) -> dict[str, Any]:
        return {"run_id": run_id, "checked_at": checked_at, "rule": self.rule,
                "severity": self.severity, "trace_id": self.trace_id,
                "event_ids": list(self.event_ids), "seq": self.seq,
                "operation": self.operation, "message": self.message,
                "signature": self.signature, "expected": dumps(self.expected),
                "actual": dumps(self.actual), "rules_source": rules_source}
