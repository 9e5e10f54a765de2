"""Shared by the ``anthropic`` and ``openai`` adapters: conversations out of API bodies.

Both formats arrive in the same shapes: a request body (the conversation so far), a
response body (the next assistant turn), a ``{request, response}`` exchange, a bare list
of messages, a list of any of these, JSONL of any of these, or server-sent events
(``_chatstream`` reads the file into items and stitches streams; ``_chatsniff`` detects
the format). This module groups the items into conversations (one trace each) and builds
each conversation's events. The adapters supply the per-format parts through a
``Dialect``.

Grouping: only a request can start a conversation. A request whose messages begin with
everything the current conversation has seen (its history, compared by a fingerprint
per message), or that names one of its responses as ``previous_response_id``, continues
that conversation, and only its new messages become events; any other request starts a
new one. Responses and loose messages join the current conversation.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Any, Protocol

from ...model import InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import maybe_json
from .._pairing import derived_id, under_prompts, unique_id
from .._values import omit_media, single_text, text_of
from ._message_list import ChatEvents
from ._stream import load_items, stitch_items

__all__ = ["Conversation", "Dialect", "read_conversations"]

_CHAT_TEXT = ("text", "input_text", "output_text")  # a text block in either API
_NO_ID = ("no id",)  # the pairing key of a call with no id (no JSON value is a tuple)


class Conversation(ChatEvents):
    """One trace being built: events in recording order, tool calls awaiting results
    (paired by ``ChatEvents``; a call with no id waits for a result with none)."""

    def __init__(self, trace_id: str, fmt: str) -> None:
        super().__init__(trace_id)
        self.fmt = fmt
        self.ids: set[str] = set()
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
        return unique_id(self.ids, preferred, fallback)

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

    def offer(self, tools: Iterable[Any]) -> None:
        """Tools the model was offered (the trace's tools), each kept once."""
        for tool in tools:
            if tool not in self.tools:
                self.tools.append(tool)

    def model(self, name: Any) -> None:
        if isinstance(name, str) and name and name not in self.models:
            self.models.append(name)

    def call(self, key: Any, name: Any, args: Any, parent: str | None, *,
             attrs: dict[str, Any] | None = None) -> RawEvent:
        """A tool call awaiting its result under ``key``."""
        ev = RawEvent(trace_id=self.trace_id,
                      event_id=self.unique(key, f"call-{len(self.events)}"), parent_id=parent,
                      kind="tool_call", name=str(name or ""), args=maybe_json(omit_media(args)),
                      attrs=_call_id(key))
        ev.attrs.update(attrs or {})
        self.open(ev, _pair_key(key))
        return ev

    def answer(self, key: Any, output: Any, *, is_error: bool = False, name: Any = None,
               attrs: dict[str, Any] | None = None) -> RawEvent:
        """Complete the call open under ``key``, or keep the result flagged unmatched."""
        ev = self.close(_pair_key(key), lambda: RawEvent(
            trace_id=self.trace_id, event_id=self.unique(key, f"result-{len(self.events)}"),
            parent_id=None, kind="tool_call", name=str(name or ""), attrs=_call_id(key)))
        ev.result = maybe_json(omit_media(single_text(output, _CHAT_TEXT)))
        if is_error:
            ev.status = "error"
            ev.error = {"message": text_of(output) or "the tool reported an error"}
        else:
            ev.status = "ok"
        ev.attrs.update(attrs or {})
        return ev

    def finish(self) -> tuple[list[RawEvent], TraceInfo]:
        self.unanswered()
        under_prompts(self.events)
        versions: dict[str, Any] = {"provider": self.fmt}
        if self.models:
            versions["models"] = list(self.models)
        return self.events, TraceInfo(trace_id=self.trace_id, root_task=self.task or self.system,
                                      tools=list(self.tools), versions=versions)


def _call_id(key: Any) -> dict[str, Any]:
    return {"gen_ai.tool.call.id": key} if isinstance(key, str) and key else {}


def _pair_key(key: Any) -> Hashable:
    """The key a call waits under: its id (its ``repr`` when it is a list or an object);
    calls and results with no id pair with each other, in order."""
    if key is None:
        return _NO_ID
    return key if isinstance(key, Hashable) else repr(key)


class Dialect(Protocol):
    """What an adapter tells ``read_conversations`` (and ``sniff_items``) about its format."""

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

    def is_event(self, item: Any) -> bool:
        """An event of a streamed response (``_chatstream`` stitches a run of them)."""
        ...

    def stitch(self, events: list[Any]) -> dict[str, Any]:
        """A run of stream events merged into the response they stream."""
        ...

    def score(self, item: Any, single: bool) -> int:
        """How sure (0-100) the sniff is that ``item`` is ours (``single``: the file's
        only value)."""
        ...

    def list_score(self, messages: list[Any]) -> int:
        """How sure the sniff is that loose ``messages`` are ours."""
        ...

    def opening(self, head: bytes) -> int:
        """How sure the sniff is from a head too short to parse."""
        ...


def read_conversations(source: SourceFile, dialect: Dialect) -> Iterator[RawEvent | TraceInfo]:
    """Every conversation of the file: its events (after pairing), then its TraceInfo."""
    items = stitch_items(load_items(source), source, dialect.is_event, dialect.stitch)
    grouping = _Grouping(source, dialect)
    for n, item in enumerate(items, 1):
        with malformed(source, f"item {n}", item=n):
            grouping.read(item, n)
    total = 0
    for conv in grouping.convs:
        events, info = conv.finish()
        total += len(events)
        yield from events
        yield info
    if total == 0:
        raise InvalidTraceError(f"{source.display}: no {dialect.name} messages in the file",
                                file=source.display,
                                hint="the file holds no request, response or message")


class _Grouping:
    """The conversations read so far, and the request still waiting for its response."""

    def __init__(self, source: SourceFile, dialect: Dialect) -> None:
        self.source, self.dialect = source, dialect
        self.convs: list[Conversation] = []
        self.waiting: dict[str, Any] | None = None

    def new(self) -> Conversation:
        self.convs.append(Conversation(derived_id(self.source.sha256, len(self.convs)),
                                       self.dialect.name))
        return self.convs[-1]

    def read(self, item: Any, n: int) -> None:
        kind = self.dialect.kind(item)
        if kind == "exchange":
            req, resp = item.get("request"), item.get("response")
            self.waiting = None
            if isinstance(req, dict):
                self.request(req)
            if isinstance(resp, dict):
                self.response(resp)
        elif kind == "request":
            self.request(item)
        elif kind == "response":
            self.response(item)
        elif kind == "message":
            self.dialect.read_message(self.convs[-1] if self.convs else self.new(), item)
            self.convs[-1].history.append(self.dialect.fingerprint(item))
        else:
            name, where = self.dialect.name, self.source.display
            raise InvalidTraceError(f"{where}: item {n} is not an {name} request, response "
                                    "or message", file=where, item=n,
                                    hint=f"expected {name} API bodies or message lists")

    def request(self, req: dict[str, Any]) -> None:
        fps = [self.dialect.fingerprint(m) for m in self.dialect.history(req)]
        conv = self.convs[-1] if self.convs else None
        prev = req.get("previous_response_id")
        if conv is not None and isinstance(prev, str) and prev in conv.ids:
            skip = 0
        elif conv is not None and conv.history and fps[:len(conv.history)] == conv.history:
            skip = len(conv.history)
        else:
            conv, skip = self.new(), 0
        conv.turn = None
        self.dialect.read_request(conv, req, skip)
        conv.history.extend(fps[skip:])
        self.waiting = req

    def response(self, resp: dict[str, Any]) -> None:
        conv = self.convs[-1] if self.convs else self.new()
        self.dialect.read_response(conv, resp, self.waiting)
        conv.history.extend(self.dialect.fingerprint(m)
                            for m in self.dialect.response_messages(resp))
        conv.turn = None
        self.waiting = None
