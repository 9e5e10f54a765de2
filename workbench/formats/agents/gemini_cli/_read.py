"""Adapter ``gemini-cli``: Gemini CLI session recordings and checkpoints.

- **Session recordings** (``~/.gemini/tmp/<project>/chats/session-*.json[l]``): the JSON
  document ``{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`` older
  releases write, or the JSONL journal newer ones append to: a metadata line
  ``{sessionId, projectHash, …}``, one line per message state (a message written again
  with the same ``id`` replaces the earlier state, in its place), ``{"$set": {…}}``
  metadata updates and ``{"$rewindTo": id}`` (the conversation rewound to before that
  message).
- **Checkpoints**: ``/chat save`` writes the model's history, a list of ``Content``
  (``[{role, parts}]``, or ``{history: [...]}``); the checkpoints ``/restore`` uses hold
  ``{history (the screen's), clientHistory (the model's), toolCall, commitHash, filePath}``.

The mapping is ``_map``'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ....model import InvalidTraceError, JSONDecodeError, loads
from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid, malformed
from ..._decode import iter_json_lines, load_document
from ..._pairing import derived_id
from .._transcript import Transcript
from ._map import read_contents, read_message

__all__ = ["GEMINI_CLI", "GeminiCliAdapter"]

_SESSION = (re.compile(rb'"sessionId"\s*:'), re.compile(rb'"projectHash"\s*:'),
            re.compile(rb'"messages"\s*:'))
_RESTORE = (re.compile(rb'"clientHistory"\s*:'), re.compile(rb'"toolCall"\s*:'))
_CONTENT = re.compile(rb'^\s*(?:\{\s*"history"\s*:\s*)?\[\s*\{\s*"role"\s*:\s*"(?:user|model)"'
                      rb'\s*,\s*"parts"\s*:')
_META = ("sessionId", "messages")


class GeminiCliAdapter:
    """Gemini CLI session recordings and checkpoints."""

    name = "gemini-cli"
    file_order = True

    def sniff(self, source: SourceFile) -> int:
        head = source.head.lstrip()
        first = _first(head)
        if first is not None and isinstance(first.get("sessionId"), str) \
                and isinstance(first.get("projectHash"), str):
            return 95
        if head[:1] == b"{" and all(rx.search(head) for rx in _SESSION):
            return 95
        if head[:1] == b"{" and all(rx.search(head) for rx in _RESTORE):
            return 90
        return 80 if _CONTENT.match(head) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        head = source.head.lstrip()
        first = _first(head)
        lines = b"\n" in head.rstrip() and first is not None and "messages" not in first
        if lines:
            yield from _journal(source)
            return
        doc = load_document(source)
        if type(doc) is dict and isinstance(doc.get("messages"), list):
            t = _session(source, doc)
            for i, m in enumerate(doc["messages"]):
                with malformed(source, f"message {i}"):
                    _message(source, t, m, f"message {i}", f"m{i}", False)
            yield from _done(source, t)
        else:
            yield from _checkpoint(source, doc)


GEMINI_CLI = GeminiCliAdapter()


def _first(head: bytes) -> dict[str, Any] | None:
    try:
        value = loads(head.split(b"\n", 1)[0])
    except JSONDecodeError:
        return None
    return value if type(value) is dict else None


def _session(source: SourceFile, meta: dict[str, Any]) -> Transcript:
    sid = meta.get("sessionId")
    t = Transcript(sid if isinstance(sid, str) and sid else derived_id(source.sha256,
                                                                        "gemini-cli"))
    _metadata(t, meta)
    return t


def _metadata(t: Transcript, meta: dict[str, Any]) -> None:
    for k, v in meta.items():
        if k not in _META and v is not None:
            t.info.attrs[f"gemini_cli.{k}"] = v


def _message(source: SourceFile, t: Transcript, m: Any, where: str, fallback: str,
             rewound: bool) -> None:
    if type(m) is not dict or not isinstance(m.get("type"), str):
        raise invalid(source, f"{where} is not a Gemini CLI message (an object with a type)")
    read_message(t, m, fallback, rewound)


def _journal(source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
    """A JSONL session: the last state of each message, in the order first written;
    messages a rewind removed are kept, marked ``gemini_cli.rewound``."""
    meta: dict[str, Any] = {}
    entries: list[list[Any]] = []  # [line, record, rewound]
    live: dict[str, int] = {}  # message id -> its entry, while not rewound
    for n, rec in iter_json_lines(source):
        if type(rec) is not dict:
            raise invalid(source, f"line {n} is not a JSON object", line=n)
        if isinstance(rec.get("$rewindTo"), str):
            start = live.get(rec["$rewindTo"], 0)
            for e in entries[start:]:
                e[2] = True
            live = {k: v for k, v in live.items() if v < start}
        elif isinstance(rec.get("id"), str):
            if rec["id"] in live:
                entries[live[rec["id"]]][1] = rec
            else:
                live[rec["id"]] = len(entries)
                entries.append([n, rec, False])
        elif type(rec.get("$set")) is dict:
            meta.update(rec["$set"])
        elif isinstance(rec.get("sessionId"), str):
            meta.update(rec)
        else:
            raise invalid(source, f"line {n} is not a Gemini CLI session record (metadata, "
                          "a message with an id, $set or $rewindTo)", line=n)
    t = _session(source, meta)
    for n, rec, rewound in entries:
        with malformed(source, f"line {n}"):
            _message(source, t, rec, f"line {n}", f"m{n}", rewound)
    yield from _done(source, t)


def _checkpoint(source: SourceFile, doc: Any) -> Iterator[RawEvent | TraceInfo]:
    t = Transcript(derived_id(source.sha256, "gemini-cli"))
    if isinstance(doc, list):
        history, rest = doc, {}
    elif type(doc) is dict and isinstance(doc.get("clientHistory"), list):
        history = doc["clientHistory"]
        rest = {k: v for k, v in doc.items() if k not in ("clientHistory", "history")}
        if isinstance(doc.get("history"), list):
            t.info.attrs["gemini_cli.ui_history_items"] = len(doc["history"])
    elif type(doc) is dict and isinstance(doc.get("history"), list):
        history, rest = doc["history"], {k: v for k, v in doc.items() if k != "history"}
    else:
        raise invalid(source, "not a Gemini CLI session or checkpoint: expected "
                      "{sessionId, messages}, a list of Content or {history: [...]}")
    with malformed(source, "the history"):
        waiting = read_contents(t, history, "c")
    tool = rest.pop("toolCall", None)
    if type(tool) is dict:  # the call the checkpoint was taken before (not run yet)
        name = str(tool.get("name") or "")
        ev = next((e for e in reversed(waiting) if e.name == name), None)
        if ev is None:
            turn = next((e for e in reversed(t.events) if e.kind == "llm_call"), None)
            ev = t.add("tool_call", name, None, "checkpoint-call", args=tool.get("args"),
                       parent=turn.event_id if turn is not None else None)
            waiting.append(ev)
        ev.attrs["gemini_cli.checkpoint"] = {k: v for k, v in rest.items() if v is not None}
    for k, v in rest.items():
        if v is not None:
            t.info.attrs[f"gemini_cli.{k}"] = v
    for ev in waiting:
        t.pairer.open(("open", ev.event_id), ev)
    yield from _done(source, t)


def _done(source: SourceFile, t: Transcript) -> Iterator[RawEvent | TraceInfo]:
    if not t.events:
        raise InvalidTraceError(f"{source.display}: no Gemini CLI messages in the file",
                                file=source.display)
    yield from t.finish("gemini_cli")
