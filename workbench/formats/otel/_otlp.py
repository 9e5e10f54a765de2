"""Adapter ``otlp``: OTLP/JSON trace exports.

Reads the three shapes an OTLP/JSON trace file comes in:

- one ``{"resourceSpans": [...]}`` document (``ExportTraceServiceRequest`` /
  ``TracesData``), pretty-printed or on one line;
- the collector file exporter's form: one such document per line (JSONL), read line
  by line, so memory is bounded by the longest line;
- Grafana Tempo's older envelope: ``batches`` / ``instrumentationLibrarySpans`` /
  ``instrumentationLibrary`` (also wrapped as ``{"trace": {...}}``).

A single document larger than ``STREAM_ABOVE`` (64 MiB) is streamed with ``ijson``:
memory is then bounded by the largest ``resourceSpans`` item, not by the file.
Each span goes through the shared mapping of ``_otel.map_span``.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...model import EncodingError, InvalidJSONError, InvalidTraceError, LimitExceededError, loads
from ...model import JSONDecodeError as _JSONDecodeError
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import (
    iter_json_lines_marked,
    lines_before,
    load_document,
    plain_json,
    stream_items,
)
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

if TYPE_CHECKING:
    from ._otlp_typed import TypedRequest

__all__ = ["OTLP", "STREAM_ABOVE", "OTLPAdapter", "map_resource_spans"]

#: single documents above this size are streamed with ijson instead of parsed whole
STREAM_ABOVE = 64 << 20

_START = re.compile(rb'^\s*\{\s*"(resourceSpans|batches|trace)"\s*:')
_TOP_KEY = re.compile(rb'"(resourceSpans|batches)"\s*:\s*\[')
_ANYWHERE = re.compile(rb'"(resourceSpans|instrumentationLibrarySpans|scopeSpans)"\s*:\s*\[')

_MISSING: Any = object()
_SPAN_KEYS = frozenset({
    "traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
    "endTimeUnixNano", "attributes", "events", "links", "status", "traceState", "flags",
    "droppedAttributesCount", "droppedEventsCount", "droppedLinksCount",
})


class OTLPAdapter:
    """OTLP/JSON documents, collector JSONL and the Tempo ``batches`` envelope."""

    name = "otlp"

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        m = _START.match(head)
        if m is not None:
            if m.group(1) != b"trace":
                return 95
            return 90 if _ANYWHERE.search(head) else 0
        return 60 if _ANYWHERE.search(head) else 0

    def splittable(self, source: SourceFile) -> bool:
        """Collector JSONL (one document per line) can be read in byte ranges."""
        return _line_mode(source.head) and _newline_before(source, STREAM_ABOVE)

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        facts = TraceFacts()
        count = 0
        docs = _resource_span_lists(source)
        while True:
            # Parse and map one document (one line) at a time with the cyclic GC paused:
            # it creates no cycles, and the collector would otherwise traverse the
            # freshly parsed document again and again. The caller's code between the
            # yields runs with the GC as it found it.
            with _gc_paused():
                try:
                    where, box, plain = next(docs)
                except StopIteration:
                    break
                # the box is the only reference: the document dies with the mapping
                with plain_json(plain):
                    events = map_resource_spans(box.pop(), source, facts, count, where)
            count += len(events)
            yield from events
            del events
        if count == 0 and not _is_part(source):  # a part may hold only blank lines
            raise InvalidTraceError(f"{source.display}: no spans in the file",
                                    file=source.display)
        yield from facts.infos()


OTLP = OTLPAdapter()


@contextmanager
def _gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# -- documents ---------------------------------------------------------------------------


def _line_mode(head: bytes) -> bool:
    """Whether the file is one compact document per line (JSONL, or one long line)."""
    first, nl, _ = head.lstrip().partition(b"\n")
    if not nl:
        return True
    try:
        loads(first)
    except _JSONDecodeError:
        return False
    return True


def _is_part(source: SourceFile) -> bool:
    return bool(source.start) or source.end is not None


def _resource_span_lists(source: SourceFile,
                         ) -> Iterator[tuple[object, list[list[Any] | TypedRequest], bool]]:
    """``(where, [resourceSpans items], plain)`` per document of the file. The items come
    in a box the caller empties, so that this generator keeps no reference to them;
    ``plain``: the document is a plain line (``_decode.plain_json``)."""
    head = source.head
    part = _is_part(source)
    if part or _line_mode(head):
        if not part and source.size > STREAM_ABOVE \
                and not _newline_before(source, STREAM_ABOVE):
            yield from _streamed(source)
            return
        from ._otlp_typed import TypedRequest, decode  # msgspec: when lines are read

        for n, doc, plain in iter_json_lines_marked(source, decode):
            where = _Line(source, n) if part else f"line {n}"
            box: list[list[Any] | TypedRequest] = [
                doc if type(doc) is TypedRequest else _items(doc, source, where)]
            del doc
            yield where, box, plain
        return
    if source.size > STREAM_ABOVE:
        yield from _streamed(source)
        return
    yield "", [_items(load_document(source), source, "")], False


class _Line:
    """"line N" of a part of the file, counted from the start of the file only when an
    error message needs it."""

    __slots__ = ("n", "source")

    def __init__(self, source: SourceFile, n: int) -> None:
        self.source, self.n = source, n

    def __str__(self) -> str:
        return f"line {lines_before(self.source) + self.n}"


def _newline_before(source: SourceFile, limit: int) -> bool:
    """Whether a line break with more content after it occurs in the first ``limit`` bytes."""
    seen = 0
    with source.open() as f:
        while seen < limit:
            chunk = f.read(1 << 20)
            if not chunk:
                return False
            i = chunk.find(b"\n")
            if i >= 0:
                return bool(chunk[i + 1:].strip() or f.read(1 << 16).strip())
            seen += len(chunk)
    return False


def _items(doc: Any, source: SourceFile, where: object) -> list[Any]:
    if isinstance(doc, list):  # a list of export requests
        out: list[Any] = []
        for d in doc:
            out.extend(_items(d, source, where))
        return out
    if isinstance(doc, dict):
        if isinstance(doc.get("trace"), dict) and "resourceSpans" not in doc:
            doc = doc["trace"]
        for key in ("resourceSpans", "batches"):
            items = doc.get(key)
            if isinstance(items, list):
                return items
            if items is not None:
                break
    at = f" ({where})" if where else ""
    raise InvalidTraceError(
        f"{source.display}{at}: not OTLP/JSON: expected an object with a "
        f"'resourceSpans' (or Tempo 'batches') list", file=source.display)


def _streamed(source: SourceFile,
              ) -> Iterator[tuple[object, list[list[Any] | TypedRequest], bool]]:
    """Stream the ``resourceSpans`` items of one huge document, one at a time."""
    import ijson

    head = source.head
    m = _START.match(head)
    if m is not None and m.group(1) == b"trace":
        prefix = "trace.resourceSpans.item"
    else:
        k = _TOP_KEY.search(head)
        prefix = (k.group(1).decode() if k else "resourceSpans") + ".item"
    try:
        with source.open() as f:
            for i, item in enumerate(stream_items(f, prefix)):
                box: list[list[Any] | TypedRequest] = [[item]]
                del item
                yield f"resourceSpans item {i}", box, False
    except UnicodeDecodeError as exc:
        raise EncodingError(f"{source.display}: not UTF-8 ({exc.reason})",
                            file=source.display) from None
    except LimitExceededError as exc:
        raise exc.at(source.display) from None
    except ijson.JSONError as exc:
        text = exc.args[0] if exc.args else exc
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        text = str(text).strip().splitlines()[0] if str(text).strip() else "incomplete"
        if "UTF8" in text or "UTF-8" in text:
            raise EncodingError(f"{source.display}: not UTF-8 ({text})",
                                file=source.display) from None
        raise InvalidJSONError(f"{source.display}: invalid JSON: {text}",
                               file=source.display) from None


# -- spans --------------------------------------------------------------------------------


def map_resource_spans(items: list[Any] | TypedRequest, source: SourceFile,
                       facts: TraceFacts, before: int = 0, where: object = "") -> list[RawEvent]:
    """The events of a ``resourceSpans`` list (or of a line read into typed structs);
    ``before`` spans came earlier in the file (errors name a span by its position in
    the file)."""
    if not isinstance(items, list):  # a TypedRequest
        return _map_typed(items, source, facts, before)
    out: list[RawEvent] = []
    index = before
    add = facts.add
    ids: dict[Any, str | None] = {}
    for rs in items:
        if type(rs) is not dict:
            raise _shape(source, where, "a resourceSpans item is not an object")
        resource = rs.get("resource") or {}
        res_attrs = attributes_dict(resource.get("attributes") if type(resource) is dict
                                    else None)
        res_extra = {"otel.schema_url": rs["schemaUrl"]} if rs.get("schemaUrl") else None
        scope_lists = rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []
        if not isinstance(scope_lists, list):
            raise _shape(source, where, "scopeSpans is not a list")
        for ss in scope_lists:
            if type(ss) is not dict:
                raise _shape(source, where, "a scopeSpans item is not an object")
            sc = ss.get("scope") or ss.get("instrumentationLibrary") or {}
            if type(sc) is not dict:
                sc = {}
            scope = SpanScope.build(res_attrs, sc.get("name"), sc.get("version"),
                                    attributes_dict(sc.get("attributes")), res_extra)
            spans = ss.get("spans") or []
            if not isinstance(spans, list):
                raise _shape(source, where, "spans is not a list")
            for sp in spans:
                index += 1
                ev = _span(sp, scope, source, index, ids)
                add(ev, scope)
                out.append(ev)
    return out


def _map_typed(req: TypedRequest, source: SourceFile, facts: TraceFacts,
               before: int) -> list[RawEvent]:
    """``map_resource_spans`` of a line read into typed structs: the same steps, on
    attributes the decoder already made dicts of."""
    out: list[RawEvent] = []
    index = before
    add = facts.add
    ids: dict[Any, str | None] = {}
    attrs = iter(req.attrs)
    for rs in req.items:
        resource = rs.resource or {}
        res_attrs = attributes_dict(resource.get("attributes") if type(resource) is dict
                                    else None)
        res_extra = {"otel.schema_url": rs.schemaUrl} if rs.schemaUrl else None
        for ss in rs.scopeSpans or rs.instrumentationLibrarySpans or ():
            sc = ss.scope or ss.instrumentationLibrary or {}
            if type(sc) is not dict:
                sc = {}
            scope = SpanScope.build(res_attrs, sc.get("name"), sc.get("version"),
                                    attributes_dict(sc.get("attributes")), res_extra)
            for sp in ss.spans or ():
                index += 1
                with malformed(source, f"span {index}", span=index):
                    ev = _typed_span(sp, next(attrs), scope, source, index, ids)
                add(ev, scope)
                out.append(ev)
    return out


def _typed_span(sp: Any, attrs: dict[str, Any], scope: SpanScope, source: SourceFile,
                index: int, ids: dict[Any, str | None]) -> RawEvent:
    """``_span`` of a typed span (``_otlp_typed._Span``), field for field."""
    raw = sp.traceId
    tid = ids.get(raw)
    if tid is None:
        tid = ids[raw] = norm_id(raw)
    sid = norm_id(sp.spanId)
    if not tid or not sid:
        missing = "traceId" if not tid else "spanId"
        raise InvalidTraceError(f"{source.display}: span {index} has no {missing}",
                                file=source.display, span=index)
    raw = sp.parentSpanId
    parent = ids.get(raw, _MISSING)
    if parent is _MISSING:
        parent = ids[raw] = norm_id(raw)
    st = sp.status
    code = msg = None
    if type(st) is dict:
        code, msg = st.get("code"), st.get("message")
    extra = None
    if sp.droppedAttributesCount or sp.droppedEventsCount or sp.droppedLinksCount:
        dropped = {k: v for k, v in (("attributes", sp.droppedAttributesCount),
                                     ("events", sp.droppedEventsCount),
                                     ("links", sp.droppedLinksCount)) if v}
        extra = {"otel.dropped": dropped}
    events = sp.events
    links = sp.links
    return map_span(
        tid, sid, parent, sp.name, span_kind_name(sp.kind),
        time_ns(sp.startTimeUnixNano), time_ns(sp.endTimeUnixNano),
        status_of(code), msg, attrs,
        _events(events) if events else None, _links(links) if links else None,
        sp.traceState, sp.flags, scope, extra)


def _shape(source: SourceFile, where: object, what: str) -> InvalidTraceError:
    at = f" ({where})" if where else ""
    return InvalidTraceError(f"{source.display}{at}: {what}", file=source.display)


def _span(sp: Any, scope: SpanScope, source: SourceFile, index: int,
          ids: dict[Any, str | None]) -> RawEvent:
    """One OTLP span. ``ids`` remembers normalised trace and parent ids, which repeat."""
    if type(sp) is not dict:
        raise InvalidTraceError(f"{source.display}: span {index} is not an object",
                                file=source.display, span=index)
    with malformed(source, f"span {index}", span=index):
        raw = sp.get("traceId")
        tid = ids.get(raw)
        if tid is None:
            tid = ids[raw] = norm_id(raw)
        sid = norm_id(sp.get("spanId"))
        if not tid or not sid:
            missing = "traceId" if not tid else "spanId"
            raise InvalidTraceError(f"{source.display}: span {index} has no {missing}",
                                    file=source.display, span=index)
        raw = sp.get("parentSpanId")
        parent = ids.get(raw, _MISSING)
        if parent is _MISSING:
            parent = ids[raw] = norm_id(raw)
        st = sp.get("status")
        code = msg = None
        if type(st) is dict:
            code, msg = st.get("code"), st.get("message")
        extra = None
        if not _SPAN_KEYS.issuperset(sp) or sp.get("droppedAttributesCount") \
                or sp.get("droppedEventsCount") or sp.get("droppedLinksCount"):
            extra = _span_extra(sp)
        events = sp.get("events")
        links = sp.get("links")
        return map_span(
            tid, sid, parent, sp.get("name"), span_kind_name(sp.get("kind")),
            time_ns(sp.get("startTimeUnixNano")), time_ns(sp.get("endTimeUnixNano")),
            status_of(code), msg, attributes_dict(sp.get("attributes")),
            _events(events) if events else None, _links(links) if links else None,
            sp.get("traceState"), sp.get("flags"), scope, extra)


def _span_extra(sp: dict[str, Any]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    dropped = {k[7:-5].lower(): sp[k] for k in ("droppedAttributesCount",
                                                 "droppedEventsCount", "droppedLinksCount")
               if sp.get(k)}
    if dropped:
        out["otel.dropped"] = dropped
    unknown = {k: v for k, v in sp.items() if k not in _SPAN_KEYS}
    if unknown:
        out["otel.span_fields"] = unknown
    return out or None


def _events(raw: Any) -> list[dict[str, Any]] | None:
    if not raw or not isinstance(raw, list):
        return None
    out = []
    for e in raw:
        if type(e) is not dict:
            continue
        ev: dict[str, Any] = {"name": e.get("name"), "time_ns": time_ns(e.get("timeUnixNano")),
                              "attrs": attributes_dict(e.get("attributes"))}
        if e.get("droppedAttributesCount"):
            ev["dropped_attributes"] = e["droppedAttributesCount"]
        out.append(ev)
    return out or None


def _links(raw: Any) -> list[dict[str, Any]] | None:
    if not raw or not isinstance(raw, list):
        return None
    out = []
    for ln in raw:
        if type(ln) is not dict:
            continue
        link: dict[str, Any] = {"trace_id": norm_id(ln.get("traceId")),
                                "span_id": norm_id(ln.get("spanId"))}
        if ln.get("traceState"):
            link["trace_state"] = ln["traceState"]
        la = attributes_dict(ln.get("attributes"))
        if la:
            link["attrs"] = la
        if ln.get("flags"):
            link["flags"] = ln["flags"]
        out.append(link)
    return out or None
