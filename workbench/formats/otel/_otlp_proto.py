"""Adapter ``otlp-proto``: OTLP protobuf trace files, and the decoding the collector shares.

A file holds one of:

- one ``ExportTraceServiceRequest`` or ``TracesData`` message (the two are the same
  bytes on the wire: field 1, repeated ``ResourceSpans``), as ``.pb`` / ``.binpb``;
- the collector file exporter's ``format: proto`` stream: each message preceded by its
  size as 4 bytes, big-endian;
- either of them gzipped (``.gz``; read by the magic bytes, not the name).

Messages are decoded with the official definitions (the ``opentelemetry-proto``
package) and turned into the OTLP/JSON document the ``otlp`` adapter reads
(``to_otlp_json``: ids in hex, enums as integers), so one span mapping serves both.
A message is decoded whole: a file (after gunzip) larger than ``protobuf_bytes`` is
refused, and so is a gzip member that inflates past it (a gzip bomb).
"""

from __future__ import annotations

import base64
import math
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...model import LIMITS, InputError, InvalidTraceError, WorkbenchError
from .._adapter import RawEvent, SourceFile, TraceInfo
from ._facts import TraceFacts
from ._otlp import map_resource_spans

__all__ = ["OTLP_PROTO", "OTLPProtoAdapter", "ProtoUnavailableError", "decode_traces",
           "gunzip", "span_trace_ids", "to_otlp_json"]

_GZIP = b"\x1f\x8b"
_ZSTD = b"\x28\xb5\x2f\xfd"
_SUFFIXES = (".pb", ".binpb", ".pb.gz", ".binpb.gz", ".protobuf", ".proto.bin")
_LIMIT = LIMITS["protobuf_bytes"]


class ProtoUnavailableError(InputError):
    """The ``opentelemetry-proto`` package (and its ``protobuf``) cannot be imported."""

    code = "PROTOBUF_UNAVAILABLE"
    default_hint = ("install the OpenTelemetry protobuf definitions: "
                    "pip install 'opentelemetry-proto>=1.27'")


def _traces_data() -> Any:
    try:
        from opentelemetry.proto.trace.v1.trace_pb2 import TracesData
    except ImportError as exc:
        raise ProtoUnavailableError(f"OTLP protobuf cannot be decoded here: {exc}") from None
    return TracesData


def gunzip(data: bytes, limit: int, where: str) -> bytes:
    """``data`` inflated (every gzip member), refused past ``limit`` bytes."""
    out = bytearray()
    while data:
        d = zlib.decompressobj(31)
        try:
            out += d.decompress(data, limit + 1 - len(out))
        except zlib.error as exc:
            raise InvalidTraceError(f"{where}: not valid gzip ({exc})", file=where) from None
        if len(out) > limit or d.unconsumed_tail:
            raise _LIMIT.breach(where, f"more than {limit:,} bytes inflated", file=where)
        if not d.eof:
            raise InvalidTraceError(f"{where}: the gzip data is cut short", file=where)
        data = d.unused_data.lstrip(b"\x00")
        if data and not data.startswith(_GZIP):
            raise InvalidTraceError(f"{where}: bytes after the gzip data", file=where)
    return bytes(out)


def _any(v: Any) -> dict[str, Any]:
    """An ``AnyValue`` as OTLP/JSON spells it (int64 as a string, bytes in base64)."""
    k = v.WhichOneof("value")
    if k == "string_value":
        return {"stringValue": v.string_value}
    if k == "int_value":
        return {"intValue": str(v.int_value)}
    if k == "bool_value":
        return {"boolValue": v.bool_value}
    if k == "double_value":
        x = v.double_value
        return {"doubleValue": x if math.isfinite(x) else _NON_FINITE[str(x)]}
    if k == "array_value":
        values = v.array_value.values
        return {"arrayValue": {"values": [_any(x) for x in values]} if len(values) else {}}
    if k == "kvlist_value":
        pairs = v.kvlist_value.values
        return {"kvlistValue": {"values": _attrs(pairs)} if len(pairs) else {}}
    if k == "bytes_value":
        return {"bytesValue": base64.b64encode(v.bytes_value).decode("ascii")}
    return {}


_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _attrs(kvs: Any) -> list[dict[str, Any]]:
    return [{"key": kv.key, "value": _any(kv.value)} for kv in kvs]


def _put(d: dict[str, Any], key: str, value: Any) -> None:
    if value:
        d[key] = value


def _with_attrs(d: dict[str, Any], m: Any) -> dict[str, Any]:
    if len(m.attributes):
        d["attributes"] = _attrs(m.attributes)
    _put(d, "droppedAttributesCount", m.dropped_attributes_count)
    return d


def _span_json(sp: Any) -> dict[str, Any]:
    d: dict[str, Any] = {}
    _put(d, "traceId", sp.trace_id.hex())
    _put(d, "spanId", sp.span_id.hex())
    _put(d, "traceState", sp.trace_state)
    _put(d, "parentSpanId", sp.parent_span_id.hex())
    _put(d, "flags", sp.flags)
    _put(d, "name", sp.name)
    _put(d, "kind", sp.kind)
    _put(d, "startTimeUnixNano", str(sp.start_time_unix_nano)
         if sp.start_time_unix_nano else "")
    _put(d, "endTimeUnixNano", str(sp.end_time_unix_nano) if sp.end_time_unix_nano else "")
    _with_attrs(d, sp)
    if len(sp.events):
        d["events"] = [_with_attrs(_event(e), e) for e in sp.events]
    _put(d, "droppedEventsCount", sp.dropped_events_count)
    if len(sp.links):
        d["links"] = [_with_attrs(_link(ln), ln) for ln in sp.links]
    _put(d, "droppedLinksCount", sp.dropped_links_count)
    if sp.HasField("status"):
        st: dict[str, Any] = {}
        _put(st, "message", sp.status.message)
        _put(st, "code", sp.status.code)
        d["status"] = st
    return d


def _event(e: Any) -> dict[str, Any]:
    d: dict[str, Any] = {}
    _put(d, "timeUnixNano", str(e.time_unix_nano) if e.time_unix_nano else "")
    _put(d, "name", e.name)
    return d


def _link(ln: Any) -> dict[str, Any]:
    d: dict[str, Any] = {}
    _put(d, "traceId", ln.trace_id.hex())
    _put(d, "spanId", ln.span_id.hex())
    _put(d, "traceState", ln.trace_state)
    _put(d, "flags", ln.flags)
    return d


def to_otlp_json(message: Any) -> dict[str, Any]:
    """A decoded ``TracesData`` as an OTLP/JSON document (``{"resourceSpans": [...]}``):
    what ``json_format.MessageToDict`` gives with integer enums, ids in hex as OTLP/JSON
    spells them instead of base64, walked directly (several times faster)."""
    out = []
    for rs in message.resource_spans:
        r: dict[str, Any] = {}
        if rs.HasField("resource"):
            r["resource"] = _with_attrs({}, rs.resource)
        scopes = []
        for ss in rs.scope_spans:
            s: dict[str, Any] = {}
            if ss.HasField("scope"):
                sc: dict[str, Any] = {}
                _put(sc, "name", ss.scope.name)
                _put(sc, "version", ss.scope.version)
                s["scope"] = _with_attrs(sc, ss.scope)
            if len(ss.spans):
                s["spans"] = [_span_json(sp) for sp in ss.spans]
            _put(s, "schemaUrl", ss.schema_url)
            scopes.append(s)
        _put(r, "scopeSpans", scopes)
        _put(r, "schemaUrl", rs.schema_url)
        out.append(r)
    return {"resourceSpans": out}


def decode_traces(data: bytes, where: str = "the message") -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` / ``TracesData`` message as OTLP/JSON; a message
    that is not one (truncated, another message's bytes) is ``INVALID_TRACE``."""
    cls = _traces_data()
    from google.protobuf.message import DecodeError
    try:
        msg = cls.FromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise InvalidTraceError(f"{where}: not an OTLP protobuf trace message ({exc})",
                                file=where) from None
    return to_otlp_json(msg)


def _messages(data: bytes, where: str) -> Iterator[tuple[str, bytes]]:
    """``(where, message)`` of a file: one message, or the file exporter's stream of
    size-prefixed ones."""
    if not _framed(data):
        yield where, data
        return
    pos, n = 0, 0
    while pos < len(data):
        if len(data) - pos < 4:
            raise InvalidTraceError(f"{where}: the message stream is cut short", file=where)
        size = struct.unpack_from(">I", data, pos)[0]
        body = data[pos + 4:pos + 4 + size]
        if len(body) < size:
            raise InvalidTraceError(f"{where}: message {n + 1} is cut short ({len(body):,} "
                                    f"of {size:,} bytes)", file=where)
        if body.startswith(_ZSTD):
            raise InvalidTraceError(f"{where}: message {n + 1} is zstd-compressed, which is "
                                    "not read", file=where,
                                    hint="export with `compression` off, or decompress "
                                         "each message first")
        n += 1
        yield f"{where} message {n}", body
        pos += 4 + size


def _framed(data: bytes) -> bool:
    """Whether ``data`` is a size-prefixed stream: 4 bytes that are not how a
    ``TracesData`` opens (field 1, ``0x0A``), then a message that opens like one (or
    like zstd data)."""
    if len(data) < 5 or data[0] == 0x0A:
        return False
    return struct.unpack_from(">I", data, 0)[0] > 0 and data[4] in (0x0A, _ZSTD[0])


_REQUEST = SourceFile(Path("the request"), "", 0, b"")


def span_trace_ids(resource: Any, scope: Any, spans: list[Any]
                   ) -> list[str | WorkbenchError]:
    """The trace id of each span received (with its resource and scope) as ingest will
    read it, or the error that refuses it: the spans are mapped by the very code
    ``ingest`` runs, so a span that passes here cannot fail the commit. All at once;
    one at a time only when one of them is refused."""
    def mapped(group: list[Any]) -> list[RawEvent]:
        rs: dict[str, Any] = {"scopeSpans": [{"scope": scope, "spans": group}]}
        if resource is not None:
            rs["resource"] = resource
        return map_resource_spans([rs], _REQUEST, TraceFacts())

    try:
        return [ev.trace_id for ev in mapped(spans)]
    except WorkbenchError:
        pass
    out: list[str | WorkbenchError] = []
    for sp in spans:
        try:
            out.append(mapped([sp])[0].trace_id)
        except WorkbenchError as exc:
            out.append(exc)
    return out


# -- detection ----------------------------------------------------------------------------


def _varint(buf: bytes, pos: int) -> tuple[int, int] | None:
    value = shift = 0
    while pos < len(buf) and shift < 64:
        b = buf[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return value, pos
        shift += 7
    return None


def _fields(buf: bytes) -> Iterator[tuple[int, int, bytes | None]]:
    """``(field, wire type, bytes of a LEN field)`` until the buffer ends or stops making
    sense (a head is cut anywhere); a LEN field cut by the end gives its partial bytes."""
    pos = 0
    while pos < len(buf):
        tag = _varint(buf, pos)
        if tag is None:
            return
        key, pos = tag
        field, wire = key >> 3, key & 7
        if wire == 2:
            ln = _varint(buf, pos)
            if ln is None:
                return
            size, pos = ln
            yield field, wire, buf[pos:pos + size]
            pos += size
        elif wire == 0:
            v = _varint(buf, pos)
            if v is None:
                return
            pos = v[1]
            yield field, wire, None
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            yield field, wire, None
        else:
            yield field, wire, None
            return


def _looks_like_traces(head: bytes) -> int:
    """How sure the head is a ``TracesData``: its first ``ResourceSpans`` holds fields
    1-3 only, its first ``ScopeSpans`` fields 1-3, its first span a 16-byte trace id."""
    top = next(_fields(head), None)
    if top is None or top[:2] != (1, 2) or top[2] is None:
        return 0
    sure = 40
    for field, wire, body in _fields(top[2]):
        if field not in (1, 2, 3) or wire != 2:
            return 0
        if field == 2 and body is not None:
            for f2, w2, b2 in _fields(body):
                if f2 not in (1, 2, 3) or w2 != 2:
                    return 0
                if f2 == 2 and b2:
                    first = next(_fields(b2), None)
                    return 90 if first is not None and first[0] == 1 and first[2] is not None \
                        and len(first[2]) == 16 else 0
            sure = 60
    return sure


class OTLPProtoAdapter:
    """OTLP protobuf files: one message, the file exporter's stream, gzipped or not."""

    name = "otlp-proto"

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if head.startswith(_GZIP):
            try:
                head = zlib.decompressobj(31).decompress(head, 1 << 16)
            except zlib.error:
                return 0
        if _framed(head):
            head = head[4:]
        sure = _looks_like_traces(head)
        if sure and source.path.name.lower().endswith(_SUFFIXES):
            sure = max(sure, 80)
        return sure

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        where = source.display
        if source.size > _LIMIT.value and not source.head.startswith(_GZIP):
            raise _LIMIT.breach(where, f"{source.size:,} bytes", file=where)
        data = source.read_bytes()
        if data.startswith(_GZIP):
            data = gunzip(data, _LIMIT.value, where)
        facts = TraceFacts()
        count = 0
        for at, body in _messages(data, where):
            doc = decode_traces(body, at)
            events = map_resource_spans(doc["resourceSpans"], source, facts, count, at)
            count += len(events)
            yield from events
        if count == 0:
            raise InvalidTraceError(f"{where}: no spans in the file", file=where)
        yield from facts.infos()


OTLP_PROTO = OTLPProtoAdapter()
