"""Shared by the ``anthropic`` and ``openai`` adapters: model API bodies and message lists.

Both formats arrive in the same shapes: a request body (the conversation so far), a
response body (the next assistant turn), a ``{request, response}`` exchange, a bare list
of messages, a list of any of these, JSONL of any of these, or server-sent events. This
module reads those shapes into items, groups the items into conversations (one trace
each) and builds each conversation's events. The adapters supply the per-format parts
through a ``Dialect``.

Grouping: only a request can start a conversation. A request whose messages begin with
everything the current conversation has seen (its history, compared by a fingerprint
per message), or that names one of its responses as ``previous_response_id``, continues
that conversation, and only its new messages become events; any other request starts a
new one. Responses and loose messages join the current conversation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Protocol

from ..model import InputError, InvalidJSONError, InvalidTraceError, JSONDecodeError, loads
from ._decode import iter_json_lines, load_document, maybe_json
from ._pairing import UNMATCHED, CallPairer, add_flag, derived_id
from ._source import RawEvent, SourceFile, TraceInfo

__all__ = ["RESPONSES_ITEMS", "Conversation", "Dialect", "classify_messages", "head_items",
           "load_items", "omit_media", "parse_sse", "read_conversations", "sniff_items",
           "stitch_chat", "stitch_items", "stitch_responses", "text_of", "tool_output"]

_MEDIA_MIN = 256  # base64 payloads shorter than this are kept as they are
_BARE_MIN = 1024  # a bare base64 string (no type, no data: prefix) must be this long
_MEDIA_KEYS = ("data", "b64_json", "result")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


class Conversation:
    """One trace being built: events in recording order, tool calls awaiting results."""

    def __init__(self, trace_id: str, fmt: str) -> None:
        self.trace_id = trace_id
        self.fmt = fmt
        self.events: list[RawEvent] = []
        self.ids: set[str] = set()
        self.pairer = CallPairer()
        self.history: list[Hashable] = []  # fingerprints of the messages read so far
        self.messages = 0  # messages read, for positional ids ("m3")
        self.task: str | None = None
        self.system: str | None = None
        self.tools: list[Any] = []
        self.models: list[str] = []
        self.turn: RawEvent | None = None  # the assistant turn items attach to (Responses)

    def next_id(self) -> str:
        n = self.messages
        self.messages += 1
        return f"m{n}"

    def unique(self, preferred: Any, fallback: str) -> str:
        base = preferred if isinstance(preferred, str) and preferred else fallback
        eid, n = base, 1
        while eid in self.ids:
            n += 1
            eid = f"{base}-{n}"
        self.ids.add(eid)
        return eid

    def add(self, kind: str, name: str, eid: str, **fields: Any) -> RawEvent:
        ev = RawEvent(trace_id=self.trace_id, event_id=eid, parent_id=fields.pop("parent", None),
                      kind=kind, name=name, **fields)
        self.events.append(ev)
        return ev

    def message(self, role: str, content: Any, **attrs: Any) -> RawEvent:
        """A user / system / developer turn."""
        text = text_of(content)
        if role == "user" and self.task is None and text:
            self.task = text
        if role in ("system", "developer") and self.system is None and text:
            self.system = text
        return self.add("message", role, self.unique(None, self.next_id()),
                        result={"role": role, "content": omit_media(content)},
                        attrs={k: v for k, v in attrs.items() if v is not None})

    def model(self, name: Any) -> None:
        if isinstance(name, str) and name and name not in self.models:
            self.models.append(name)

    def call(self, key: Any, name: Any, args: Any, parent: str | None, *,
             attrs: dict[str, Any] | None = None) -> RawEvent:
        """A tool call awaiting its result under ``key``."""
        ev = self.add("tool_call", str(name or ""), self.unique(key, f"call-{len(self.events)}"),
                      parent=parent, args=maybe_json(omit_media(args)), attrs=_call_id(key))
        ev.attrs.update(attrs or {})
        self.pairer.open(key if isinstance(key, Hashable) else repr(key), ev)
        return ev

    def answer(self, key: Any, output: Any, *, is_error: bool = False, name: Any = None,
               attrs: dict[str, Any] | None = None) -> RawEvent:
        """Complete the call open under ``key``, or keep the result flagged unmatched."""
        ev = self.pairer.close(key if isinstance(key, Hashable) else repr(key))
        if ev is None:
            ev = self.add("tool_call", str(name or ""),
                          self.unique(key, f"result-{len(self.events)}"), attrs=_call_id(key))
            add_flag(ev, UNMATCHED)
        ev.result = tool_output(output)
        if is_error:
            ev.status = "error"
            ev.error = {"message": text_of(output) or "the tool reported an error"}
        else:
            ev.status = "ok"
        ev.attrs.update(attrs or {})
        return ev

    def finish(self) -> tuple[list[RawEvent], TraceInfo]:
        list(self.pairer.unanswered())  # flags them; they stay where they were recorded
        versions: dict[str, Any] = {"provider": self.fmt}
        if self.models:
            versions["models"] = list(self.models)
        return self.events, TraceInfo(trace_id=self.trace_id, root_task=self.task or self.system,
                                      tools=list(self.tools), versions=versions)


def _call_id(key: Any) -> dict[str, Any]:
    return {"gen_ai.tool.call.id": key} if isinstance(key, str) and key else {}


class Dialect(Protocol):
    """What an adapter tells ``read_conversations`` about its format."""

    name: str

    def kind(self, item: Any) -> str | None:
        """``exchange``, ``request``, ``response``, ``message`` or None (not ours)."""
        ...

    def history(self, request: dict[str, Any]) -> list[Any]:
        """The messages a request carries, in order."""
        ...

    def fingerprint(self, message: Any) -> Hashable: ...

    def response_messages(self, response: dict[str, Any]) -> list[Any]:
        """The messages a response adds to the conversation (as the next request repeats
        them)."""
        ...

    def read_request(self, conv: Conversation, request: dict[str, Any], skip: int) -> None:
        """Events for the request's messages from ``skip`` on, and its trace metadata
        (its system prompt only when it starts the conversation: no history yet)."""
        ...

    def read_response(self, conv: Conversation, response: dict[str, Any],
                      request: dict[str, Any] | None) -> None: ...

    def read_message(self, conv: Conversation, message: Any) -> None: ...


def read_conversations(source: SourceFile, items: list[Any],
                       dialect: Dialect) -> Iterator[RawEvent | TraceInfo]:
    """Every conversation of ``items``: its events (after pairing), then its TraceInfo."""
    convs: list[Conversation] = []
    waiting: dict[str, Any] | None = None  # a request whose response has not come yet

    def new() -> Conversation:
        convs.append(Conversation(derived_id(source.sha256, len(convs)), dialect.name))
        return convs[-1]

    def request(req: dict[str, Any]) -> None:
        nonlocal waiting
        fps = [dialect.fingerprint(m) for m in dialect.history(req)]
        conv = convs[-1] if convs else None
        prev = req.get("previous_response_id")
        if conv is not None and isinstance(prev, str) and prev in conv.ids:
            skip = 0
        elif conv is not None and conv.history and fps[:len(conv.history)] == conv.history:
            skip = len(conv.history)
        else:
            conv, skip = new(), 0
        conv.turn = None
        dialect.read_request(conv, req, skip)
        conv.history.extend(fps[skip:])
        waiting = req

    def response(resp: dict[str, Any]) -> None:
        nonlocal waiting
        conv = convs[-1] if convs else new()
        dialect.read_response(conv, resp, waiting)
        conv.history.extend(dialect.fingerprint(m) for m in dialect.response_messages(resp))
        conv.turn = None
        waiting = None

    for n, item in enumerate(items, 1):
        try:
            kind = dialect.kind(item)
            if kind == "exchange":
                req, resp = item.get("request"), item.get("response")
                waiting = None
                if isinstance(req, dict):
                    request(req)
                if isinstance(resp, dict):
                    response(resp)
            elif kind == "request":
                request(item)
            elif kind == "response":
                response(item)
            elif kind == "message":
                dialect.read_message(convs[-1] if convs else new(), item)
                convs[-1].history.append(dialect.fingerprint(item))
            else:
                raise InvalidTraceError(
                    f"{source.display}: item {n} is not an {dialect.name} request, response "
                    "or message", file=source.display, item=n,
                    hint=f"expected {dialect.name} API bodies or message lists")
        except InputError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            raise InvalidTraceError(f"{source.display}: item {n} is malformed: {exc}",
                                    file=source.display, item=n) from None
    total = 0
    for conv in convs:
        events, info = conv.finish()
        total += len(events)
        yield from events
        yield info
    if total == 0:
        raise InvalidTraceError(f"{source.display}: no {dialect.name} messages in the file",
                                file=source.display,
                                hint="the file holds no request, response or message")


# --- reading the file ------------------------------------------------------------------

def _is_jsonl(source: SourceFile) -> bool:
    """Several JSON values, one per line: the first non-blank line is a whole value and
    another non-blank line follows (lines may be longer than the head)."""
    with open(source.path, "rb") as f:
        lines = (line for line in f if line.strip())
        first = next(lines, None)
        if first is None:
            return False
        try:
            loads(first)
        except JSONDecodeError:
            return False
        return next(lines, None) is not None


def _is_sse(head: bytes) -> bool:
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
    if _is_sse(source.head):
        raw = source.path.read_bytes()
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


def head_items(source: SourceFile) -> list[Any] | None:
    """The top-level values as far as the head shows them (for sniffing), or None."""
    head = source.head
    if _is_sse(head):
        text = head.decode("utf-8", "replace")
        try:
            return [parse_sse("\n".join(text.splitlines()[:-1] if source.size > len(head)
                                        else text.splitlines()), source)]
        except InputError:
            return None
    try:
        doc = loads(head) if source.size <= len(head) else None
    except JSONDecodeError:
        doc = None
    if doc is not None:
        return doc if isinstance(doc, list) else [doc]
    lines = head.splitlines()
    if source.size > len(head):
        lines = lines[:-1]  # may be cut
    out: list[Any] = []
    for line in lines:
        if line.strip():
            try:
                out.append(loads(line))
            except JSONDecodeError:
                return None
    return out if len(out) > 1 or (out and source.size > len(head)) else None


def sniff_items(source: SourceFile, dialect: Dialect, is_event: Callable[[Any], bool],
                stitch: Callable[[list[Any]], dict[str, Any]],
                score: Callable[[Any, bool], int], list_score: Callable[[list[Any]], int],
                fallback: Callable[[bytes], int]) -> int:
    """A sniff score from the values in the head: the lowest of the items' scores, loose
    messages judged together (with the messages of the responses among them)."""
    items = head_items(source)
    if items is None:
        return fallback(source.head)
    try:
        return _sniff(stitch_items(items, source, is_event, stitch), source, dialect, score,
                      list_score)
    except (InputError, TypeError, ValueError, AttributeError, KeyError, IndexError):
        return 0  # values of the right keys but not of the right shape: not ours


def _sniff(items: list[Any], source: SourceFile, dialect: Dialect,
           score: Callable[[Any, bool], int], list_score: Callable[[list[Any]], int]) -> int:
    if not items:
        return 0
    if len(items) == 1 and not source.head.lstrip().startswith(b"["):
        return score(items[0], True)
    kinds = [dialect.kind(it) for it in items]
    scores = [score(it, False) for it, k in zip(items, kinds, strict=True) if k != "message"]
    if "message" in kinds:
        replies = [m for it, k in zip(items, kinds, strict=True) if k == "response"
                   for m in dialect.response_messages(it)]
        scores.append(list_score([it for it, k in zip(items, kinds, strict=True)
                                  if k == "message"] + replies))
    return min(scores)


# --- streams --------------------------------------------------------------------------

def stitch_items(items: list[Any], source: SourceFile, is_event: Callable[[Any], bool],
                 stitch: Callable[[list[Any]], dict[str, Any]]) -> list[Any]:
    """Streamed responses (a run of event objects, the list of an SSE stream, or the
    ``response`` of an exchange given as either or as SSE text) become the response
    they stream; every other item stays as it is."""
    def stitched(events: list[Any]) -> dict[str, Any]:
        try:
            return stitch(events)
        except InputError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            raise InvalidTraceError(f"{source.display}: a streamed response is malformed: "
                                    f"{exc}", file=source.display) from None

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


def stitch_chat(chunks: list[Any]) -> dict[str, Any]:
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


def stitch_responses(events: list[Any]) -> dict[str, Any]:
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


# --- values ----------------------------------------------------------------------------

def text_of(content: Any) -> str | None:
    """The text of a message content: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        texts = [t for t in parts if isinstance(t, str)]
        return "\n".join(texts) if texts else None
    return None


def tool_output(value: Any) -> Any:
    """A tool result: JSON text decoded; a single text block reduced to its text."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict) \
            and value[0].get("type") in ("text", "input_text", "output_text") \
            and isinstance(value[0].get("text"), str):
        value = value[0]["text"]
    return maybe_json(omit_media(value))


def omit_media(value: Any) -> Any:
    """``value`` with inline base64 media (images, audio, documents) replaced by a short
    placeholder naming its type and size, so events stay small and searchable."""
    if isinstance(value, list):
        return [omit_media(v) for v in value]
    if isinstance(value, dict):
        out = {k: omit_media(v) for k, v in value.items()}
        data = value.get("data")
        if value.get("type") == "base64" and isinstance(data, str):
            if len(data) >= _MEDIA_MIN:
                out["data"] = f"«base64 {value.get('media_type') or 'data'}: {len(data)} chars»"
            return out
        for key in _MEDIA_KEYS:  # bare base64: generated images, audio output
            v = value.get(key)
            if isinstance(v, str) and len(v) >= _BARE_MIN and _BASE64.fullmatch(v):
                out[key] = f"«base64 {value.get('format') or 'data'}: {len(v)} chars»"
        return out
    if isinstance(value, str) and value.startswith("data:") and len(value) >= _MEDIA_MIN:
        head, sep, data = value.partition(";base64,")
        if sep:
            return f"«base64 {head[5:] or 'data'}: {len(data)} chars»"
    return value


_ROLES = frozenset({"user", "assistant", "system", "developer", "tool", "function"})
_ANTHROPIC_BLOCKS = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
    "web_search_tool_result", "mcp_tool_use", "mcp_tool_result", "document", "search_result",
    "container_upload"})
_OPENAI_PARTS = frozenset({"image_url", "input_text", "output_text", "input_image",
                           "input_audio", "input_file", "refusal", "file"})
RESPONSES_ITEMS = frozenset({
    "message", "function_call", "function_call_output", "reasoning", "custom_tool_call",
    "custom_tool_call_output", "web_search_call", "file_search_call", "computer_call",
    "computer_call_output", "code_interpreter_call", "image_generation_call",
    "local_shell_call", "local_shell_call_output", "mcp_call", "mcp_list_tools",
    "mcp_approval_request", "mcp_approval_response", "item_reference"})


def classify_messages(messages: Any) -> str | None:
    """Whose message list this is: ``anthropic``, ``openai``, ``either`` (plain text
    turns) or None (not a message list of either API)."""
    if not isinstance(messages, list) or not messages:
        return None
    marks: set[str] = set()
    for m in messages:
        if not isinstance(m, dict):
            return None
        if "type" in m and m["type"] != "message":
            if not isinstance(m["type"], str) or m["type"] not in RESPONSES_ITEMS:
                return None
            marks.add("openai")
            continue
        role, content = m.get("role"), m.get("content")
        if not isinstance(role, str) or role not in _ROLES:
            return None
        if (role != "user" and role != "assistant") or any(
                k in m for k in ("tool_calls", "function_call", "tool_call_id")):
            marks.add("openai")
        if content is None:
            if role != "assistant":
                return None
            marks.add("openai")
        elif isinstance(content, list):
            for b in content:
                if not isinstance(b, dict) or not isinstance(b.get("type"), str):
                    return None
                if b["type"] in _ANTHROPIC_BLOCKS or (b["type"] == "image" and "source" in b):
                    marks.add("anthropic")
                elif b["type"] in _OPENAI_PARTS:
                    marks.add("openai")
        elif not isinstance(content, str):
            return None
    if len(marks) > 1:
        return None
    return marks.pop() if marks else "either"
