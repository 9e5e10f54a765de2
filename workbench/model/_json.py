"""Exact, fast JSON: orjson where it is exact, the standard library where it is not.

orjson reads integers wider than 64 bits as floats and refuses to write them. A trace
is evidence (an order total, a Decimal turned float), so such documents go through
the standard library, which keeps every digit.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import unquote

import orjson

from ._limits import LIMITS, within_depth

__all__ = ["JSONDecodeError", "dumps", "dumps_bytes", "json_pointer", "json_type", "loads",
           "loads_many"]

JSONDecodeError = (orjson.JSONDecodeError, json.JSONDecodeError, UnicodeDecodeError)

# orjson reads integers beyond 64 bits as floats; such a literal has 20 or more digits
# (19 after a minus sign).
# Mapping every digit to "0" and searching for twenty of them is ~6x faster than orjson
# itself (a regex is slower than the parse); only documents that pass go the slow way.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_RUN = b"0" * 20
_NEGATIVE = b"-" + b"0" * 19  # below -2**63


_RUN19 = _RUN[1:]  # in both of the above: one scan rules out nearly every document


def _wide(data: bytes) -> bool:
    if len(data) < 20:
        return False
    zeros = data.translate(_DIGITS)
    if zeros.find(_RUN19) < 0:
        return False
    return zeros.find(_RUN) >= 0 or zeros.find(_NEGATIVE) >= 0


def loads(data: bytes | str) -> Any:
    """Parse JSON exactly. Raises one of ``JSONDecodeError`` on bad input, and
    ``LimitExceededError`` (without a file: the caller names it) for a value nested
    deeper than ``json_depth`` or an integer longer than ``integer_digits``."""
    try:
        if isinstance(data, bytes):
            if not _wide(data):
                return orjson.loads(data)
            return _exact(data.decode("utf-8"))
        if len(data) < 20 or not _wide(data.encode("utf-8", "surrogatepass")):
            return orjson.loads(data)
        return _exact(data)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):
            raise _DEPTH.breach("JSON") from None
        raise


_DEPTH, _DIGITS_LIMIT = LIMITS["json_depth"], LIMITS["integer_digits"]


def _exact(text: str) -> Any:
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_int=_int,
                           parse_float=_float)
    except RecursionError:  # the standard library nests on the interpreter's stack
        raise _DEPTH.breach("JSON", "more than the interpreter's stack holds") from None
    _within_depth(value)  # orjson's bound, which the standard library does not keep
    return value


def _within_depth(value: Any) -> None:
    """``LimitExceededError`` when ``value`` nests deeper than ``json_depth`` (only
    documents read the exact way pay for the walk)."""
    within_depth(value, _DEPTH, "JSON")


def _int(literal: str) -> int:
    digits = len(literal) - literal.startswith("-")
    if digits > _DIGITS_LIMIT.value:
        raise _DIGITS_LIMIT.breach("JSON", digits)
    return int(literal)


def loads_many(text: str) -> list[Any]:
    """The JSON values written one after another in ``text`` (``{..}{..}`` or separated
    by white space), exactly and within the same limits as ``loads``."""
    decoder = json.JSONDecoder(parse_constant=_no_constant, parse_int=_int,
                               parse_float=_float)
    values: list[Any] = []
    pos, end = 0, len(text)
    try:
        while True:
            while pos < end and text[pos] in " \t\r\n":
                pos += 1
            if pos >= end:
                return values
            value, pos = decoder.raw_decode(text, pos)
            _within_depth(value)
            values.append(value)
    except RecursionError:
        raise _DEPTH.breach("JSON", "more than the interpreter's stack holds") from None


def _float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):  # orjson refuses these too
        raise json.JSONDecodeError("number is infinity when parsed as double", literal, 0)
    return value


def _no_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def dumps_bytes(value: Any) -> bytes:
    """Compact JSON bytes, keys in their given order."""
    try:
        return orjson.dumps(value)
    except TypeError:  # wide integers, or deeper than orjson writes (254 levels)
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                              default=str).encode("utf-8")
        except RecursionError:
            raise _DEPTH.breach("a JSON value", "more than the interpreter's stack holds"
                                ) from None


def dumps(value: Any) -> str:
    """Compact JSON text, keys in their given order."""
    return dumps_bytes(value).decode("utf-8")


def json_type(v: Any) -> str:
    """The JSON Schema type name of a decoded value (``integer`` before ``number``)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def json_pointer(doc: Any, ref: str) -> Any:
    """The value a local reference (``#/$defs/Item``, ``#`` for the root; RFC 6901 with
    its ``~0``/``~1`` escapes, percent-decoded as in a URI fragment) names in ``doc``;
    ``KeyError`` when it names nothing."""
    if ref == "#":
        return doc
    if not ref.startswith("#/"):
        raise KeyError(ref)
    node = doc
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(ref)
    return node
