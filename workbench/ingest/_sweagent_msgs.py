"""SWE-agent history messages as events (the ``swe-agent`` adapter's helpers)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..model import InvalidTraceError
from ._decode import maybe_json
from ._pairing import UNMATCHED, CallPairer, add_flag
from ._source import RawEvent, SourceFile, TraceInfo

__all__ = ["assistant_event", "dict_of", "first_assistant", "get", "history_events",
           "message_event", "text_of", "tool_status", "trace_info"]

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


def text_of(content: Any) -> Any:
    """A content list holding a single text block, reduced to its text."""
    if isinstance(content, list) and len(content) == 1 and type(content[0]) is dict \
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str):
        return content[0]["text"]
    return content


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


def history_events(tid: str, history: list[Any], model: str | None,
                   source: SourceFile) -> list[RawEvent]:
    """A history-only file: each message an event, each tool call one event holding its
    result (paired by ``tool_call_ids``; an ``action`` with no tool calls by position)."""
    ids = Counter(tc.get("id") for m in history if type(m) is dict
                  and isinstance(m.get("tool_calls"), list)
                  for tc in m["tool_calls"] if type(tc) is dict)
    events: list[RawEvent] = []
    pairer = CallPairer()
    for i, m in enumerate(history):
        if type(m) is not dict:
            raise InvalidTraceError(f"{source.display}: history message {i} is not an object",
                                    file=source.display)
        role = m.get("role")
        if role == "assistant":
            llm = assistant_event(tid, f"m{i}", m, model)
            events.append(llm)
            tcs = m.get("tool_calls")
            for j, tc in enumerate(tcs if isinstance(tcs, list) else []):
                if type(tc) is not dict:
                    continue
                fn = tc["function"] if type(tc.get("function")) is dict else {}
                cid = tc.get("id")
                eid = cid if isinstance(cid, str) and cid and ids[cid] == 1 else f"m{i}-call{j}"
                args = maybe_json(fn.get("arguments"))
                ev = RawEvent(trace_id=tid, event_id=eid, parent_id=llm.event_id,
                              kind="tool_call", name=str(fn.get("name") or ""),
                              args=args if args not in (None, "") else {})
                if cid is not None:
                    ev.attrs["gen_ai.tool.call.id"] = cid
                pairer.open(str(cid) if cid is not None else ("no id", i, j), ev)
                events.append(ev)
            action = m.get("action")
            if not tcs and isinstance(action, str) and action.strip():
                ev = RawEvent(trace_id=tid, event_id=f"m{i}-action", parent_id=llm.event_id,
                              kind="tool_call", name=action.split()[0],
                              args={"command": action})
                pairer.open(_POSITIONAL, ev)
                events.append(ev)
            continue
        keys = m.get("tool_call_ids")
        is_result = role == "tool" or (role == "user" and _POSITIONAL in pairer and m.get(
            "message_type") in (None, "observation"))
        if not is_result:
            events.append(message_event(tid, f"m{i}", m, source, i))
            continue
        result = maybe_json(text_of(m.get("content")))
        keys = keys if isinstance(keys, list) and keys else [_POSITIONAL]
        for n, key in enumerate(keys):
            call = pairer.close(key if key == _POSITIONAL else str(key))
            if call is None:  # a result naming no call of the file
                eid = f"m{i}" if len(keys) == 1 else f"m{i}-{n}"
                call = RawEvent(trace_id=tid, event_id=eid, parent_id=None,
                                kind="tool_call", name="")
                if key != _POSITIONAL:
                    call.attrs["gen_ai.tool.call.id"] = key
                add_flag(call, UNMATCHED)
                events.append(call)
            call.result = result
            call.status, call.error = tool_status(result)
            call.attrs.update(_msg_attrs(m))
    for _ in pairer.unanswered():
        pass  # flagged in place; their status stays unset
    return events


def dict_of(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def get(d: Any, *keys: str) -> Any:
    """``d[k1][k2]...``, or None where a level is missing or not an object."""
    for k in keys:
        if type(d) is not dict:
            return None
        d = d.get(k)
    return d


def trace_info(tid: str, doc: dict[str, Any], config: dict[str, Any], history: list[Any],
                model: str | None, source: SourceFile) -> TraceInfo:
    info = dict_of(doc.get("info"))
    task = get(config, "problem_statement", "text")
    if not isinstance(task, str) or not task.strip():
        task = None
        for m in history:
            if type(m) is dict and m.get("role") == "user" and not m.get("is_demo"):
                text = text_of(m.get("content"))
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
