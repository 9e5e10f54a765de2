"""Adapter ``otel-json``: spans as the OpenTelemetry SDKs print them, and attribute maps.

Three shapes:

- OpenTelemetry JS ``ReadableSpan``-like objects (``spanContext {traceId, spanId}``,
  ``parentSpanId`` or ``parentSpanContext``, hrtime ``startTime``/``endTime``, flat
  ``attributes``, ``status {code}``, ``events``, ``links``, ``resource``,
  ``instrumentationScope``);
- the Python SDK's ``span.to_json()`` / ``ConsoleSpanExporter`` form (``context
  {trace_id: "0x…", span_id}``, ``parent_id``, ``kind: "SpanKind.CLIENT"``, ISO
  ``start_time``/``end_time``, ``status {status_code, description}``, ``resource``);

as a JSON array, one object per line (JSONL), or objects written one after another
(what ``ConsoleSpanExporter`` prints); and

- the flat attribute map of one span (``{"gen_ai.operation.name": "chat", ...}``): one
  event whose trace id and event id are derived from the file's sha256, and marked so
  in ``attrs["workbench.synthesized"]``.

The whole file is read into memory, except JSONL, which is read line by line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...model import (
    InvalidJSONError,
    InvalidTraceError,
    JSONDecodeError,
    loads,
)
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import iter_json_lines, load_document, load_values
from ._facts import TraceFacts
from ._span import map_span
from ._value import (
    SpanScope,
    attributes_dict,
    norm_id,
    span_kind_name,
    status_of,
    time_ns,
)

__all__ = ["OTEL_JSON", "SYNTHESIZED_KEY", "OtelJSONAdapter", "span_event", "span_values"]

#: attrs key listing the ids the adapter made up (``["trace_id", "event_id"]``)
SYNTHESIZED_KEY = "workbench.synthesized"

_JS = re.compile(rb'"_?spanContext"\s*:\s*\{')
_PY = re.compile(rb'"context"\s*:\s*\{\s*"trace_id"\s*:|"trace_id"\s*:\s*"0x[0-9a-fA-F]{32}"')
_ATTR_KEY = re.compile(rb'(?<!\\)"(?:gen_ai\.[A-Za-z0-9_.]+|openinference\.span\.kind)"\s*:')
_NOT_A_MAP = frozenset({"resourceSpans", "batches", "trace", "observations", "spanContext",
                        "_spanContext", "context", "spans"})

_JS_KEYS = frozenset({
    "name", "spanContext", "_spanContext", "parentSpanId", "parentSpanContext", "kind",
    "startTime", "endTime", "attributes", "status", "events", "links", "resource",
    "instrumentationLibrary", "instrumentationScope", "duration", "ended",
    "droppedAttributesCount", "droppedEventsCount", "droppedLinksCount",
})
_PY_KEYS = frozenset({
    "name", "context", "kind", "parent_id", "start_time", "end_time", "status",
    "attributes", "events", "links", "resource",
    # Phoenix's span export: the same fields, with kind and status at the top level
    "span_kind", "status_code", "status_message",
})


def _is_attribute_map(obj: Any) -> bool:
    if type(obj) is not dict or not obj or not _NOT_A_MAP.isdisjoint(obj):
        return False
    return any(isinstance(k, str) and (k.startswith("gen_ai.") or k == "openinference.span.kind")
               for k in obj)


class OtelJSONAdapter:
    """OTel SDK span objects (JS and Python) and single-span attribute maps."""

    name = "otel-json"

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _JS.search(head) or _PY.search(head):
            return 90
        if not head.lstrip().startswith(b"{"):
            return 0
        if source.text_size <= len(head):
            try:
                return 70 if _is_attribute_map(loads(head)) else 0
            except JSONDecodeError:
                return 0
        return 50 if _ATTR_KEY.search(head) and not re.search(
            rb'"(resourceSpans|observations|batches)"\s*:', head) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        facts = TraceFacts()
        index = 0
        for value in span_values(source):
            if index == 0 and _is_attribute_map(value):
                index += 1
                ev = _attribute_map(value, source)
                facts.add(ev, None)
                yield ev
                continue
            for obj in value if isinstance(value, list) else [value]:
                index += 1
                ev, scope = span_event(obj, source, index)
                facts.add(ev, scope)
                yield ev
        if index == 0:
            raise InvalidTraceError(f"{source.display}: no spans in the file",
                                    file=source.display)
        yield from facts.infos()


OTEL_JSON = OtelJSONAdapter()


def span_values(source: SourceFile) -> Iterator[Any]:
    """The top-level JSON values of the file: one document, JSONL lines, or values
    written one after another."""
    first, nl, rest = source.head.partition(b"\n")
    if nl and rest.strip() and first.strip()[:1] in (b"{", b"["):
        try:
            loads(first)
        except JSONDecodeError:
            pass
        else:
            for _, value in iter_json_lines(source):
                yield value
            return
    try:
        doc = load_document(source)
    except InvalidJSONError as exc:
        yield from _concatenated(source, exc)
        return
    yield doc


def _concatenated(source: SourceFile, original: InvalidJSONError) -> Iterator[Any]:
    try:
        values = load_values(source)  # exact, and bounded in depth as one document is
    except InvalidJSONError:
        raise original from None
    if len(values) < 2:
        raise original
    yield from values


def _attribute_map(obj: dict[str, Any], source: SourceFile) -> RawEvent:
    tid, sid = source.sha256[:32], source.sha256[32:48]
    ev = map_span(trace_id=tid, span_id=sid, parent_id=None, name="", span_kind=None,
                  start_ns=None, end_ns=None, status="unset", status_message=None,
                  attrs=obj)
    if not ev.name:
        ev.name = str(ev.attrs.get("gen_ai.operation.name")
                      or ev.attrs.get("openinference.span.kind") or "")
    del ev.attrs["otel.span_name"]
    ev.attrs[SYNTHESIZED_KEY] = ["trace_id", "event_id"]
    return ev


def span_event(obj: Any, source: SourceFile, index: int) -> tuple[RawEvent, SpanScope]:
    """One span object (JS ``ReadableSpan``-like, Python SDK, or Phoenix) as an event;
    ``index`` is its 1-based position in the file, for errors."""
    if type(obj) is not dict:
        raise InvalidTraceError(f"{source.display}: item {index} is not a span object",
                                file=source.display, span=index)
    with malformed(source, f"span {index}", span=index):
        if type(obj.get("spanContext", obj.get("_spanContext"))) is dict:
            fields = _js_fields(obj)
        elif type(obj.get("context")) is dict:
            fields = _py_fields(obj)
        else:
            raise InvalidTraceError(
                f"{source.display}: item {index} is not an OpenTelemetry span "
                "(no spanContext or context)", file=source.display, span=index)
        if not fields["trace_id"] or not fields["span_id"]:
            missing = "trace id" if not fields["trace_id"] else "span id"
            raise InvalidTraceError(f"{source.display}: span {index} has no {missing}",
                                    file=source.display, span=index)
        scope = SpanScope.build(*fields.pop("_resource"))
        return map_span(scope=scope, **fields), scope


def _dict(v: Any) -> dict[str, Any]:
    return v if type(v) is dict else {}


def _js_fields(s: dict[str, Any]) -> dict[str, Any]:
    ctx = _dict(s.get("spanContext", s.get("_spanContext")))
    parent = s.get("parentSpanId")
    if parent is None:
        parent = _dict(s.get("parentSpanContext")).get("spanId")
    st = _dict(s.get("status"))
    res = _dict(s.get("resource"))
    scope = _dict(s.get("instrumentationScope") or s.get("instrumentationLibrary"))
    extra: dict[str, Any] = {}
    dropped = {k[7:-5].lower(): s[k] for k in ("droppedAttributesCount", "droppedEventsCount",
                                                "droppedLinksCount") if s.get(k)}
    if dropped:
        extra["otel.dropped"] = dropped
    unknown = {k: v for k, v in s.items() if k not in _JS_KEYS and not k.startswith("_")}
    if unknown:
        extra["otel.span_fields"] = unknown
    return {
        "trace_id": norm_id(ctx.get("traceId")), "span_id": norm_id(ctx.get("spanId")),
        "parent_id": norm_id(parent), "name": s.get("name"),
        "span_kind": span_kind_name(s.get("kind"), sdk=True),
        "start_ns": time_ns(s.get("startTime")), "end_ns": time_ns(s.get("endTime")),
        "status": status_of(st.get("code")), "status_message": st.get("message"),
        "attrs": attributes_dict(s.get("attributes")),
        "events": _events(s.get("events"), "time"),
        "links": _links(s.get("links"), "traceId", "spanId", "traceState"),
        "trace_state": ctx.get("traceState") or None, "flags": ctx.get("traceFlags"),
        "extra": extra or None,
        "_resource": (attributes_dict(res.get("attributes", res.get("_attributes"))),
                      scope.get("name"), scope.get("version")),
    }


def _py_fields(s: dict[str, Any]) -> dict[str, Any]:
    ctx = _dict(s.get("context"))
    st = _dict(s.get("status"))
    res = _dict(s.get("resource"))
    trace_state = ctx.get("trace_state")
    unknown = {k: v for k, v in s.items() if k not in _PY_KEYS}
    extra = {"otel.span_fields": unknown} if unknown else None
    resource = dict(attributes_dict(res.get("attributes")))
    if res.get("schema_url"):
        resource["otel.schema_url"] = res["schema_url"]
    attrs = attributes_dict(s.get("attributes"))
    kind = s.get("kind")
    if kind is None and "span_kind" in s:  # Phoenix: an OTel kind or an OpenInference one
        kind = s["span_kind"]
        if span_kind_name(kind) is None and isinstance(kind, str) and kind:
            attrs.setdefault("openinference.span.kind", kind)
    if st:
        code, message = st.get("status_code"), st.get("description")
    else:
        code, message = s.get("status_code"), s.get("status_message")
    return {
        "trace_id": norm_id(ctx.get("trace_id")), "span_id": norm_id(ctx.get("span_id")),
        "parent_id": norm_id(s.get("parent_id")), "name": s.get("name"),
        "span_kind": span_kind_name(kind, sdk=True),
        "start_ns": time_ns(s.get("start_time")), "end_ns": time_ns(s.get("end_time")),
        "status": status_of(code), "status_message": message,
        "attrs": attrs,
        "events": _events(s.get("events"), "timestamp"),
        "links": _links(s.get("links"), "trace_id", "span_id", "trace_state"),
        "trace_state": trace_state if trace_state not in (None, "", "[]", "{}") else None,
        "flags": None, "extra": extra, "_resource": (resource, None, None),
    }


def _events(raw: Any, time_key: str) -> list[dict[str, Any]] | None:
    if not raw or not isinstance(raw, list):
        return None
    out = []
    for e in raw:
        if type(e) is dict:
            out.append({"name": e.get("name"), "time_ns": time_ns(e.get(time_key)),
                        "attrs": attributes_dict(e.get("attributes"))})
    return out or None


def _links(raw: Any, tk: str, sk: str, stk: str) -> list[dict[str, Any]] | None:
    if not raw or not isinstance(raw, list):
        return None
    out = []
    for ln in raw:
        if type(ln) is not dict:
            continue
        ctx = _dict(ln.get("context"))
        link: dict[str, Any] = {"trace_id": norm_id(ctx.get(tk)),
                                "span_id": norm_id(ctx.get(sk))}
        if ctx.get(stk) not in (None, "", "[]"):
            link["trace_state"] = ctx[stk]
        la = attributes_dict(ln.get("attributes"))
        if la:
            link["attrs"] = la
        out.append(link)
    return out or None
