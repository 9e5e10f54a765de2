"""The records only a Claude Agent SDK message stream has: the ``system`` ``init``
message (the session's tools, model and settings), ``task_started`` (a sub-agent's
start, told about its Task call), the closing ``result`` (the run's outcome, cost and
usage) and ``control_request`` (a permission or hook callback about a tool call).

No state: ``_map`` finds the trace and the events these apply to.
"""

from __future__ import annotations

from typing import Any

from ..._adapter import RawEvent, TraceInfo
from ..._decode import maybe_json
from ._records import CONSUMED, llm_details

__all__ = ["control_request", "run_result", "system_init", "task_started"]


def system_init(info: TraceInfo, rec: dict[str, Any]) -> None:
    """The ``init`` message onto its trace: tools, versions, and the rest as attrs."""
    tools = rec.get("tools")
    info.tools.extend({"name": t} for t in (tools if isinstance(tools, list) else [])
                      if isinstance(t, str))
    for k, name in (("claude_code_version", "claude_code"), ("model", "model")):
        if isinstance(rec.get(k), str):
            info.versions.setdefault(name, rec[k])
    info.attrs.update({f"claude_code.{k}": v for k, v in rec.items() if k not in (
        "type", "subtype", "session_id", "uuid", "tools", "model", "claude_code_version")})


def task_started(tool: RawEvent, rec: dict[str, Any]) -> None:
    """A ``task_started`` message onto the Task call that started the sub-agent."""
    tool.attrs["claude_code.task"] = {k: v for k, v in rec.items()
                                      if k not in CONSUMED and k != "subtype"}


def run_result(ev: RawEvent, rec: dict[str, Any]) -> None:
    """The closing ``result`` message onto the run's ``agent`` event."""
    ev.result = maybe_json(rec.get("result"))
    sub = rec.get("subtype")
    if rec.get("is_error") is True or (isinstance(sub, str) and sub.startswith("error")):
        errs = rec.get("errors")
        msg = rec.get("result") if isinstance(rec.get("result"), str) else (
            "; ".join(map(str, errs)) if isinstance(errs, list) and errs else str(sub))
        ev.status, ev.error = "error", {"code": str(sub), "message": msg}
    else:
        ev.status = "ok"
    usage = rec.get("usage")
    ev.attrs.update(llm_details({"usage": usage} if type(usage) is dict else {}))
    ev.attrs.update({f"claude_code.{k}": v for k, v in rec.items()
                     if k not in CONSUMED and k not in ("result", "usage") and v is not None})


def control_request(rec: dict[str, Any]) -> tuple[str, str] | None:
    """``(tool_use id, what was asked)`` of a ``control_request``; None if it names no
    request."""
    req = rec.get("request")
    if type(req) is not dict:
        return None
    inp = req.get("input")
    if type(inp) is not dict:
        inp = {}
    hook = inp.get("hook_event_name")
    return (str(req.get("tool_use_id") or inp.get("tool_use_id")),
            f"{req.get('subtype')}:{hook}" if hook else str(req.get("subtype")))
