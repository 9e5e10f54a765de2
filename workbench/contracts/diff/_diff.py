"""``contract diff``: two sets of tools compared as an agent meets them (docs/contracts.md,
"Diff").

Tools are matched by name (a renamed tool is ``tool-removed`` plus ``tool-added``). For
a tool on both sides the descriptor fields are compared (description, side effect, auth
scope, idempotency, timeout, error envelope, deprecation), then ``input`` and ``output``
as schemas (``_schema``). Each change gets a path (``args.…`` for what the agent
sends, ``result.…`` for what it reads, the descriptor field otherwise), a direction, a
severity (``_policy``, then fail-closed and consumer contracts) and a message
(``_words``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...model import format_path
from .._consumer import Consumer, consumer_findings, load_consumer
from .._descriptor import SIDE_EFFECTS, Descriptor, ToolSet
from .._read import read_tools
from ..schema import description_text, same_json
from ._cues import CUE_GATE, added_cues
from ._policy import change_class, class_severity, severity_at_least
from ._schema import SchemaChange, schema_changes
from ._words import words

__all__ = ["Change", "ContractDiff", "diff_contracts", "diff_tools"]

_DESTRUCTIVE = len(SIDE_EFFECTS) - 1


@dataclass(frozen=True)
class Change:
    """One change to one tool, judged (the ``contract diff`` JSON's ``changes[]``)."""

    tool: str
    kind: str
    path: str
    direction: str
    severity: str
    message: str
    consumers: tuple[str, ...] = ()
    policy: str = "info"     # the severity by the policy alone
    reason: str = "policy"   # policy | fail-closed | consumer | relaxes | not-consumed
    old: Any = None
    new: Any = None
    #: what the field is to the agent: ``filter`` (an optional argument of a read-only
    #: tool), ``input`` (any other argument), ``output`` (a result field); None for a
    #: change to the tool as a whole or its error codes
    role: str | None = None
    #: the side-effect class the change was worded by: NEW's, else OLD's; None: unknown
    side_effect: str | None = None
    #: with ``--recorded``: what the change does to recorded traffic (``_recorded``)
    recorded: dict[str, Any] | None = None
    segments: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    relaxes: bool = field(default=False, compare=False, repr=False)
    #: the policy class (``change_class``): break, drift, notice, note or relax
    cls: str = field(default="", compare=False, repr=False)
    #: a description change: the cues the new text adds, by kind (``_cues``)
    cues: dict[str, list[str]] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"tool": self.tool, "kind": self.kind, "path": self.path,
               "direction": self.direction, "severity": self.severity,
               "message": self.message, "consumers": list(self.consumers),
               "policy_severity": self.policy, "reason": self.reason,
               "old": self.old, "new": self.new, "role": self.role,
               "side_effect": self.side_effect}
        if self.cues is not None:
            out["cues"] = self.cues
        if self.recorded is not None:
            out["recorded"] = self.recorded
        return out


@dataclass(frozen=True)
class ContractDiff:
    """The changes from one set of tools to another."""

    changes: tuple[Change, ...]
    tools_old: int
    tools_new: int
    consumers: tuple[str, ...] = ()
    old_files: dict[str, str] = field(default_factory=dict, compare=False)
    new_files: dict[str, str] = field(default_factory=dict, compare=False)
    #: with ``--recorded``: the traffic judged and what the changes touch in it
    recorded: dict[str, Any] | None = None

    @property
    def breaking(self) -> bool:
        return any(c.severity == "error" for c in self.changes)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(("error", "warn", "info"), 0)
        for c in self.changes:
            out[c.severity] += 1
        return out

    def reaches(self, threshold: str) -> bool:
        """Whether any change is at ``threshold`` (``error``, ``warn``) or above."""
        return any(severity_at_least(c.severity, threshold) for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        out = {"breaking": self.breaking, "changes": [c.to_dict() for c in self.changes],
               "tools_old": self.tools_old, "tools_new": self.tools_new,
               "counts": self.counts(), "consumers": list(self.consumers)}
        if self.recorded is not None:
            out["recorded"] = self.recorded
        return out


def _sets(x: Iterable[str] | None) -> list[str]:
    return list(dict.fromkeys(x or ()))


def _tool_fields(o: Descriptor, n: Descriptor) -> list[SchemaChange]:
    out: list[SchemaChange] = []
    if description_text(o.description) != description_text(n.description):
        out.append(SchemaChange("description-changed", ("description",), o.description,
                                n.description))
    if o.side_effect != n.side_effect:
        up = (o.danger < n.danger) or n.side_effect is None
        out.append(SchemaChange("side-effect-changed", ("side_effect",), o.side_effect,
                                n.side_effect, sense="up" if up else "down"))
    a, b = set(o.auth_scope or ()), set(n.auth_scope or ())
    if a != b:
        out.append(SchemaChange("auth-scope-changed", ("auth_scope",), sorted(a), sorted(b),
                                sense="up" if b - a else "down"))
    idem = _idempotency(o, n)
    if idem is not None:
        out.append(idem)
    if o.timeout_s != n.timeout_s:
        sense = ("set" if o.timeout_s is None else "unset" if n.timeout_s is None else
                 "down" if n.timeout_s < o.timeout_s else "up")
        out.append(SchemaChange("timeout-changed", ("timeout_s",), o.timeout_s, n.timeout_s,
                                sense=sense))
    out += _errors(o, n)
    if (o.deprecated is None) != (n.deprecated is None):
        dep = n.deprecated
        out.append(SchemaChange("deprecated", ("deprecated",), o.deprecated is not None,
                                dep.replacement if dep and dep.replacement else dep is not None,
                                sense="set" if dep is not None else "unset"))
    return out


def _idempotency(o: Descriptor, n: Descriptor) -> SchemaChange | None:
    a, b = o.idempotency, n.idempotency
    if a == b or (a is None and b is None):
        return None
    if a is None or b is None:
        sense = "removed" if b is None else "required" if b.required else "added"
    elif a.key != b.key:
        sense = "moved"
    else:
        sense = "required" if b.required else "optional"
    return SchemaChange("idempotency-changed", ("idempotency",), a.key if a else None,
                        b.key if b else None, sense=sense)


def _errors(o: Descriptor, n: Descriptor) -> list[SchemaChange]:
    out = []
    for part in ("codes", "retryable"):
        a = _sets(getattr(o.errors, part, None))
        b = _sets(getattr(n.errors, part, None))
        out += [SchemaChange("error-code-added", ("errors", part, c), None, c, keyword=part)
                for c in b if c not in a]
        out += [SchemaChange("error-code-removed", ("errors", part, c), c, None, keyword=part)
                for c in a if c not in b]
    return out


def _raw_changes(o: Descriptor | None, n: Descriptor | None
                 ) -> list[tuple[SchemaChange, str]]:
    """``(change, direction)`` for one tool, descriptor fields first."""
    if n is None:
        assert o is not None
        return [(SchemaChange("tool-removed", ("tool",), o.tool, None), "input")]
    if o is None:
        return [(SchemaChange("tool-added", ("tool",), None, n.side_effect), "input")]
    if o == n and same_json(o.input, n.input) and same_json(o.output, n.output):
        return []
    out = [(c, "output" if c.path[0] == "errors" else "input") for c in _tool_fields(o, n)]
    for side, root, direction in (("input", "args", "input"), ("output", "result", "output")):
        a, b = getattr(o, side), getattr(n, side)
        if same_json(a, b):
            continue
        out += [(replace(c, path=(root, *c.path)), direction)
                for c in schema_changes(a, b, direction)]
    return out


def _judge(o: Descriptor | None, n: Descriptor | None, c: SchemaChange,
           direction: str, names: Sequence[str] = ()) -> Change:
    d = n or o
    assert d is not None
    writes = any(x is not None and x.writes for x in (o, n))
    cls = change_class(c, direction)
    found = None
    if c.kind == "description-changed":
        found = added_cues(_text(c.old), _text(c.new), names, d.tool)
        cls = max((CUE_GATE[k] for k in found), key=("drift", "break").index, default="note")
    policy = class_severity(cls, writes)
    fail_closed = any(x is not None and x.danger == _DESTRUCTIVE for x in (o, n))
    effect = next((x.side_effect for x in (n, o) if x is not None and x.side_effect), None)
    role = _role(c, effect)
    message = words(d.tool, c, direction, writes, c.path, effect=effect, role=role)
    if found is not None:
        message = _cue_words(message, d.tool, found)
    if fail_closed:
        unknown = any(x is not None and x.side_effect is None for x in (o, n))
        message += (" [fail-closed: side-effect class unknown, judged destructive]" if unknown
                    else " [fail-closed: destructive tool]")
    return Change(d.tool, c.kind, format_path(c.path), direction,
                  "error" if fail_closed else policy, message, policy=policy,
                  reason="fail-closed" if fail_closed else "policy", old=_plain(c.old),
                  new=_plain(c.new), role=role, side_effect=effect, segments=c.path,
                  relaxes=cls == "relax" or found == {},
                  cls=cls, cues=found)


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _cue_words(message: str, tool: str, found: dict[str, list[str]]) -> str:
    """A description change worded by the cues it adds (or by their absence)."""
    if not found:
        return (f"{tool}'s description was reworded without adding a destination, an "
                "instruction, concealment, a tool name or invisible characters")
    said = "; ".join(f"{k}: {', '.join(repr(x) for x in v[:3])}" for k, v in found.items())
    return f"{message}; the new text adds {said}"


def _role(c: SchemaChange, effect: str | None) -> str | None:
    """``filter``, ``input`` or ``output`` (``Change.role``) by where the change is, the
    field's optionality and the tool's side effect."""
    root = c.path[0] if c.path else None
    if root == "result":
        return "output"
    if root != "args":
        return None
    return "filter" if effect == "read_only" and c.optional and len(c.path) > 1 else "input"


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _apply_consumers(changes: list[Change], consumers: Sequence[Consumer]) -> list[Change]:
    """Raise what a consumer depends on to error, lower the rest of a consumed tool's
    changes to info (fail-closed changes stay errors)."""
    if not consumers:
        return changes
    consumed = {t for c in consumers for t in c.tools}
    hits: dict[int, list[Any]] = {}
    for f in consumer_findings(changes, consumers):
        hits.setdefault(f.change, []).append(f.dependency)
    out = []
    for i, ch in enumerate(changes):
        deps = hits.get(i, [])
        names = tuple(sorted({d.consumer for d in deps}))
        if ch.reason == "fail-closed" or ch.tool not in consumed:
            out.append(_with(ch, names, ch.severity, ch.reason))
            continue
        strict = any(d.what in ("branches_on", "retries_on") for d in deps)
        if deps and (strict or not ch.relaxes):
            out.append(_with(ch, names, "error", "consumer"))
        else:
            out.append(_with(ch, names, "info", "relaxes" if deps else "not-consumed"))
    return out


def _with(ch: Change, names: tuple[str, ...], severity: str, reason: str) -> Change:
    return replace(ch, consumers=names, severity=severity, reason=reason)


def diff_tools(old: ToolSet, new: ToolSet, consumers: Sequence[Consumer] = ()) -> ContractDiff:
    """Every change from ``old`` to ``new``, judged; with ``consumers``, what they depend on
    raised and the rest of the tools they call lowered."""
    changes: list[Change] = []
    names = [*old, *(t for t in new if t not in old)]
    for name in names:
        o, n = old.get(name), new.get(name)
        for c, direction in _raw_changes(o, n):
            changes.append(_judge(o, n, c, direction, names))
    changes = _apply_consumers(changes, consumers)
    return ContractDiff(tuple(changes), len(old), len(new),
                        tuple(c.name for c in consumers),
                        old_files=_files(old), new_files=_files(new))


def _files(tools: ToolSet) -> dict[str, str]:
    return {t: d.source.file for t, d in tools.items() if d.source and d.source.file}


def diff_contracts(old: str | os.PathLike[str], new: str | os.PathLike[str],
                   consumers: Iterable[str | os.PathLike[str]] = ()) -> ContractDiff:
    """``contract diff OLD NEW --consumer F…``: read both sides (descriptors, manifests,
    folders, or any file an importer reads), read each consumer contract against OLD,
    and diff."""
    a, b = read_tools([old]), read_tools([new])
    return diff_tools(a, b, [load_consumer(p, a) for p in consumers])

