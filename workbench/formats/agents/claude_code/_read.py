"""Adapter ``claude-code``: Claude Code session transcripts and Claude Agent SDK streams.

Two recordings of the same conversation model:

- a Claude Code transcript (``~/.claude/projects/<project>/<session>.jsonl``): one line
  per content block, linked by ``uuid`` / ``parentUuid``, with ``isSidechain`` lines for
  sub-agents and ``summary`` lines;
- the Agent SDK's message stream (``claude -p --output-format stream-json``, or the SDK's
  messages saved as YAML ``{messages: [...]}``, a JSON array or ``{messages: [...]}``):
  ``system`` init, ``assistant`` / ``user`` messages with ``parent_tool_use_id`` for
  sub-agents, and a closing ``result``.

Each assistant API message (however many lines share its ``message.id``) is one
``llm_call``, each ``tool_use`` with its ``tool_result`` one ``tool_call``; the mapping
is in ``_map`` (with ``_records`` and ``_sdk``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ....model import InvalidTraceError, JSONDecodeError, loads
from ..._adapter import RawEvent, SourceFile, TraceInfo
from ..._decode import iter_json_lines, load_document, load_yaml
from ._map import Session

__all__ = ["CLAUDE_CODE", "ClaudeCodeAdapter"]

_BOM = b"\xef\xbb\xbf"
# JSON documents / arrays: keys only an SDK message or a transcript line has
_J_TRANSCRIPT = (re.compile(rb'"parentUuid"\s*:'), re.compile(rb'"(?:sessionId|uuid)"\s*:'))
_J_SESSION = re.compile(rb'"session_id"\s*:')
_J_SDK = re.compile(rb'"parent_tool_use_id"\s*:|"subtype"\s*:\s*"init"')
# YAML: the same keys at the start of a line (a mapping key, maybe a list item)
_Y_INTERACTIONS = re.compile(rb"^interactions\s*:", re.M)
_Y_TRANSCRIPT = (re.compile(rb"^[ \t-]*parentUuid\s*:", re.M),
                 re.compile(rb"^[ \t-]*(?:sessionId|uuid)\s*:", re.M))
_Y_SESSION = re.compile(rb"^[ \t-]*session_id\s*:", re.M)
_Y_SDK = re.compile(rb"^[ \t-]*(?:parent_tool_use_id\s*:|subtype\s*:\s*['\"]?init\b)", re.M)


class ClaudeCodeAdapter:
    """Claude Code transcripts (JSONL) and Claude Agent SDK message streams."""

    name = "claude-code"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head.removeprefix(_BOM).lstrip()
        if head[:1] in (b"{", b"["):
            score = _sniff_lines(head) if head[:1] == b"{" else 0
            if score:
                return score
            if all(rx.search(head) for rx in _J_TRANSCRIPT):
                return 85
            return 85 if _J_SESSION.search(head) and _J_SDK.search(head) else 0
        if _Y_INTERACTIONS.search(head):
            return 0  # a VCR cassette
        if all(rx.search(head) for rx in _Y_TRANSCRIPT):
            return 85
        return 90 if _Y_SESSION.search(head) and _Y_SDK.search(head) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        records = _records(source)
        first = next((s for _, _, r in records if type(r) is dict
                      for s in (r.get("sessionId"), r.get("session_id"))
                      if isinstance(s, str) and s), None)
        session = Session(source, first)
        for n, where, rec in records:
            session.add(n, where, rec)
        yield from session.finish()


CLAUDE_CODE = ClaudeCodeAdapter()


def _first_line(head: bytes) -> Any:
    """The first line of the head as a JSON object, or None (not one complete line)."""
    line = head.split(b"\n", 1)[0]
    try:
        value = loads(line)
    except JSONDecodeError:
        return None
    return value if type(value) is dict else None


def _sniff_lines(head: bytes) -> int:
    score = 0
    for line in head.split(b"\n")[:200]:
        try:
            rec: Any = loads(line) if line.strip() else None
        except JSONDecodeError:
            continue  # the head's last line is usually cut
        items: list[Any] = rec["messages"] if _is_wrapper(rec) else [rec]
        for r in items:
            if type(r) is not dict:
                continue
            if "parentUuid" in r and ("sessionId" in r or "uuid" in r):
                return 95
            if "session_id" in r and ("parent_tool_use_id" in r or (
                    r.get("type") == "system" and r.get("subtype") == "init")):
                score = 90
    return score


def _records(source: SourceFile) -> list[tuple[int, str, Any]]:
    """``(number, where, record)``: JSONL lines, or the items of a YAML / JSON list."""
    head = source.head.removeprefix(_BOM).lstrip()
    if head[:1] == b"{" and (b"\n" not in head.rstrip() or _first_line(head) is not None):
        lines = [(n, f"line {n}", rec) for n, rec in iter_json_lines(source)]
        if len(lines) != 1 or not _is_wrapper(lines[0][2]):
            return lines
        doc: Any = lines[0][2]
    elif head[:1] in (b"{", b"["):
        doc = load_document(source)
    else:
        doc = load_yaml(source)
    if _is_wrapper(doc):
        doc = doc["messages"]
    if not isinstance(doc, list):
        raise InvalidTraceError(
            f"{source.display}: not a Claude Code recording: expected JSON lines, a list of "
            "messages or {messages: [...]}", file=source.display)
    return [(i, f"message {i}", rec) for i, rec in enumerate(doc, 1)]


def _is_wrapper(doc: Any) -> bool:
    return type(doc) is dict and isinstance(doc.get("messages"), list) and "type" not in doc
