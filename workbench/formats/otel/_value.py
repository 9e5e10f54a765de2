"""Decoding of OTLP values and span fields, shared by every OTel-shaped reader.

``AnyValue`` and attribute lists as Python values, trace and span ids in one
spelling, span kind names, status codes, timestamps, and the ``SpanScope``
(resource and instrumentation scope) a group of spans shares.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from ...model import dumps
from .._decode import parse_time_ns

__all__ = [
    "SpanScope",
    "any_value",
    "attributes_dict",
    "norm_id",
    "span_kind_name",
    "status_of",
    "time_ns",
]

_HEX = frozenset("0123456789abcdef")

# -- OTLP values, ids, kinds, status, times ------------------------------------------


def any_value(v: Any) -> Any:
    """An OTLP ``AnyValue`` (``{"stringValue": "x"}``, ``{"intValue": "3"}`` ...) as a
    Python value; anything that is not an AnyValue object is returned as it is."""
    if type(v) is not dict:
        return v
    for k, x in v.items():
        if k == "stringValue":
            return x
        conv = _ANY.get(k)
        if conv is not None:
            return conv(x)
    return None


def _int(x: Any) -> Any:
    try:
        return int(x)
    except (TypeError, ValueError):
        return x


def _float(x: Any) -> Any:
    try:
        return float(x)
    except (TypeError, ValueError):
        return x


def _bool(x: Any) -> Any:
    return x if isinstance(x, bool) else str(x).lower() == "true"


def _array(x: Any) -> list[Any]:
    vals = x.get("values") if type(x) is dict else None
    return [any_value(i) for i in vals] if isinstance(vals, list) else []


def _kvlist(x: Any) -> dict[str, Any]:
    vals = x.get("values") if type(x) is dict else None
    return attributes_dict(vals) if isinstance(vals, list) else {}


_ANY: dict[str, Any] = {"intValue": _int, "doubleValue": _float, "boolValue": _bool,
                        "arrayValue": _array, "kvlistValue": _kvlist, "bytesValue": str}


def attributes_dict(raw: Any) -> dict[str, Any]:
    """OTLP ``[{key, value}]`` (or an already flat mapping) as a flat dict."""
    if type(raw) is list:
        try:
            return {a["key"]: (v["stringValue"] if "stringValue" in v else any_value(v))
                    for a in raw for v in (a["value"],)}
        except (KeyError, TypeError):
            pass
        out: dict[str, Any] = {}
        for a in raw:
            if type(a) is dict and isinstance(a.get("key"), str):
                out[a["key"]] = any_value(a.get("value"))
        return out
    if type(raw) is dict:
        return raw
    return {}


def norm_id(value: Any) -> str | None:
    """A trace or span id in one spelling: lower-case hex (from hex in either case,
    ``0x``-prefixed hex, or base64 of 16 or 8 bytes); ``""`` and all-zero ids are None.
    Ids that are none of these are kept as given."""
    if type(value) is str:
        n = len(value)
        if n == 32 or n == 16:
            low = value.lower()
            if _HEX.issuperset(low):
                return low if low.strip("0") else None
        elif n == 0:
            return None
    elif value is None:
        return None
    else:
        value = str(value)
    return _odd_id(value)


def _odd_id(value: str) -> str | None:
    s = value[2:] if value[:2] in ("0x", "0X") else value
    n = len(s)
    if n == 0:
        return None
    low = s.lower()
    if _HEX.issuperset(low) and (n in (32, 16) or s is not value):
        return low if low.strip("0") else None
    if (n == 24 and s.endswith("==")) or (n == 12 and s.endswith("=")):
        try:
            raw = base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            return value
        if len(raw) in (16, 8):
            return raw.hex() if any(raw) else None
    return value


_KIND_NAMES = ("INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
_KIND_TEXT: dict[str, str] = {}
for _n in _KIND_NAMES:
    for _spelling in (_n, _n.lower(), "SPAN_KIND_" + _n, "SpanKind." + _n):
        _KIND_TEXT[_spelling] = _n


def span_kind_name(value: Any, *, sdk: bool = False) -> str | None:
    """``INTERNAL``/``SERVER``/``CLIENT``/``PRODUCER``/``CONSUMER`` from a number or a
    name. Numbers follow OTLP (1 = INTERNAL ... 5 = CONSUMER, 0 = unspecified) unless
    ``sdk``: the JS and Python SDK enums count from 0 = INTERNAL."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        i = value if sdk else value - 1
        return _KIND_NAMES[i] if 0 <= i < len(_KIND_NAMES) else None
    if isinstance(value, str):
        name = _KIND_TEXT.get(value)
        if name is None and value.isdigit():
            return span_kind_name(int(value), sdk=sdk)
        return name
    return None


_STATUS = {
    0: "unset", 1: "ok", 2: "error",
    "0": "unset", "1": "ok", "2": "error",
    "STATUS_CODE_UNSET": "unset", "STATUS_CODE_OK": "ok", "STATUS_CODE_ERROR": "error",
    "UNSET": "unset", "OK": "ok", "ERROR": "error",
    "StatusCode.UNSET": "unset", "StatusCode.OK": "ok", "StatusCode.ERROR": "error",
    "unset": "unset", "ok": "ok", "error": "error",
}


def status_of(code: Any) -> str:
    """``ok``, ``error`` or ``unset`` from an OTLP, JS or Python status code."""
    try:
        return _STATUS.get(code, "unset")
    except TypeError:  # an unhashable code
        return "unset"


def time_ns(value: Any) -> int | None:
    """Nanoseconds from a ``*UnixNano`` string or number, an hrtime pair or ISO text;
    0 (unset in OTLP) is None."""
    if type(value) is str and value.isdigit():
        if len(value) > 19:  # beyond int64, and int() refuses the longest
            return None
        n = int(value)
        return n if 0 < n < _INT64 else None
    if type(value) is int:
        return value if 0 < value < _INT64 else None
    return parse_time_ns(value) or None


_INT64 = 1 << 63  # a time beyond int64 nanoseconds is garbage, not a time


# -- what spans share: resource and scope -------------------------------------------


@dataclass(slots=True)
class SpanScope:
    """The resource and instrumentation scope a group of spans shares."""

    #: every attribute of the resource (service.name included), or None
    resource: dict[str, Any] | None = None
    #: the resource as JSON text, to tell resources apart
    resource_key: str | None = None
    #: what every span of the scope adds to its attrs (``otel.scope.*``, service.name)
    attrs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, resource: dict[str, Any] | None, scope_name: Any = None,
              scope_version: Any = None, scope_attrs: dict[str, Any] | None = None,
              resource_extra: dict[str, Any] | None = None) -> SpanScope:
        res = dict(resource or {})
        if resource_extra:
            res.update(resource_extra)
        added = {k: v for k, v in (("otel.scope.name", scope_name),
                                   ("otel.scope.version", scope_version),
                                   ("otel.scope.attributes", scope_attrs or None),
                                   ("service.name", res.get("service.name")))
                 if v is not None and v != ""}
        return cls(resource=res or None, resource_key=dumps(res) if res else None,
                   attrs=added)
