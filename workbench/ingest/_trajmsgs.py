"""OpenAI-style chat message lists as events, shared by ``tau-bench`` and ``inspect``.

A list of ``{role, content}`` messages: system / user turns become ``message`` events,
assistant turns ``llm_call`` events, and each entry of an assistant's ``tool_calls``
one ``tool_call`` event, completed by the ``role: tool`` message naming its id (paired
by position when an id is reused, as tau-bench does). Both tool-call shapes are read:
``{id, function: {name, arguments}}`` (OpenAI, tau-bench) and ``{id, function,
arguments}`` (Inspect AI).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..model import InvalidTraceError
from ._decode import maybe_json
from ._pairing import UNANSWERED, UNMATCHED, CallPairer, add_flag
from ._source import RawEvent

__all__ = ["ChatStyle", "chat_events", "tool_output"]

_MSG_USED = frozenset({"role", "content", "tool_calls", "tool_call_id", "id", "name",
                       "function", "error"})


class ChatStyle:
    """What differs between sources: the attrs prefix, the model name, whether a tool
    output starting ``Error:`` means the call failed (tau-bench's environment reports a
    raised exception that way)."""

    def __init__(self, ns: str, model: str | None = None, error_prefix: bool = False) -> None:
        self.ns = ns
        self.model = model
        self.error_prefix = error_prefix


def tool_output(content: Any) -> Any:
    """A tool result as the model holds it: JSON in a string decoded, a list holding one
    text block reduced to its text."""
    if isinstance(content, list) and len(content) == 1 and type(content[0]) is dict \
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str):
        content = content[0]["text"]
    return maybe_json(content)


def _call_parts(call: dict[str, Any]) -> tuple[str, Any]:
    fn = call.get("function")
    if type(fn) is dict:
        return str(fn.get("name") or ""), maybe_json(fn.get("arguments"))
    return str(fn or call.get("name") or ""), maybe_json(call.get("arguments"))


def _own_ids(messages: list[dict[str, Any]]) -> tuple[Counter[str], Counter[str]]:
    msg_ids: Counter[str] = Counter()
    call_ids: Counter[str] = Counter()
    for m in messages:
        if isinstance(m.get("id"), str) and m["id"]:
            msg_ids[m["id"]] += 1
        calls = m.get("tool_calls")
        for c in calls if isinstance(calls, list) else []:
            if type(c) is dict and isinstance(c.get("id"), str) and c["id"]:
                call_ids[c["id"]] += 1
    return msg_ids, call_ids


def _complete(ev: RawEvent, m: dict[str, Any], style: ChatStyle) -> None:
    ev.result = tool_output(m.get("content"))
    err = m.get("error")
    if type(err) is dict and (err.get("message") or err.get("type")):
        ev.status = "error"
        ev.error = {k: v for k, v in (("code", err.get("type")), ("message", err.get("message")))
                    if v is not None}
    elif err:
        ev.status, ev.error = "error", {"message": str(err)}
    elif style.error_prefix and isinstance(ev.result, str) and ev.result.startswith("Error:"):
        ev.status, ev.error = "error", {"message": ev.result[len("Error:"):].strip()}
    else:
        ev.status = "ok"


def chat_events(messages: list[Any], trace_id: str, style: ChatStyle, file: str,
                where: str) -> list[RawEvent]:
    """The events of one message list, in the order each first appears.

    ``file`` and ``where`` name the list in errors ("episode 3"). Tool calls never answered are
    flagged ``unanswered``; tool messages naming no call are kept, flagged ``unmatched``.
    """
    for i, m in enumerate(messages):
        if type(m) is not dict:
            raise InvalidTraceError(f"{file}: {where}: message {i} is not an object",
                                    file=file)
    msg_ids, call_ids = _own_ids(messages)
    used: set[str] = set()

    def ident(own: Any, counts: Counter[str], fallback: str) -> str:
        eid = own if isinstance(own, str) and own and counts[own] == 1 else fallback
        while eid in used:
            eid += "'"
        used.add(eid)
        return eid

    out: list[RawEvent] = []
    pairer = CallPairer()
    ns = style.ns
    for i, m in enumerate(messages):
        role = str(m.get("role") or "")
        extra = {f"{ns}.{k}": v for k, v in m.items() if k not in _MSG_USED and v is not None}
        if isinstance(m.get("id"), str):
            extra[f"{ns}.message_id"] = m["id"]
        if role == "tool":
            key = m.get("tool_call_id")
            ev = pairer.close(key) if isinstance(key, str) else None
            if ev is None:
                ev = RawEvent(trace_id, ident(m.get("id"), msg_ids, f"m{i}"), None,
                              "tool_call", str(m.get("name") or m.get("function") or ""))
                if key is not None:
                    ev.attrs[f"{ns}.tool_call_id"] = key
                add_flag(ev, UNMATCHED)
                out.append(ev)
            _complete(ev, m, style)
            ev.attrs.update(extra)
            continue
        eid = ident(m.get("id"), msg_ids, f"m{i}")
        if role != "assistant":
            out.append(RawEvent(trace_id, eid, None, "message", role or "message",
                                result={"role": m.get("role"), "content": m.get("content")},
                                attrs=extra))
            continue
        model = m.get("model") if isinstance(m.get("model"), str) else style.model
        llm = RawEvent(trace_id, eid, None, "llm_call", model or "assistant", status="ok",
                       result={"messages": [m]}, attrs=extra)
        if model:
            llm.attrs["gen_ai.response.model" if m.get("model") else "gen_ai.request.model"] \
                = model
        out.append(llm)
        calls = m.get("tool_calls")
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            if type(call) is not dict:
                raise InvalidTraceError(
                    f"{file}: {where}: message {i}: tool call {j} is not an object", file=file)
            name, args = _call_parts(call)
            cid = call.get("id")
            ev = RawEvent(trace_id, ident(cid, call_ids, f"m{i}.{j}"), eid, "tool_call",
                          name, args=args)
            if cid is not None:
                ev.attrs[f"{ns}.tool_call_id"] = cid
            if call.get("type") not in (None, "function"):
                ev.attrs[f"{ns}.tool_type"] = call["type"]
            out.append(ev)
            if isinstance(cid, str):
                pairer.open(cid, ev)
            else:
                add_flag(ev, UNANSWERED)
    for _ in pairer.unanswered():
        pass
    return out
