"""The severity policy of ``contract diff`` (docs/contracts.md, "Diff"): what a change can
do to an agent, not to a deterministic client.

Each change falls in one class by its kind, its direction and which way it goes:

- **break**: calls that worked now fail or are misread (a field removed or renamed, an
  argument newly required, a value no longer accepted) — ``error``;
- **drift**: the agent still runs but may now act differently (a new output enum value,
  a rewritten description, a changed default, a shorter timeout, a code newly
  retryable) — ``error`` for a tool that writes, sends or destroys, ``warn`` for a
  read-only one;
- **notice**: a deprecation — ``warn``;
- **note**: a change that widens what the agent reads without a known risk — ``info``;
- **relax**: an addition, or more allowed for the agent to send, or less for it to
  read — ``info``; a consumer that depends on it does not raise it (unless it branches
  on the value or retries on the code).

Two rules override the class. **Fail closed**: every change to a tool that is
``destructive`` on either side, or whose side-effect class is unknown on either side (a
gate that does not know must not let it through), is an ``error``, and no consumer
contract lowers it. **Consumers**: when consumer contracts are given, a change to a tool
some consumer calls is ``error`` when it touches what a consumer declares (and is not a
relaxation of it) and ``info`` otherwise; a tool no consumer calls keeps the policy.
"""

from __future__ import annotations

from ._schema import SchemaChange

__all__ = ["CHANGE_KINDS", "LEVELS", "SEVERITIES", "change_class", "class_severity",
           "severity_at_least"]

#: every change kind, in the order docs/design.md lists them (stable names)
CHANGE_KINDS: tuple[str, ...] = (
    "tool-removed", "tool-added", "description-changed", "field-removed", "field-added",
    "field-renamed", "required-added", "required-removed", "type-changed",
    "enum-value-added", "enum-value-removed", "default-changed", "constraint-narrowed",
    "constraint-widened", "additional-properties-closed", "side-effect-changed",
    "auth-scope-changed", "idempotency-changed", "timeout-changed", "error-code-added",
    "error-code-removed", "deprecated")
SEVERITIES: tuple[str, ...] = ("info", "warn", "error")
LEVELS = {s: i for i, s in enumerate(SEVERITIES)}

_BY_DIRECTION: dict[str, tuple[str, str]] = {  # kind: (input class, output class)
    "field-removed": ("break", "break"),
    "field-renamed": ("break", "break"),
    "field-added": ("relax", "relax"),
    "required-added": ("break", "relax"),
    "required-removed": ("relax", "drift"),
    "enum-value-added": ("relax", "drift"),
    "enum-value-removed": ("break", "relax"),
    "default-changed": ("drift", "note"),
    "constraint-narrowed": ("break", "relax"),
    "constraint-widened": ("relax", "note"),
    "additional-properties-closed": ("break", "relax"),
    "description-changed": ("drift", "drift"),
    "error-code-added": ("drift", "drift"),
}


def change_class(c: SchemaChange, direction: str) -> str:
    """``break``, ``drift``, ``notice``, ``note`` or ``relax`` (the module docstring)."""
    if c.kind in _BY_DIRECTION:
        return _BY_DIRECTION[c.kind][direction == "output"]
    if c.kind == "type-changed":
        safe = "widen" if direction == "input" else "narrow"
        return "relax" if c.sense == safe else "break"
    if c.kind == "tool-removed":
        return "break"
    if c.kind == "tool-added":
        return "relax"
    if c.kind in ("side-effect-changed", "auth-scope-changed"):
        return "break" if c.sense == "up" else "drift" if c.kind.startswith("side") else "relax"
    if c.kind == "idempotency-changed":
        return {"moved": "break", "required": "break", "removed": "drift"}.get(
            c.sense or "", "relax")
    if c.kind == "timeout-changed":
        return {"down": "drift", "up": "relax"}.get(c.sense or "", "note")
    if c.kind == "error-code-removed":
        return "drift" if c.keyword == "retryable" else "relax"
    if c.kind == "deprecated":
        return "notice" if c.sense == "set" else "relax"
    raise ValueError(f"unknown change kind {c.kind!r}")


def class_severity(cls: str, writes: bool) -> str:
    """The severity of a class for a tool that writes (anything but read-only) or not."""
    if cls == "break":
        return "error"
    if cls == "drift":
        return "error" if writes else "warn"
    return "warn" if cls == "notice" else "info"


def severity_at_least(severity: str, threshold: str) -> bool:
    return LEVELS[severity] >= LEVELS[threshold]
