"""What MCP traffic looks like and how it becomes events.

- Shapes: JSON-RPC messages, the recording containers, and the bare MCP objects (a
  ``Tool``, a ``CallToolResult``, a content block …) of the specification's examples,
  recognised by their keys (``fragment_type``), for detection and for naming fragments.
- ``Session``: the messages of one recording, in recording order, become events;
  requests and responses pair by direction and ``id``.
"""

from __future__ import annotations

import http
import json
import re
from collections.abc import Hashable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..model import InvalidTraceError, JSONDecodeError, loads
from ._decode import maybe_json
from ._pairing import UNMATCHED, CallPairer, add_flag
from ._source import RawEvent, SourceFile, TraceInfo

__all__ = ["Session", "container", "fragment_type", "is_message", "sniff_head"]

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


# -- one session

_OTHER = {"c2s": "s2c", "s2c": "c2s", None: None}
_RELATED = ("relatedRequestId", "io.modelcontextprotocol/relatedRequestId")


def _key(v: Any) -> Hashable:
    """A JSON-RPC id as a dict key: ``1`` and ``"1"`` stay different ids."""
    return (type(v).__name__, v) if isinstance(v, int | str | float) else json.dumps(v)


def _text(content: Any) -> str | None:
    if isinstance(content, list):
        texts = [b["text"] for b in content if type(b) is dict and isinstance(b.get("text"), str)]
        return "\n".join(texts) if texts else None
    return None


def _tool_result(ev: RawEvent, r: Any) -> None:
    """A CallToolResult onto a ``tool_call`` event."""
    ev.status = "ok"
    if type(r) is not dict:
        ev.result = maybe_json(r)
        return
    content = r.get("content")
    if "content" in r:
        ev.attrs["mcp.content"] = content
    if "structuredContent" in r:
        ev.result = r["structuredContent"]
    elif isinstance(content, list) and len(content) == 1 and type(content[0]) is dict \
            and content[0].get("type") == "text":
        ev.result = maybe_json(content[0].get("text"))
    else:
        ev.result = content
    rest = {k: v for k, v in r.items() if k not in ("content", "structuredContent", "isError")}
    if rest:
        ev.attrs["mcp.result_fields"] = rest
    if r.get("isError") is True:
        ev.status = "error"
        ev.error = {"message": _text(content) or "the tool reported an error"}


def _sampling_result(ev: RawEvent, r: Any) -> None:
    ev.status = "ok"
    if type(r) is not dict:
        ev.result = r
        return
    ev.result = {"messages": [r]}
    if isinstance(r.get("model"), str):
        ev.name = r["model"]
        ev.attrs["gen_ai.response.model"] = r["model"]
    if r.get("stopReason") is not None:
        ev.result["finish_reasons"] = [r["stopReason"]]


class Session:
    """Events of one trace, buffered until the whole file has been read."""

    def __init__(self, trace_id: str, source: SourceFile) -> None:
        self.trace_id = trace_id
        self.source = source
        self.events: list[RawEvent] = []
        self.open = CallPairer()
        self.methods: dict[str, str] = {}  # event id -> method of its request
        self.sent: dict[Hashable, RawEvent] = {}  # (direction, id) -> latest request
        self.tokens: dict[Hashable, RawEvent] = {}  # (direction, progress token) -> request
        self.info = TraceInfo(trace_id)

    # -- trace level

    def meta(self, meta: dict[str, Any]) -> None:
        if meta:
            self.info.attrs.setdefault("mcp", {}).update(meta)
        if isinstance(meta.get("protocol_version"), str):
            self.info.versions.setdefault("mcp.protocol_version", meta["protocol_version"])
        if type(meta.get("server_info")) is dict:
            self.info.versions.setdefault("mcp.server", meta["server_info"])

    def add_tools(self, tools: Any) -> None:
        for t in tools if isinstance(tools, list) else []:
            if t not in self.info.tools:
                self.info.tools.append(t)

    def finish(self) -> tuple[list[RawEvent], TraceInfo]:
        list(self.open.unanswered())  # flags them; they stay where they are
        return self.events, self.info

    # -- events

    def _new(self, eid: str, kind: str, name: str, t: int | None,
             attrs: dict[str, Any]) -> RawEvent:
        ev = RawEvent(self.trace_id, eid, None, kind, name, start_ns=t, attrs=dict(attrs))
        self.events.append(ev)
        return ev

    def fragment(self, type_name: str, obj: Any) -> None:
        """A bare MCP object: one ``message`` event holding it."""
        ev = self._new("m0", "message", type_name, None, {"mcp.fragment": type_name})
        ev.result = obj  # status unset, as for every message event
        if type_name == "Error":
            ev.status, ev.error = "error", _error(obj)
        elif type_name == "CallToolResult" and obj.get("isError") is True:
            ev.status = "error"
            ev.error = {"message": _text(obj.get("content")) or "the tool reported an error"}
        elif type_name == "Tool":
            self.add_tools([obj])
        elif type_name == "ListToolsResult":
            self.add_tools(obj.get("tools"))

    def http(self, eid: str, method: Any, path: Any, status: Any, attrs: dict[str, Any],
             server: Any) -> None:
        """A transport-level HTTP exchange with no JSON-RPC body (a lifecycle entry)."""
        method, path = str(method or "").upper(), str(path or "")
        parts = urlsplit(path)
        ev = self._new(eid, "http", f"{method} {parts.path}".strip(), None, attrs)
        query = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(parts.query).items()}
        ev.args = {"method": method, "path": parts.path, "query": query}
        if isinstance(server, str) and server:
            ev.args["url"] = server.rstrip("/") + path
        if isinstance(status, int) and not isinstance(status, bool):
            ev.result = {"status": status}
            ev.status = "ok" if status < 400 else "error"
            if status >= 400:
                self.http_failure(ev, status)

    def http_failure(self, ev: RawEvent, status: int) -> None:
        try:
            reason = http.HTTPStatus(status).phrase
        except ValueError:
            reason = f"HTTP {status}"
        for key in [k for k, e in self.sent.items() if e is ev]:  # the transport refused it
            if self.open.peek(key) is ev:
                self.open.close(key)
        ev.status, ev.error = "error", {"code": f"HTTP_{status}", "message": reason}

    def message(self, eid: str, direction: str | None, msg: Any, t: int | None,
                attrs: dict[str, Any], where: str) -> RawEvent | None:
        """One JSON-RPC message (or a batch of them); the event it opened or completed."""
        if isinstance(msg, list) and msg:  # a JSON-RPC batch
            last = None
            for i, m in enumerate(msg):
                last = self.message(f"{eid}.{i}", direction, m, t, attrs, where)
            return last
        if type(msg) is not dict:
            raise InvalidTraceError(f"{self.source.display}: {where} is not a JSON-RPC object",
                                    file=self.source.display,
                                    hint="every MCP message is a JSON object")
        attrs = {**attrs, **({"mcp.direction": direction} if direction else {})}
        method = msg.get("method")
        if isinstance(method, str):
            # no id: a notification, unless a spec example left out both id and jsonrpc
            if msg.get("id") is None and (msg.get("jsonrpc") == "2.0"
                                          or method.startswith("notifications/")):
                return self._notification(eid, direction, method, msg, t, attrs)
            return self._request(eid, direction, method, msg, t, attrs)
        if "result" in msg or "error" in msg:
            return self._response(eid, direction, msg, t, attrs)
        raise InvalidTraceError(
            f"{self.source.display}: {where} is neither a JSON-RPC request, response nor "
            "notification", file=self.source.display,
            hint="a message has a method (request, notification) or a result/error")

    def _request(self, eid: str, direction: str | None, method: str, msg: dict[str, Any],
                 t: int | None, attrs: dict[str, Any]) -> RawEvent:
        params = msg.get("params")
        params = params if type(params) is dict else ({} if params is None else {"": params})
        meta = params.get("_meta")
        attrs = {**attrs, "mcp.method": method, "mcp.jsonrpc_id": msg.get("id")}
        if meta is not None:
            attrs["mcp.meta"] = meta
        body = {k: v for k, v in params.items() if k != "_meta"} or None
        if method == "tools/call":
            name = params.get("name")
            ev = self._new(eid, "tool_call", name if isinstance(name, str) else "", t, attrs)
            ev.args = maybe_json(params.get("arguments"))
            rest = {k: v for k, v in params.items() if k not in ("name", "arguments", "_meta")}
            if rest:
                ev.attrs["mcp.params"] = rest
            if not isinstance(name, str) or not name:
                add_flag(ev, "malformed")
                ev.attrs["mcp.problem"] = "tools/call without params.name"
        elif method == "sampling/createMessage":
            ev = self._new(eid, "llm_call", "assistant", t, attrs)
            ev.args = body
        else:
            ev = self._new(eid, "other", method, t, attrs)
            ev.args = body
        if method == "initialize" and type(params.get("clientInfo")) is dict:
            self.info.versions.setdefault("mcp.client", params["clientInfo"])
        if type(meta) is dict:
            parent = None
            if meta.get("progressToken") is not None:
                token = _key(meta["progressToken"])
                parent = self._open_parent(self.tokens.get((_OTHER[direction], token)))
                self.tokens[(direction, token)] = ev
            for k in _RELATED:
                if parent is None and meta.get(k) is not None:
                    parent = self._open_parent(self.open.peek((_OTHER[direction],
                                                               _key(meta[k]))))
            ev.parent_id = parent
        # a request with no id (spec examples leave it out) can never be answered
        key = (direction, _key(msg["id"]) if msg.get("id") is not None else ("no id", eid))
        self.open.open(key, ev)
        self.sent[key] = ev
        self.methods[eid] = method
        return ev

    def _open_parent(self, ev: RawEvent | None) -> str | None:
        return ev.event_id if ev is not None and ev.status == "unset" else None

    def _notification(self, eid: str, direction: str | None, method: str,
                      msg: dict[str, Any], t: int | None, attrs: dict[str, Any]) -> RawEvent:
        ev = self._new(eid, "message", method, t, {**attrs, "mcp.method": method})
        ev.end_ns, ev.result = t, msg.get("params")
        params = msg.get("params")
        if type(params) is dict:
            target = None
            if method == "notifications/progress" and params.get("progressToken") is not None:
                target = self.tokens.get((_OTHER[direction], _key(params["progressToken"])))
            elif method == "notifications/cancelled" and params.get("requestId") is not None:
                target = self.sent.get((direction, _key(params["requestId"])))
            ev.parent_id = target.event_id if target is not None else None
        return ev

    def _response(self, eid: str, direction: str | None, msg: dict[str, Any], t: int | None,
                  attrs: dict[str, Any]) -> RawEvent:
        ev = self.open.close((_OTHER[direction], _key(msg.get("id"))))
        method = self.methods.get(ev.event_id) if ev is not None else None
        result = msg.get("result")
        if ev is None:
            ev = self._unmatched(eid, msg, t, attrs)
            add_flag(ev, UNMATCHED)
        else:
            ev.end_ns = t
            for k, v in attrs.items():  # what the recording says about the response
                if k != "mcp.direction":
                    ev.attrs["mcp.response." + k.removeprefix("mcp.")] = v
        if "error" in msg:
            ev.status, ev.error = "error", _error(msg["error"])
            return ev
        if ev.kind == "tool_call":
            _tool_result(ev, result)
        elif ev.kind == "llm_call":
            _sampling_result(ev, result)
        else:
            ev.result, ev.status = result, "ok"
        if type(result) is dict:
            if method == "tools/list" or (method is None and "tools" in result):
                self.add_tools(result.get("tools"))
            if method == "initialize":
                if isinstance(result.get("protocolVersion"), str):
                    self.info.versions["mcp.protocol_version"] = result["protocolVersion"]
                if type(result.get("serverInfo")) is dict:
                    self.info.versions["mcp.server"] = result["serverInfo"]
        return ev

    def _unmatched(self, eid: str, msg: dict[str, Any], t: int | None,
                   attrs: dict[str, Any]) -> RawEvent:
        attrs = {**attrs, "mcp.jsonrpc_id": msg.get("id")}
        if "error" in msg:
            ev = self._new(eid, "error", "error", t, attrs)
        else:
            shape = fragment_type(msg.get("result"))
            kind = {"CallToolResult": "tool_call", "CreateMessageResult": "llm_call"}.get(
                shape or "", "other")
            name = {"tool_call": "", "llm_call": "assistant"}.get(kind, shape or "response")
            ev = self._new(eid, kind, name, t, attrs)
        ev.end_ns = t
        return ev


def _error(err: Any) -> dict[str, Any]:
    """A JSON-RPC error object as the event's ``error``."""
    if type(err) is not dict:
        return {"message": str(err)}
    out: dict[str, Any] = {}
    if err.get("code") is not None:
        out["code"] = err["code"]
    out["message"] = err.get("message") if isinstance(err.get("message"), str) \
        else str(err.get("message", ""))
    if err.get("data") is not None:
        out["details"] = err["data"]
    return out
