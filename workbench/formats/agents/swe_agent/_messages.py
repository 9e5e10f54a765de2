"""SWE-agent history messages as events (the ``swe-agent`` adapter's helpers)."""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

from ....model import InvalidTraceError
from ..._adapter import RawEvent, SourceFile, TraceInfo
from ..._values import call_arguments, obj, single_text, tool_output
from ...chat import ChatList

__all__ = ["SweHistory", "assistant_event", "first_assistant", "get", "message_event",
           "tool_status", "trace_info"]

# SWE-agent's own messages for an action it refused, could not run or cut short, and the
# shell's "command not found": the only failures an observation shows reliably (a
# command's exit status is not recorded).
_FAILURE = re.compile(
    r"(Your proposed edit has introduced new syntax error\(s\)"
    r"|Your bash command contained syntax errors and was NOT executed"
    r"|Interactive operation '.*' is not supported by this environment"
    r"|Your output could not be parsed properly"
    r"|The command .* was cancelled because it took more than"
    r"|EXECUTION TIMED OUT"
    r"|(?:/bin/|/usr/bin/)?(?:ba)?sh: (?:line \d+: )?\S+: command not found)")

_ISSUE = re.compile(r"\nISSUE:\n(.*?)\n\nINSTRUCTIONS:", re.S)
_POSITIONAL = ("action",)  # the key of an action with no tool-call id (non function-calling)


def tool_status(result: Any) -> tuple[str, dict[str, Any] | None]:
    """``error`` when the observation starts with one of SWE-agent's failure messages."""
    if isinstance(result, str):
        text = result.lstrip()
        if _FAILURE.match(text):
            return "error", {"message": text.splitlines()[0].strip()}
    return "ok", None


def first_assistant(history: list[Any]) -> int:
    for i, m in enumerate(history):
        if type(m) is dict and m.get("role") == "assistant":
            return i
    return len(history)


def _msg_attrs(m: dict[str, Any]) -> dict[str, Any]:
    return {f"swe_agent.{k}": m[k] for k in ("message_type", "agent", "is_demo")
            if m.get(k) not in (None, "", False)}


def message_event(tid: str, eid: str, m: Any, source: SourceFile, index: int) -> RawEvent:
    if type(m) is not dict:
        raise InvalidTraceError(f"{source.display}: history message {index} is not an object",
                                file=source.display)
    role = str(m.get("role") or "user")
    return RawEvent(trace_id=tid, event_id=eid, parent_id=None, kind="message", name=role,
                    result={"role": role, "content": m.get("content")}, attrs=_msg_attrs(m))


def assistant_event(tid: str, eid: str, msg: dict[str, Any], model: str | None) -> RawEvent:
    ev = RawEvent(trace_id=tid, event_id=eid, parent_id=None, kind="llm_call",
                  name=model or "assistant", status="ok", result={"messages": [msg]},
                  attrs=_msg_attrs(msg))
    if model:
        ev.attrs["gen_ai.request.model"] = model
    return ev


class SweHistory(ChatList):
    """A history-only file: each message an event, each tool call one event holding its
    result (paired by ``tool_call_ids``; an ``action`` with no tool calls by position).
    SWE-agent's reading of the shared walk: ids ``m3`` / ``m3-call0`` / ``m3-action``,
    its own attrs, and its failure messages as the status."""

    skip_bad_calls = True

    def __init__(self, tid: str, model: str | None, source: SourceFile) -> None:
        super().__init__(tid, source.display, "history message", "swe_agent", model=model)
        self.source = source

    def attrs(self, m: dict[str, Any]) -> dict[str, Any]:
        return _msg_attrs(m)

    def message(self, i: int, m: dict[str, Any]) -> RawEvent:
        return message_event(self.trace_id, f"m{i}", m, self.source, i)

    def turn(self, i: int, m: dict[str, Any]) -> RawEvent:
        return assistant_event(self.trace_id, f"m{i}", m, self.model)

    def call(self, i: int, j: int, call: dict[str, Any],
             parent: str) -> tuple[RawEvent, Hashable | None]:
        fn = obj(call.get("function"))
        cid = call.get("id")
        eid = cid if isinstance(cid, str) and cid and self.call_ids[cid] == 1 \
            else f"m{i}-call{j}"
        ev = RawEvent(trace_id=self.trace_id, event_id=eid, parent_id=parent,
                      kind="tool_call", name=str(fn.get("name") or ""), args=call_arguments(fn))
        if cid is not None:
            ev.attrs["gen_ai.tool.call.id"] = cid
        return ev, str(cid) if cid is not None else None

    def more_calls(self, i: int, m: dict[str, Any], parent: str) -> None:
        action = m.get("action")
        if not m.get("tool_calls") and isinstance(action, str) and action.strip():
            self.open(RawEvent(trace_id=self.trace_id, event_id=f"m{i}-action",
                               parent_id=parent, kind="tool_call", name=action.split()[0],
                               args={"command": action}), _POSITIONAL)

    def results(self, m: dict[str, Any]) -> list[tuple[Any, Hashable | None]] | None:
        role = m.get("role")
        if role != "tool" and (role != "user" or _POSITIONAL not in self.pairer
                               or m.get("message_type") not in (None, "observation")):
            return None
        keys = m.get("tool_call_ids")
        keys = keys if isinstance(keys, list) and keys else [_POSITIONAL]
        return [(key, key if key == _POSITIONAL else str(key)) for key in keys]

    def unmatched(self, i: int, n: int, count: int, m: dict[str, Any], key: Any) -> RawEvent:
        ev = RawEvent(trace_id=self.trace_id, event_id=f"m{i}" if count == 1 else f"m{i}-{n}",
                      parent_id=None, kind="tool_call", name="")
        if key != _POSITIONAL:
            ev.attrs["gen_ai.tool.call.id"] = key
        return ev

    def complete(self, ev: RawEvent, m: dict[str, Any]) -> None:
        ev.result = tool_output(m.get("content"))
        ev.status, ev.error = tool_status(ev.result)


def get(d: Any, *keys: str) -> Any:
    """``d[k1][k2]...``, or None where a level is missing or not an object."""
    for k in keys:
        if type(d) is not dict:
            return None
        d = d.get(k)
    return d


def trace_info(tid: str, doc: dict[str, Any], config: dict[str, Any], history: list[Any],
                model: str | None, source: SourceFile) -> TraceInfo:
    info = obj(doc.get("info"))
    task = get(config, "problem_statement", "text")
    if not isinstance(task, str) or not task.strip():
        task = None
        for m in history:
            if type(m) is dict and m.get("role") == "user" and not m.get("is_demo"):
                text = single_text(m.get("content"))
                if isinstance(text, str) and text.strip():
                    found = _ISSUE.search(text)
                    task = found.group(1).strip() if found else text
                    break
    attrs: dict[str, Any] = {}
    instance = get(config, "problem_statement", "id") or info.get("instance_id") \
        or source.path.name.split(".")[0]
    attrs["swe_agent.instance_id"] = instance
    for key, value in info.items():
        if value not in (None, "", {}, []):
            attrs[f"swe_agent.{key}"] = value
    stats = info.get("model_stats")
    if type(stats) is dict:
        for src, dst in (("tokens_sent", "input"), ("tokens_received", "output")):
            if isinstance(stats.get(src), int) and stats[src]:
                attrs[f"gen_ai.usage.{dst}_tokens"] = stats[src]
    if doc.get("environment") not in (None, ""):
        attrs["swe_agent.environment"] = doc["environment"]
    mcfg = get(config, "agent", "model")
    if type(mcfg) is dict:  # never the API key
        attrs["swe_agent.model_config"] = {k: v for k, v in mcfg.items() if "key" not in k}
    if type(config.get("env")) is dict:
        attrs["swe_agent.env_config"] = config["env"]
    return TraceInfo(trace_id=tid, root_task=task, versions={"model": model} if model else {},
                     attrs=attrs)
