"""What a condition means, in Python. The SQL compiler (``_sqlcond.py``) must agree.

- A ``Where`` holds when some value at its path meets every condition but ``exists``;
  ``exists: true`` needs at least one value, ``exists: false`` none.
- Equality is JSON-typed: a boolean equals only a boolean, a number only a number
  (compared as float64, so 1 equals 1.0), text only text, null only null.
- ``lt``/``le``/``gt``/``ge`` compare numbers with numbers and text with text (by code
  point); anything else does not meet them. ``ne`` and ``not_in`` need a value.
- ``matches`` searches text with a regular expression, evaluated by RE2 (``google-re2``)
  as in DuckDB: linear in the text, so no pattern and value can hang a check.
- ``type`` is the JSON type; ``integer`` means an integer literal (``1``, not ``1.0``).
- ``schema`` validates the value with ``jsonschema``.
- ``same`` (and ``per``) correlate two events when their values at the paths are equal
  (``same_key``); ``earlier`` finds the first such event that happened before.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from ..model import Event, Trace, dumps, json_type
from ..model import Path as JPath
from ._model import Cond, Selector, Where

__all__ = ["compile_regex", "cond_holds", "earlier", "eq", "matches", "same_key",
           "schema_validator", "selects", "where_holds"]


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def eq(a: Any, b: Any) -> bool:
    """JSON-typed equality of scalars."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _num(a) or _num(b):
        return _num(a) and _num(b) and float(a) == float(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def _order(a: Any, b: Any) -> int | None:
    if _num(a) and _num(b):
        fa, fb = float(a), float(b)
        return (fa > fb) - (fa < fb)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    return None


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str) -> Any:
    """The pattern compiled by RE2 (no backtracking: time linear in the text); raises
    ``ValueError`` with RE2's reason for a pattern RE2 does not accept."""
    import re2  # google-re2: the engine DuckDB's regexp_matches uses
    options = re2.Options()
    options.log_errors = False  # the reason goes into our error, not onto stderr
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        raise ValueError(why.decode("utf-8", "replace") if isinstance(why, bytes)
                         else str(why)) from None


def matches(value: Any, pattern: str) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return compile_regex(pattern).search(value) is not None
    except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8
        text = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return compile_regex(pattern).search(text) is not None


@functools.lru_cache(maxsize=128)
def _validator(schema_json: str) -> Any:
    from ..model import loads
    from ._schema_re2 import schema_validator  # regexes on RE2, as `matches`
    return schema_validator(loads(schema_json))


def schema_validator(schema: Any) -> Any:
    """The validator of a checked schema (cached): its regexes run on RE2 and it reads
    nothing outside the schema (load time checked every reference)."""
    from ..model import dumps
    return _validator(dumps(schema))


def cond_holds(value: Any, c: Cond) -> bool:
    """Whether one value meets one condition (``exists`` is decided elsewhere)."""
    op, arg = c.op, c.value
    if op == "eq":
        return eq(value, arg)
    if op == "ne":
        return not eq(value, arg)
    if op == "in":
        return any(eq(value, x) for x in arg)
    if op == "not_in":
        return not any(eq(value, x) for x in arg)
    if op in ("lt", "le", "gt", "ge"):
        o = _order(value, arg)
        return o is not None and {"lt": o < 0, "le": o <= 0, "gt": o > 0, "ge": o >= 0}[op]
    if op == "matches":
        return matches(value, arg)
    if op == "type":
        t = json_type(value)
        return t == arg or (arg == "number" and t == "integer")
    if op == "schema":
        return bool(_validator(dumps(arg)).is_valid(value))
    raise ValueError(f"unknown condition {op}")


def where_holds(values: list[Any], w: Where) -> bool:
    for c in w.conds:
        if c.op == "exists" and bool(values) != c.value:
            return False
    tests = [c for c in w.conds if c.op != "exists"]
    if not tests:
        return True
    return any(all(cond_holds(v, c) for c in tests) for v in values)


def selects(s: Selector, e: Event) -> bool:
    """Whether the selector picks the event."""
    if s.kind is not None and e.kind != s.kind:
        return False
    if s.name is not None and e.name != s.name:
        return False
    if s.status is not None and e.status != s.status:
        return False
    return all(where_holds(e.values(w.path), w) for w in s.where)


def same_key(e: Event, paths: tuple[JPath, ...]) -> tuple[str, ...] | None:
    """The values at ``same`` paths, as canonical JSON; None when one is missing."""
    out = []
    for p in paths:
        vals = e.values(p)
        if not vals:
            return None
        v = vals[0]
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = float(v)
        out.append(dumps(v))
    return tuple(out)


def earlier(trace: Trace, candidates: Iterable[Event], e: Event,
            same: tuple[JPath, ...]) -> Event | None:
    """The first candidate that happens before ``e`` with the same values at ``same``;
    None when there is none, or when ``e`` lacks a ``same`` value."""
    key = same_key(e, same)
    if key is None:
        return None
    return next((a for a in candidates if trace.precedes(a, e) and same_key(a, same) == key),
                None)

