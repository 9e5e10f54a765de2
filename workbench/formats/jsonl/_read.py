"""Reading our own JSONL (``_write`` writes it): one event per line, losslessly.

An optional first line ``{"format": "workbench-events", "version": 1}`` names the
format; every other line is an event whose ``args``/``result``/``error``/``attrs`` are
JSON values (not JSON text). ``seq`` and ``refs`` are kept when given; a trace whose
lines give no ``seq`` is numbered in line order, and missing ``refs`` are inferred.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...model import EVENT_KINDS, EVENTS, STATUSES, InvalidTraceError, loads
from .._adapter import RawEvent, SourceFile
from .._decode import iter_json_lines
from ._write import HEADER

__all__ = ["JSONL"]
_REQUIRED = ("trace_id", "event_id", "kind", "name")
_KNOWN = frozenset(EVENTS.names)
_KINDS = frozenset(EVENT_KINDS)
_STATUSES = frozenset(STATUSES)


def _int_or_none(v: Any, key: str, line: int) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidTraceError(f"line {line}: {key} must be an integer or null", line=line)
    if not -(1 << 63) <= v < (1 << 63):
        raise InvalidTraceError(f"line {line}: {key} {v} is outside the int64 range the "
                                "model holds", line=line)
    return v


def _refs(v: Any, line: int) -> list[dict[str, str]] | None:
    if v is None:
        return None
    if not isinstance(v, list) or not all(
            isinstance(r, dict) and all(isinstance(r.get(k), str)
                                        for k in ("event_id", "path", "from_path")) for r in v):
        raise InvalidTraceError(f"line {line}: refs must be a list of "
                                "{event_id, path, from_path} strings", line=line)
    return [{"event_id": r["event_id"], "path": r["path"], "from_path": r["from_path"]}
            for r in v]


def _event(obj: Any, line: int) -> RawEvent:
    if not isinstance(obj, dict):
        raise InvalidTraceError(f"line {line}: an event must be a JSON object", line=line)
    missing = [k for k in _REQUIRED if not isinstance(obj.get(k), str) or not obj.get(k)]
    if missing:
        raise InvalidTraceError(f"line {line}: missing or empty {', '.join(missing)}", line=line)
    unknown = sorted(set(obj) - _KNOWN)
    if unknown:
        raise InvalidTraceError(f"line {line}: unknown field {unknown[0]!r}", line=line,
                                hint="fields: " + ", ".join(EVENTS.names))
    if obj["kind"] not in _KINDS:
        raise InvalidTraceError(f"line {line}: unknown kind {obj['kind']!r}", line=line,
                                hint="kinds: " + ", ".join(EVENT_KINDS))
    status = obj.get("status", "unset")
    if status not in _STATUSES:
        raise InvalidTraceError(f"line {line}: unknown status {status!r}", line=line,
                                hint="statuses: " + ", ".join(STATUSES))
    attrs = obj.get("attrs", {})
    if not isinstance(attrs, dict):
        raise InvalidTraceError(f"line {line}: attrs must be an object", line=line)
    parent = obj.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        raise InvalidTraceError(f"line {line}: parent_id must be a string or null", line=line)
    return RawEvent(
        trace_id=obj["trace_id"], event_id=obj["event_id"], parent_id=parent,
        kind=obj["kind"], name=obj["name"],
        start_ns=_int_or_none(obj.get("start_ns"), "start_ns", line),
        end_ns=_int_or_none(obj.get("end_ns"), "end_ns", line),
        status=status, args=obj.get("args"), result=obj.get("result"),
        error=obj.get("error"), attrs=attrs,
        seq=_int_or_none(obj.get("seq"), "seq", line), refs=_refs(obj.get("refs"), line),
    )


class _JSONL:
    name = "jsonl"

    def sniff(self, source: SourceFile) -> int:
        first = source.head.lstrip().split(b"\n", 1)[0]
        try:
            obj = loads(first)
        except Exception:
            return 0
        if not isinstance(obj, dict):
            return 0
        if obj.get("format") == HEADER["format"]:
            return 100
        return 95 if all(k in obj for k in _REQUIRED) else 0

    def splittable(self, source: SourceFile) -> bool:
        return True  # one event per line

    def read(self, source: SourceFile) -> Iterator[RawEvent]:
        first = True
        for line, obj in iter_json_lines(source):
            if first and isinstance(obj, dict) and "format" in obj and "event_id" not in obj:
                first = False
                if obj.get("format") != HEADER["format"]:
                    raise InvalidTraceError(f"line {line}: not a workbench-events file")
                if int(obj.get("version", 0)) > HEADER["version"]:
                    raise InvalidTraceError(
                        f"workbench-events version {obj.get('version')} is newer than this "
                        "workbench", hint="upgrade the workbench")
                continue
            first = False
            yield _event(obj, line)


JSONL = _JSONL()
