"""Adapter ``openai``: OpenAI Chat Completions and Responses API bodies and message lists.

Reads Chat Completions requests ``{model, messages, tools}`` and responses ``{object:
"chat.completion", choices, usage}``; Responses API requests ``{model, input, tools}``
and responses ``{object: "response", output, status, error}``; error bodies
``{"error": {...}}``; ``{request, response}`` exchanges; bare message / item lists; a
list or JSONL of any of these; and streams (``chat.completion.chunk`` objects or
``response.*`` events, as JSON, JSONL or server-sent events), stitched back into the
response they stream. Assistant turns are ``llm_call`` events; each function call and
its output (paired by ``tool_call_id`` / ``call_id``) one ``tool_call``; hosted tool
calls (``web_search_call`` …) a ``tool_call`` with the status the API gave it.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from typing import Any

from ._chatmsgs import (
    Conversation,
    classify_messages,
    load_items,
    omit_media,
    read_conversations,
    sniff_items,
    stitch_chat,
    stitch_items,
    stitch_responses,
    text_of,
)
from ._decode import maybe_json, parse_time_ns
from ._source import RawEvent, SourceFile, TraceInfo

__all__ = ["OPENAI", "OpenAIAdapter"]

_CHAT_USED = frozenset({"id", "object", "model", "choices", "usage", "created"})
_RESP_USED = frozenset({"id", "object", "model", "output", "usage", "created_at", "status",
                        "completed_at", "error", "tools", "instructions"})
_REQUEST_USED = frozenset({"model", "messages", "input", "tools", "instructions"})
_RESPONSES_KEYS = frozenset({
    "instructions", "previous_response_id", "reasoning", "text", "max_output_tokens", "include",
    "truncation", "conversation", "background", "store", "tools", "tool_choice"})
_ITEM_STATUS = {"completed": "ok", "failed": "error", "incomplete": "error"}
_OPENING = re.compile(rb'^\s*[\[{]\s*(\{\s*)?"(model|messages|input|role|content|request|'
                      rb'response|id|object|type|tools|instructions)"')
_MARKS = re.compile(rb'"object"\s*:\s*"(chat\.completion|response)|"tool_calls"\s*:|'
                    rb'"tool_call_id"\s*:|"call_id"\s*:|"model"\s*:\s*"(gpt-|o[1-9]|chatgpt)')


class OpenAIAdapter:
    """OpenAI Chat Completions / Responses API requests, responses and message lists."""

    name = "openai"
    # the message order is the recording order; only some turns have times, and
    # ordering by time would put every timed turn first
    file_order = True

    def sniff(self, source: SourceFile) -> int:
        return sniff_items(source, _DIALECT, _is_stream, _stitch, _score, _list_score, _opening)

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        return read_conversations(
            source, stitch_items(load_items(source), source, _is_stream, _stitch), _DIALECT)


OPENAI = OpenAIAdapter()


def _opening(head: bytes) -> int:
    """A file too large for its head to parse, judged by how it starts and what it names."""
    return 40 if _OPENING.match(head) and _MARKS.search(head) else 0


def _list_score(messages: list[Any]) -> int:
    return {"openai": 85, "either": 60}.get(classify_messages(messages) or "", 0)


def _is_stream(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    t = str(item.get("type", ""))
    return item.get("object") == "chat.completion.chunk" or (
        (t.startswith("response.") or t == "error") and "sequence_number" in item)


def _score(item: Any, single: bool) -> int:
    if isinstance(item, list):  # server-sent events
        return 90 if item and _is_stream(item[0]) else 0
    if _is_stream(item):
        return 90
    kind = _DIALECT.kind(item)
    if kind == "exchange":
        # as sure as its surer part, unless the other part is not ours at all
        parts = [_score(item[k], False) for k in ("request", "response") if item.get(k)]
        return max(parts) if parts and min(parts) > 0 else 0
    if kind == "response":
        return 95 if item.get("object") in ("chat.completion", "response") else 60
    if kind == "request":
        msgs = item.get("messages", item.get("input"))
        found = "either" if isinstance(msgs, str) else classify_messages(msgs)
        tools = item.get("tools")
        if found == "either" and isinstance(tools, list) and tools and isinstance(
                tools[0], dict) and tools[0].get("type") == "function":
            found = "openai"
        score = {"openai": 90, "either": 60}.get(found or "", 0)
        # {model, input: [...]} is the Responses API's own shape; {model, input: "text"} only
        # with a Responses parameter (the embeddings API takes the same two keys)
        if score and "messages" not in item and "model" in item and (
                isinstance(msgs, list) or _RESPONSES_KEYS & item.keys()):
            return max(score, 85)
        return score
    if kind == "message":
        return 30 if single and classify_messages([item]) in ("openai", "either") else 0
    return 0


def _stitch(events: list[Any]) -> dict[str, Any]:
    first = next((e for e in events if isinstance(e, dict)), {})
    return stitch_chat(events) if first.get("object") == "chat.completion.chunk" \
        else stitch_responses(events)


class _Dialect:
    name = "openai"

    def kind(self, item: Any) -> str | None:
        if not isinstance(item, dict):
            return None
        if ("request" in item or "response" in item) and "role" not in item and "type" \
                not in item and all(isinstance(item.get(k), dict | None)
                                    for k in ("request", "response")):
            return "exchange"
        if item.get("object") in ("chat.completion", "response") \
                or isinstance(item.get("choices"), list) \
                or (set(item) == {"error"} and isinstance(item["error"], dict)):
            return "response"
        if isinstance(item.get("messages"), list) or ("input" in item and "type" not in item \
                and ("model" in item or isinstance(item["input"], list))):
            return "request"
        if classify_messages([item]) in ("openai", "either"):
            return "message"
        return None

    def history(self, request: dict[str, Any]) -> list[Any]:
        msgs = request.get("messages", request.get("input"))
        return [{"role": "user", "content": msgs}] if isinstance(msgs, str) else list(msgs or [])

    def fingerprint(self, m: Any) -> Hashable:
        if not isinstance(m, dict):
            return repr(m)
        t = m.get("type") or "message"
        content = m.get("content", m.get("output", m.get("summary")))
        calls = tuple(c.get("id") for c in m.get("tool_calls") or [] if isinstance(c, dict))
        key = m.get("call_id") or m.get("tool_call_id") or (m.get("id") if t != "message"
                                                            else None)
        return t, m.get("role"), text_of(content) or "", key, calls

    def response_messages(self, response: dict[str, Any]) -> list[Any]:
        if isinstance(response.get("output"), list):
            return list(response["output"])
        choices = response.get("choices") or []
        return [choices[0]["message"]] if choices else []

    def read_request(self, conv: Conversation, request: dict[str, Any], skip: int) -> None:
        conv.model(request.get("model"))
        for tool in request.get("tools") or []:
            if tool not in conv.tools:
                conv.tools.append(tool)
        if not conv.history and request.get("instructions"):
            conv.message("system", request["instructions"], **{"openai.field": "instructions"})
        for msg in self.history(request)[skip:]:
            self.read_message(conv, msg)

    def read_message(self, conv: Conversation, m: Any) -> None:
        if not isinstance(m, dict):
            raise ValueError("a message is not an object")
        t, role = m.get("type") or "message", m.get("role")
        if t == "message" and role == "assistant":
            if conv.turn is None or any(i.get("role") == "assistant"
                                        for i in conv.turn.result["messages"]):
                conv.turn = None
            turn = _turn(conv)
            turn.result["messages"].append(omit_media(m))
            _chat_calls(conv, m, turn.event_id)
            return
        if t == "message":
            conv.turn = None
            if role == "tool":
                conv.answer(m.get("tool_call_id"), m.get("content"))
            elif role == "function":
                conv.answer(("function", m.get("name")), m.get("content"), name=m.get("name"))
            elif isinstance(role, str):
                conv.message(role, m.get("content"))
            else:
                raise ValueError("a message has no role")
        elif t.endswith("_output"):
            conv.turn = None
            conv.answer(m.get("call_id"), m.get("output"), is_error=m.get("status") == "failed",
                        attrs={"openai.item_id": m["id"]} if m.get("id") else None)
        elif t.endswith("_call") or t in ("reasoning", "mcp_list_tools", "mcp_approval_request"):
            turn = _turn(conv)
            turn.result["messages"].append(omit_media(m))
            _item(conv, m, turn.event_id)
        else:
            conv.add("other", t, conv.unique(m.get("id"), conv.next_id()), result=m)

    def read_response(self, conv: Conversation, response: dict[str, Any],
                      request: dict[str, Any] | None) -> None:
        req = request or {}
        asked = req.get("model")
        attrs: dict[str, Any] = {"gen_ai.request.model": asked}
        params = {k: v for k, v in req.items() if k not in _REQUEST_USED}
        if params:
            attrs["openai.request"] = params
        model = response.get("model")
        conv.model(model)
        attrs["gen_ai.response.model"] = model
        attrs["gen_ai.response.id"] = response.get("id")
        usage = response.get("usage")
        if isinstance(usage, dict):
            attrs["gen_ai.usage.input_tokens"] = usage.get("input_tokens",
                                                           usage.get("prompt_tokens"))
            attrs["gen_ai.usage.output_tokens"] = usage.get("output_tokens",
                                                            usage.get("completion_tokens"))
            attrs["openai.usage"] = usage
        name = str(model or asked or "assistant")
        err = response.get("error")
        if isinstance(err, dict) and not isinstance(response.get("output"), list):
            error = {"code": str(err.get("code") or err.get("type") or "error"),
                     "message": str(err.get("message"))}
            extra = {k: err[k] for k in ("type", "param") if err.get(k) is not None}
            conv.add("llm_call", name, conv.unique(None, conv.next_id()), status="error",
                     error={**error, "details": extra} if extra else error, result=response,
                     attrs={k: v for k, v in attrs.items() if v is not None})
            return
        if not request and isinstance(response.get("tools"), list):
            conv.tools.extend(t for t in response["tools"] if t not in conv.tools)
        if not request and not conv.history and response.get("instructions"):
            conv.message("system", response["instructions"], **{"openai.field": "instructions"})
        if isinstance(response.get("output"), list):
            _response(conv, response, name, attrs)
            return
        choices = response.get("choices")
        if not isinstance(choices, list):
            raise ValueError("the response is not a chat.completion, a Responses API response "
                             "or an error body")
        attrs.update({f"openai.{k}": v for k, v in response.items() if k not in _CHAT_USED})
        for ch in choices:
            one = len(choices) == 1
            eid = response.get("id") if one else f"{response.get('id')}-{ch.get('index')}"
            msg = ch.get("message") or {}
            turn = conv.add("llm_call", name, conv.unique(eid, conv.next_id()), status="ok",
                            start_ns=parse_time_ns(response.get("created")),
                            result=omit_media({"messages": [msg],
                                               "finish_reasons": [ch.get("finish_reason")]}),
                            attrs={k: v for k, v in attrs.items() if v is not None})
            _chat_calls(conv, msg, turn.event_id)


_DIALECT = _Dialect()


def _turn(conv: Conversation) -> RawEvent:
    if conv.turn is None:
        conv.turn = conv.add("llm_call", "assistant", conv.unique(None, conv.next_id()),
                             status="ok", result={"messages": []})
    return conv.turn


def _chat_calls(conv: Conversation, msg: dict[str, Any], parent: str) -> None:
    for tc in msg.get("tool_calls") or []:
        fn = tc.get("function") or tc.get("custom") or {}
        conv.call(tc.get("id"), fn.get("name"), fn.get("arguments", fn.get("input")), parent,
                  attrs={"openai.tool_type": tc["type"]} if tc.get("type") not in (
                      None, "function") else None)
    fc = msg.get("function_call")
    if isinstance(fc, dict):  # the legacy single function call, answered by role "function"
        conv.call(("function", fc.get("name")), fc.get("name"), fc.get("arguments"), parent)


def _item(conv: Conversation, m: dict[str, Any], parent: str) -> None:
    """An assistant-side Responses item: function calls wait for their output; hosted tool
    calls are complete as they are."""
    t = str(m.get("type"))
    if not t.endswith("_call"):
        return
    attrs = {f"openai.item_{k}": m[k] for k in ("id", "status") if m.get(k) is not None}
    if t != "function_call":
        attrs["openai.item_type"] = t
    args = next((m[k] for k in ("arguments", "input", "action", "queries", "code")
                 if m.get(k) is not None), None)
    name = m.get("name") or t.removesuffix("_call")
    if m.get("call_id"):
        conv.call(m["call_id"], name, args, parent, attrs=attrs)
        return
    status = _ITEM_STATUS.get(str(m.get("status")), "unset")
    conv.add("tool_call", name, conv.unique(m.get("id"), f"call-{len(conv.events)}"),
             parent=parent, args=maybe_json(args), status=status, attrs=attrs,
             result=omit_media(next((m[k] for k in ("output", "results", "outputs", "result")
                                     if k in m), None)) if t != "image_generation_call"
             else omit_media(m).get("result"),
             error={"message": str(m.get("error") or f"{t} {m.get('status')}")}
             if status == "error" else None)


def _response(conv: Conversation, r: dict[str, Any], name: str, attrs: dict[str, Any]) -> None:
    """A Responses API response: its llm_call, then the tool calls among its output."""
    attrs.update({f"openai.{k}": v for k, v in r.items() if k not in _RESP_USED})
    attrs["openai.status"] = r.get("status")
    status = {"completed": "ok", "incomplete": "ok", "failed": "error"}.get(
        str(r.get("status")), "unset")
    result: dict[str, Any] = {"messages": omit_media(r["output"])}
    details = r.get("incomplete_details")
    if isinstance(details, dict) and details.get("reason"):
        result["finish_reasons"] = [details["reason"]]
    err = r.get("error")
    error = {"code": str(err.get("code") or "error"), "message": str(err.get("message"))} \
        if isinstance(err, dict) else None
    turn = conv.add("llm_call", name, conv.unique(r.get("id"), conv.next_id()),
                    status="error" if error else status, error=error,
                    start_ns=parse_time_ns(r.get("created_at")),
                    end_ns=parse_time_ns(r.get("completed_at")), result=result,
                    attrs={k: v for k, v in attrs.items() if v is not None})
    for item in r["output"]:
        if isinstance(item, dict):
            _item(conv, item, turn.event_id)
