"""Adapter ``mcp``: Model Context Protocol JSON-RPC traffic.

Reads session recordings (mcp-cassette JSON ``{messages: [{sender, t_offset_ms,
payload}]}``, mcp-cassette JSONL ``{type: header}`` + ``{t, dir, frame}`` lines,
mcp-recorder ``{metadata, interactions: [{request, response, latency_ms}]}``), plain
lists or JSON lines of JSON-RPC messages, a single JSON-RPC message, and the bare MCP
objects of the specification's examples (one ``message`` event named by the object's
type). What MCP looks like is ``_mcpshape``; requests and responses pair by direction
and ``id`` in any order in ``_mcpsession``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...model import InvalidTraceError, JSONDecodeError, loads
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import iter_json_lines, load_document, parse_time_ns
from .._pairing import derived_id
from ._session import Session
from ._shape import container, fragment_type, sniff_head

__all__ = ["MCP", "McpAdapter"]

_SENDER = {"client": "c2s", "server": "s2c"}
_RECORD_KEYS = ("seq", "kind", "sender", "method", "msg_id", "payload", "t_offset_ms",
                "timestamp", "t", "dir", "frame", "type")


class McpAdapter:
    """MCP session recordings, JSON-RPC message logs and MCP spec example objects."""

    name = "mcp"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        return sniff_head(source.head)

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        with malformed(source, "the MCP recording"):
            session = _read(source)
        events, info = session.finish()
        if not events:
            raise InvalidTraceError(f"{source.display}: no MCP messages in the file",
                                    file=source.display,
                                    hint="an MCP file holds JSON-RPC messages, a session "
                                         "recording of them, or an MCP object")
        yield info
        yield from events


MCP = McpAdapter()


def _jsonl(head: bytes) -> bool:
    """A JSON lines file: the first line is a whole cassette line or message, and more
    lines follow."""
    lines = [ln for ln in head.removeprefix(b"\xef\xbb\xbf").split(b"\n") if ln.strip()]
    if len(lines) < 2:
        return False
    try:
        first = loads(lines[0])
    except JSONDecodeError:
        return False
    return container(first) in ("header", "frame", "message")


def _trace_id(source: SourceFile, meta: dict[str, Any]) -> str:
    sid = meta.get("session_id") or meta.get("sessionId")
    return sid if isinstance(sid, str) and sid else derived_id(source.sha256, "mcp")


def _read(source: SourceFile) -> Session:
    if _jsonl(source.head):
        return _read_lines(source)
    doc = load_document(source)
    kind = container(doc)
    if kind == "recorder":
        return _read_recorder(source, doc)
    meta: dict[str, Any] = {}
    if kind == "cassette":
        meta = {k: v for k, v in doc.items() if k != "messages" and v is not None}
        items: list[Any] = doc["messages"]
    elif kind == "header":
        meta, items = {k: v for k, v in doc.items() if k != "type"}, []
    elif kind in ("list", "frame", "message"):
        items = doc if kind == "list" else [doc]
    else:
        s = Session(_trace_id(source, {}), source)
        name = fragment_type(doc)
        if name is None:
            raise InvalidTraceError(
                f"{source.display}: not an MCP file: expected JSON-RPC messages, a session "
                "recording or an MCP object", file=source.display)
        s.fragment(name, doc)
        return s
    s = Session(_trace_id(source, meta), source)
    s.meta(meta)
    base = parse_time_ns(meta.get("recorded_at") or meta.get("startedAt"))
    for n, item in enumerate(items):
        _record(s, n, item, base, f"message {n}")
    return s


def _read_lines(source: SourceFile) -> Session:
    s: Session | None = None
    base: int | None = None
    n = 0
    for line, obj in iter_json_lines(source):
        if type(obj) is dict and container(obj) == "header":
            meta = {k: v for k, v in obj.items() if k != "type"}
            if s is None:
                s = Session(_trace_id(source, meta), source)
            s.meta(meta)
            base = parse_time_ns(obj.get("startedAt"))
            continue
        if s is None:
            s = Session(_trace_id(source, {}), source)
        _record(s, n, obj, base, f"line {line}")
        n += 1
    return s or Session(_trace_id(source, {}), source)


def _record(s: Session, n: int, item: Any, base: int | None, where: str) -> None:
    """One recorded message: a cassette record, a ``{t, dir, frame}`` line, or the
    JSON-RPC message itself."""
    if type(item) is dict and ("payload" in item or "frame" in item):
        msg = item.get("payload", item.get("frame"))
        direction = item.get("dir") or _SENDER.get(str(item.get("sender")))
        extra = {f"mcp.{k}": v for k, v in item.items()
                 if k not in _RECORD_KEYS and v is not None and v is not False}
        off = item.get("t_offset_ms", item.get("t"))  # ms since the recording started
        t = parse_time_ns(item.get("timestamp"))
        if isinstance(off, int | float) and not isinstance(off, bool):
            extra["mcp.t_ms"] = off
            if base is not None:
                t = base + int(off * 1_000_000)
            elif off > 10**11:  # an epoch time in ms, not an offset
                t = parse_time_ns(off)
        s.message(f"m{n}", direction if direction in ("c2s", "s2c") else None, msg, t, extra,
                  where)
    else:
        s.message(f"m{n}", None, item, None, {}, where)


def _read_recorder(source: SourceFile, doc: dict[str, Any]) -> Session:
    meta = doc.get("metadata")
    meta = dict(meta) if type(meta) is dict else {}
    if doc.get("version") is not None:
        meta["version"] = doc["version"]
    s = Session(_trace_id(source, meta), source)
    s.meta(meta)
    for i, it in enumerate(doc["interactions"]):
        where = f"interaction {i}"
        if type(it) is not dict:
            raise InvalidTraceError(f"{source.display}: {where} is not an object",
                                    file=source.display)
        extra = {f"mcp.{k}": it[k] for k in ("latency_ms", "response_is_sse")
                 if it.get(k) is not None}
        status = it.get("response_status")
        if isinstance(status, int) and not isinstance(status, bool):
            extra["mcp.http_status"] = status
        req, resp = it.get("request"), it.get("response")
        if req is None and resp is None:
            s.http(f"i{i}", it.get("http_method"), it.get("http_path"), status, extra,
                   meta.get("server_url"))
            continue
        ev = s.message(f"i{i}", "c2s", req, None, extra, where) if req is not None else None
        if resp is not None:
            s.message(f"i{i}-response", "s2c", resp, None, extra if ev is None else {}, where)
        elif ev is not None and isinstance(status, int) and status >= 400:
            s.http_failure(ev, status)
    return s
