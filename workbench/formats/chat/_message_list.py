"""OpenAI-style chat message lists as events: one walk for every list-shaped source.

A list of ``{role, content}`` messages, as ``tau-bench`` and ``inspect`` (a sample
without events) record it, and as ``swe-agent`` does in a history-only file: system /
user turns become ``message`` events, assistant turns ``llm_call`` events, and each
entry of an assistant's ``tool_calls`` one ``tool_call`` event (the turn's child),
completed by the tool message that answers it (paired by id; by position when an id is
reused, as tau-bench does). Calls never answered are flagged ``unanswered``; results
naming no call are kept, flagged ``unmatched``.

``ChatList`` is the walk, with tau-bench's and Inspect's reading as its defaults: event
ids are the messages' and calls' own ids when unique in the list, else positional
(``m3``, ``m3.0``); unused message keys go to ``<ns>.*`` attrs; a tool message's
``error`` (or, with ``error_prefix``, an output starting ``Error:``, how tau-bench's
environment reports a raised exception) fails the call. Both tool-call shapes are read:
``{id, function: {name, arguments}}`` (OpenAI, tau-bench) and ``{id, function,
arguments}`` (Inspect AI). A source that differs overrides the hooks (``_sweagent_msgs``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

from ...model import InvalidTraceError
from .._adapter import RawEvent
from .._decode import maybe_json
from .._pairing import UNANSWERED, UNMATCHED, CallPairer, add_flag, under_prompts
from .._values import tool_error, tool_output

__all__ = ["ChatEvents", "ChatList"]

_MSG_USED = frozenset({"role", "content", "tool_calls", "tool_call_id", "id", "name",
                       "function", "error"})


class ChatEvents:
    """One trace's events in recording order, tool calls awaiting their results: the
    pairing every chat-style reader shares (``ChatList`` here, ``_chatmsgs.Conversation``
    for API bodies). A call is opened under the key its result will name; a result
    completes the oldest call open under its key, or is kept as an event of its own,
    flagged ``unmatched``; calls still open at the end are flagged ``unanswered``."""

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self.events: list[RawEvent] = []
        self.pairer = CallPairer()

    def open(self, ev: RawEvent, key: Hashable | None) -> None:
        """Add a call awaiting the result for ``key`` (None: nothing can answer it)."""
        self.events.append(ev)
        if key is None:
            add_flag(ev, UNANSWERED)
        else:
            self.pairer.open(key, ev)

    def close(self, key: Hashable | None, unmatched: Callable[[], RawEvent]) -> RawEvent:
        """The call open under ``key``, now answered; else ``unmatched()``, added and
        flagged (the caller then fills in the result)."""
        ev = self.pairer.close(key) if key is not None else None
        if ev is None:
            ev = unmatched()
            add_flag(ev, UNMATCHED)
            self.events.append(ev)
        return ev

    def unanswered(self) -> None:
        """Flag the calls still open; they stay where they were recorded."""
        list(self.pairer.unanswered())


class ChatList(ChatEvents):
    """The events of one message list. ``where`` names a message in errors ("episode 3:
    message" -> "episode 3: message 5 is not an object"); ``ns`` prefixes the attrs;
    ``model`` names assistant turns that name no model of their own."""

    skip_bad_calls = False  # a tool call that is not an object: an error, or skipped

    def __init__(self, trace_id: str, file: str, where: str, ns: str, *,
                 model: str | None = None, error_prefix: bool = False) -> None:
        super().__init__(trace_id)
        self.file, self.where = file, where
        self.ns, self.model, self.error_prefix = ns, model, error_prefix
        self.used: set[str] = set()
        self.msg_ids: Counter[str] = Counter()
        self.call_ids: Counter[str] = Counter()

    def read(self, messages: list[Any]) -> list[RawEvent]:
        """The events of ``messages``, in the order each first appears."""
        for i, m in enumerate(messages):
            if type(m) is not dict:
                raise InvalidTraceError(f"{self.file}: {self.where} {i} is not an object",
                                        file=self.file)
        self._count_ids(messages)
        for i, m in enumerate(messages):
            if m.get("role") == "assistant":
                self._assistant(i, m)
                continue
            keys = self.results(m)
            if keys is None:
                self.events.append(self.message(i, m))
                continue
            for n, (key, pair_key) in enumerate(keys):
                ev = self.close(pair_key, partial(self.unmatched, i, n, len(keys), m, key))
                self.complete(ev, m)
                ev.attrs.update(self.attrs(m))
        self.unanswered()
        under_prompts(self.events)
        return self.events

    def _count_ids(self, messages: list[dict[str, Any]]) -> None:
        for m in messages:
            if isinstance(m.get("id"), str) and m["id"]:
                self.msg_ids[m["id"]] += 1
            calls = m.get("tool_calls")
            for c in calls if isinstance(calls, list) else []:
                if type(c) is dict and isinstance(c.get("id"), str) and c["id"]:
                    self.call_ids[c["id"]] += 1

    def _assistant(self, i: int, m: dict[str, Any]) -> None:
        turn = self.turn(i, m)
        self.events.append(turn)
        calls = m.get("tool_calls")
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            if type(call) is not dict:
                if self.skip_bad_calls:
                    continue
                raise InvalidTraceError(f"{self.file}: {self.where} {i}: tool call {j} is "
                                        "not an object", file=self.file)
            ev, key = self.call(i, j, call, turn.event_id)
            self.open(ev, key)
        self.more_calls(i, m, turn.event_id)

    def ident(self, own: Any, counts: Counter[str], fallback: str) -> str:
        """``own`` when the list uses it once, else ``fallback``; primed until unused."""
        eid = own if isinstance(own, str) and own and counts[own] == 1 else fallback
        while eid in self.used:
            eid += "'"
        self.used.add(eid)
        return eid

    # --- hooks: what a source may read its own way -------------------------------------

    def attrs(self, m: dict[str, Any]) -> dict[str, Any]:
        """The attrs a message adds to its event."""
        ns = self.ns
        extra = {f"{ns}.{k}": v for k, v in m.items() if k not in _MSG_USED and v is not None}
        if isinstance(m.get("id"), str):
            extra[f"{ns}.message_id"] = m["id"]
        return extra

    def message(self, i: int, m: dict[str, Any]) -> RawEvent:
        """A system / user (any non-assistant, non-result) message."""
        return RawEvent(self.trace_id, self.ident(m.get("id"), self.msg_ids, f"m{i}"), None,
                        "message", str(m.get("role") or "") or "message",
                        result={"role": m.get("role"), "content": m.get("content")},
                        attrs=self.attrs(m))

    def turn(self, i: int, m: dict[str, Any]) -> RawEvent:
        """An assistant message's ``llm_call``."""
        eid = self.ident(m.get("id"), self.msg_ids, f"m{i}")
        model = m.get("model") if isinstance(m.get("model"), str) else self.model
        llm = RawEvent(self.trace_id, eid, None, "llm_call", model or "assistant", status="ok",
                       result={"messages": [m]}, attrs=self.attrs(m))
        if model:
            llm.attrs["gen_ai.response.model" if m.get("model") else "gen_ai.request.model"] \
                = model
        return llm

    def call(self, i: int, j: int, call: dict[str, Any],
             parent: str) -> tuple[RawEvent, Hashable | None]:
        """The event of tool call ``j`` of message ``i``, and the key its result names."""
        fn = call.get("function")
        if type(fn) is dict:
            name, args = str(fn.get("name") or ""), maybe_json(fn.get("arguments"))
        else:
            name, args = str(fn or call.get("name") or ""), maybe_json(call.get("arguments"))
        cid = call.get("id")
        ev = RawEvent(self.trace_id, self.ident(cid, self.call_ids, f"m{i}.{j}"), parent,
                      "tool_call", name, args=args)
        if cid is not None:
            ev.attrs[f"{self.ns}.tool_call_id"] = cid
        if call.get("type") not in (None, "function"):
            ev.attrs[f"{self.ns}.tool_type"] = call["type"]
        return ev, cid if isinstance(cid, str) else None

    def more_calls(self, i: int, m: dict[str, Any], parent: str) -> None:
        """Calls an assistant message makes other than its ``tool_calls`` (none here)."""

    def results(self, m: dict[str, Any]) -> list[tuple[Any, Hashable | None]] | None:
        """The calls a message answers, as ``(key as given, pairing key or None)``; None
        when it answers none (it is a message)."""
        if m.get("role") != "tool":
            return None
        key = m.get("tool_call_id")
        return [(key, key if isinstance(key, str) else None)]

    def unmatched(self, i: int, n: int, count: int, m: dict[str, Any], key: Any) -> RawEvent:
        """The event of a result (``n`` of ``count`` in message ``i``) naming no call."""
        ev = RawEvent(self.trace_id, self.ident(m.get("id"), self.msg_ids, f"m{i}"), None,
                      "tool_call", str(m.get("name") or m.get("function") or ""))
        if key is not None:
            ev.attrs[f"{self.ns}.tool_call_id"] = key
        return ev

    def complete(self, ev: RawEvent, m: dict[str, Any]) -> None:
        """A call's result and status, from the message answering it."""
        ev.result = tool_output(m.get("content"))
        ev.error = tool_error(m.get("error"))
        if ev.error is not None:
            ev.status = "error"
        elif self.error_prefix and isinstance(ev.result, str) \
                and ev.result.startswith("Error:"):
            ev.status, ev.error = "error", {"message": ev.result[len("Error:"):].strip()}
        else:
            ev.status = "ok"
