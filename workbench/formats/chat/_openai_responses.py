"""The Responses API side of the ``openai`` adapter: output items and responses as events.

A Responses API conversation is a list of typed items rather than role messages:
``message``, ``reasoning``, ``function_call`` and its ``function_call_output`` (paired
by ``call_id``), and hosted tool calls (``web_search_call``, ``code_interpreter_call``
...) that arrive complete, with the status the API gave them. A response body is one
``llm_call`` whose ``output`` holds the items of the turn.
"""

from __future__ import annotations

from typing import Any

from .._adapter import RawEvent
from .._decode import maybe_json, parse_time_ns
from .._values import omit_media
from ._conversations import Conversation

__all__ = ["open_turn", "read_item", "read_output"]

_RESP_USED = frozenset({"id", "object", "model", "output", "usage", "created_at", "status",
                        "completed_at", "error", "tools", "instructions"})
_ITEM_STATUS = {"completed": "ok", "failed": "error", "incomplete": "error"}


def open_turn(conv: Conversation) -> RawEvent:
    """The assistant turn loose items attach to: the open one, else a new ``llm_call``
    (consecutive assistant-side items of an input list are one turn)."""
    if conv.turn is None:
        conv.turn = conv.add("llm_call", "assistant", conv.unique(None, conv.next_id()),
                             status="ok", result={"messages": []})
    return conv.turn


def read_item(conv: Conversation, m: dict[str, Any], parent: str) -> None:
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


def read_output(conv: Conversation, r: dict[str, Any], name: str, attrs: dict[str, Any]) -> None:
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
            read_item(conv, item, turn.event_id)
