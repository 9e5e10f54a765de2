"""Adapter ``vcr``: VCR.py cassettes (YAML, or the JSON serializer's output), and Ruby
VCR cassettes (``http_interactions``).

``{interactions: [{request: {method, uri, body, headers}, response: {status: {code,
message}, headers, body: {string}}}], version}``: each interaction becomes one ``http``
event named ``interaction-<index>`` (0-based), in one trace per file (an id derived from
the file's content). Headers are maps of lists. Bodies are text, or bytes (YAML
``!!binary``): gzip/deflate bodies are inflated when ``content-encoding`` says so, other
bytes that are not UTF-8 become a placeholder flagged ``binary_body``. Event streams are
parsed and OpenAI streams stitched (see ``_httpsse``). VCR.py records no times; Ruby
VCR's ``recorded_at`` becomes ``start_ns``.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
from collections.abc import Iterator
from typing import Any

from ...model import InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import load_document, load_yaml
from .._pairing import derived_id
from ._exchange import (
    Body,
    Request,
    Response,
    decode_body,
    header,
    http_event,
    model_facts,
    multi_dict,
)

__all__ = ["VCR", "VcrAdapter"]

_YAML_TOP = re.compile(rb"^(?:http_)?interactions:[ \t]*$", re.M)
_YAML_REQUEST = re.compile(rb"^[ \t]*-[ \t]+request:[ \t]*$", re.M)
_YAML_RESPONSE = re.compile(rb"^[ \t]+response:[ \t]*$", re.M)
_JSON_TOP = re.compile(rb'"(?:http_)?interactions"\s*:\s*\[')
_JSON_URI = re.compile(rb'"uri"\s*:\s*"')
_PACT = re.compile(rb'"consumer"\s*:')

_USED = frozenset({"request", "response", "recorded_at"})
_HINT = "a VCR cassette is YAML: interactions: [{request: {...}, response: {...}}]"


class VcrAdapter:
    """VCR.py / Ruby VCR cassettes."""

    name = "vcr"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if head.lstrip()[:1] in (b"{", b"["):
            if _JSON_TOP.search(head) and _JSON_URI.search(head) and not _PACT.search(head):
                return 85
            return 0
        if _YAML_TOP.search(head) is None or _YAML_REQUEST.search(head) is None:
            return 0
        return 95 if _YAML_RESPONSE.search(head) else 85

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        json_doc = source.head.lstrip()[:1] == b"{"
        doc = load_document(source) if json_doc else load_yaml(source)
        items = None
        if type(doc) is dict:
            items = doc.get("interactions", doc.get("http_interactions"))
        if not isinstance(items, list):
            raise InvalidTraceError(f"{source.display}: not a VCR cassette: no interactions "
                                    "list", file=source.display, hint=_HINT)
        if not items:
            raise InvalidTraceError(f"{source.display}: no interactions in the file",
                                    file=source.display, hint=_HINT)
        tid = derived_id(source.sha256, "vcr")
        events = [_interaction(it, i, tid, source) for i, it in enumerate(items)]
        versions = {"vcr_cassette": doc["version"]} if doc.get("version") is not None else {}
        if type(doc.get("recorded_with")) is str:
            versions["recorded_with"] = doc["recorded_with"]
        task, tools = model_facts(events)
        yield TraceInfo(trace_id=tid, root_task=task, tools=tools, versions=versions)
        yield from events


VCR = VcrAdapter()


def _interaction(it: Any, i: int, tid: str, source: SourceFile) -> RawEvent:
    req = it.get("request") if type(it) is dict else None
    if type(req) is not dict or not isinstance(req.get("uri"), str):
        raise InvalidTraceError(f"{source.display}: interaction {i} has no request with a "
                                "uri", file=source.display, interaction=i, hint=_HINT)
    with malformed(source, f"interaction {i}", interaction=i, hint=_HINT):
        return _event(it, req, i, tid)


def _headers(value: Any) -> dict[str, Any]:
    return multi_dict(value.items(), lower=True) if type(value) is dict else {}


def _body(value: Any, headers: dict[str, Any]) -> Body:
    if type(value) is dict:  # {string: ...}; Ruby VCR adds {encoding: ...}
        value = value.get("string")
    return decode_body(value, header(headers, "content-type"),
                       header(headers, "content-encoding"))


def _event(it: dict[str, Any], req: dict[str, Any], i: int, tid: str) -> RawEvent:
    headers = _headers(req.get("headers"))
    request = Request(method=str(req.get("method") or "GET"), url=req["uri"],
                      headers=headers, body=_body(req.get("body"), headers))
    attrs: dict[str, Any] = {f"vcr.{k}": v for k, v in it.items()
                             if k not in _USED and v not in (None, "", [], {})}
    resp = it.get("response")
    response = None
    if type(resp) is dict:
        status = resp.get("status")
        code, reason = (status.get("code"), status.get("message")) if type(status) is dict \
            else (status, None)
        if isinstance(code, str) and code.isdigit():
            code = int(code)
        if isinstance(code, int) and not isinstance(code, bool) and code > 0:
            rh = _headers(resp.get("headers"))
            response = Response(status=code, reason=reason if isinstance(reason, str) else "",
                                headers=rh, body=_body(resp.get("body"), rh))
            if isinstance(reason, str) and reason:
                attrs["vcr.status_message"] = reason
        if resp.get("http_version"):
            attrs["vcr.http_version"] = resp["http_version"]
    return http_event(tid, f"interaction-{i}", request, response,
                      start_ns=_recorded_at(it.get("recorded_at")), attrs=attrs)


def _recorded_at(value: Any) -> int | None:
    if not isinstance(value, str):
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)  # "Mon, 11 Nov 2024 23:43:52 GMT"
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return int(when.timestamp()) * 1_000_000_000
