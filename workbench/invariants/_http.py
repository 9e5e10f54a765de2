"""Recorded HTTP exchanges: the ``http`` events of the store or of one trace, whatever
recorded them (HAR, VCR, Pact, OTel HTTP spans, the contract server), as one shape."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..model import Event, Trace
from ..model import loads as json_loads
from ..store import Store

__all__ = ["Exchange", "exchange_of", "exchanges_of", "har_entry", "store_exchanges"]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and its answer; ``status`` None when none was recorded."""

    trace_id: str
    event_id: str
    seq: int
    method: str
    path: str
    query: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    has_body: bool = False
    status: int | None = None
    resp_headers: dict[str, Any] = field(default_factory=dict)
    resp_body: Any = None
    resp_has_body: bool = False
    start_ns: int | None = None
    end_ns: int | None = None
    body_unknown: bool = False  # the recording cannot say whether a body was sent

    def header(self, name: str, response: bool = False) -> str | None:
        v = (self.resp_headers if response else self.headers).get(name)
        if isinstance(v, list):
            v = v[0] if v else None
        return None if v is None else str(v)

    @property
    def ms(self) -> float | None:
        if self.start_ns is None or self.end_ns is None:
            return None
        return round((self.end_ns - self.start_ns) / 1e6, 3)


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _status(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isdigit():
        return int(v)
    return None


def exchange_of(trace_id: str, event_id: str, seq: int, args: Any, result: Any,
                start_ns: int | None = None, end_ns: int | None = None) -> Exchange | None:
    """The exchange an ``http`` event holds, or None when it names no method and path."""
    a, r = _dict(args), _dict(result)
    method, path = a.get("method"), a.get("path")
    query = _dict(a.get("query"))
    if not isinstance(path, str) and isinstance(a.get("url"), str):
        try:
            path = urlsplit(a["url"]).path or "/"
        except ValueError:
            path = None
    if not isinstance(method, str) or not isinstance(path, str):
        return None
    if "?" in path:
        path = path.split("?", 1)[0]
    headers = {str(k).lower(): v for k, v in _dict(a.get("headers")).items()}
    resp_headers = {str(k).lower(): v for k, v in _dict(r.get("headers")).items()}
    # a recorder that cannot see bodies (an OTel span without body attributes) writes
    # ``body: null``; one that can leaves the key out when there was none
    return Exchange(trace_id, event_id, seq, method.upper(), path or "/", query, headers,
                    a.get("body"), a.get("body") is not None, _status(r.get("status")),
                    resp_headers, r.get("body"), r.get("body") is not None, start_ns,
                    end_ns, "body" in a and a["body"] is None)


def exchanges_of(trace: Trace | Iterable[Event]) -> list[Exchange]:
    """The exchanges of one trace in memory, in step order."""
    events = trace.events if isinstance(trace, Trace) else tuple(trace)
    out = []
    for e in events:
        if e.kind == "http":
            x = exchange_of(e.trace_id, e.event_id, e.seq, e.args, e.result, e.start_ns,
                            e.end_ns)
            if x is not None:
                out.append(x)
    return out


def store_exchanges(store: Store, trace_ids: Sequence[str] | None) -> Iterator[Exchange]:
    """The store's exchanges (of the named traces), by trace and step."""
    where, params = "kind = 'http'", []
    if trace_ids is not None:
        where += " AND list_contains(?, trace_id)"
        params.append(list(trace_ids))
    table = store.sql("SELECT trace_id, event_id, seq, args, result, start_ns, end_ns "
                      f"FROM events WHERE {where} ORDER BY trace_id, seq", params)
    cols = {n: table.column(n).to_pylist() for n in table.column_names}
    for i in range(table.num_rows):
        x = exchange_of(cols["trace_id"][i], cols["event_id"][i], cols["seq"][i],
                        json_loads(cols["args"][i]) if cols["args"][i] else None,
                        json_loads(cols["result"][i]) if cols["result"][i] else None,
                        cols["start_ns"][i], cols["end_ns"][i])
        if x is not None:
            yield x


def har_entry(x: Exchange, url: str, raw: bytes, body_text: str | None) -> dict[str, Any]:
    """One HAR 1.2 entry of an exchange this process sent (``probe``, ``replay``): the
    request as sent (``body_text``, if it had a body) and the answer's bytes."""
    start = dt.datetime.fromtimestamp((x.start_ns or 0) / 1e9, dt.UTC)
    req: dict[str, Any] = {
        "method": x.method, "url": url, "httpVersion": "HTTP/1.1",
        "headers": [{"name": k, "value": v} for k, v in x.headers.items()],
        "queryString": [{"name": k, "value": v} for k, v in x.query.items()],
        "cookies": [], "headersSize": -1, "bodySize": -1}
    if body_text is not None:
        req["postData"] = {"mimeType": x.header("content-type") or "application/json",
                           "text": body_text}
    content: dict[str, Any] = {"size": len(raw), "mimeType": x.header("content-type", True)
                               or "application/json"}
    if raw:
        content["text"] = raw.decode("utf-8", "replace")
    ms = x.ms or 0.0
    return {"startedDateTime": start.isoformat(), "time": ms, "request": req, "cache": {},
            "timings": {"send": 0, "wait": ms, "receive": 0},
            "response": {"status": x.status or 0, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": k, "value": v}
                                     for k, v in x.resp_headers.items()],
                         "cookies": [], "content": content, "redirectURL": "",
                         "headersSize": -1, "bodySize": -1}}
