"""What the HTTP recording adapters (``har``, ``vcr``, ``pact``) share: URLs, query
strings, headers, bodies (JSON, text, base64, gzip, binary, event streams) and the one
``http`` event shape every recording maps to.

- ``args`` = ``{method, url, path, query, headers, body}`` and ``result`` =
  ``{status, headers, body}``; ``body`` is left out when the message had none.
- Header names are lower-cased; a header given more than once becomes a list.
- A body is JSON decoded when it is JSON, an event stream becomes its events (see
  ``_httpsse``), other text stays text, and bytes that are not UTF-8 text become the
  placeholder ``«binary: N bytes, TYPE»`` and the event is flagged ``binary_body``
  (so do bytes of a media, archive or protobuf type, or holding control characters).
- Status ``ok`` below 400; ``error`` at 400 and above with ``{"code": "HTTP_<status>",
  "message": <reason>}``; a request that got no response stays ``unset``, or is an
  ``error`` with code ``NO_RESPONSE`` when the recording says why, and is flagged
  ``unanswered`` either way.
"""

from __future__ import annotations

import base64
import binascii
import http
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ...model import JSONDecodeError, loads
from .._adapter import RawEvent
from .._decode import maybe_json
from .._pairing import UNANSWERED, add_flag
from ._sse import parse_sse

__all__ = ["BINARY_BODY", "Body", "Request", "Response", "decode_base64", "decode_body",
           "header", "http_event", "model_facts", "multi_dict", "split_url"]

BINARY_BODY = "binary_body"
_MAX_INFLATED = 64 << 20  # a compressed body that inflates beyond this stays a placeholder
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")  # not in text, even if UTF-8
_BINARY_TYPES = ("image/", "audio/", "video/", "application/octet-stream",
                 "application/protobuf", "application/x-protobuf", "application/grpc",
                 "application/zip", "application/gzip", "application/pdf")


@dataclass(frozen=True, slots=True)
class Body:
    """A decoded message body; ``present`` is false when the message had none."""

    value: Any = None
    present: bool = False
    binary: bool = False


NO_BODY = Body()


@dataclass(slots=True)
class Request:
    method: str
    url: str
    headers: dict[str, Any] = field(default_factory=dict)
    body: Body = NO_BODY
    query: dict[str, Any] | None = None  # None: taken from the URL


@dataclass(slots=True)
class Response:
    status: int
    reason: str = ""
    headers: dict[str, Any] = field(default_factory=dict)
    body: Body = NO_BODY


def multi_dict(pairs: Iterable[tuple[Any, Any]], *, lower: bool = False) -> dict[str, Any]:
    """Name -> text value; a name seen more than once (or given a list) -> list of values."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        key = str(name).lower() if lower else str(name)
        values = list(value) if isinstance(value, list | tuple) else [value]
        values = [_text(v) for v in values]
        if key in out:
            prev = out[key]
            out[key] = [*(prev if isinstance(prev, list) else [prev]), *values]
        elif values:
            out[key] = values[0] if len(values) == 1 else values
    return out


def _text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def header(headers: dict[str, Any], name: str) -> str:
    """The first value of a (lower-cased) header, or ""."""
    v = headers.get(name)
    if isinstance(v, list):
        v = v[0] if v else None
    return v if isinstance(v, str) else ""


def split_url(url: str) -> tuple[str, dict[str, Any]]:
    """The path (no query string, "/" when empty) and the query of a URL."""
    try:
        parts = urlsplit(url)
    except ValueError:
        path, _, q = url.partition("?")
        return path or "/", multi_dict(parse_qsl(q, keep_blank_values=True))
    return parts.path or "/", multi_dict(parse_qsl(parts.query, keep_blank_values=True))


def decode_base64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None


def _placeholder(size: int, content_type: str) -> Body:
    kind = content_type.split(";")[0].strip()
    text = f"«binary: {size} bytes, {kind}»" if kind else f"«binary: {size} bytes»"
    return Body(text, True, True)


def _inflate(data: bytes, encoding: str) -> bytes | None:
    wbits = {"gzip": 31, "x-gzip": 31, "deflate": 47}.get(encoding)  # 47: zlib or gzip
    if wbits is None:
        return None
    try:
        d = zlib.decompressobj(wbits)
        out = d.decompress(data, _MAX_INFLATED)
        if d.unconsumed_tail or not d.eof:
            return None
        return out
    except zlib.error:
        return None


def decode_body(data: Any, content_type: str = "", content_encoding: str = "") -> Body:
    """A body as recorded (text, bytes, or a JSON value already) made a ``Body``."""
    if data is None:
        return NO_BODY
    ctype = content_type.lower()
    if isinstance(data, bytes | bytearray):
        raw = bytes(data)
        encoding = content_encoding.strip().lower()
        if encoding and encoding != "identity":
            inflated = _inflate(raw, encoding)
            if inflated is None:
                return _placeholder(len(raw), f"{content_type} ({encoding})")
            raw = inflated
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _placeholder(len(raw), content_type)
        if _CONTROL.search(data) or ctype.startswith(_BINARY_TYPES):
            return _placeholder(len(raw), content_type)
    if not isinstance(data, str):
        return Body(data, True)  # already a JSON value (pact bodies)
    if data == "":
        return NO_BODY
    if "text/event-stream" in ctype:
        return Body(parse_sse(data), True)
    if "json" in ctype:
        try:
            return Body(loads(data), True)
        except JSONDecodeError:
            return Body(data, True)
    return Body(maybe_json(data), True)


def _reason(status: int, given: str) -> str:
    if given:
        return given
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"


def http_event(trace_id: str, event_id: str, request: Request, response: Response | None,
               *, start_ns: int | None = None, end_ns: int | None = None,
               attrs: dict[str, Any] | None = None, parent_id: str | None = None,
               no_response: str | None = None) -> RawEvent:
    """One ``http`` event. ``response`` None: never answered (``no_response`` says why)."""
    method = request.method.upper() or "GET"
    path, query = split_url(request.url)
    args: dict[str, Any] = {"method": method, "url": request.url, "path": path,
                            "query": request.query if request.query is not None else query,
                            "headers": request.headers}
    if request.body.present:
        args["body"] = request.body.value
    ev = RawEvent(trace_id=trace_id, event_id=event_id, parent_id=parent_id, kind="http",
                  name=f"{method} {path}", start_ns=start_ns, end_ns=end_ns, args=args,
                  attrs=dict(attrs or {}))
    if response is None:
        add_flag(ev, UNANSWERED)
        if no_response:
            ev.status = "error"
            ev.error = {"code": "NO_RESPONSE", "message": no_response}
    else:
        result: dict[str, Any] = {"status": response.status, "headers": response.headers}
        if response.body.present:
            result["body"] = response.body.value
        ev.result = result
        if response.status >= 400:
            ev.status = "error"
            ev.error = {"code": f"HTTP_{response.status}",
                        "message": _reason(response.status, response.reason)}
            body = response.body.value
            if type(body) is dict and body.get("error") not in (None, "", {}):
                ev.error["details"] = {"error": body["error"]}
        else:
            ev.status = "ok"
    if request.body.binary or (response is not None and response.body.binary):
        add_flag(ev, BINARY_BODY)
    _model_attrs(ev.attrs, request.body.value, response.body.value if response else None)
    return ev


def _model_attrs(attrs: dict[str, Any], sent: Any, got: Any) -> None:
    """A model API call (a request body naming a ``model``): the model and usage under
    the OTel GenAI names."""
    if type(sent) is not dict or not isinstance(sent.get("model"), str):
        return
    attrs["gen_ai.request.model"] = sent["model"]
    if type(got) is dict and type(got.get("stitched")) is dict:
        got = got["stitched"]
    if type(got) is not dict:
        return
    if isinstance(got.get("model"), str):
        attrs["gen_ai.response.model"] = got["model"]
    found = got.get("usage")
    usage: dict[str, Any] = found if type(found) is dict else {}
    for ours, theirs in (("input_tokens", "prompt_tokens"), ("output_tokens",
                                                             "completion_tokens")):
        n = usage.get(ours, usage.get(theirs))
        if isinstance(n, int) and not isinstance(n, bool):
            attrs[f"gen_ai.usage.{ours}"] = n


def model_facts(events: list[RawEvent]) -> tuple[str | None, list[Any]]:
    """The first user text and the tool definitions sent in model API requests (request
    bodies naming a ``model``): the trace's root task and the tools the agent saw."""
    task: str | None = None
    tools: list[Any] = []
    seen: set[str] = set()
    for ev in events:
        body = ev.args.get("body") if type(ev.args) is dict else None
        if type(body) is not dict or not isinstance(body.get("model"), str):
            continue
        if task is None:
            task = _user_text(body.get("messages", body.get("input")))
        sent = body.get("tools")
        for tool in sent if isinstance(sent, list) else []:
            key = repr(tool)
            if key not in seen:
                seen.add(key)
                tools.append(tool)
    return task, tools


def _user_text(given: Any) -> str | None:
    if isinstance(given, str):
        return given or None
    for m in given if isinstance(given, list) else []:
        if type(m) is not dict or m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str) and content:
            return content
        for part in content if isinstance(content, list) else []:
            if type(part) is dict and isinstance(part.get("text"), str) and part["text"]:
                return str(part["text"])
    return None
