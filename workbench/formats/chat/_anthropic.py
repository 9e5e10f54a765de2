"""Adapter ``anthropic``: Anthropic Messages API bodies and message lists.

Reads a request body ``{model, system, messages, tools}``, a response body ``{id,
type: "message", role: "assistant", content, stop_reason, usage}`` (or its streamed
events, stitched back into one), an error body, a ``{request, response}`` exchange, a
bare list of messages, a list of any of these, and JSONL of any of these. An assistant
turn is an ``llm_call``; a user or system text turn a ``message``; each ``tool_use``
block and its ``tool_result`` (paired by id, in any order) one ``tool_call``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from .._adapter import RawEvent, SourceFile, TraceInfo
from .._values import omit_media
from ._conversations import Conversation, read_conversations
from ._sniff import anthropic_list_score, anthropic_opening, anthropic_score, sniff_items
from ._stream import is_anthropic_event, stitch_anthropic

__all__ = ["ANTHROPIC", "AnthropicAdapter"]

_RETRYABLE = {"overloaded_error": True, "rate_limit_error": True, "api_error": True,
              "timeout_error": True, "invalid_request_error": False,
              "authentication_error": False, "permission_error": False,
              "not_found_error": False, "request_too_large": False, "billing_error": False}
_RESPONSE_USED = frozenset({"id", "type", "role", "content", "model", "usage", "stop_reason"})
_REQUEST_USED = frozenset({"model", "system", "messages", "tools"})


class AnthropicAdapter:
    """Anthropic Messages API requests, responses and message lists."""

    name = "anthropic"
    # the message order is the recording order; only some turns have times, and
    # ordering by time would put every timed turn first
    file_order = True

    def sniff(self, source: SourceFile) -> int:
        return sniff_items(source, _DIALECT)

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        return read_conversations(source, _DIALECT)


ANTHROPIC = AnthropicAdapter()


class _Dialect:
    name = "anthropic"
    is_event = staticmethod(is_anthropic_event)
    stitch = staticmethod(stitch_anthropic)
    list_score = staticmethod(anthropic_list_score)
    opening = staticmethod(anthropic_opening)

    def score(self, item: Any, single: bool) -> int:
        return anthropic_score(self, item, single)

    def kind(self, item: Any) -> str | None:
        if not isinstance(item, dict):
            return None
        if ("request" in item or "response" in item) and "role" not in item \
                and all(isinstance(item.get(k), dict | None) for k in ("request", "response")):
            return "exchange"
        if item.get("type") == "message" and "content" in item:
            return "response"
        if item.get("type") == "error" and isinstance(item.get("error"), dict):
            return "response"
        if isinstance(item.get("messages"), list):
            return "request"
        if item.get("role") in ("user", "assistant", "system") and "content" in item:
            return "message"
        return None

    def history(self, request: dict[str, Any]) -> list[Any]:
        return list(request["messages"])

    def fingerprint(self, message: Any) -> Hashable:
        if not isinstance(message, dict):
            return repr(message)
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        blocks = tuple((b.get("type"), b.get("text") or b.get("id") or b.get("tool_use_id"))
                       for b in content if isinstance(b, dict)) \
            if isinstance(content, list) else ()
        return message.get("role"), blocks

    def response_messages(self, response: dict[str, Any]) -> list[Any]:
        if response.get("type") != "message":
            return []
        return [{"role": "assistant", "content": response.get("content")}]

    def read_request(self, conv: Conversation, request: dict[str, Any], skip: int) -> None:
        conv.model(request.get("model"))
        conv.offer(request.get("tools") or [])
        if not conv.history and request.get("system"):
            conv.message("system", request["system"])
        for msg in request["messages"][skip:]:
            self.read_message(conv, msg)

    def read_message(self, conv: Conversation, message: Any) -> None:
        role = message.get("role") if isinstance(message, dict) else None
        if not isinstance(role, str):
            raise ValueError("a message has no role")
        if role == "assistant":
            _turn(conv, message.get("content"), "assistant")
        else:
            _user(conv, role, message.get("content"))

    def read_response(self, conv: Conversation, response: dict[str, Any],
                      request: dict[str, Any] | None) -> None:
        req = request or {}
        asked = req.get("model")
        attrs: dict[str, Any] = {"gen_ai.request.model": asked} if asked else {}
        params = {k: v for k, v in req.items() if k not in _REQUEST_USED}
        if params:
            attrs["anthropic.request"] = params
        if response.get("type") == "error":
            err = response["error"]
            error = {"code": err.get("type") or "error", "message": str(err.get("message"))}
            if isinstance(err.get("type"), str) and err["type"] in _RETRYABLE:
                error["retryable"] = _RETRYABLE[err["type"]]
            conv.add("llm_call", str(asked or "assistant"),
                     conv.unique(response.get("request_id"), conv.next_id()),
                     status="error", error=error, result=response,
                     attrs={**attrs, "anthropic.error_type": err.get("type")})
            return
        model = response.get("model")
        conv.model(model)
        usage = response.get("usage")
        attrs["gen_ai.response.model"] = model
        attrs["gen_ai.response.id"] = response.get("id")
        if isinstance(usage, dict):
            attrs["gen_ai.usage.input_tokens"] = usage.get("input_tokens")
            attrs["gen_ai.usage.output_tokens"] = usage.get("output_tokens")
            attrs["anthropic.usage"] = usage
        attrs["anthropic.stop_reason"] = response.get("stop_reason")
        attrs.update({f"anthropic.{k}": v for k, v in response.items()
                      if k not in _RESPONSE_USED})
        _turn(conv, response.get("content"), str(model or asked or "assistant"),
              eid=response.get("id"), finish=response.get("stop_reason"),
              attrs={k: v for k, v in attrs.items() if v is not None})


_DIALECT = _Dialect()


def _turn(conv: Conversation, content: Any, name: str, *, eid: Any = None,
          finish: Any = None, attrs: dict[str, Any] | None = None) -> None:
    """An assistant turn: its llm_call, then its tool calls (and server tool results)."""
    result: dict[str, Any] = {"messages": [{"role": "assistant", "content": content}]}
    if finish is not None:
        result["finish_reasons"] = [finish]
    turn = conv.add("llm_call", name, conv.unique(eid, conv.next_id()), status="ok",
                    result=omit_media(result), attrs=attrs or {})
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        t = str(b.get("type"))
        if t.endswith("tool_use"):
            extra = {"anthropic.block_type": t} if t != "tool_use" else {}
            if b.get("server_name"):
                extra["anthropic.server_name"] = b["server_name"]
            conv.call(b.get("id"), b.get("name"), b.get("input"), turn.event_id, attrs=extra)
        elif "tool_use_id" in b:
            _result(conv, b)


def _result(conv: Conversation, b: dict[str, Any]) -> None:
    content = b.get("content")
    failed = bool(b.get("is_error")) or (isinstance(content, dict) \
        and str(content.get("type", "")).endswith("_error"))
    conv.answer(b["tool_use_id"], content, is_error=failed)


def _user(conv: Conversation, role: str, content: Any) -> None:
    """A user (or system) turn: tool results complete their calls; the rest is a message."""
    if not isinstance(content, list):
        conv.message(role, content)
        return
    others: list[Any] = []
    at: int | None = None
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_result" and "tool_use_id" in b:
            _result(conv, b)
        else:
            if at is None:
                at = len(conv.events)
            others.append(b)
    if at is not None:
        conv.message(role, others if len(others) < len(content) else content)
        conv.events.insert(at, conv.events.pop())
