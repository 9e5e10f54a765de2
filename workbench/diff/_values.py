"""Field by field: the paths where two JSON values differ, with the old and new value.

Equality is strict: ``1``, ``1.0``, ``True`` and ``"1"`` are four different values (an
integer that became a float is the bug a shadow run exists to catch). Objects are
compared key by key; lists of equal length item by item; lists whose length changed
are aligned first (longest common subsequence of the items' canonical bytes), so one
inserted item does not make every later item look changed. Symbolized leaves (ids)
are equal when they pair up consistently across the whole comparison (``Pairing``).
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import orjson

from ..model import format_path
from ._digest import canonical_bytes

__all__ = ["Pairing", "PathChange", "Sym", "diff_values", "plain", "same_value"]

_LCS_ITEMS = 2000  # longer lists whose length changed are compared item by item


class Sym:
    """A symbolized leaf, raw value kept: equal to another ``Sym`` when they pair up.
    (A plain class, not a dataclass: orjson must hand it to ``default``.)"""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Sym({self.value!r})"


class Pairing:
    """A one-to-one map between the ids of side A and side B, grown as events align:
    ``p17`` in A may stand for ``p91`` in B, but then nothing else may. (Ids are keyed
    with their type, so ``1`` and ``"1"`` are two ids; a plain string is its own key.)"""

    def __init__(self) -> None:
        self.a2b: dict[Hashable, Hashable] = {}
        self.b2a: dict[Hashable, Hashable] = {}

    def bind(self, a: Any, b: Any) -> bool:
        return self.bind_all((a,), (b,))

    def bind_all(self, xs: Sequence[Any], ys: Sequence[Any]) -> bool:
        """``bind`` each pair of ``xs`` and ``ys`` in order, up to the first clash (the
        bindings before it stay); whether there was none."""
        a2b, b2a = self.a2b, self.b2a
        for a, b in zip(xs, ys, strict=True):
            ka = a if type(a) is str else (type(a), a)
            kb = b if type(b) is str else (type(b), b)
            have = a2b.get(ka)
            if have is not None:
                if have != kb:
                    return False
            elif kb in b2a:
                return False
            else:
                a2b[ka] = kb
                b2a[kb] = ka
        return True

    def consistent(self, a: Any, b: Any) -> bool:
        """Whether ``a`` and ``b`` could pair, without binding them."""
        ka = a if type(a) is str else (type(a), a)
        kb = b if type(b) is str else (type(b), b)
        have = self.a2b.get(ka)
        return have == kb if have is not None else kb not in self.b2a


@dataclass(frozen=True, slots=True)
class PathChange:
    """One difference: ``change`` is ``changed``, ``added`` (no old) or ``removed``."""

    path: str
    old: Any
    new: Any
    change: str = "changed"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "old": plain(self.old), "new": plain(self.new),
                "change": self.change}


def plain(value: Any) -> Any:
    """A value as JSON output shows it: symbols unwrapped, decimals as numbers (exactly
    when a float holds them, else as their exact text)."""
    if isinstance(value, Sym):
        return value.value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        f = float(value)
        return f if Decimal(repr(f)) == value else str(value)
    return value


def same_value(a: Any, b: Any) -> bool:
    """Strict JSON equality (types matter: ``1 != 1.0 != True``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _surely_same(a: Any, b: Any) -> bool:
    """A fast strict-equality test: True only when ``a`` and ``b`` are the same JSON
    (``==`` in C, then the bytes, which tell ``1`` from ``1.0`` and ``True``); False
    means "look closer" (symbols compare by identity, so they always look closer)."""
    if a is b:
        return True
    if type(a) is not type(b) or a != b:
        return False
    if not isinstance(a, (dict, list)):
        return True
    try:
        return bool(orjson.dumps(a) == orjson.dumps(b))
    except TypeError:
        return False


def diff_values(old: Any, new: Any, pairing: Pairing | None = None,
                prefix: tuple[str | int, ...] = ()) -> list[PathChange]:
    """Every path where ``old`` and ``new`` differ, in document order (symbolized
    values reported as the raw values they stand for)."""
    out: list[PathChange] = []
    _diff(old, new, prefix, pairing, out)
    return out


def _raw(value: Any) -> Any:
    if isinstance(value, Sym):
        return value.value
    if isinstance(value, dict):
        return {k: _raw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_raw(v) for v in value]
    return value


def _path(segs: tuple[str | int, ...]) -> str:
    return format_path(segs) if segs else "$"


def _change(out: list[PathChange], at: tuple[str | int, ...], old: Any, new: Any,
            change: str = "changed") -> None:
    out.append(PathChange(_path(at), _raw(old), _raw(new), change))


def _diff(a: Any, b: Any, at: tuple[str | int, ...], pairing: Pairing | None,
          out: list[PathChange]) -> None:
    """Append the differences of ``a`` and ``b`` to ``out``, in document order."""
    if isinstance(a, Sym) and isinstance(b, Sym):
        ok = pairing.bind(a.value, b.value) if pairing is not None else same_value(
            a.value, b.value)
        if not ok:
            _change(out, at, a, b)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(a.keys() | b.keys()):
            if k not in b:
                _change(out, (*at, k), a[k], None, "removed")
            elif k not in a:
                _change(out, (*at, k), None, b[k], "added")
            elif not _surely_same(a[k], b[k]):
                _diff(a[k], b[k], (*at, k), pairing, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        _diff_lists(a, b, at, pairing, out)
        return
    if isinstance(a, Sym) or isinstance(b, Sym) or not same_value(a, b):
        _change(out, at, a, b)


def _diff_lists(a: list[Any], b: list[Any], at: tuple[str | int, ...],
                pairing: Pairing | None, out: list[PathChange]) -> None:
    if len(a) == len(b) or len(a) + len(b) > 2 * _LCS_ITEMS:
        for i in range(min(len(a), len(b))):
            _diff(a[i], b[i], (*at, i), pairing, out)
        for i in range(len(b), len(a)):
            _change(out, (*at, i), a[i], None, "removed")
        for i in range(len(a), len(b)):
            _change(out, (*at, i), None, b[i], "added")
        return
    ka = [_item_key(v) for v in a]
    kb = [_item_key(v) for v in b]
    sm = difflib.SequenceMatcher(None, ka, kb, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                _diff(a[i], b[j], (*at, i), pairing, out)  # binds the ids inside
            continue
        n = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(n):
            _diff(a[i1 + k], b[j1 + k], (*at, i1 + k), pairing, out)
        for i in range(i1 + n, i2):
            _change(out, (*at, i), a[i], None, "removed")
        for j in range(j1 + n, j2):
            _change(out, (*at, j), None, b[j], "added")


def _item_key(value: Any) -> bytes:
    return canonical_bytes(_unsym(value))


def _unsym(value: Any) -> Any:
    if isinstance(value, Sym):
        return "«id»"
    if isinstance(value, dict):
        return {k: _unsym(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unsym(v) for v in value]
    return value
