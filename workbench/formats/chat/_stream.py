"""Reading model API bodies out of a file, and stitching streamed responses together.

Shared by the ``anthropic`` and ``openai`` adapters. A file holds a JSON document (one
body or a list of them), JSONL, or a server-sent-event stream; ``load_items`` returns its
top-level values. A streamed response arrives as a run of event objects (Anthropic
``message_start`` ... ``message_stop``, OpenAI ``chat.completion.chunk`` or ``response.*``
events); ``stitch_items`` merges each run back into the response it streams, so the
rest of the reading sees the same bodies as for a response saved whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...model import InvalidJSONError, JSONDecodeError, loads
from .._adapter import SourceFile, malformed
from .._decode import iter_json_lines, load_document

__all__ = ["is_anthropic_event", "is_openai_event", "is_sse", "load_items", "parse_sse",
           "stitch_anthropic", "stitch_items", "stitch_openai"]

_ANTHROPIC_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta",
                               "content_block_stop", "message_delta", "message_stop", "ping"})


def _is_jsonl(source: SourceFile) -> bool:
    """Several JSON values, one per line: the first non-blank line is a whole value and
    another non-blank line follows (lines may be longer than the head)."""
    with source.open() as f:
        lines = (line for line in f if line.strip())
        first = next(lines, None)
        if first is None:
            return False
        try:
            loads(first)
        except JSONDecodeError:
            return False
        return next(lines, None) is not None


def is_sse(head: bytes) -> bool:
    return head.lstrip().startswith((b"data:", b"event:"))


def parse_sse(text: str, source: SourceFile, first_line: int = 1) -> list[Any]:
    """The JSON payloads of server-sent events (``data:`` lines; ``[DONE]`` skipped)."""
    out: list[Any] = []
    for n, line in enumerate(text.splitlines(), first_line):
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if not data or data == "[DONE]":
            continue
        try:
            out.append(loads(data))
        except JSONDecodeError as exc:
            raise InvalidJSONError(f"{source.display}: invalid JSON in the event at line {n}: "
                                   f"{getattr(exc, 'msg', exc)}", file=source.display,
                                   line=n) from None
    return out


def load_items(source: SourceFile) -> list[Any]:
    """The file's top-level values: a JSON array's items, a document, JSONL lines, or the
    payloads of a server-sent-event stream (kept together as one list item)."""
    if is_sse(source.head):
        raw = source.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            load_document(source)  # raises the INVALID_ENCODING error naming the line
            raise
        return [parse_sse(text, source)]
    if _is_jsonl(source):
        return [v for _, v in iter_json_lines(source)]
    doc = load_document(source)
    return doc if isinstance(doc, list) else [doc]


# --- streams --------------------------------------------------------------------------

def stitch_items(items: list[Any], source: SourceFile, is_event: Callable[[Any], bool],
                 stitch: Callable[[list[Any]], dict[str, Any]]) -> list[Any]:
    """Streamed responses (a run of event objects, the list of an SSE stream, or the
    ``response`` of an exchange given as either or as SSE text) become the response
    they stream; every other item stays as it is."""
    def stitched(events: list[Any]) -> dict[str, Any]:
        with malformed(source, "a streamed response"):
            return stitch(events)

    out: list[Any] = []
    run: list[Any] = []
    for it in [*items, None]:
        if is_event(it):
            run.append(it)
            continue
        if run:
            out.append(stitched(run))
            run = []
        if isinstance(it, list):
            it = stitched(it)
        elif isinstance(it, dict) and isinstance(it.get("response"), list | str):
            resp = it["response"]
            it = {**it, "response": stitched(parse_sse(resp, source) if isinstance(resp, str)
                                             else resp)}
        if it is not None:
            out.append(it)
    return out


def _stitch_chat(chunks: list[Any]) -> dict[str, Any]:
    """``chat.completion.chunk`` objects merged into the ``chat.completion`` they stream."""
    out: dict[str, Any] = {}
    choices: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    for c in chunks:
        if not isinstance(c, dict):
            continue
        for k, v in c.items():
            if k not in ("choices", "object") and v is not None:
                out[k] = out.get(k, v) if k != "usage" else v
        for ch in c.get("choices") or []:
            i = ch.get("index", 0)
            st = choices.setdefault(i, {"index": i, "message": {"role": "assistant"},
                                        "finish_reason": None})
            d, msg = ch.get("delta") or {}, st["message"]
            for k, v in d.items():
                if k == "tool_calls":
                    for tc in v or []:
                        call = calls.setdefault(i, {}).setdefault(tc.get("index", 0), {
                            "id": None, "type": "function",
                            "function": {"name": "", "arguments": ""}})
                        call.update({k2: tc[k2] for k2 in ("id", "type") if tc.get(k2)})
                        for k2, part in (tc.get("function") or {}).items():
                            if isinstance(part, str):
                                call["function"][k2] = call["function"].get(k2, "") + part
                elif isinstance(v, str) and k != "role":
                    msg[k] = (msg.get(k) or "") + v
                elif v is not None:
                    msg[k] = v
            if ch.get("finish_reason"):
                st["finish_reason"] = ch["finish_reason"]
    for i, st in choices.items():
        st["message"].setdefault("content", None)
        if calls.get(i):
            st["message"]["tool_calls"] = [calls[i][j] for j in sorted(calls[i])]
    return {**out, "object": "chat.completion", "streamed": True,
            "choices": [choices[i] for i in sorted(choices)]}


def _stitch_responses(events: list[Any]) -> dict[str, Any]:
    """``response.*`` events merged into the Responses API response they stream: the last
    response snapshot, with the finished output items when the snapshot has none."""
    resp: dict[str, Any] = {}
    items: dict[int, Any] = {}
    for e in events:
        if not isinstance(e, dict):
            continue
        if isinstance(e.get("response"), dict):
            resp = dict(e["response"])
        elif e.get("type") == "response.output_item.done" and isinstance(e.get("item"), dict):
            items[e.get("output_index", len(items))] = e["item"]
        elif e.get("type") == "error":
            resp.setdefault("status", "failed")
            resp["error"] = {k: v for k, v in e.items() if k not in ("type", "sequence_number")}
    if not resp.get("output"):
        resp["output"] = [items[i] for i in sorted(items)]
    return {**resp, "object": "response", "streamed": True}


def is_openai_event(item: Any) -> bool:
    """A ``chat.completion.chunk`` or an event of a Responses API stream."""
    if not isinstance(item, dict):
        return False
    t = str(item.get("type", ""))
    return item.get("object") == "chat.completion.chunk" or (
        (t.startswith("response.") or t == "error") and "sequence_number" in item)


def stitch_openai(events: list[Any]) -> dict[str, Any]:
    """Chat Completions chunks or Responses API events merged into their response."""
    first = next((e for e in events if isinstance(e, dict)), {})
    return _stitch_chat(events) if first.get("object") == "chat.completion.chunk" \
        else _stitch_responses(events)


def is_anthropic_event(item: Any) -> bool:
    """An event of an Anthropic Messages stream."""
    return isinstance(item, dict) and isinstance(item.get("type"), str) \
        and item["type"] in _ANTHROPIC_EVENTS


def stitch_anthropic(events: list[Any]) -> dict[str, Any]:
    """``message_start`` ... ``message_stop`` events merged into the message they stream
    (an ``error`` event: the error body)."""
    msg: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for ev in events:
        if not isinstance(ev, dict):
            continue
        t, i = ev.get("type"), ev.get("index")
        if t == "error":
            return {"type": "error", "error": ev.get("error")}
        if t == "message_start" and isinstance(ev.get("message"), dict):
            msg = dict(ev["message"])
        elif t == "content_block_start" and isinstance(i, int):
            blocks[i] = dict(ev.get("content_block") or {})
        elif t == "content_block_delta" and isinstance(i, int):
            d, b = ev.get("delta") or {}, blocks.setdefault(i, {})
            for key in ("text", "thinking"):
                if isinstance(d.get(key), str):
                    b[key] = b.get(key, "") + d[key]
            if isinstance(d.get("partial_json"), str):
                partial[i] = partial.get(i, "") + d["partial_json"]
            if "signature" in d:
                b["signature"] = d["signature"]
            if "citation" in d:
                b.setdefault("citations", []).append(d["citation"])
        elif t == "message_delta":
            msg.update(ev.get("delta") or {})
            if isinstance(ev.get("usage"), dict):
                msg["usage"] = {**(msg.get("usage") or {}), **ev["usage"]}
    for i, text in partial.items():
        try:
            blocks[i]["input"] = loads(text) if text.strip() else {}
        except JSONDecodeError:
            blocks[i]["input"] = text
    msg["content"] = [blocks[i] for i in sorted(blocks)]
    msg.setdefault("type", "message")
    msg.setdefault("role", "assistant")
    msg["streamed"] = True
    return msg
