"""One MCP recording's messages, in recording order, become the events of one trace.

Requests and responses pair by direction and JSON-RPC ``id`` in any order (a response
answers the open request the other side sent with its id); progress tokens and related
request ids make parents; ``initialize`` and ``tools/list`` fill the trace's versions and
tools. What each message puts on its event is ``_mcpmsg``'s.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

from ...model import InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo
from .._pairing import UNMATCHED, CallPairer, add_flag
from ._message import (
    http_error,
    http_exchange,
    rpc_error,
    sampling_result,
    tool_error,
    tool_request,
    tool_result,
)
from ._shape import fragment_type

__all__ = ["Session"]

_OTHER = {"c2s": "s2c", "s2c": "c2s", None: None}
_RELATED = ("relatedRequestId", "io.modelcontextprotocol/relatedRequestId")


def _key(v: Any) -> Hashable:
    """A JSON-RPC id as a dict key: ``1`` and ``"1"`` stay different ids."""
    return (type(v).__name__, v) if isinstance(v, int | str | float) else json.dumps(v)


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
            ev.status, ev.error = "error", rpc_error(obj)
        elif type_name == "CallToolResult" and obj.get("isError") is True:
            ev.status, ev.error = "error", tool_error(obj.get("content"))
        elif type_name == "Tool":
            self.add_tools([obj])
        elif type_name == "ListToolsResult":
            self.add_tools(obj.get("tools"))

    def http(self, eid: str, method: Any, path: Any, status: Any, attrs: dict[str, Any],
             server: Any) -> None:
        """A transport-level HTTP exchange with no JSON-RPC body (a lifecycle entry)."""
        http_exchange(self._new(eid, "http", "", None, attrs), method, path, status, server)

    def http_failure(self, ev: RawEvent, status: int) -> None:
        """The transport refused the request ``ev``: it fails and awaits no response."""
        for key in [k for k, e in self.sent.items() if e is ev]:
            if self.open.peek(key) is ev:
                self.open.close(key)
        ev.status, ev.error = "error", http_error(status)

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
            tool_request(ev, params)
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
            ev.status, ev.error = "error", rpc_error(msg["error"])
            return ev
        if ev.kind == "tool_call":
            tool_result(ev, result)
        elif ev.kind == "llm_call":
            sampling_result(ev, result)
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
