"""The parts of Pact files that are not plain HTTP: bodies in v4 ``{content,
contentType, encoded}`` form, messages, and synchronous (gRPC plugin) messages."""

from __future__ import annotations

from typing import Any

from .._adapter import RawEvent
from .._pairing import add_flag
from ._exchange import BINARY_BODY, Body, decode_base64, decode_body

__all__ = ["contents", "message_event", "obj", "part_attrs", "sync_message_event"]


def obj(v: Any) -> dict[str, Any]:
    return v if type(v) is dict else {}


def part_attrs(part: str, given: dict[str, Any]) -> dict[str, Any]:
    """A request's or response's matching rules and generators, for contract checks."""
    return {f"pact.{part}.{k}": given[k] for k in ("matchingRules", "generators")
            if given.get(k)}


def contents(value: Any, ctype: str = "") -> tuple[Body, str]:
    """A body or message contents: a JSON value, text, or v4 ``{content, contentType,
    encoded}``; also the content type."""
    if type(value) is dict and "content" in value and ("contentType" in value
                                                       or "encoded" in value):
        ctype = str(value.get("contentType") or ctype)
        content, enc = value["content"], value.get("encoded")
        if enc == "base64" and isinstance(content, str):
            raw = decode_base64(content)
            return (decode_body(raw, ctype) if raw is not None else Body(content, True)), ctype
        if enc == "json" and isinstance(content, str):
            return decode_body(content, "application/json"), ctype
        return decode_body(content, ctype), ctype
    return decode_body(value, ctype), ctype


def message_event(it: dict[str, Any], eid: str, tid: str) -> RawEvent:
    """A v3 message or v4 asynchronous message: ``contents`` -> ``result``."""
    meta = obj(it.get("metadata"))
    body, _ = contents(it.get("contents"), str(meta.get("contentType") or ""))
    ev = RawEvent(trace_id=tid, event_id=eid, parent_id=None, kind="message",
                  name=str(it.get("description") or "message"), status="ok",
                  result=body.value if body.present else None)
    if meta:
        ev.attrs["pact.metadata"] = meta
    if body.binary:
        ev.attrs["pact.contents"] = it.get("contents")
        add_flag(ev, BINARY_BODY)
    return ev


def _part(given: Any, name: str, ev: RawEvent) -> dict[str, Any]:
    """One side of a synchronous message: ``{content_type, body, metadata}``."""
    part = obj(given)
    body, ctype = contents(part.get("contents"))
    out: dict[str, Any] = {"content_type": ctype} if ctype else {}
    if body.present:
        out["body"] = body.value
    if part.get("metadata"):
        out["metadata"] = part["metadata"]
    if body.binary:  # the contract's bytes are kept as the file has them
        ev.attrs[f"pact.{name}.contents"] = part.get("contents")
        add_flag(ev, BINARY_BODY)
    ev.attrs.update(part_attrs(name, part))
    return out


def sync_message_event(it: dict[str, Any], eid: str, tid: str) -> RawEvent:
    """A v4 synchronous message: ``other`` named by the gRPC method when a plugin carries
    it over gRPC, else ``message``; the request -> ``args``, responses -> ``result``."""
    plugin = obj(it.get("pluginConfiguration"))
    service = next((c["service"] for c in plugin.values()
                    if type(c) is dict and isinstance(c.get("service"), str)), None)
    grpc = it.get("transport") == "grpc" or service is not None
    ev = RawEvent(trace_id=tid, event_id=eid, parent_id=None,
                  kind="other" if grpc else "message", status="ok",
                  name=service or str(it.get("description") or "message"))
    responses = it["response"] if isinstance(it.get("response"), list) else []
    ev.args = _part(it.get("request"), "request", ev)
    ev.result = {"responses": [_part(r, f"response.{n}", ev) for n, r in enumerate(responses)]}
    return ev
