"""``contract diff --recorded``: each change judged against the traffic the store recorded
(docs/contracts.md, "Diff against recorded traffic").

Beside the policy's verdict, each change says what it does to recorded calls:

- ``refused``: recorded calls of the tool that NEW's input refuses and OLD's accepted
  (a schema breach, an argument NEW does not declare), at or under the path of a change
  that is not a relaxation;
- ``flowed``: for a result change, recorded values at or under its path that flowed
  onward into a later call (the store's data-flow refs): the field the workflow reads;
- ``branched``: for an enum change, the recorded values of a result path after which
  the next call differs (the workflow branches on them);
- ``retried``: for an error-code change, the recorded calls that failed with that code
  and were made again (the workflow retries on it);
- ``reach``: the destructive or external-send calls the tool's results flowed into,
  directly or through other calls. Such a tool is **gated as that call is**: every
  change to it is an ``error`` when a destructive call was reached (reason ``reach``),
  judged as a writing tool when only an external send was.

A change with refused calls, flowed fields, branched values or retried codes is an
``error`` (reason
``recorded``). A change that touches none of this says so (``touches: false``) and keeps
its verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...model import STAR, parse_path
from .._check import input_problems
from .._descriptor import SIDE_EFFECTS, Descriptor, ToolSet
from .._traffic import Branch, Flow, Recorded, Traffic, Witness
from ._diff import Change, ContractDiff
from ._policy import LEVELS, class_severity

__all__ = ["SINKS", "judge_recorded"]

#: the side-effect classes a tool's outputs must not reach unreviewed
SINKS = ("external_send", "destructive")
#: how many witnesses a piece of evidence lists (the counts are exact)
_SHOWN = 5
_BRANCH_KINDS = frozenset({"enum-value-added", "enum-value-removed"})
#: the kinds of evidence, ``reach`` last (it gates by the sink, the others raise to error)
_EVIDENCE = ("refused", "flowed", "branched", "retried", "reach")


def _segs(path: str) -> tuple[Any, ...]:
    try:
        return tuple(STAR if isinstance(s, int) else s for s in parse_path(path).segments)
    except ValueError:
        return (path,)


def _related(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """One path is at or under the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _effect(name: str, old: ToolSet, new: ToolSet) -> str | None:
    d = new.get(name) or old.get(name)
    if d is None:
        return "undescribed"
    return d.side_effect or SIDE_EFFECTS[-1]  # unknown ranks as destructive


def _flow(f: Flow) -> dict[str, Any]:
    return {"trace": f.trace_id, "step": f.source_step, "into": f.target,
            "into_step": f.target_step, "from_path": f.from_path, "path": f.path}


class _Refusals:
    """Per tool: the recorded calls NEW's input refuses that OLD's accepted (each
    distinct argument text judged once)."""

    def __init__(self, traffic: Traffic, old: ToolSet, new: ToolSet) -> None:
        self.traffic, self.old, self.new = traffic, old, new
        self.cache: dict[str, list[tuple[Recorded, list[str]]]] = {}

    def of(self, tool: str) -> list[tuple[Recorded, list[str]]]:
        if tool not in self.cache:
            o, n = self.old.get(tool), self.new.get(tool)
            self.cache[tool] = [] if o is None or n is None else self._judge(tool, o, n)
        return self.cache[tool]

    def _judge(self, tool: str, o: Descriptor, n: Descriptor
               ) -> list[tuple[Recorded, list[str]]]:
        verdict: dict[str | None, list[str]] = {}
        out = []
        for c in self.traffic.by_tool(tool):
            if c.raw_args not in verdict:
                before = set(input_problems(o, c.args))
                verdict[c.raw_args] = [p for p in input_problems(n, c.args) if p not in before]
            if verdict[c.raw_args]:
                out.append((c, verdict[c.raw_args]))
        return out


def _evidence(ch: Change, traffic: Traffic, refusals: _Refusals,
              flows: dict[str, list[Flow]], branches: dict[str, list[Branch]],
              reach: dict[str, dict[str, list[Flow]]],
              retries: dict[str, dict[str, list[Witness]]]) -> dict[str, Any]:
    calls = traffic.by_tool(ch.tool)
    ev: dict[str, Any] = {"calls": len(calls), "traces": len({c.trace_id for c in calls})}
    at = _segs(ch.path)
    if ch.direction == "input" and ch.path.startswith("args") and not ch.relaxes:
        hit = [(c, ps) for c, ps in refusals.of(ch.tool)
               if any(_related(at, _segs(p)) for p in ps)]
        if hit:
            ev["refused"] = {"count": len(hit), "traces": len({c.trace_id for c, _ in hit}),
                             "calls": [{"trace": c.trace_id, "step": c.seq,
                                        "paths": ps} for c, ps in hit[:_SHOWN]]}
    if ch.direction == "output" and ch.path.startswith("result") and not ch.relaxes:
        hit_f = [f for f in flows.get(ch.tool, ()) if _related(at, _segs(f.from_path))]
        if hit_f:
            ev["flowed"] = {"count": len(hit_f), "traces": len({f.trace_id for f in hit_f}),
                            "into": sorted({f"{f.target} {f.path}" for f in hit_f}),
                            "flows": [_flow(f) for f in hit_f[:_SHOWN]]}
    if ch.kind in _BRANCH_KINDS:
        hit_b = [b for b in branches.get(ch.tool, ()) if _related(at[:-1] or at, _segs(b.path))
                 or _related(at, _segs(b.path))]
        if hit_b:
            ev["branched"] = [{"path": b.path, "values": sorted(map(str, b.after)),
                               "evidence": [{"value": v, **w.to_dict()}
                                            for v, w in list(b.witnesses.items())[:_SHOWN]]}
                              for b in hit_b]
    if ch.path.startswith("errors."):
        code = ch.path.split(".", 2)[-1]
        ws = retries.get(ch.tool, {}).get(code, [])
        if ws:
            ev["retried"] = {"code": code, "count": len(ws),
                             "traces": len({w.trace_id for w in ws}),
                             "calls": [w.to_dict() for w in ws[:_SHOWN]]}
    sinks = reach.get(ch.tool)
    if sinks:
        ev["reach"] = [{"tool": sink, "count": len(fs),
                        "traces": len({f.trace_id for f in fs}),
                        "trace_ids": sorted({f.trace_id for f in fs})[:_SHOWN],
                        "flows": [_flow(f) for f in fs[:_SHOWN]]}
                       for sink, fs in sorted(sinks.items())]
    ev["touches"] = any(k in ev for k in _EVIDENCE)
    return ev


def _gate(ch: Change, ev: dict[str, Any], effect: Callable[[str], str | None]) -> Change:
    severity, reason = ch.severity, ch.reason
    if any(k in ev for k in _EVIDENCE[:-1]) and severity != "error":
        severity, reason = "error", "recorded"
    for r in ev.get("reach", ()):
        gate = "error" if effect(r["tool"]) == "destructive" else class_severity(ch.cls, True)
        if LEVELS[gate] > LEVELS[severity]:
            severity, reason = gate, "reach"
    return replace(ch, severity=severity, reason=reason, recorded=ev)


def _words(ch: Change, ev: dict[str, Any]) -> str:
    """The change's message with what it does to recorded traffic."""
    bits = []
    if "refused" in ev:
        r = ev["refused"]
        bits.append(f"NEW refuses {r['count']} recorded call(s) in {r['traces']} trace(s)")
    if "flowed" in ev:
        f = ev["flowed"]
        bits.append(f"recorded values here flowed into {', '.join(f['into'])} "
                    f"({f['count']}x in {f['traces']} trace(s))")
    if "branched" in ev:
        bits.append("the recorded workflow branches on "
                    + ", ".join(b["path"] for b in ev["branched"]))
    if "retried" in ev:
        r = ev["retried"]
        bits.append(f"recorded calls retried after {r['code']} ({r['count']}x in "
                    f"{r['traces']} trace(s))")
    for r in ev.get("reach", ()):
        first = r["flows"][0]
        bits.append(f"its results flowed into {r['tool']} ({r['count']} call(s), e.g. "
                    f"trace {first['trace'][:12]} step {first['into_step']}, "
                    f"{first['from_path']} -> {first['path']})")
    if not bits:
        return (f"{ch.message} [recorded: touches nothing recorded; {ev['calls']} call(s) "
                f"of {ch.tool} in {ev['traces']} trace(s)]")
    return f"{ch.message} [recorded: {'; '.join(bits)}]"


def judge_recorded(result: ContractDiff, old: ToolSet, new: ToolSet,
                   traffic: Traffic) -> ContractDiff:
    """``result`` with every change judged against ``traffic`` (the module docstring)."""
    def effect(name: str) -> str | None:
        return _effect(name, old, new)

    tools = {c.tool for c in result.changes}
    flows: dict[str, list[Flow]] = {}
    for f in traffic.flows:
        if f.source in tools:
            flows.setdefault(f.source, []).append(f)
    enum_tools = sorted({c.tool for c in result.changes if c.kind in _BRANCH_KINDS})
    branches: dict[str, list[Branch]] = {}
    for b in traffic.branches(enum_tools) if enum_tools else ():
        branches.setdefault(b.tool, []).append(b)
    reach = traffic.reach(lambda name: effect(name) in SINKS)
    refusals = _Refusals(traffic, old, new)
    retries = traffic.retries() if any(c.path.startswith("errors.") for c in result.changes) \
        else {}
    changes = []
    for ch in result.changes:
        ev = _evidence(ch, traffic, refusals, flows, branches, reach, retries)
        judged = _gate(ch, ev, effect)
        changes.append(replace(judged, message=_words(ch, ev)))
    touched = sum(1 for c in changes if c.recorded and c.recorded["touches"])
    summary = {"traces": len(traffic.traces), "calls": len(traffic.calls),
               "changes_touching": touched, "touches_nothing": touched == 0,
               "reach": {t: sorted(s) for t, s in sorted(reach.items()) if t in tools}}
    return replace(result, changes=tuple(changes), recorded=summary)

