"""Canonical bytes and digests: compact JSON with sorted keys, numbers exact.

Numbers are exact: ``canonical_bytes`` writes ``Decimal`` values (the shadow run parses
build output with them) in one normal form, so ``100`` and ``100.0`` stay different —
an integer that became a float is a change.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

import orjson

__all__ = ["canonical_bytes", "decimal_text", "digest"]


def decimal_text(d: Decimal) -> str:
    """One text per decimal value: ``12.50`` and ``1.25E1`` both give ``12.5``; a whole
    number keeps ``.0`` (it was written as a float)."""
    if not d.is_finite():
        raise ValueError(f"{d} is not a JSON number")
    sign, digits_t, exp = d.as_tuple()
    assert isinstance(exp, int)
    digits = list(digits_t)
    # trailing zeros off by hand: Decimal.normalize() rounds to the context's 28 digits
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    if digits == [0]:
        exp = 0
    n = Decimal((sign, tuple(digits), exp))
    if -30 <= len(digits) + exp <= 40:  # plain notation unless very large or very small
        text = format(n, "f")
        return text if "." in text else text + ".0"
    return format(n, "E")


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return orjson.Fragment(decimal_text(value).encode())
    raise TypeError(type(value).__name__)


def canonical_bytes(value: Any) -> bytes:
    """Compact JSON with sorted keys, integers of any width and ``Decimal`` exact."""
    try:
        return orjson.dumps(value, default=_default, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return _slow(value).encode("utf-8")


def _slow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + _slow(value[k])
                              for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_slow(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return decimal_text(value)
    return json.dumps(value, ensure_ascii=False, default=str)


def digest(value: Any) -> str:
    """sha256 of the canonical bytes."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()
