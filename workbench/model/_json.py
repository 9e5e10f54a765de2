"""Exact, fast JSON: orjson where it is exact, the standard library where it is not.

orjson reads integers wider than 64 bits as floats and refuses to write them. A trace
is evidence (an order total, a Decimal turned float), so such documents go through
the standard library, which keeps every digit.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["JSONDecodeError", "dumps", "dumps_bytes", "loads"]

JSONDecodeError = (orjson.JSONDecodeError, json.JSONDecodeError, UnicodeDecodeError)

# a run of 19+ digits may exceed int64 (orjson would turn it into a float)
_WIDE_INT = re.compile(rb"\d{19,}")
_WIDE_INT_STR = re.compile(r"\d{19,}")


def loads(data: bytes | str) -> Any:
    """Parse JSON exactly. Raises one of ``JSONDecodeError`` on bad input."""
    if isinstance(data, bytes):
        if _WIDE_INT.search(data) is None:
            return orjson.loads(data)
        return json.loads(data.decode("utf-8"))
    if _WIDE_INT_STR.search(data) is None:
        return orjson.loads(data)
    return json.loads(data)


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
