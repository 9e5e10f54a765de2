"""Parsing shared by every adapter: whole documents, JSON lines, JSON inside strings,
timestamps. Errors come out as ``InputError`` subclasses naming the file and line."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from typing import Any

import orjson
import yaml

from ..model import (
    LIMITS,
    EncodingError,
    InputError,
    InvalidJSONError,
    JSONDecodeError,
    LimitedLoader,
    LimitExceededError,
    loads,
    loads_many,
)
from ._adapter import SourceFile, not_json_constant

__all__ = [
    "iter_json_lines",
    "iter_json_lines_marked",
    "lines_before",
    "load_document",
    "load_values",
    "load_yaml",
    "loads_exact",
    "located",
    "maybe_json",
    "parse_time_ns",
    "plain_json",
    "split_lines",
    "stream_items",
]

_READ_CHUNK = 1 << 20

# ``model.loads`` reads a document the standard library's exact (and several times
# slower) way when it holds a run of 20 digits anywhere: orjson would read an integer
# that wide as a float. Long hex ids inside strings ("call_58293471387453214173eeee")
# have such runs often enough to send one line in ten of a GenAI export the slow way.
# Here a run counts only where a number can start (after ``:`` ``[`` ``,`` or white
# space, or at the start): what passes goes straight to orjson, the rest (a string
# "n: 123…" included) to ``model.loads``, so the result is exact either way.
_NUMBER_STARTS = bytes.maketrans(b"123456789:[, \t\n\r", b"0" * 9 + b"\x01" * 7)
_WIDE = b"\x01" + b"0" * 20
_WIDE_NEGATIVE = b"\x01-" + b"0" * 19


def _wide_number(data: bytes) -> bool:
    """Whether ``data`` may hold an integer literal beyond 64 bits."""
    marked = data.translate(_NUMBER_STARTS)
    return (marked.find(_WIDE) >= 0 or marked.find(_WIDE_NEGATIVE) >= 0
            or marked.startswith(_WIDE[1:]) or marked.startswith(_WIDE_NEGATIVE[1:]))


def loads_exact(data: bytes | str) -> Any:
    """``model.loads`` (exact JSON), taking orjson's way for more documents."""
    if len(data) < 20:
        return orjson.loads(data)
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    return loads(data) if _wide_number(raw) else orjson.loads(data)


# A line is *plain* when no run of 20 characters among the digits, "-", "\" and "u"
# stands in it: then neither the line nor any JSON text held in one of its strings can
# spell an integer beyond 64 bits (such an integer needs 20 digits, or "-" and 19; an
# escaped digit, "\u0031", is six such characters). Telling that takes one pass over the
# line (a byte table, then a search), a fraction of ``_wide_number``'s cost, and spares
# the check of every JSON text inside it (``plain_json``). OTLP timestamps, 19 digits
# in quotes, break no rule; a hex id with 20 digits in a row, or a row of 20 dashes,
# makes a line not plain, which is only slower.
_RUN = b"\x01" * 20
_PLAIN_FROM = 8 << 10  # bytes; below, the pass costs more than the checks it spares
#: the digits, "-", "\" and "u" to 1, every other byte to 0
_RUN_CHARS = bytes(int(chr(b) in "0123456789-\\u") for b in range(256))


def _plain(data: bytes) -> bool:
    # one C pass (a table lookup per byte) and a search: half the time of the same
    # marks taken with numpy's four comparisons
    return data.translate(_RUN_CHARS).find(_RUN) < 0


_PLAIN: ContextVar[bool] = ContextVar("plain_json", default=False)


@contextmanager
def plain_json(plain: bool) -> Iterator[None]:
    """Within: the JSON texts ``maybe_json`` decodes come from a plain line (see
    ``iter_json_lines_marked``), so orjson reads them without the wide-integer check.
    An adapter wraps the mapping of one line in it, with that line's mark."""
    token = _PLAIN.set(plain)
    try:
        yield
    finally:
        _PLAIN.reset(token)


def _encoding_error(source: SourceFile, data: bytes, line_offset: int = 0) -> EncodingError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = line_offset + data.count(b"\n", 0, exc.start) + 1
        return EncodingError(f"{source.display}: line {line} is not UTF-8 "
                             f"(byte 0x{data[exc.start]:02x})", file=source.display, line=line)
    return None


def _json_error(source: SourceFile, exc: Exception, line: int | None = None,
                data: bytes = b"") -> InvalidJSONError | LimitExceededError:
    lineno = getattr(exc, "lineno", None)
    if str(exc).startswith("depth limit exceeded"):  # orjson's own bound, json_depth
        where = line if line is not None else lineno
        return located(LIMITS["json_depth"].breach("JSON"), source.display, where)
    col = getattr(exc, "colno", None)
    where = f"line {line if line is not None else lineno}"
    if line is None and col is not None:
        where += f", column {col}"
    msg = (not_json_constant(data, getattr(exc, "pos", None))
           or getattr(exc, "msg", str(exc)).split("\n")[0])
    return InvalidJSONError(f"{source.display}: invalid JSON at {where}: {msg}",
                            file=source.display, line=line if line is not None else lineno)


def located(exc: LimitExceededError, file: str, line: int | None = None) -> LimitExceededError:
    """A breach ``model.loads`` found, with the file (and line) it is in."""
    return exc.at(file, line)


def load_document(source: SourceFile) -> Any:
    """The whole file as one JSON value."""
    data = source.read_bytes()
    try:
        return loads_exact(data)
    except JSONDecodeError as exc:
        raise (_encoding_error(source, data) or _json_error(source, exc, data=data)) from None
    except LimitExceededError as exc:
        raise located(exc, source.display) from None


def load_values(source: SourceFile) -> list[Any]:
    """The JSON values written one after another in the file (``{...}{...}`` or
    separated by white space), exactly and within the same limits as
    ``load_document``; ``INVALID_JSON`` where one does not parse."""
    data = source.read_bytes()
    try:
        return loads_many(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise _encoding_error(source, data) or _json_error(source, ValueError()) from None
    except JSONDecodeError as exc:
        raise _json_error(source, exc, data=data) from None
    except LimitExceededError as exc:
        raise located(exc, source.display) from None


def stream_items(f: Any, prefix: str) -> Iterator[Any]:
    """The values at ``prefix`` (``resourceSpans.item``) of one JSON document too large
    to load, one at a time, within ``json_depth``.

    ``ijson.items`` cannot be bounded: it builds the path of every event as text, so a
    value nested 100,000 deep costs gigabytes before the first item. Here ijson's basic
    events (no paths) build each item, the depth counted as they come; a breach is
    ``LimitExceededError`` without a file (the caller places it). About five times
    slower than ``ijson.items``, on documents past ``STREAM_ABOVE`` only.
    """
    import ijson
    from ijson.common import ObjectBuilder

    limit = LIMITS["json_depth"]
    want = prefix.split(".")
    keys: list[Any] = []  # per open container around the items: its key, or "item"
    builder: Any = None
    depth = 0
    for event, value in ijson.basic_parse(f, use_float=True):
        if builder is not None:
            builder.event(event, value)
            if event in ("start_map", "start_array"):
                depth += 1
                if depth + len(keys) > limit.value:
                    raise limit.breach("JSON")
            elif event in ("end_map", "end_array"):
                depth -= 1
                if depth == 0:
                    yield builder.value
                    builder = None
        elif event == "map_key":
            keys[-1] = value
        elif event in ("end_map", "end_array"):
            keys.pop()
        elif keys == want:
            if event in ("start_map", "start_array"):
                builder, depth = ObjectBuilder(), 1
                builder.event(event, value)
            else:
                yield value
        elif event in ("start_map", "start_array"):
            keys.append(None if event == "start_map" else "item")
            if len(keys) > limit.value:
                raise limit.breach("JSON")


def load_yaml(source: SourceFile) -> Any:
    """The whole file as one YAML document (safe loader: plain data only, within the
    limits ``yaml_bytes``, ``yaml_depth``, ``yaml_alias_nodes`` and ``integer_digits``).

    Timestamps stay text (the adapters parse times themselves) and a bad document is an
    ``INVALID_YAML`` error naming the line.
    """
    limit = LIMITS["yaml_bytes"]
    if source.size > limit.value:
        raise limit.breach(source.display, source.size, file=source.display)
    data = source.read_bytes()
    enc = _encoding_error(source, data)
    if enc is not None:
        raise enc
    loader = _PlainLoader(data.decode("utf-8"), source.display)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        where = f" at line {line}" if line else ""
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        raise InputError(f"{source.display}: invalid YAML{where}: {problem}",
                         code="INVALID_YAML", file=source.display, line=line,
                         hint="check the file is a complete YAML document") from None
    finally:
        loader.dispose()


class _PlainLoader(LimitedLoader):
    """The safe loader, within the limits, that leaves timestamps as strings."""


_PlainLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in LimitedLoader.yaml_implicit_resolvers.items()}


def iter_json_lines(source: SourceFile) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line; memory bounded by one line.

    Honours ``source.start``/``source.end``: a part of the file is read from its start
    to the first line that begins at or after its end.
    """
    for n, value, _ in iter_json_lines_marked(source):
        yield n, value


def iter_json_lines_marked(source: SourceFile, typed: Callable[[bytes], Any] | None = None,
                           ) -> Iterator[tuple[int, Any, bool]]:
    """``iter_json_lines`` with each line's mark: whether it is plain (no JSON text in
    it can hold an integer beyond 64 bits; see ``plain_json``).

    ``typed``: a decoder of the lines into typed structs (``otel._otlp_typed``), given
    the lines whose integers all fit 64 bits, where its values and orjson's are the
    same; where it raises ``ValueError`` the line is read the generic way, so that
    what is refused, and how, does not depend on it."""
    with open(source.path, "rb") as f:
        pos = max(source.start, source.body_start)
        if pos:
            f.seek(pos)
        end = source.end
        for n, raw in enumerate(f, 1):
            if end is not None and pos >= end:
                return
            pos += len(raw)
            if not raw or raw.isspace():
                continue
            try:
                plain = len(raw) >= _PLAIN_FROM and _plain(raw)
                if typed is not None and (plain or not _wide_number(raw)):
                    try:
                        value = typed(raw)
                    except ValueError:
                        pass
                    else:
                        yield n, value, plain
                        continue
                value = orjson.loads(raw) if plain else loads_exact(raw)
            except JSONDecodeError as exc:
                first = lines_before(source) if source.start else 0
                raise (_encoding_error(source, raw, first + n - 1)
                       or _json_error(source, exc, first + n, raw)) from None
            except LimitExceededError as exc:
                first = lines_before(source) if source.start else 0
                raise located(exc, source.display, first + n) from None
            yield n, value, plain


def lines_before(source: SourceFile) -> int:
    """How many lines come before the byte range of a part (for error messages)."""
    count = 0
    with open(source.path, "rb") as f:
        left = source.start
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            count += chunk.count(b"\n")
            left -= len(chunk)
    return count


def split_lines(source: SourceFile, parts: int, *, workers: int = 0) -> list[SourceFile]:
    """The file cut into about ``parts`` byte ranges, each starting at a line start.

    ``workers``: how many processes take the ranges, in order, as each finishes one.
    The ranges then shrink from a ``2 * workers``-th of the file towards a ``parts``-th
    (each a ``2 * workers``-th of what is left, never less than a ``parts``-th), so
    the last ones taken are small and the processes finish about together, while the
    file is still read in few ranges."""
    size, start = source.size, source.body_start
    smallest = max(1, (size - start) // max(1, parts))
    bounds = [start]
    with open(source.path, "rb") as f:
        for i in range(1, parts if not workers else parts + 2 * workers):
            if workers:
                want = bounds[-1] + max(smallest, (size - bounds[-1]) // (2 * workers))
            else:
                want = size * i // parts
            f.seek(max(want, bounds[-1]))
            f.readline()  # to the start of the next line
            pos = f.tell()
            if pos >= size or (workers and size - pos < smallest // 2):
                break  # (no range of a sliver at the end)
            if pos > bounds[-1]:
                bounds.append(pos)
    bounds.append(size)
    return [source.part(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def maybe_json(value: Any) -> Any:
    """A string that holds a JSON object or array, decoded; anything else as it is."""
    if isinstance(value, str):
        s = value.lstrip()
        if s[:1] in ("{", "[") and s.rstrip()[-1:] in ("}", "]"):
            try:
                return orjson.loads(value) if _PLAIN.get() else loads_exact(value)
            except (*JSONDecodeError, LimitExceededError):  # kept as the text it is
                return value
    return value


_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*"
    r"(Z|z|[+-]\d{2}:?\d{2})?$")


def parse_time_ns(value: Any) -> int | None:
    """Nanoseconds since the epoch from the forms traces use, or None.

    ISO 8601 (up to nanoseconds; no zone means UTC), OTLP ``*UnixNano`` strings and
    numbers, OpenTelemetry JS ``[seconds, nanos]`` pairs, and epoch numbers in s, ms,
    us or ns (told apart by magnitude). What is no time in int64 nanoseconds (beyond
    its range, ``Infinity``, ``NaN``, a run of digits longer than any time) is None, as
    a missing time is.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, list | tuple) and len(value) == 2 and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        if not all(math.isfinite(v) for v in value):
            return None
        return _int64(int(value[0]) * 1_000_000_000 + int(value[1]))
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return None
        if s.lstrip("-").isdigit():
            return _epoch_ns(int(s)) if len(s) <= _TIME_DIGITS else None
        m = _ISO.match(s)
        if m is None:
            try:
                return _epoch_ns(float(s))
            except ValueError:
                return None
        y, mo, d, h, mi, sec, frac, tz = m.groups()
        try:
            base = dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(sec),
                               tzinfo=dt.UTC)
        except ValueError:
            return None
        offset = 0
        if tz and tz not in ("Z", "z"):
            sign = 1 if tz[0] == "+" else -1
            digits = tz[1:].replace(":", "")
            offset = sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
        ns = int((frac or "").ljust(9, "0")[:9] or 0)
        return (int(base.timestamp()) - offset) * 1_000_000_000 + ns
    if isinstance(value, int | float):
        return _epoch_ns(value)
    return None


_TIME_DIGITS = 40  # far beyond any time in int64 nanoseconds, far below int()'s bound


def _int64(ns: int) -> int | None:
    return ns if -(1 << 63) <= ns < (1 << 63) else None  # beyond int64: not a time


def _epoch_ns(v: float) -> int | None:
    if isinstance(v, float) and not math.isfinite(v):
        return None  # Infinity, NaN: not a time
    exact = Decimal(repr(v)) if isinstance(v, float) else Decimal(v)  # 1.25 s, not 1.2499…
    a = abs(exact)
    if a < 10**11:        # seconds (until the year 5138)
        return int(exact * 10**9)
    if a < 10**14:        # milliseconds
        return int(exact * 10**6)
    ns = int(exact * 10**3) if a < 10**17 else int(exact)  # microseconds, else ns
    return _int64(ns)
