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
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...model import LIMITS, InputError, InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo
from ._facts import TraceFacts
from ._otlp import map_resource_spans

__all__ = ["OTLP_PROTO", "OTLPProtoAdapter", "ProtoUnavailableError", "decode_traces",
           "gunzip", "proto_available", "span_trace_id", "to_otlp_json"]

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


def proto_available() -> bool:
    """Whether OTLP protobuf can be decoded in this environment."""
    try:
        _traces_data()
    except ProtoUnavailableError:
        return False
    return True


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


def _hex(b64: Any) -> Any:
    if type(b64) is not str or not b64:
        return b64
    return base64.b64decode(b64).hex()


def _fix_ids(doc: dict[str, Any]) -> dict[str, Any]:
    """protobuf's JSON spelling of ids (base64) as OTLP/JSON's (hex), in place."""
    for rs in doc.get("resourceSpans", ()):
        for ss in rs.get("scopeSpans", ()):
            for sp in ss.get("spans", ()):
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in sp:
                        sp[k] = _hex(sp[k])
                for ln in sp.get("links", ()):
                    for k in ("traceId", "spanId"):
                        if k in ln:
                            ln[k] = _hex(ln[k])
    return doc


def to_otlp_json(message: Any) -> dict[str, Any]:
    """A decoded ``TracesData`` as an OTLP/JSON document (``{"resourceSpans": [...]}``)."""
    from google.protobuf.json_format import MessageToDict
    doc: dict[str, Any] = MessageToDict(message, use_integers_for_enums=True)
    doc.setdefault("resourceSpans", [])
    return _fix_ids(doc)


def decode_traces(data: bytes, where: str = "the message") -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` / ``TracesData`` message as OTLP/JSON; a message
    that is not one (truncated, another message's bytes) is ``INVALID_TRACE``."""
    from google.protobuf.message import DecodeError
    cls = _traces_data()
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


def span_trace_id(resource: Any, scope: Any, span: Any) -> str:
    """The trace id of one span received alone (with its resource and scope), as ingest
    will read it: the span is mapped by the very code ``ingest`` runs, so a span that
    passes here cannot fail the commit. ``InvalidTraceError`` says why it is refused."""
    rs = {"resource": resource, "scopeSpans": [{"scope": scope, "spans": [span]}]}
    if resource is None:
        del rs["resource"]
    events = map_resource_spans([rs], _REQUEST, TraceFacts())
    return events[0].trace_id


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
