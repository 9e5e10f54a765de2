"""Adapter ``har``: HTTP Archive 1.2 files (browser DevTools, mitmproxy, Charles, …).

``{"log": {"version", "creator", "pages", "entries": [...]}}``: each entry becomes one
``http`` event named ``entry-<index>`` (0-based, in file order), in one trace per file
(an id derived from the file's content; ``pageref`` is kept in ``attrs``). Bodies come
from ``request.postData`` and ``response.content`` (base64 decoded when the content says
so; Polly.js bodies written as JSON arrays of hex or base64 chunks are joined and
inflated per ``content-encoding``: ``_polly_bytes``); see ``_http`` for the shape. An
entry whose response never came (no ``response``,
or status 0 as mitmproxy and Chrome write it) is kept and flagged ``unanswered``: an
``error`` with code ``NO_RESPONSE`` when the file says why (``_error``), else ``unset``.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from typing import Any

from ...model import InvalidTraceError, JSONDecodeError, loads
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import load_document, parse_time_ns
from .._pairing import derived_id
from ._exchange import (
    NO_BODY,
    Body,
    Request,
    Response,
    decode_base64,
    decode_body,
    header,
    http_event,
    model_facts,
    multi_dict,
)

__all__ = ["HAR", "HarAdapter"]

_LOG = re.compile(rb'"log"\s*:\s*\{')
_ENTRIES = re.compile(rb'"entries"\s*:\s*\[')
_CREATOR = re.compile(rb'"creator"\s*:\s*\{')

_ENTRY_USED = frozenset({"startedDateTime", "time", "request", "response"})
_REQUEST_USED = frozenset({"method", "url", "headers", "queryString", "postData"})
_RESPONSE_USED = frozenset({"status", "headers", "content"})
_HINT = 'a HAR file is {"log": {"version": "1.2", "creator": {...}, "entries": [...]}}'


class HarAdapter:
    """HAR 1.2 ``log.entries``."""

    name = "har"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _LOG.search(head) is None:
            return 0
        entries, creator = _ENTRIES.search(head), _CREATOR.search(head)
        if entries and creator:
            return 95
        return 70 if entries or creator else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        log = doc.get("log") if type(doc) is dict else None
        entries = log.get("entries") if type(log) is dict else None
        if type(log) is not dict or not isinstance(entries, list):
            raise InvalidTraceError(f"{source.display}: not a HAR file: no log.entries list",
                                    file=source.display, hint=_HINT)
        if not entries:
            raise InvalidTraceError(f"{source.display}: no entries in the file",
                                    file=source.display, hint=_HINT)
        tid = derived_id(source.sha256, "har")
        events = [_entry(e, i, tid, source) for i, e in enumerate(entries)]
        yield _info(log, tid, events)
        yield from events


HAR = HarAdapter()


def _pairs(items: Any) -> list[tuple[Any, Any]]:
    if not isinstance(items, list):
        return []
    return [(p["name"], p.get("value")) for p in items if type(p) is dict and "name" in p]


def _keep(v: Any) -> bool:
    return v not in (None, "", [], {}, -1)


def _extra(prefix: str, obj: dict[str, Any], used: frozenset[str]) -> dict[str, Any]:
    return {f"{prefix}{k}": v for k, v in obj.items() if k not in used and _keep(v)}


def _entry(e: Any, i: int, tid: str, source: SourceFile) -> RawEvent:
    req = e.get("request") if type(e) is dict else None
    if type(req) is not dict or not isinstance(req.get("url"), str):
        raise InvalidTraceError(f"{source.display}: entry {i} has no request with a url",
                                file=source.display, entry=i, hint=_HINT)
    with malformed(source, f"entry {i}", entry=i, hint=_HINT):
        return _event(e, req, i, tid)


def _event(e: dict[str, Any], req: dict[str, Any], i: int, tid: str) -> RawEvent:
    headers = multi_dict(_pairs(req.get("headers")), lower=True)
    query = multi_dict(_pairs(req.get("queryString"))) or None
    attrs = _extra("har.", e, _ENTRY_USED)
    attrs.update(_extra("har.request.", req, _REQUEST_USED))
    request = Request(method=str(req.get("method") or "GET"), url=req["url"],
                      headers=headers, body=_post_data(req.get("postData"), headers),
                      query=query)
    resp = e.get("response")
    response: Response | None = None
    why: str | None = None
    if type(resp) is dict:
        status = resp.get("status")
        if isinstance(status, int | float) and not isinstance(status, bool) and status > 0:
            rh = multi_dict(_pairs(resp.get("headers")), lower=True)
            response = Response(status=int(status), reason=str(resp.get("statusText") or ""),
                                headers=rh, body=_content(resp.get("content"), rh))
            attrs.update(_extra("har.response.", resp, _RESPONSE_USED))
        else:
            err = resp.get("_error")
            why = err if isinstance(err, str) and err.strip() else None
            attrs.update(_extra("har.response.", resp, _RESPONSE_USED | {"_error"}))
        content = resp.get("content")
        if type(content) is dict:
            attrs.update(_extra("har.response.content.", content,
                                frozenset({"text", "encoding"})))
    start = parse_time_ns(e.get("startedDateTime"))
    took = e.get("time")
    end = None
    if start is not None and isinstance(took, int | float) and not isinstance(took, bool) \
            and took >= 0:
        end = start + round(took * 1_000_000)
    return http_event(tid, f"entry-{i}", request, response, start_ns=start, end_ns=end,
                      attrs=attrs, no_response=why)


def _post_data(post: Any, headers: dict[str, Any]) -> Body:
    if type(post) is not dict:
        return NO_BODY
    ctype = post.get("mimeType") if isinstance(post.get("mimeType"), str) else ""
    text = post.get("text")
    if isinstance(text, str) and text:
        ctype = ctype or header(headers, "content-type")
        raw = _polly_bytes(post, text)
        if raw is not None:
            return _wire_body(raw, ctype, header(headers, "content-encoding"))
        return decode_body(text, ctype)
    params = multi_dict(_pairs(post.get("params")))
    return Body(params, True) if params else NO_BODY


def _content(content: Any, headers: dict[str, Any]) -> Body:
    if type(content) is not dict or not isinstance(content.get("text"), str):
        return NO_BODY
    ctype = content.get("mimeType") if isinstance(content.get("mimeType"), str) else ""
    ctype = ctype or header(headers, "content-type")
    text = content["text"]
    raw = _polly_bytes(content, text)
    if raw is not None:
        return _wire_body(raw, ctype, header(headers, "content-encoding"))
    if content.get("encoding") == "base64":
        raw = decode_base64(text)
        if raw is not None:
            return decode_body(raw, ctype)  # HAR content is already decompressed
    return decode_body(text, ctype)


def _polly_bytes(content: dict[str, Any], text: str) -> bytes | None:
    """The bytes of a body Polly.js recorded as chunks: ``_isBinary: true`` (Polly up to
    5) or ``encoding: "hex"`` with ``text`` a JSON array of hex chunks, or
    ``encoding: "base64"`` with a JSON array of base64 chunks (Polly 6). None when the
    body is not written so (or a chunk does not decode)."""
    encoding = content.get("encoding")
    hex_chunks = content.get("_isBinary") is True or encoding == "hex"
    if not hex_chunks and not (encoding == "base64" and text.lstrip().startswith("[")):
        return None
    try:
        chunks = loads(text) if text.lstrip().startswith("[") else [text]
    except JSONDecodeError:
        return None
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        return None
    try:
        if hex_chunks:
            return b"".join(binascii.unhexlify(c) for c in chunks)
        parts = [decode_base64(c) for c in chunks]
    except (binascii.Error, ValueError):
        return None
    return None if any(p is None for p in parts) else b"".join(p for p in parts if p)


def _wire_body(raw: bytes, ctype: str, encoding: str) -> Body:
    """Bytes as they crossed the wire (Polly keeps them compressed): inflated when
    ``content-encoding`` says gzip or deflate and they are so compressed, then typed."""
    enc = encoding.strip().lower()
    if enc in ("gzip", "x-gzip") and raw[:2] == b"\x1f\x8b":
        return decode_body(raw, ctype, enc)
    if enc == "deflate" and len(raw) > 1 and raw[0] & 0x0F == 8 \
            and (raw[0] << 8 | raw[1]) % 31 == 0:
        return decode_body(raw, ctype, enc)
    return decode_body(raw, ctype)


def _info(log: dict[str, Any], tid: str, events: list[RawEvent]) -> TraceInfo:
    versions: dict[str, Any] = {}
    if _keep(log.get("version")):
        versions["har"] = log["version"]
    for key in ("creator", "browser"):
        tool = log.get(key)
        if type(tool) is dict and tool.get("name"):
            versions[key] = " ".join(str(tool[k]) for k in ("name", "version") if tool.get(k))
    attrs: dict[str, Any] = {}
    if isinstance(log.get("pages"), list) and log["pages"]:
        attrs["har.pages"] = log["pages"]
    if _keep(log.get("comment")):
        attrs["har.comment"] = log["comment"]
    task, tools = model_facts(events)
    return TraceInfo(trace_id=tid, root_task=task, tools=tools, versions=versions, attrs=attrs)
