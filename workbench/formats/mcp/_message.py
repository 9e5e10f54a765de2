"""What one MCP message puts on its event: a ``tools/call`` request's arguments, a
``CallToolResult`` or ``CreateMessageResult`` answering it, a JSON-RPC error, and a
transport-level HTTP exchange. No state: pairing and parents are ``_mcpsession``'s.
"""

from __future__ import annotations

import http
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .._adapter import RawEvent
from .._decode import maybe_json
from .._pairing import add_flag

__all__ = ["http_error", "http_exchange", "rpc_error", "sampling_result", "tool_error",
           "tool_request", "tool_result"]


def tool_error(content: Any) -> dict[str, Any]:
    """The event's ``error`` for a CallToolResult with ``isError``: its texts."""
    texts = [b["text"] for b in content if type(b) is dict and isinstance(b.get("text"), str)] \
        if isinstance(content, list) else []
    return {"message": "\n".join(texts) or "the tool reported an error"}


def rpc_error(err: Any) -> dict[str, Any]:
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


def tool_request(ev: RawEvent, params: dict[str, Any]) -> None:
    """A ``tools/call`` request's params onto its ``tool_call`` event."""
    name = params.get("name")
    ev.args = maybe_json(params.get("arguments"))
    rest = {k: v for k, v in params.items() if k not in ("name", "arguments", "_meta")}
    if rest:
        ev.attrs["mcp.params"] = rest
    if not isinstance(name, str) or not name:
        add_flag(ev, "malformed")
        ev.attrs["mcp.problem"] = "tools/call without params.name"


def tool_result(ev: RawEvent, r: Any) -> None:
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
        ev.status, ev.error = "error", tool_error(content)


def sampling_result(ev: RawEvent, r: Any) -> None:
    """A CreateMessageResult onto an ``llm_call`` event."""
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


def http_exchange(ev: RawEvent, method: Any, path: Any, status: Any, server: Any) -> None:
    """A transport-level HTTP exchange with no JSON-RPC body onto an ``http`` event."""
    method, path = str(method or "").upper(), str(path or "")
    parts = urlsplit(path)
    ev.name = f"{method} {parts.path}".strip()
    query = {k: v[0] if len(v) == 1 else v for k, v in parse_qs(parts.query).items()}
    ev.args = {"method": method, "path": parts.path, "query": query}
    if isinstance(server, str) and server:
        ev.args["url"] = server.rstrip("/") + path
    if isinstance(status, int) and not isinstance(status, bool):
        ev.result = {"status": status}
        ev.status = "ok" if status < 400 else "error"
        if status >= 400:
            ev.error = http_error(status)


def http_error(status: int) -> dict[str, Any]:
    """The event's ``error`` for an HTTP status the transport refused a message with."""
    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = f"HTTP {status}"
    return {"code": f"HTTP_{status}", "message": reason}
