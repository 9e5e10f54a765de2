"""Is this file ours? Detection shared by the ``anthropic`` and ``openai`` adapters.

A sniff reads the values in the file's head (``head_items``), stitches streamed
responses as reading would, and scores each value with the format's ``Dialect.score``;
loose messages are judged together by ``Dialect.list_score``, which rests on
``classify_messages`` (whose message list is this: Anthropic's, OpenAI's, either).
A head too short to parse is judged by ``Dialect.opening``. The two formats' scores
live here side by side, since each is read against the other.
"""

from __future__ import annotations

import re
from typing import Any

from ...model import InputError, JSONDecodeError, loads
from .._adapter import SourceFile
from ._conversations import Dialect
from ._stream import is_openai_event, is_sse, parse_sse, stitch_items

__all__ = ["RESPONSES_ITEMS", "anthropic_list_score", "anthropic_opening", "anthropic_score",
           "classify_messages", "openai_list_score", "openai_opening", "openai_score",
           "sniff_items"]


def head_items(source: SourceFile) -> list[Any] | None:
    """The top-level values as far as the head shows them (for sniffing), or None."""
    head = source.head
    if is_sse(head):
        text = head.decode("utf-8", "replace")
        try:
            return [parse_sse("\n".join(text.splitlines()[:-1] if source.text_size > len(head)
                                        else text.splitlines()), source)]
        except InputError:
            return None
    try:
        doc = loads(head) if source.text_size <= len(head) else None
    except JSONDecodeError:
        doc = None
    if doc is not None:
        return doc if isinstance(doc, list) else [doc]
    lines = head.splitlines()
    if source.text_size > len(head):
        lines = lines[:-1]  # may be cut
    out: list[Any] = []
    for line in lines:
        if line.strip():
            try:
                out.append(loads(line))
            except JSONDecodeError:
                return None
    return out if len(out) > 1 or (out and source.text_size > len(head)) else None


def sniff_items(source: SourceFile, dialect: Dialect) -> int:
    """A sniff score from the values in the head: the lowest of the items' scores, loose
    messages judged together (with the messages of the responses among them)."""
    items = head_items(source)
    if items is None:
        return dialect.opening(source.head)
    try:
        return _sniff(stitch_items(items, source, dialect.is_event, dialect.stitch), source,
                      dialect)
    except (InputError, TypeError, ValueError, AttributeError, KeyError, IndexError):
        return 0  # values of the right keys but not of the right shape: not ours


def _sniff(items: list[Any], source: SourceFile, dialect: Dialect) -> int:
    if not items:
        return 0
    if len(items) == 1 and not source.head.lstrip().startswith(b"["):
        return dialect.score(items[0], True)
    kinds = [dialect.kind(it) for it in items]
    scores = [dialect.score(it, False) for it, k in zip(items, kinds, strict=True)
              if k != "message"]
    if "message" in kinds:
        replies = [m for it, k in zip(items, kinds, strict=True) if k == "response"
                   for m in dialect.response_messages(it)]
        scores.append(dialect.list_score([it for it, k in zip(items, kinds, strict=True)
                                          if k == "message"] + replies))
    return min(scores)


def _exchange_score(dialect: Dialect, item: dict[str, Any]) -> int:
    """As sure as its surer part, unless the other part is not ours at all."""
    parts = [dialect.score(item[k], False) for k in ("request", "response") if item.get(k)]
    return max(parts) if parts and min(parts) > 0 else 0


# --- anthropic ---------------------------------------------------------------------------

# a large file the head cannot parse: judged from how it starts and what it names
_ANTHROPIC_OPENING = re.compile(
    rb'^\s*[\[{]\s*(\{\s*)?"(model|messages|system|max_tokens|role|content|request|response|'
    rb'id|type)"')
_ANTHROPIC_MARKS = re.compile(rb'"type"\s*:\s*"(tool_use|tool_result|thinking)"|'
                              rb'"stop_reason"\s*:|"model"\s*:\s*"claude')


def anthropic_opening(head: bytes) -> int:
    """A file too large for its head to parse, judged by how it starts and what it names."""
    return 40 if _ANTHROPIC_OPENING.match(head) and _ANTHROPIC_MARKS.search(head) else 0


def anthropic_list_score(messages: Any) -> int:
    return {"anthropic": 90, "either": 55}.get(classify_messages(messages) or "", 0)


def anthropic_score(dialect: Dialect, item: Any, single: bool) -> int:
    if isinstance(item, list):  # server-sent events
        return 90 if item and isinstance(item[0], dict) \
            and item[0].get("type") == "message_start" else 0
    if not isinstance(item, dict):
        return 0
    kind = dialect.kind(item)
    if kind == "exchange":
        return _exchange_score(dialect, item)
    if kind == "response":
        return 95 if item.get("type") == "message" else 80
    if kind == "request":
        score = anthropic_list_score(item["messages"])
        if score and ("system" in item or str(item.get("model", "")).startswith("claude")):
            return 90
        return score
    if kind == "message":  # MCP sampling messages look alike but spell keys in camelCase
        mcp = any(k in item for k in ("stopReason", "toolUseId")) or "toolUseId" in str(item)
        return 30 if single and not mcp and anthropic_list_score([item]) else 0
    return 90 if item.get("type") == "message_start" else 0


# --- openai ------------------------------------------------------------------------------

_RESPONSES_KEYS = frozenset({
    "instructions", "previous_response_id", "reasoning", "text", "max_output_tokens", "include",
    "truncation", "conversation", "background", "store", "tools", "tool_choice"})
_OPENAI_OPENING = re.compile(
    rb'^\s*[\[{]\s*(\{\s*)?"(model|messages|input|role|content|request|response|id|object|'
    rb'type|tools|instructions)"')
_OPENAI_MARKS = re.compile(
    rb'"object"\s*:\s*"(chat\.completion|response)|"tool_calls"\s*:|"tool_call_id"\s*:|'
    rb'"call_id"\s*:|"model"\s*:\s*"(gpt-|o[1-9]|chatgpt)')


def openai_opening(head: bytes) -> int:
    """A file too large for its head to parse, judged by how it starts and what it names."""
    return 40 if _OPENAI_OPENING.match(head) and _OPENAI_MARKS.search(head) else 0


def openai_list_score(messages: list[Any]) -> int:
    return {"openai": 85, "either": 60}.get(classify_messages(messages) or "", 0)


def openai_score(dialect: Dialect, item: Any, single: bool) -> int:
    if isinstance(item, list):  # server-sent events
        return 90 if item and is_openai_event(item[0]) else 0
    if is_openai_event(item):
        return 90
    kind = dialect.kind(item)
    if kind == "exchange":
        return _exchange_score(dialect, item)
    if kind == "response":
        return 95 if item.get("object") in ("chat.completion", "response") else 60
    if kind == "request":
        return _openai_request_score(item)
    if kind == "message":
        return 30 if single and classify_messages([item]) in ("openai", "either") else 0
    return 0


def _openai_request_score(item: dict[str, Any]) -> int:
    msgs = item.get("messages", item.get("input"))
    found = "either" if isinstance(msgs, str) else classify_messages(msgs)
    tools = item.get("tools")
    if found == "either" and isinstance(tools, list) and tools and isinstance(
            tools[0], dict) and tools[0].get("type") == "function":
        found = "openai"
    score = {"openai": 90, "either": 60}.get(found or "", 0)
    # {model, input: [...]} is the Responses API's own shape; {model, input: "text"} only
    # with a Responses parameter (the embeddings API takes the same two keys)
    if score and "messages" not in item and "model" in item and (
            isinstance(msgs, list) or _RESPONSES_KEYS & item.keys()):
        return max(score, 85)
    return score


# --- message lists -----------------------------------------------------------------------

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
