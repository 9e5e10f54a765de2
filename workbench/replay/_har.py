"""An attempt's exchanges as a HAR document: what ``ingest`` reads (redaction on), so a
replay is recorded through the store's one write path like any recording."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..model import dumps
from ._send import Attempt

__all__ = ["har_of"]


def har_of(attempt: Attempt, comment: str) -> bytes:
    entries = []
    for x, raw, url in zip(attempt.exchanges, attempt.raw, attempt.urls, strict=True):
        start = dt.datetime.fromtimestamp((x.start_ns or 0) / 1e9, dt.UTC)
        req: dict[str, Any] = {
            "method": x.method, "url": url, "httpVersion": "HTTP/1.1",
            "headers": [{"name": k, "value": v} for k, v in x.headers.items()],
            "queryString": [{"name": k, "value": v} for k, v in x.query.items()],
            "cookies": [], "headersSize": -1, "bodySize": -1}
        if x.has_body:
            text = x.body if isinstance(x.body, str) else dumps(x.body)
            req["postData"] = {"mimeType": x.header("content-type") or "application/json",
                               "text": text}
        content: dict[str, Any] = {"size": len(raw), "mimeType":
                                   x.header("content-type", True) or "application/json"}
        if raw:
            content["text"] = raw.decode("utf-8", "replace")
        ms = x.ms or 0.0
        entries.append({
            "startedDateTime": start.isoformat(), "time": ms, "request": req, "cache": {},
            "timings": {"send": 0, "wait": ms, "receive": 0},
            "response": {"status": x.status or 0, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": k, "value": v}
                                     for k, v in x.resp_headers.items()],
                         "cookies": [], "content": content, "redirectURL": "",
                         "headersSize": -1, "bodySize": -1}})
    return dumps({"log": {"version": "1.2", "creator": {"name": "workbench replay",
                                                         "version": "1"},
                          "comment": comment, "entries": entries}}).encode()
