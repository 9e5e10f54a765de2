"""Adapter ``openai``: OpenAI Chat Completions and Responses API bodies and message lists.

Reads Chat Completions requests ``{model, messages, tools}`` and responses ``{object:
"chat.completion", choices, usage}``; Responses API requests ``{model, input, tools}``
and responses ``{object: "response", output, status, error}``; error bodies
``{"error": {...}}``; ``{request, response}`` exchanges; bare message / item lists; a
list or JSONL of any of these; and streams (``chat.completion.chunk`` objects or
``response.*`` events, as JSON, JSONL or server-sent events), stitched back into the
response they stream. Assistant turns are ``llm_call`` events; each function call and
its output (paired by ``tool_call_id`` / ``call_id``) one ``tool_call``; hosted tool
calls (``web_search_call`` …) a ``tool_call`` with the status the API gave it
(Responses API items: ``_openai_responses``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from .._adapter import RawEvent, SourceFile, TraceInfo
from .._decode import parse_time_ns
from .._values import omit_media, text_of
from ._conversations import Conversation, read_conversations
from ._openai_responses import open_turn, read_item, read_output
from ._sniff import (
    classify_messages,
    openai_list_score,
    openai_opening,
    openai_score,
    sniff_items,
)
from ._stream import is_openai_event, stitch_openai

__all__ = ["OPENAI", "OpenAIAdapter"]

_CHAT_USED = frozenset({"id", "object", "model", "choices", "usage", "created"})
_REQUEST_USED = frozenset({"model", "messages", "input", "tools", "instructions"})


class OpenAIAdapter:
    """OpenAI Chat Completions / Responses API requests, responses and message lists."""

    name = "openai"
    # the message order is the recording order; only some turns have times, and
    # ordering by time would put every timed turn first
    file_order = True

    def sniff(self, source: SourceFile) -> int:
        return sniff_items(source, _DIALECT)

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        return read_conversations(source, _DIALECT)


OPENAI = OpenAIAdapter()


class _Dialect:
    name = "openai"
    is_event = staticmethod(is_openai_event)
    stitch = staticmethod(stitch_openai)
    list_score = staticmethod(openai_list_score)
    opening = staticmethod(openai_opening)

    def score(self, item: Any, single: bool) -> int:
        return openai_score(self, item, single)

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
        conv.offer(request.get("tools") or [])
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
            turn = open_turn(conv)
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
            turn = open_turn(conv)
            turn.result["messages"].append(omit_media(m))
            read_item(conv, m, turn.event_id)
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
            conv.offer(response["tools"])
        if not request and not conv.history and response.get("instructions"):
            conv.message("system", response["instructions"], **{"openai.field": "instructions"})
        if isinstance(response.get("output"), list):
            read_output(conv, response, name, attrs)
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


def _chat_calls(conv: Conversation, msg: dict[str, Any], parent: str) -> None:
    for tc in msg.get("tool_calls") or []:
        fn = tc.get("function") or tc.get("custom") or {}
        conv.call(tc.get("id"), fn.get("name"), fn.get("arguments", fn.get("input")), parent,
                  attrs={"openai.tool_type": tc["type"]} if tc.get("type") not in (
                      None, "function") else None)
    fc = msg.get("function_call")
    if isinstance(fc, dict):  # the legacy single function call, answered by role "function"
        conv.call(("function", fc.get("name")), fc.get("name"), fc.get("arguments"), parent)
