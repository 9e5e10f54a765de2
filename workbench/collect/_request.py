"""One export request to ``/v1/traces``: its body inflated and decoded, each span checked
with the mapping ingest runs, the accepted spans redacted and grouped by trace.

The body is protobuf (``application/x-protobuf``) or OTLP/JSON (``application/json``),
plain or gzipped (``Content-Encoding: gzip``, inflated to ``--max-body`` at most). A body
that is not OTLP at all is refused whole (400); a span that cannot be read (no trace or
span id, a value of the wrong shape) is refused alone, and the answer says how many
(OTLP partial success) and why (the first reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..formats import decode_traces, gunzip, span_trace_ids
from ..model import JSONDecodeError, LimitExceededError, WorkbenchError, dumps_bytes, loads
from ..redact import Redactor

__all__ = ["JSON", "PROTOBUF", "Export", "Refused", "decode_body", "media_type", "split"]

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


class Refused(Exception):
    """The whole request is refused with this HTTP status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def media_type(headers: list[tuple[str, str]]) -> str:
    """The request's media type, lower case, without parameters (``""`` when unsaid)."""
    value = next((v for k, v in headers if k == "content-type"), "")
    return value.split(";", 1)[0].strip().lower()


def decode_body(kind: str, headers: list[tuple[str, str]], raw: bytes,
                limit: int) -> dict[str, Any]:
    """The OTLP/JSON document of a body of media type ``kind`` (``PROTOBUF`` or ``JSON``)."""
    coding = next((v for k, v in headers if k == "content-encoding"), "identity")
    coding = coding.strip().lower()
    if coding in ("gzip", "x-gzip"):
        try:
            raw = gunzip(raw, limit, "the request body")
        except LimitExceededError:
            raise Refused(413, f"the request body inflates past {limit} bytes") from None
        except WorkbenchError as exc:
            raise Refused(400, exc.message) from None
    elif coding not in ("identity", ""):
        raise Refused(415, f"Content-Encoding {coding} is not read: send gzip or none")
    if kind == PROTOBUF:
        try:
            return decode_traces(raw, "the request body")
        except WorkbenchError as exc:
            raise Refused(400, exc.message) from None
    try:
        doc = loads(raw)
    except LimitExceededError as exc:
        raise Refused(400, "the request body: " + exc.message.split(": ", 1)[-1]) from None
    except JSONDecodeError as exc:
        raise Refused(400, f"the request body is not JSON: {str(exc).splitlines()[0]}") from None
    if type(doc) is not dict or not isinstance(doc.get("resourceSpans", []), list) \
            or (doc and "resourceSpans" not in doc):  # {} is an empty export
        raise Refused(400, "the request body is not OTLP/JSON: expected an object with a "
                           "'resourceSpans' list")
    return doc


@dataclass
class Export:
    """What a request brought: per trace id, its redacted ``resourceSpans`` items and
    span count; the spans refused and the first reason."""

    traces: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    spans: dict[str, int] = field(default_factory=dict)
    rejected: int = 0
    reason: str = ""

    @property
    def accepted(self) -> int:
        return sum(self.spans.values())

    def refuse(self, n: int, why: str) -> None:
        self.rejected += n
        self.reason = self.reason or why


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Refused(400, f"the request body is not OTLP: {what} is not a list")
    return value


def split(doc: dict[str, Any], redactor: Redactor) -> Export:
    """The spans of a decoded request, each checked, redacted and put with its trace
    (a resource and a scope are redacted once, whatever the traces they carry)."""
    out = Export()
    for rs in _list(doc.get("resourceSpans"), "resourceSpans"):
        if type(rs) is not dict:
            raise Refused(400, "the request body is not OTLP: a resourceSpans item is not "
                               "an object")
        resource = rs.get("resource")
        key = "scopeSpans" if "scopeSpans" in rs else "instrumentationLibrarySpans"
        shown_resource: Any = None
        for ss in _list(rs.get(key), key):
            if type(ss) is not dict:
                raise Refused(400, "the request body is not OTLP: a scopeSpans item is not "
                                   "an object")
            scope = ss.get("scope") or ss.get("instrumentationLibrary") or {}
            by_trace: dict[str, list[Any]] = {}
            spans = _list(ss.get("spans"), "spans")
            for sp, tid in zip(spans, span_trace_ids(resource, scope, spans), strict=True):
                if isinstance(tid, WorkbenchError):
                    out.refuse(1, tid.message)
                else:
                    by_trace.setdefault(tid, []).append(sp)
            if not by_trace:
                continue
            if shown_resource is None and resource is not None:
                shown_resource = redactor.value(resource)
            group: dict[str, Any] = {"scope": redactor.value(scope)}
            if ss.get("schemaUrl"):
                group["schemaUrl"] = ss["schemaUrl"]
            for tid, kept in by_trace.items():
                item: dict[str, Any] = {"scopeSpans": [
                    {**group, "spans": redactor.value(kept)}]}
                if resource is not None:
                    item["resource"] = shown_resource
                if rs.get("schemaUrl"):
                    item["schemaUrl"] = rs["schemaUrl"]
                out.traces.setdefault(tid, []).append(item)
                out.spans[tid] = out.spans.get(tid, 0) + len(kept)
    redactor.hits.clear()
    return out


def line(items: list[dict[str, Any]]) -> bytes:
    """A journal line: one OTLP/JSON document (the collector file exporter's JSONL)."""
    return dumps_bytes({"resourceSpans": items}) + b"\n"
