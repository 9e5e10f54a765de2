"""What MCP looks like: JSON-RPC messages, the recording containers that hold them, and
the bare MCP objects (a ``Tool``, a ``CallToolResult``, a content block …) of the
specification's examples, recognised by their keys; and, from those shapes, how sure a
file's first bytes are MCP (``sniff_head``).
"""

from __future__ import annotations

import re
from typing import Any

from ...model import JSONDecodeError, loads

__all__ = ["container", "fragment_type", "is_message", "sniff_head"]

# (type name, keys it must have, keys it may have besides ``_meta``)
_KEYED: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = tuple(
    (name, frozenset(need.split()), frozenset(may.split())) for name, need, may in (
        ("Tool", "name inputSchema",
         "title description outputSchema annotations icons execution"),
        ("CallToolResult", "content", "structuredContent isError resultType"),
        ("ListToolsResult", "tools", "nextCursor resultType ttlMs cacheScope"),
        ("ListPromptsResult", "prompts", "nextCursor resultType ttlMs cacheScope"),
        ("ListResourcesResult", "resources", "nextCursor resultType ttlMs cacheScope"),
        ("ListResourceTemplatesResult", "resourceTemplates",
         "nextCursor resultType ttlMs cacheScope"),
        ("ListRootsResult", "roots", ""),
        ("ReadResourceResult", "contents", "resultType ttlMs cacheScope"),
        ("GetPromptResult", "messages", "description resultType"),
        ("CompleteResult", "completion", "resultType"),
        ("DiscoverResult", "supportedVersions",
         "capabilities resultType instructions ttlMs cacheScope serverInfo"),
        ("CreateMessageResult", "role content model", "stopReason resultType"),
        ("CreateMessageRequestParams", "messages maxTokens",
         "modelPreferences systemPrompt includeContext temperature stopSequences metadata "
         "tools toolChoice task"),
        ("SamplingMessage", "role content", ""),
        ("ElicitResult", "action", "content"),
        ("ElicitRequestParams", "mode message", "requestedSchema url elicitationId task"),
        ("ElicitRequestParams", "message requestedSchema", "task"),
        ("ProgressNotificationParams", "progressToken progress", "total message"),
        ("CancelledNotificationParams", "requestId", "reason"),
        ("LoggingMessageNotificationParams", "level data", "logger"),
        ("ModelPreferences", "", "hints costPriority speedPriority intelligencePriority"),
        ("BlobResourceContents", "uri blob", "mimeType"),
        ("TextResourceContents", "uri text", "mimeType"),
        ("Root", "uri name", ""),
        ("Resource", "uri name", "title description mimeType size annotations icons"),
        ("ResourceUpdatedNotificationParams", "uri", ""),
        ("PaginatedRequestParams", "cursor", ""),
        ("CompleteRequestParams", "ref argument", "context"),
        ("RequestParams", "name", "arguments task"),
    ))

# content block ``type`` -> (type name, keys it must have, keys it may have)
_BLOCKS: dict[str, tuple[str, frozenset[str], frozenset[str]]] = {
    t: (name, frozenset(need.split()), frozenset(may.split())) for t, name, need, may in (
        ("text", "TextContent", "text", "annotations"),
        ("image", "ImageContent", "data mimeType", "annotations"),
        ("audio", "AudioContent", "data mimeType", "annotations"),
        ("resource", "EmbeddedResource", "resource", "annotations"),
        ("resource_link", "ResourceLink", "uri name",
         "title description mimeType size annotations icons"),
        ("tool_use", "ToolUseContent", "id name input", ""),
        ("tool_result", "ToolResultContent", "toolUseId content", "structuredContent isError"),
    )}

_SCHEMA_KEYS = frozenset({
    "type", "title", "description", "default", "minimum", "maximum", "minLength", "maxLength",
    "format", "enum", "enumNames", "oneOf", "anyOf", "items", "minItems", "maxItems"})
_CLIENT_CAPS = frozenset({"roots", "sampling", "elicitation"})
_SERVER_CAPS = frozenset({"completions", "logging", "prompts", "resources", "tools"})
_ALL_CAPS = _CLIENT_CAPS | _SERVER_CAPS | {"experimental", "extensions", "tasks"}
_RECORDED = ("jsonrpc_request", "notification", "lifecycle")  # mcp-recorder interactions
_MESSAGE_KEYS = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})


def is_message(v: Any, strict: bool = False) -> bool:
    """A JSON-RPC request, notification or response. Without ``"jsonrpc": "2.0"`` (spec
    examples leave it out) only when it has no keys a JSON-RPC message does not have."""
    if type(v) is not dict:
        return False
    if v.get("jsonrpc") == "2.0":
        return True
    if strict or not v.keys() <= _MESSAGE_KEYS:
        return False
    return isinstance(v.get("method"), str) or ("id" in v and ("result" in v or "error" in v))


def _blocks(v: Any) -> bool:
    items = v if isinstance(v, list) else [v]
    return all(type(b) is dict and b.get("type") in _BLOCKS for b in items)


def _keyed(v: dict[str, Any]) -> str | None:
    keys = v.keys() - {"_meta"}
    for name, need, may in _KEYED:
        if not keys or not need <= keys or not keys <= need | may:
            continue
        if name in ("SamplingMessage", "CreateMessageResult") and not _blocks(v["content"]):
            continue
        if name == "GetPromptResult" and not (
                isinstance(v["messages"], list)
                and all(type(m) is dict and "role" in m and _blocks(m.get("content"))
                        for m in v["messages"])):
            continue
        if name == "CallToolResult" and not isinstance(v["content"], list):
            continue
        if name == "ElicitResult" and v["action"] not in ("accept", "decline", "cancel"):
            continue
        return name
    return None


def fragment_type(v: Any) -> str | None:
    """The MCP schema type a bare object (not a JSON-RPC message) is recognisably of."""
    if type(v) is not dict or not v or is_message(v):
        return None
    keys = v.keys()
    code = v.get("code")
    if keys <= {"code", "message", "data"} and type(code) is int and -32768 <= code <= -32000:
        return "Error"
    block = _BLOCKS.get(v.get("type"))  # type: ignore[arg-type]
    if block is not None:
        name, need, may = block
        if need <= keys <= need | may | {"type", "_meta"}:
            return name
    if v.get("type") in ("string", "number", "integer", "boolean", "array") \
            and keys <= _SCHEMA_KEYS and len(keys) > 1:
        t = v["type"]
        if t == "array":
            return "MultiSelectEnumSchema" if "items" in v else None
        if t == "string" and ("enum" in v or "oneOf" in v):
            return "EnumSchema"
        return {"string": "StringSchema", "boolean": "BooleanSchema"}.get(t, "NumberSchema")
    if keys <= _ALL_CAPS and all(type(x) is dict for x in v.values()):
        if keys & _CLIENT_CAPS:
            return "ClientCapabilities"
        return "ServerCapabilities" if keys & _SERVER_CAPS else "Capabilities"
    if v.get("resultType") == "input_required":
        return "InputRequiredResult"
    keyed = _keyed(v)
    if keyed is not None:
        return keyed
    if "resultType" in keys:
        return "Result"
    inner = list(v.values())
    if all(type(x) is dict for x in inner):
        if all(isinstance(x.get("method"), str) and is_message(x) for x in inner):
            return "InputRequests"
        if all(_keyed(x) in ("ElicitResult", "CreateMessageResult") for x in inner):
            return "InputResponses"
    return None


def container(doc: Any) -> str | None:
    """Which recording a whole document is: ``cassette`` (messages with payloads),
    ``recorder`` (paired interactions), ``header`` / ``frame`` (a cassette line),
    ``list`` (a list of such), ``message``, or None."""
    if type(doc) is list:
        first = doc[0] if doc else None
        if type(first) is dict and ("payload" in first or "frame" in first or is_message(first)):
            return "list"
        if type(first) is list and first and is_message(first[0]):
            return "list"  # a JSON-RPC batch first
        return None
    if type(doc) is not dict:
        return None
    msgs = doc.get("messages")
    if isinstance(msgs, list) and msgs and type(msgs[0]) is dict and "payload" in msgs[0]:
        return "cassette"
    inter = doc.get("interactions")
    if isinstance(inter, list) and inter and type(inter[0]) is dict and (
            inter[0].get("type") in _RECORDED
            or is_message(inter[0].get("request"), strict=True)
            or is_message(inter[0].get("response"), strict=True)):
        return "recorder"
    if doc.get("type") == "header" and "cassetteVersion" in doc:
        return "header"
    if doc.get("type") == "frame" and doc.get("dir") in ("c2s", "s2c"):
        return "frame"
    return "message" if is_message(doc) else None


_SCORES = {"cassette": 95, "recorder": 95, "header": 95, "frame": 95}
_TOP_ENVELOPE = re.compile(rb'^\s*\[?\s*\{[^{}\[\]]*"jsonrpc"\s*:\s*"2\.0"')
_CASSETTE = re.compile(rb'"payload"\s*:\s*\{\s*"jsonrpc"\s*:\s*"2\.0"')
_RECORDER = re.compile(rb'"interactions"\s*:\s*\[\s*\{\s*"type"\s*:\s*"(jsonrpc_request|'
                       rb'notification|lifecycle)"')


def _score(doc: Any, whole: bool) -> int:
    kind = container(doc)
    if kind in _SCORES:
        return _SCORES[kind]
    if kind == "list":
        first = doc[0]
        if type(first) is list:
            first = first[0]
        if type(first) is dict and ("payload" in first or "frame" in first):
            return 90
        return 90 if is_message(first, strict=True) else 50
    if kind == "message":
        return (90 if whole else 85) if is_message(doc, strict=True) else 50
    if whole and fragment_type(doc) is not None:
        return 45
    return 0


def sniff_head(head: bytes) -> int:
    """How sure (0-100) the first bytes of a file are MCP."""
    text = head.removeprefix(b"\xef\xbb\xbf").strip()
    if text[:1] not in (b"{", b"["):
        return 0
    try:
        return _score(loads(text), whole=True)
    except JSONDecodeError:
        pass
    first = text.split(b"\n", 1)[0]
    try:
        return _score(loads(first), whole=False)  # JSON lines
    except JSONDecodeError:
        pass
    if _CASSETTE.search(text) or _RECORDER.search(text):
        return 90  # a recording too large for the head, or cut short
    return 80 if _TOP_ENVELOPE.match(text) else 0
