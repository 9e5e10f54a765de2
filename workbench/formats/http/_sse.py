"""Server-sent event streams in recorded HTTP bodies: the events, and the final object
an OpenAI stream adds up to.

A ``text/event-stream`` body becomes ``{"events": [...], "stitched": {...}}``: each
event keeps its ``event``, ``id`` and ``retry`` fields and its ``data`` (the ``data:``
lines joined by newlines, JSON decoded when it is JSON). ``stitched`` is present only
for streams whose pieces add up to one object:

- OpenAI Chat Completions ``chat.completion.chunk`` streams: the ``chat.completion``
  the non-streaming call would have returned (content, refusal and tool-call arguments
  concatenated per choice and tool-call index; the last finish reason and usage);
- OpenAI Responses ``response.*`` streams: the ``response`` object of the terminal
  ``response.completed`` / ``response.failed`` / ``response.incomplete`` event.
"""

from __future__ import annotations

import re
from typing import Any

from .._decode import maybe_json

__all__ = ["parse_sse", "stitch"]

_LINES = re.compile(r"\r\n|\r|\n")  # not str.splitlines: JSON may hold U+2028
_TERMINAL = ("response.completed", "response.failed", "response.incomplete")


def parse_sse(text: str) -> dict[str, Any]:
    """The events of an event-stream body, and the stitched object when there is one."""
    events: list[dict[str, Any]] = []
    fields: dict[str, Any] = {}
    data: list[str] = []

    def flush() -> None:
        if data or fields:
            ev = dict(fields)
            if data:
                ev["data"] = maybe_json("\n".join(data))
            events.append(ev)
        fields.clear()
        data.clear()

    for line in _LINES.split(text):
        if not line:
            flush()
            continue
        if line.startswith(":"):
            continue  # a comment (keep-alive)
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name in ("event", "id"):
            fields[name] = value
        elif name == "retry" and value.isdigit():
            fields["retry"] = int(value)
    flush()
    body: dict[str, Any] = {"events": events}
    final = stitch([e.get("data") for e in events])
    if final is not None:
        body["stitched"] = final
    return body


def stitch(items: list[Any]) -> dict[str, Any] | None:
    """The object an OpenAI stream adds up to, or None for other streams."""
    chunks = [d for d in items if type(d) is dict]
    if not chunks:
        return None
    try:
        if any(d.get("object") == "chat.completion.chunk" for d in chunks):
            return _chat([d for d in chunks if d.get("object") == "chat.completion.chunk"])
        for d in reversed(chunks):
            if d.get("type") in _TERMINAL and type(d.get("response")) is dict:
                final: dict[str, Any] = d["response"]
                return final
    except (TypeError, ValueError, AttributeError, KeyError):
        return None  # an odd stream is kept as its events only
    return None


def _index(v: Any) -> int:
    return v if type(v) is int else 0


def _obj(v: Any) -> dict[str, Any]:
    return v if type(v) is dict else {}


def _chat(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    first = chunks[0]
    out: dict[str, Any] = {"id": first.get("id"), "object": "chat.completion",
                           "created": first.get("created"), "model": first.get("model")}
    choices: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    for chunk in chunks:
        if chunk.get("system_fingerprint"):
            out["system_fingerprint"] = chunk["system_fingerprint"]
        if type(chunk.get("usage")) is dict:
            out["usage"] = chunk["usage"]
        for ch in chunk.get("choices") or []:
            if type(ch) is not dict:
                continue
            idx = _index(ch.get("index"))
            choice = choices.setdefault(idx, {
                "index": idx, "message": {"role": "assistant", "content": None},
                "finish_reason": None})
            _add_delta(choice["message"], _obj(ch.get("delta")), calls.setdefault(idx, {}))
            if ch.get("finish_reason") is not None:
                choice["finish_reason"] = ch["finish_reason"]
    for idx, choice in choices.items():
        if calls.get(idx):
            choice["message"]["tool_calls"] = [calls[idx][k] for k in sorted(calls[idx])]
    out["choices"] = [choices[k] for k in sorted(choices)]
    return out


def _add_delta(message: dict[str, Any], delta: dict[str, Any],
               calls: dict[int, dict[str, Any]]) -> None:
    if isinstance(delta.get("role"), str):
        message["role"] = delta["role"]
    for key in ("content", "refusal"):
        if isinstance(delta.get(key), str):
            message[key] = (message.get(key) or "") + delta[key]
    for tc in delta.get("tool_calls") or []:
        if type(tc) is not dict:
            continue
        slot = calls.setdefault(_index(tc.get("index")), {
            "id": None, "type": "function", "function": {"name": "", "arguments": ""}})
        if tc.get("id"):
            slot["id"] = tc["id"]
        if isinstance(tc.get("type"), str):
            slot["type"] = tc["type"]
        fn = _obj(tc.get("function"))
        for key in ("name", "arguments"):
            if isinstance(fn.get(key), str):
                slot["function"][key] += fn[key]
