"""``contract usage``: per tool, argument and result field, how often and when last the
recorded traffic used it; with descriptors, what no recorded workflow uses (safe to
deprecate) and who still calls a deprecated tool (docs/contracts.md, "Usage").

With a time (``--since``), what was last used before it counts as no longer used. An
argument is *used* when a recorded call sent it; a result field is *returned* when a
recorded result carried it and *read* when its value flowed into a later call (the
store's data-flow refs). A declared argument no call sent and a described tool no trace
called are safe to deprecate as far as the traffic shows; a result field returned but
never read may still be read by the model (to select or to branch), so it is listed as
"not read by data flow", a candidate to check, not a verdict.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..model import STAR, format_path
from ._descriptor import Descriptor, ToolSet
from ._traffic import Traffic, Witness, leaf_paths
from .schema import shape

__all__ = ["FieldUse", "ToolUsage", "Usage", "contract_usage"]

_DECLARED_DEPTH = 6


def _when(ns: int | None) -> str | None:
    if ns is None:
        return None
    return dt.datetime.fromtimestamp(ns / 1e9, dt.UTC).isoformat(timespec="seconds")


@dataclass
class FieldUse:
    """How often a path was used, in how many traces, and when last."""

    count: int = 0
    traces: set[str] = field(default_factory=set)
    last_ns: int | None = None
    last: Witness | None = None
    read: int = 0

    def see(self, trace_id: str, step: int, t: int | None) -> None:
        self.count += 1
        self.traces.add(trace_id)
        if self.last is None or (t is not None and (self.last_ns is None or t >= self.last_ns)):
            self.last_ns, self.last = t, Witness(trace_id, step)

    def to_dict(self, path: str) -> dict[str, Any]:
        return {"path": path, "count": self.count, "traces": len(self.traces),
                "last_seen": _when(self.last_ns),
                "last": self.last.to_dict() if self.last else None, "read": self.read}


@dataclass
class ToolUsage:
    tool: str
    calls: FieldUse
    args: dict[str, FieldUse] = field(default_factory=dict)
    results: dict[str, FieldUse] = field(default_factory=dict)
    errors: dict[str, FieldUse] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, **self.calls.to_dict(self.tool),
                "args": [u.to_dict(p) for p, u in sorted(self.args.items())],
                "results": [u.to_dict(p) for p, u in sorted(self.results.items())],
                "errors": [u.to_dict(p) for p, u in sorted(self.errors.items())]}


@dataclass
class Usage:
    """``contract usage``'s result; ``unused``/``deprecated`` only with descriptors."""

    tools: dict[str, ToolUsage]
    traces: int
    calls: int
    unused: list[dict[str, Any]] = field(default_factory=list)
    deprecated: list[dict[str, Any]] = field(default_factory=list)
    described: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"traces": self.traces, "calls": self.calls,
                "tools": [t.to_dict() for t in self.tools.values()],
                "unused": self.unused if self.described else None,
                "deprecated": self.deprecated if self.described else None}


def _declared(root: Any, raw: Any, at: tuple[Any, ...], depth: int = 0
              ) -> Iterator[tuple[Any, ...]]:
    """The paths a schema declares (properties, array items), to a bounded depth."""
    if depth >= _DECLARED_DEPTH or raw is None:
        return
    sh = shape(root, raw)
    for name, sub in sh.properties.items():
        yield (*at, name)
        yield from _declared(root, sub, (*at, name), depth + 1)
    if sh.items is not None and sh.allows("array"):
        yield from _declared(root, sh.items, (*at, STAR), depth + 1)


def _covers(path: str, used: dict[str, FieldUse]) -> bool:
    return any(p == path or p.startswith(path + ".") or p.startswith(path + "[")
               for p in used)


def _recent(table: dict[str, FieldUse], since_ns: int | None) -> dict[str, FieldUse]:
    """The uses seen at or after ``since_ns`` (all of them without it; a use without a
    time counts as recent: the traffic cannot say it is old)."""
    if since_ns is None:
        return table
    return {p: u for p, u in table.items() if u.last_ns is None or u.last_ns >= since_ns}


def _unused(d: Descriptor, t: ToolUsage | None, since_ns: int | None) -> list[dict[str, Any]]:
    since = "" if since_ns is None else f" since {_when(since_ns)}"
    if t is None or not _recent({d.tool: t.calls}, since_ns):
        return [{"tool": d.tool, "what": "tool", "path": None,
                 "why": f"no recorded trace called it{since}"}]
    out = []
    for root, schema, table, what in (("args", d.input, t.args, "argument"),
                                      ("result", d.output, t.results, "result")):
        used = _recent(table, since_ns)
        if not isinstance(schema, dict):
            continue
        for segs in _declared(schema, schema, (root,)):
            path = format_path(segs)
            if not _covers(path, used):
                why = ("no recorded call sent it" if root == "args" else "no recorded "
                       "result carried it") + since
                out.append({"tool": d.tool, "what": what, "path": path, "why": why})
            elif root == "result" and len(segs) == 2 and not any(
                    u.read for p, u in used.items() if _covers(path, {p: u})):
                out.append({"tool": d.tool, "what": "result-not-read", "path": path,
                            "why": "returned, but its value never flowed into a later call"})
    return out


def contract_usage(traffic: Traffic, tools: ToolSet | None = None,
                   since_ns: int | None = None) -> Usage:
    """How the recorded calls of ``traffic`` use each tool, argument and result field;
    with ``since_ns``, what was last used before it counts as no longer used."""
    out: dict[str, ToolUsage] = {}
    for c in traffic.calls:
        t = out.get(c.name)
        if t is None:
            t = out[c.name] = ToolUsage(c.name, FieldUse())
        t.calls.see(c.trace_id, c.seq, c.time_ns)
        for table, value, root in ((t.args, c.args, "args"), (t.results, c.result, "result")):
            if c.status == "error" and root == "result":
                continue
            for path in {p for p, _ in leaf_paths(value, root) if p != root}:
                table.setdefault(path, FieldUse()).see(c.trace_id, c.seq, c.time_ns)
        if c.status == "error":
            code = c.error_code or "unknown"
            t.errors.setdefault(code, FieldUse()).see(c.trace_id, c.seq, c.time_ns)
    for f in traffic.flows:
        for path, u in out[f.source].results.items():
            if path == f.from_path or path.startswith(f.from_path + "."):
                u.read += 1
    result = Usage(dict(sorted(out.items())), len(traffic.traces), len(traffic.calls))
    if tools is not None:
        result.described = True
        for name, d in tools.items():
            result.unused += _unused(d, out.get(name), since_ns)
            if d.deprecated is not None and name in out:
                t = out[name]
                result.deprecated.append({
                    "tool": name, "replacement": d.deprecated.replacement,
                    "since": d.deprecated.since, **t.calls.to_dict(name),
                    "callers": sorted(t.calls.traces)})
    return result
