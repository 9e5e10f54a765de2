"""The HTTP part of the span mapping: method, path, query, headers, status and bodies of
an HTTP client or server span, old and new semantic conventions alike."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .._decode import maybe_json
from ._attributes import MISSING, first, take

__all__ = ["http"]


_HEADER_PREFIXES = ("http.request.header.", "http.response.header.")


def _headers(a: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    req: dict[str, Any] = {}
    resp: dict[str, Any] = {}
    found = [k for k in a if k.startswith(_HEADER_PREFIXES)]
    for k in found:
        if k.startswith("http.request.header."):
            req[k[20:]] = a.pop(k)
        else:
            resp[k[21:]] = a.pop(k)
    return req, resp


def _query(q: Any) -> dict[str, Any]:
    if not isinstance(q, str) or not q:
        return {}
    return dict(_parsed_query(q))


@lru_cache(maxsize=4096)
def _parsed_query(q: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in parse_qsl(q, keep_blank_values=True):
        if k in out:
            prev = out[k]
            out[k] = [*prev, v] if isinstance(prev, list) else [prev, v]
        else:
            out[k] = v
    return out


@lru_cache(maxsize=4096)
def _split_url(url: str) -> tuple[str, str | None]:
    parts = urlsplit(url)
    return parts.path or "/", parts.query or None


def http(a: dict[str, Any], span_name: str) -> tuple[str, Any, Any]:
    method = take(a, "http.request.method", "http.method")
    method = "" if method is MISSING else str(method).upper()
    path: Any = None
    query: Any = None
    v = a.pop("url.path", MISSING)
    if v is not MISSING:
        path = v
    else:
        target = a.pop("http.target", MISSING)
        if target is not MISSING and isinstance(target, str):
            path, _, q = target.partition("?")
            query = q or None
        elif a.get("http.route") is not None:
            path = a["http.route"]
        else:
            url = first(a, "url.full", "http.url")
            if isinstance(url, str):
                try:
                    path, query = _split_url(url)
                except ValueError:  # an unparseable URL: keep it in attrs only
                    path = None
    q = a.pop("url.query", MISSING)
    if q is not MISSING:
        query = q
    status = take(a, "http.response.status_code", "http.status_code")
    if isinstance(status, str) and status.isdigit():
        status = int(status)
    req_headers, resp_headers = _headers(a)
    args = {"method": method or None, "path": path, "query": _query(query),
            "headers": req_headers, "body": maybe_json(a.pop("http.request.body", None))}
    result = {"status": None if status is MISSING else status, "headers": resp_headers,
              "body": maybe_json(a.pop("http.response.body", None))}
    name = f"{method} {path}" if method and path else (method or span_name)
    return name, args, result
