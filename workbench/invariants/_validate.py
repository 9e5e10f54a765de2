"""Is a value what a schema allows? Compiled validators (fastjsonschema) answer "yes"
fast; a "no" is confirmed and described by ``jsonschema`` (the path and the keyword,
never the value). Formats that matter are checked (``date-time``, ``date``, ``uuid``,
``email``, ``int32``, ``int64``); a redaction token (``«email:7f3a»``) stands for a value
that was there and is never called invalid.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..model import dumps, json_type
from ..model import loads as json_loads

__all__ = ["Complaint", "complaints", "is_valid"]

_TOKEN = re.compile(r"^«[^»]+»$")
_NEW_KEYWORDS = ("prefixItems", "unevaluatedProperties", "unevaluatedItems",
                 "dependentSchemas", "dependentRequired", "$dynamicRef", "$anchor")


def _date_time(v: object) -> bool:
    if not isinstance(v, str):
        return True
    if not re.match(r"^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$", v):
        return False
    try:
        dt.datetime.fromisoformat(v.upper().replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        return bool(re.search(r"[T ]23:59:60", v.upper()))  # a leap second
    return True


def _date(v: object) -> bool:
    if not isinstance(v, str):
        return True
    try:
        dt.date.fromisoformat(v)
    except ValueError:
        return False
    return bool(re.fullmatch(r"\d{4}-\d\d-\d\d", v))


def _uuid(v: object) -> bool:
    if not isinstance(v, str):
        return True
    try:
        uuid.UUID(v)
    except ValueError:
        return False
    return bool(re.fullmatch(r"[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}", v))


def _email(v: object) -> bool:
    return not isinstance(v, str) or bool(re.fullmatch(r"[^@\s]+@[^@\s]+", v))


def _bits(n: int) -> Callable[[object], bool]:
    def check(v: object) -> bool:
        return (not isinstance(v, int) or isinstance(v, bool)
                or -(2 ** (n - 1)) <= v < 2 ** (n - 1))
    return check


FORMATS: dict[str, Callable[[object], bool]] = {
    "date-time": _date_time, "date": _date, "uuid": _uuid, "email": _email,
    "int32": _bits(32), "int64": _bits(64)}


@dataclass(frozen=True)
class Complaint:
    """What a value breaks: where (``body.items[0].qty``), the keyword, the keyword's
    demand (a shape) and a sentence without the value."""

    at: str
    keyword: str
    demand: Any
    words: str


@functools.lru_cache(maxsize=4096)
def _slow(schema_json: str) -> Any:
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, fn in FORMATS.items():
        checker.checks(name)(fn)
    schema = json_loads(schema_json)
    return jsonschema.Draft202012Validator(schema, format_checker=checker)


@functools.lru_cache(maxsize=4096)
def _fast(schema_json: str) -> Callable[[Any], Any] | None:
    if any(k in schema_json for k in _NEW_KEYWORDS):
        return None
    import fastjsonschema

    schema = json_loads(schema_json)
    if isinstance(schema, dict):
        schema = {**schema, "$schema": "http://json-schema.org/draft-07/schema#"}
    try:
        return fastjsonschema.compile(schema, formats={
            k: f for k, f in FORMATS.items()}, use_default=False)
    except Exception:  # a schema it cannot compile: the slow path decides alone
        return None


_KEYS: dict[int, tuple[Any, str]] = {}


def _key(schema: Any) -> str:
    """The schema's JSON text, cached by identity (an operation's schemas live as long as
    its document; the entry holds the schema, so its id is never reused meanwhile)."""
    hit = _KEYS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = dumps(schema)
    if len(_KEYS) > 100_000:
        _KEYS.clear()
    _KEYS[id(schema)] = (schema, key)
    return key


def is_valid(schema: Any, value: Any) -> bool:
    return not complaints(schema, value, "value", limit=1)


def complaints(schema: Any, value: Any, root: str, limit: int = 3) -> list[Complaint]:
    """Up to ``limit`` distinct complaints (path and keyword) about ``value``."""
    if schema is None or schema is True or schema == {}:
        return []
    key = _key(schema)
    fast = _fast(key)
    if fast is not None:
        try:
            fast(value)
            return []
        except Exception:  # a refusal (or a compile-time gap): jsonschema decides
            pass
    out: list[Complaint] = []
    seen: set[tuple[str, str]] = set()
    errors = sorted(_slow(key).iter_errors(value),
                    key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    for e in errors:
        if _redacted(e.instance) or _any_redacted(e):
            continue
        at = root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                            for p in e.absolute_path)
        kw = str(e.validator)
        if (at, kw) in seen:
            continue
        seen.add((at, kw))
        out.append(Complaint(at, kw, _demand(kw, e.validator_value), _words(kw, e, at)))
        if len(out) >= limit:
            break
    return out


def _redacted(v: Any) -> bool:
    return isinstance(v, str) and bool(_TOKEN.match(v))


def _any_redacted(e: Any) -> bool:
    return any(_redacted(c.instance) for c in (e.context or ()))


def _demand(keyword: str, value: Any) -> Any:
    if keyword in ("type", "required", "format", "minimum", "maximum", "exclusiveMinimum",
                   "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
                   "additionalProperties", "multipleOf", "minProperties", "maxProperties",
                   "uniqueItems"):
        return value if not isinstance(value, dict) else keyword
    if keyword in ("enum", "const"):
        return f"{keyword}({len(value) if isinstance(value, list) else 1})"
    return keyword


def _words(keyword: str, e: Any, at: str) -> str:
    if keyword == "required":
        msg = str(e.message)
        missing = msg.split("'")[1] if "'" in msg else "a field"
        return f"{at}.{missing} is missing (the contract requires it)"
    if keyword == "additionalProperties":
        return f"{at} carries a property the contract's closed model refuses"
    if keyword == "type":
        return f"{at} is {json_type(e.instance)}, the contract says {e.validator_value}"
    if keyword in ("enum", "const"):
        return f"{at} holds a value the contract's {keyword} does not allow"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{at} is out of range ({keyword} {e.validator_value})"
    if keyword == "format":
        return f"{at} is not a {e.validator_value}"
    return f"{at} breaks the contract's {keyword}"
