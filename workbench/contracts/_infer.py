"""``contract infer``: a consumer contract (docs/contracts.md, "Consumer contracts") inferred
from recorded traffic, each declaration with its count and evidence so a person can prune
it.

- **calls**: every tool the traces called;
- **sends**: argument paths the calls set;
- **reads**: result paths whose values flowed into a later call (the store's data-flow
  refs), with where they went;
- **branches_on**: result values after which the next call differs (``Traffic.branches``);
- **retries_on**: error codes a call failed with before the same call was made again;
- **paginates**: a result path of a tool whose value the same tool was called with next
  (``result.next_cursor`` → ``args.cursor``).

``assumes_order`` is never inferred: the order a workflow relies on does not show in the
values it moves.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._traffic import Flow, Traffic, Witness, leaf_paths

__all__ = ["Declared", "InferredConsumer", "infer_consumer"]


@dataclass
class Declared:
    """One inferred declaration: a path (or error code), how often, in how many traces,
    the first place it was seen, and (for ``reads``) where the values went."""

    path: str
    count: int = 0
    traces: set[str] = field(default_factory=set)
    first: Witness | None = None
    into: Counter[str] = field(default_factory=Counter)
    values: list[Any] = field(default_factory=list)
    sends: str | None = None

    def see(self, w: Witness) -> None:
        self.count += 1
        self.traces.add(w.trace_id)
        if self.first is None:
            self.first = w

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "count": self.count,
                               "traces": len(self.traces),
                               "evidence": self.first.to_dict() if self.first else None}
        if self.into:
            out["into"] = sorted(self.into)
        if self.values:
            out["values"] = self.values
        if self.sends is not None:
            out["sends"] = self.sends
        return out

    def note(self) -> str:
        where = (f"; e.g. trace {self.first.trace_id[:12]} step {self.first.step}"
                 if self.first else "")
        into = f"; into {', '.join(sorted(self.into))}" if self.into else ""
        return f"{self.count}x in {len(self.traces)} trace(s){where}{into}"


@dataclass
class _Tool:
    name: str
    calls: Declared
    sends: dict[str, Declared] = field(default_factory=dict)
    reads: dict[str, Declared] = field(default_factory=dict)
    branches_on: dict[str, Declared] = field(default_factory=dict)
    retries_on: dict[str, Declared] = field(default_factory=dict)
    paginates: Declared | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.name, "calls": self.calls.count,
                "traces": len(self.calls.traces),
                "evidence": self.calls.first.to_dict() if self.calls.first else None,
                **{k: [d.to_dict() for d in getattr(self, k).values()]
                   for k in ("sends", "reads", "branches_on", "retries_on")},
                "paginates": self.paginates.to_dict() if self.paginates else None}


@dataclass
class InferredConsumer:
    """The consumer contract recorded traffic implies (``to_yaml`` writes it with the
    evidence as comments; ``to_dict`` is ``contract infer --json``)."""

    consumer: str
    tools: dict[str, _Tool]
    traces: int
    calls: int

    def to_dict(self) -> dict[str, Any]:
        return {"consumer": self.consumer, "traces": self.traces, "calls": self.calls,
                "tools": [t.to_dict() for t in self.tools.values()]}

    def to_yaml(self) -> str:
        """The contract in the format ``load_consumer`` reads, each declaration followed
        by a comment with its count and first evidence."""
        q = json.dumps  # a JSON string is a YAML scalar: paths with [*] stay paths
        lines = ["# inferred by `workbench contract infer` from "
                 f"{self.calls} recorded tool call(s) in {self.traces} trace(s);",
                 "# prune what the workflow does not really depend on",
                 "version: 1", f"consumer: {q(self.consumer)}", "tools:"]
        for t in self.tools.values():
            lines.append(f"  {q(t.name)}:  # called {t.calls.note()}")
            body = 0
            for key in ("sends", "reads"):
                decl = getattr(t, key)
                if decl:
                    lines.append(f"    {key}:")
                    lines += [f"      - {q(d.path)}  # {d.note()}" for d in decl.values()]
                    body += 1
            if t.branches_on:
                lines.append("    branches_on:")
                lines += [f"      {q(d.path)}: {q(d.values)}  # {d.note()}"
                          for d in t.branches_on.values()]
                body += 1
            if t.retries_on:
                lines.append("    retries_on:")
                lines += [f"      - {q(d.path)}  # {d.note()}" for d in t.retries_on.values()]
                body += 1
            if t.paginates is not None:
                p = t.paginates
                lines.append(f"    paginates: {{cursor: {q(p.path)}, sends: {q(p.sends)}}}  "
                             f"# {p.note()}")
                body += 1
            if not body:
                lines[-1] = lines[-1].replace(":  # called", ": {}  # called", 1)
        return "\n".join(lines) + "\n"


def _decl(table: dict[str, Declared], path: str) -> Declared:
    if path not in table:
        table[path] = Declared(path)
    return table[path]


def _reads(tools: dict[str, _Tool], flows: Sequence[Flow]) -> None:
    for f in flows:
        if f.source not in tools:
            continue
        t = tools[f.source]
        w = Witness(f.trace_id, f.source_step)
        if f.source == f.target and f.path.startswith("args"):
            if t.paginates is None:
                t.paginates = Declared(f.from_path, sends=f.path)
            if t.paginates.path == f.from_path:
                t.paginates.see(w)
            continue
        d = _decl(t.reads, f.from_path)
        d.see(w)
        d.into[f"{f.target} {f.path}"] += 1


def infer_consumer(traffic: Traffic, name: str = "recorded") -> InferredConsumer:
    """What the recorded calls of ``traffic`` depend on, as a consumer contract."""
    tools: dict[str, _Tool] = {}
    for c in traffic.calls:
        t = tools.get(c.name)
        if t is None:
            t = tools[c.name] = _Tool(c.name, Declared(c.name))
        t.calls.see(c.witness)
        seen = set()
        for path, _ in leaf_paths(c.args, "args"):
            if path != "args" and path not in seen:
                seen.add(path)
                _decl(t.sends, path).see(c.witness)
    _reads(tools, traffic.flows)
    for b in traffic.branches(list(tools)):
        d = _decl(tools[b.tool].branches_on, b.path)
        d.values = sorted(b.after, key=lambda v: (type(v).__name__, str(v)))
        for v, w in b.witnesses.items():
            for _ in range(sum(b.after[v].values())):
                d.see(w)
    for tool, by_code in traffic.retries().items():
        for code, ws in by_code.items():
            d = _decl(tools[tool].retries_on, code)
            for w in ws:
                d.see(w)
    for t in tools.values():
        for table in (t.sends, t.reads, t.branches_on, t.retries_on):
            ordered = sorted(table.values(), key=lambda d: (-d.count, d.path))
            table.clear()
            table.update((d.path, d) for d in ordered)
    return InferredConsumer(name, dict(sorted(tools.items())), len(traffic.traces),
                            len(traffic.calls))
