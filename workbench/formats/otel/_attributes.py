"""Taking attributes out of a span's attribute dict: what the span mapping and its
GenAI and HTTP parts share. ``MISSING`` marks an attribute that is not there (``None``
is a value a span can carry)."""

from __future__ import annotations

from typing import Any

from .._decode import maybe_json

__all__ = ["MISSING", "first", "take", "take_chain"]

MISSING: Any = object()


def take(a: dict[str, Any], *keys: str) -> Any:
    """Pop the first of ``keys`` that is present (and later keys holding the same value)."""
    for i, k in enumerate(keys):
        v = a.pop(k, MISSING)
        if v is not MISSING:
            for k2 in keys[i + 1:]:
                if a.get(k2, MISSING) == v:
                    del a[k2]
            return v
    return MISSING


def first(a: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        v = a.get(k)
        if v is not None and v != "":
            return v
    return None


def take_chain(a: dict[str, Any], chain: tuple[str, ...]) -> Any:
    for k in chain:
        v = a.pop(k, MISSING)
        if v is not MISSING:
            return maybe_json(v)
    return MISSING
