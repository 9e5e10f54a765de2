"""A finding's steps for an agent: the witness events and the steps leading to them.

"Leading to" is the trace's own notion of dependency (``Trace.closure``): an event's
parents and the events its arguments came from, transitively. Each step says its
number, kind, name and status, the *shapes* of its arguments and result (never values:
the finding's ``expected``/``actual`` spelling, ``rules.shape``) and where its arguments
came from ("args.project_id <- list_projects at step 2 result.items[1].id"), worded by
the trace model's own ``Trace.describe`` as the findings' messages word steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import Event, Trace, dumps
from ..rules import shape

__all__ = ["finding_steps"]

_WIDTH = 100


def _short(value: Any) -> str:
    s = dumps(value)
    return s if len(s) <= _WIDTH else s[: _WIDTH - 1] + "…"


def _step(trace: Trace, e: Event, role: str) -> dict[str, Any]:
    sources = [f"{path} <- {trace.describe(src)} {from_path}".rstrip()
               for src, path, from_path in trace.sources(e)]
    args, result = shape(e.args), shape(e.result)
    error = shape(e.error) if e.error is not None else None
    body = []
    if e.args not in (None, {}, []):
        body.append(f"args {_short(args)}")
    if error is not None:
        body.append(f"error {_short(error)}")
    elif e.result not in (None, {}, []):
        body.append(f"-> {_short(result)}")
    text = f"{trace.describe(e)} ({e.kind}, {e.status})"
    if body:
        text += ": " + " ".join(body)
    if sources:
        text += "; " + "; ".join(sources)
    if role != "leads_to":
        text += f"  [{role}]"
    return {"seq": e.seq, "event_id": e.event_id, "kind": e.kind, "name": e.name,
            "status": e.status, "role": role, "args": args, "result": result,
            "error": error, "from": sources, "text": text}


def finding_steps(trace: Trace, event_ids: Sequence[str], max_steps: int) -> dict[str, Any]:
    """The steps of a finding in step order, at most ``max_steps`` (the witnesses always;
    then the events the witnesses' arguments came from; then the nearest other
    dependencies), and how many were left out."""
    witnesses = [i for i in event_ids if i in trace]
    role = {i: "witness" for i in witnesses}
    if witnesses:
        role[witnesses[0]] = "offender"
    deps = trace.closure(witnesses) - set(witnesses)
    direct = {src.event_id for i in witnesses for src, _, _ in trace.sources(i)} & deps
    rest = sorted(deps - direct, key=lambda i: -trace[i].seq)
    ranked = witnesses + sorted(direct, key=lambda i: -trace[i].seq) + rest
    kept = ranked[:max(max_steps, len(witnesses))]
    steps = [_step(trace, trace[i], role.get(i, "leads_to"))
             for i in sorted(kept, key=lambda i: trace[i].seq)]
    return {"steps": steps, "left_out": len(ranked) - len(kept)}
