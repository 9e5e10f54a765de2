"""Exact, fast JSON: orjson where it is exact, the standard library where it is not.

orjson reads integers wider than 64 bits as floats and refuses to write them. A trace
is evidence (an order total, a Decimal turned float), so such documents go through
the standard library, which keeps every digit.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["JSONDecodeError", "dumps", "dumps_bytes", "loads"]

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
    """Parse JSON exactly. Raises one of ``JSONDecodeError`` on bad input."""
    if isinstance(data, bytes):
        if not _wide(data):
            return orjson.loads(data)
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    if len(data) < 20 or not _wide(data.encode("utf-8", "surrogatepass")):
        return orjson.loads(data)
    return json.loads(data, parse_constant=_no_constant)


def _no_constant(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not JSON", name, 0)


def dumps_bytes(value: Any) -> bytes:
    """Compact JSON bytes, keys in their given order."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"),
                          default=str).encode("utf-8")


def dumps(value: Any) -> str:
    """Compact JSON text, keys in their given order."""
    return dumps_bytes(value).decode("utf-8")
