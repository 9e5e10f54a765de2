"""Gemini CLI records to events: session messages (``ChatRecordingService``) and
``Content`` histories (checkpoints).

A session message is ``{id, timestamp, type, content, …}``: ``user`` → ``message``;
``gemini`` → ``llm_call`` (``model``, ``tokens``, ``thoughts``) with its ``toolCalls``
(each complete: ``args``, ``result`` as ``functionResponse`` parts, ``status``) as
``tool_call`` children; ``info`` / ``warning`` → ``message``; ``error`` → ``error``.

A ``Content`` is ``{role: user|model, parts: [...]}``: a model content is an
``llm_call``, its ``functionCall`` parts ``tool_call`` children, answered by the
``functionResponse`` parts of a later user content — by ``id`` when both have one, else
by position among the calls of the same name; the user's text parts are a ``message``.
"""

from __future__ import annotations

from typing import Any

from ..._adapter import RawEvent
from ..._decode import parse_time_ns
from ..._values import obj, text_of
from .._transcript import Transcript

__all__ = ["read_contents", "read_message"]

_TOOL_STATUS = {"success": "ok", "error": "error", "cancelled": "error"}


def _response_of(result: Any) -> Any:
    """What a tool call returned: the ``response`` of its ``functionResponse`` part (the
    parts as they are when they are several, or not such a part)."""
    parts = result if isinstance(result, list) else [result]
    responses = [obj(p).get("functionResponse") for p in parts]
    if len(parts) == 1 and isinstance(responses[0], dict):
        return responses[0].get("response")
    return result


#: a user message Gemini CLI writes itself (the session's context), not the user's prompt
_CONTEXT = "<session_context"


def _task(t: Transcript, text: str | None) -> None:
    if t.info.root_task is None and text and not text.lstrip().startswith(_CONTEXT):
        t.info.root_task = text


def read_message(t: Transcript, m: dict[str, Any], where: str, rewound: bool) -> None:
    """One session message (and its tool calls), appended to ``t``."""
    typ = str(m.get("type"))
    ts = parse_time_ns(m.get("timestamp"))
    content = m.get("content")
    extra = {f"gemini_cli.{k}": v for k, v in m.items()
             if k not in ("id", "timestamp", "type", "content", "toolCalls", "tokens",
                          "model") and v is not None}
    if rewound:
        extra["gemini_cli.rewound"] = True
    if typ == "gemini":
        _model_turn(t, m, where, ts, extra)
        return
    if typ == "error":
        t.add("error", "error", m.get("id"), where, start_ns=ts, end_ns=ts, status="error",
              error={"message": text_of(content) or str(content)}, attrs=extra)
        return
    if typ == "user" and (text_of(content) or "").lstrip().startswith(_CONTEXT):
        extra["gemini_cli.context"] = True
    t.add("message", typ, m.get("id"), where, start_ns=ts, end_ns=ts,
          result={"role": typ, "content": content}, attrs=extra)
    if typ == "user" and not rewound:
        _task(t, text_of(content))


def _model_turn(t: Transcript, m: dict[str, Any], where: str, ts: int | None,
                extra: dict[str, Any]) -> None:
    model = m.get("model") if isinstance(m.get("model"), str) and m.get("model") else None
    attrs = dict(extra)
    if model:
        attrs["gen_ai.request.model"] = attrs["gen_ai.response.model"] = model
        t.info.versions.setdefault("model", model)
    tokens = m.get("tokens")
    if isinstance(tokens, dict):
        attrs["gemini_cli.tokens"] = tokens
        for src, key in (("input", "input_tokens"), ("output", "output_tokens")):
            if isinstance(tokens.get(src), int):
                attrs[f"gen_ai.usage.{key}"] = tokens[src]
    turn = t.add("llm_call", model or "gemini", m.get("id"), where, start_ns=ts, end_ns=ts,
                 status="ok", attrs=attrs,
                 result={"messages": [{"role": "model", "content": m.get("content")}]})
    calls = m.get("toolCalls")
    for k, call in enumerate(calls if isinstance(calls, list) else [], 1):
        if type(call) is dict:
            _tool_call(t, call, turn, f"{where}-tool{k}", ts)
        else:
            t.skip("toolCall")  # not a tool call record: counted, not read


def _tool_call(t: Transcript, c: dict[str, Any], turn: RawEvent, where: str,
               ts: int | None) -> None:
    status = _TOOL_STATUS.get(str(c.get("status")), "unset")
    response = _response_of(c.get("result"))
    error = None
    if status == "error":
        said = obj(response).get("error") if isinstance(response, dict) else None
        error = {"message": str(said or c.get("resultDisplay") or c.get("status"))}
        if c.get("status") == "cancelled":
            error["code"] = "cancelled"
    attrs = {f"gemini_cli.{k}": v for k, v in c.items()
             if k not in ("id", "name", "args", "result", "status", "timestamp") and v is not None}
    attrs["gemini_cli.status"] = c.get("status")
    if isinstance(c.get("id"), str):
        attrs["gen_ai.tool.call.id"] = c["id"]
    ev = t.add("tool_call", str(c.get("name") or ""), c.get("id"), where,
               parent=turn.event_id, args=c.get("args"), result=response, status=status,
               error=error, start_ns=ts, end_ns=parse_time_ns(c.get("timestamp")), attrs=attrs)
    if status == "unset":
        t.pairer.open(("open", ev.event_id), ev)  # not finished when recorded: unanswered


def read_contents(t: Transcript, history: list[Any], where: str) -> list[RawEvent]:
    """A ``Content`` history appended to ``t``; the calls it leaves unanswered."""
    waiting: dict[str, list[RawEvent]] = {}  # open calls by name, in the order made
    for i, content in enumerate(history):
        here = f"{where}{i}"
        if type(content) is not dict:
            raise ValueError(f"{here} is not a Content object")
        role = str(content.get("role") or "user")
        parts = content.get("parts")
        parts = parts if isinstance(parts, list) else [] if parts is None else [parts]
        if role == "model":
            turn = t.add("llm_call", "gemini", None, here, status="ok",
                         result={"messages": [content]})
            for k, p in enumerate(parts, 1):
                call = obj(p).get("functionCall")
                if isinstance(call, dict):
                    name = str(call.get("name") or "")
                    cid = call.get("id")
                    ev = t.add("tool_call", name, cid, f"{here}-call{k}",
                               parent=turn.event_id, args=call.get("args"))
                    if isinstance(cid, str) and cid:
                        ev.attrs["gen_ai.tool.call.id"] = cid
                    waiting.setdefault(name, []).append(ev)
            continue
        responses = [obj(p).get("functionResponse") for p in parts]
        rest = [p for p in parts if not (isinstance(p, dict) and "functionResponse" in p)]
        if rest or not any(isinstance(r, dict) for r in responses):
            t.add("message", role, None, here, result={"role": role, "content": rest})
            if role == "user":
                _task(t, text_of(rest))
        for k, r in enumerate(responses, 1):
            if isinstance(r, dict):
                _answer(t, waiting, r, f"{here}-result{k}")
    return [ev for queue in waiting.values() for ev in queue]


def _answer(t: Transcript, waiting: dict[str, list[RawEvent]], r: dict[str, Any],
            where: str) -> None:
    """A ``functionResponse`` on its call: the open call of its name with its ``id``,
    else the oldest open call of its name; none: kept, flagged ``unmatched``."""
    name = str(r.get("name") or "")
    queue = waiting.get(name, [])
    rid = r.get("id")
    match = next((ev for ev in queue if isinstance(rid, str) and rid
                  and ev.attrs.get("gen_ai.tool.call.id") == rid), None)
    if match is None and queue and not (isinstance(rid, str) and rid and any(
            ev.attrs.get("gen_ai.tool.call.id") for ev in queue)):
        match = queue[0]
    if match is not None:
        queue.remove(match)
        ev = match
    else:
        ev = t.answer(("unmatched", rid if isinstance(rid, str) and rid else where), where)
        ev.name = name
    ev.result = r.get("response")
    said = obj(r.get("response")).get("error")
    ev.status, ev.error = ("error", {"message": str(said)}) if said else ("ok", None)
