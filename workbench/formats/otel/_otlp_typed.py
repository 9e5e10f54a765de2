"""OTLP/JSON read into typed structs (msgspec), the shape that carries the volume.

One collector line (an ``ExportTraceServiceRequest``) is decoded straight into
``_Request`` → ``_ResourceSpans`` → ``_ScopeSpans`` → ``_Span`` with attribute lists of
``_KeyValue``/``_AnyValue``: no dict per span, attribute or value. The parts a span
rarely has (events, links, status, the resource and scope) stay plain JSON values and
go through the generic code of ``_otlp``/``_value``.

The structs are a fast path, never a second reading of the format. ``decode`` refuses
(``NotTyped``) whatever they do not describe exactly, and the caller then reads the
line the generic way, which gives the same events or the same error as before:

- anything msgspec does not decode into the structs: malformed JSON, a span field
  OTLP does not name (it goes to ``otel.span_fields``), attributes given as an object,
  a key that is not a string, an attribute without ``value``, nesting past msgspec's
  bound, a top level that is not an object with a ``resourceSpans`` list;
- an ``AnyValue`` holding more than one typed field besides ``stringValue``: the
  generic reader takes the first in the text, which a struct does not remember.

The caller hands only lines whose integers fit 64 bits (``_decode``: no run of 20
digits where a number can start), where msgspec's and orjson's values are the same.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct

from ._value import _ANY, _int

__all__ = ["NotTyped", "TypedRequest", "decode"]


class _AnyValue(Struct, gc=False):
    stringValue: Any = UNSET
    intValue: Any = UNSET
    doubleValue: Any = UNSET
    boolValue: Any = UNSET
    arrayValue: Any = UNSET
    kvlistValue: Any = UNSET
    bytesValue: Any = UNSET


class _KeyValue(Struct, gc=False):
    key: str
    value: _AnyValue


class _Span(Struct, forbid_unknown_fields=True, gc=False):
    traceId: Any = None
    spanId: Any = None
    parentSpanId: Any = None
    name: Any = None
    kind: Any = None
    startTimeUnixNano: Any = None
    endTimeUnixNano: Any = None
    attributes: list[_KeyValue] | None = None
    events: Any = None
    links: Any = None
    status: Any = None
    traceState: Any = None
    flags: Any = None
    droppedAttributesCount: Any = None
    droppedEventsCount: Any = None
    droppedLinksCount: Any = None


class _ScopeSpans(Struct, gc=False):
    scope: Any = None
    instrumentationLibrary: Any = None
    spans: list[_Span] | None = None


class _ResourceSpans(Struct, gc=False):
    resource: Any = None
    schemaUrl: Any = None
    scopeSpans: list[_ScopeSpans] | None = None
    instrumentationLibrarySpans: list[_ScopeSpans] | None = None


class _Request(Struct, gc=False):
    resourceSpans: list[_ResourceSpans]


class NotTyped(ValueError):
    """The line is not one the structs describe exactly: read it the generic way."""


class TypedRequest:
    """A decoded line: its ``resourceSpans`` and each span's attributes as a dict (in
    the order of the spans), taken while nothing else has seen the line."""

    __slots__ = ("attrs", "items")

    def __init__(self, items: list[_ResourceSpans], attrs: list[dict[str, Any]]) -> None:
        self.items, self.attrs = items, attrs


_DECODER = msgspec.json.Decoder(_Request)
_TYPED = ("intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue")


def decode(raw: bytes) -> TypedRequest:
    """One collector line as a ``TypedRequest``; ``NotTyped`` where the structs do not
    describe it exactly."""
    try:
        req = _DECODER.decode(raw)
    except (msgspec.DecodeError, RecursionError):  # ValidationError included
        raise NotTyped from None
    attrs = []
    for rs in req.resourceSpans:
        for ss in rs.scopeSpans or rs.instrumentationLibrarySpans or ():
            for sp in ss.spans or ():
                attrs.append(_attributes(sp.attributes) if sp.attributes else {})
    return TypedRequest(req.resourceSpans, attrs)


def _attributes(kvs: list[_KeyValue]) -> dict[str, Any]:
    """``_value.attributes_dict`` of the same list: a ``stringValue`` wins, else the one
    typed field there is."""
    out: dict[str, Any] = {}
    for kv in kvs:
        v = kv.value
        s = v.stringValue
        out[kv.key] = s if s is not UNSET else _typed(v)
    return out


def _typed(v: _AnyValue) -> Any:
    i = v.intValue  # the usual one (token counts, ports, codes): checked field by field
    if i is not UNSET and v.doubleValue is UNSET and v.boolValue is UNSET \
            and v.arrayValue is UNSET and v.kvlistValue is UNSET and v.bytesValue is UNSET:
        return _int(i)
    found: Any = None
    for name in _TYPED:
        x = getattr(v, name)
        if x is not UNSET:
            if found is not None:
                raise NotTyped  # two typed fields: the text's order decides
            found = (_ANY[name](x),)
    return None if found is None else found[0]
