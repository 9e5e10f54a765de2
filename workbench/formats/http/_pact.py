"""Adapter ``pact``: Pact contract files, specification v1 to v4.

A pact is what a provider promised its consumer; it is read as one trace per file (id
derived from the file's content, consumer and provider), one event per interaction in
file order, with no times:

- an HTTP interaction (v1-v3 ``interactions``, v4 ``Synchronous/HTTP``) -> ``http``
  (request -> ``args``, the promised response -> ``result``);
- a message (v3 ``messages``, v4 ``Asynchronous/Messages``) -> ``message`` named by its
  description (``contents`` -> ``result``, ``metadata`` -> ``attrs``);
- a v4 ``Synchronous/Messages`` interaction -> ``message`` (request contents -> ``args``,
  the responses -> ``result.responses``), or, when a plugin carries it over gRPC,
  ``other`` named by the gRPC method (``Service/method``).

Descriptions, provider states, matching rules and generators stay in ``attrs`` under
their Pact names (``pact.providerStates``, ``pact.response.matchingRules`` …).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode

from ...model import InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import load_document
from .._pairing import derived_id
from ._exchange import NO_BODY, Request, Response, header, http_event, multi_dict
from ._pact_message import contents, message_event, obj, part_attrs, sync_message_event

__all__ = ["PACT", "PactAdapter"]

_CONSUMER = re.compile(rb'"consumer"\s*:\s*\{')
_PROVIDER = re.compile(rb'"provider"\s*:\s*\{')
_ITEMS = re.compile(rb'"(?:interactions|messages)"\s*:\s*\[')
_SPEC = re.compile(rb'"pact-?[sS]pecification"\s*:')

_USED = frozenset({"description", "providerState", "providerStates", "request", "response",
                   "contents", "metadata", "matchingRules", "generators"})
_HINT = "a pact is {consumer, provider, interactions: [...] or messages: [...], metadata}"


class PactAdapter:
    """Pact contract files."""

    name = "pact"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _CONSUMER.search(head) is None or _ITEMS.search(head) is None:
            return 0
        provider, spec = _PROVIDER.search(head), _SPEC.search(head)
        if provider and spec:
            return 95
        return 85 if provider or spec else 60

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        items = _items(doc)
        if items is None:
            raise InvalidTraceError(f"{source.display}: not a pact: no interactions or "
                                    "messages list", file=source.display, hint=_HINT)
        if not items:
            raise InvalidTraceError(f"{source.display}: no interactions in the pact",
                                    file=source.display, hint=_HINT)
        consumer, provider = _name(doc.get("consumer")), _name(doc.get("provider"))
        tid = derived_id(source.sha256, "pact", consumer, provider)
        own = Counter(_own_id(it) for _, it in items)
        events = []
        for i, (prefix, it) in enumerate(items):
            oid = _own_id(it)
            eid = oid if oid and own[oid] == 1 else f"{prefix}-{i}"
            events.append(_event(it, eid, i, tid, prefix, source))
        yield _info(doc, tid, consumer, provider)
        yield from events


PACT = PactAdapter()


def _items(doc: Any) -> list[tuple[str, Any]] | None:
    if type(doc) is not dict:
        return None
    inter, msgs = doc.get("interactions"), doc.get("messages")
    if not isinstance(inter, list) and not isinstance(msgs, list):
        return None
    return ([("interaction", it) for it in inter] if isinstance(inter, list) else []) + \
        ([("message", it) for it in msgs] if isinstance(msgs, list) else [])


def _name(party: Any) -> str:
    return str(party.get("name") or "") if type(party) is dict else ""


def _own_id(it: Any) -> str | None:
    if type(it) is not dict:
        return None
    for key in ("key", "_id"):
        if isinstance(it.get(key), str) and it[key]:
            return str(it[key])
    return None


def _event(it: Any, eid: str, i: int, tid: str, prefix: str, source: SourceFile) -> RawEvent:
    if type(it) is not dict:
        raise InvalidTraceError(f"{source.display}: {prefix} {i} is not an object",
                                file=source.display, interaction=i, hint=_HINT)
    with malformed(source, f"{prefix} {i}", interaction=i, hint=_HINT):
        kind = str(it.get("type") or "")
        if prefix == "message" or kind == "Asynchronous/Messages":
            ev = message_event(it, eid, tid)
        elif kind == "Synchronous/Messages":
            ev = sync_message_event(it, eid, tid)
        elif type(it.get("request")) is dict and type(it.get("response")) is dict:
            ev = _http(it, eid, tid)
        else:
            raise InvalidTraceError(f"{source.display}: interaction {i} has no request and "
                                    "response", file=source.display, interaction=i, hint=_HINT)
    ev.attrs = {**_attrs(it), **ev.attrs}
    return ev


def _attrs(it: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if it.get("description") is not None:
        out["pact.description"] = it["description"]
    states = it.get("providerStates")
    if states is None and isinstance(it.get("providerState"), str):
        states = [{"name": it["providerState"]}]  # v2: one state, as text
    if states:
        out["pact.providerStates"] = states
    for k in ("matchingRules", "generators"):
        if it.get(k):
            out[f"pact.{k}"] = it[k]
    out.update({f"pact.{k}": v for k, v in it.items()
                if k not in _USED and v not in (None, "", [], {})})
    return out


def _http(it: dict[str, Any], eid: str, tid: str) -> RawEvent:
    req, resp = it["request"], it["response"]
    q = req.get("query")
    query = multi_dict(parse_qsl(q, keep_blank_values=True)) if isinstance(q, str) \
        else multi_dict(q.items()) if type(q) is dict else {}
    path = str(req.get("path") or "/")
    url = f"{path}?{urlencode(query, doseq=True)}" if query else path
    rq_h = multi_dict(req["headers"].items(), lower=True) if type(req.get("headers")) is dict \
        else {}
    rs_h = multi_dict(resp["headers"].items(), lower=True) \
        if type(resp.get("headers")) is dict else {}
    rq_body = contents(req["body"], header(rq_h, "content-type"))[0] if "body" in req \
        else NO_BODY
    rs_body = contents(resp["body"], header(rs_h, "content-type"))[0] if "body" in resp \
        else NO_BODY
    status = resp.get("status", 200)
    if not isinstance(status, int) or isinstance(status, bool):
        raise ValueError(f"response status {status!r} is not a number")
    request = Request(method=str(req.get("method") or "GET"), url=url, headers=rq_h,
                      body=rq_body, query=query)
    attrs = {**part_attrs("request", req), **part_attrs("response", resp)}
    return http_event(tid, eid, request, Response(status=status, headers=rs_h, body=rs_body),
                      attrs=attrs)


def _info(doc: dict[str, Any], tid: str, consumer: str, provider: str) -> TraceInfo:
    meta = obj(doc.get("metadata"))
    versions: dict[str, Any] = {}
    attrs: dict[str, Any] = {"pact.consumer": consumer, "pact.provider": provider}
    for k, v in meta.items():
        if k in ("pactSpecification", "pact-specification", "pactSpecificationVersion"):
            spec = v.get("version") if type(v) is dict else v
            if spec is not None:
                versions["pact_specification"] = str(spec)
        elif k == "plugins":
            attrs["pact.plugins"] = v
        else:
            versions[k] = v
    return TraceInfo(trace_id=tid, versions=versions, attrs=attrs)
