"""Adapter ``phoenix``: span exports of Arize Phoenix.

Phoenix hands spans out in one shape, whichever way they are taken: the REST API
(``GET /v1/projects/{project}/spans``: a ``{"data": [...], "next_cursor"}`` page), the
Python client's ``spans.get_spans`` (a list), its span JSONL, the ``px`` CLI (trace
objects ``{traceId, rootSpan, spans: [...]}``), and what ``log_spans`` uploads::

    {"id": "U3Bhbjo2", "name": "...", "context": {"trace_id": "...", "span_id": "..."},
     "span_kind": "TOOL", "parent_id": "...", "start_time": "<ISO 8601>",
     "end_time": "...", "status_code": "OK", "status_message": "",
     "attributes": {"tool.name": "...", "input.value": "...", ...}, "events": [...]}

``span_kind`` is the OpenInference kind (``LLM``, ``TOOL``, ``AGENT``, ``CHAIN`` …) and
decides the event kind as ``openinference.span.kind`` does; older exports nest the
attributes (``{"llm": {"input_messages": [{"message": {...}}]}}``) and are flattened back
into the dotted names first. Spans written out of the client's dataframe
(``get_spans_dataframe().reset_index().to_json(orient="records")``: columns
``context.span_id``, ``attributes.tool.name`` …) are read too. Every span then goes
through the one span mapping (``_span``), as the Python SDK's span JSON does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...model import InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from ._facts import TraceFacts
from ._otel_json import span_event, span_values

__all__ = ["PHOENIX", "PhoenixAdapter", "flatten_attributes"]

_SPAN_KIND = re.compile(rb'"span_kind"\s*:')
_CONTEXT = re.compile(rb'"context"\s*:\s*\{')
_PHOENIX_FIELD = re.compile(rb'"(?:status_code|parent_id)"\s*:')
_FRAME = re.compile(rb'"context\.span_id"\s*:')
_HINT = ("a Phoenix export is a list (or JSONL, or a {\"data\": [...]} page) of spans "
         "{name, context: {trace_id, span_id}, span_kind, parent_id, status_code, attributes}")


class PhoenixAdapter:
    """Phoenix span lists, pages, JSONL, ``px`` trace objects and dataframe records."""

    name = "phoenix"

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _FRAME.search(head):
            return 92
        if _SPAN_KIND.search(head) and _CONTEXT.search(head) and _PHOENIX_FIELD.search(head):
            return 92  # above otel-json's 90 for the same "context" object
        return 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        facts = TraceFacts()
        index = 0
        for value in span_values(source):
            for obj in _spans(value, source):
                index += 1
                with malformed(source, f"span {index}", span=index):
                    obj = _normalised(obj)
                ev, scope = span_event(obj, source, index)
                facts.add(ev, scope)
                yield ev
        if index == 0:
            raise InvalidTraceError(f"{source.display}: no spans in the file",
                                    file=source.display, hint=_HINT)
        yield from facts.infos()


PHOENIX = PhoenixAdapter()


def _spans(value: Any, source: SourceFile) -> Iterator[Any]:
    """The span objects of one top-level value: a span, a list of spans or of ``px``
    trace objects, a ``{"data": [...]}`` page, a ``{"spans": [...]}`` trace."""
    if type(value) is dict:
        for key in ("data", "spans"):
            if isinstance(value.get(key), list) and "context" not in value:
                yield from _spans(value[key], source)
                return
        yield value
        return
    if isinstance(value, list):
        for item in value:
            if type(item) is dict and isinstance(item.get("spans"), list) \
                    and "context" not in item:
                yield from item["spans"]
            else:
                yield item
        return
    raise InvalidTraceError(f"{source.display}: not a Phoenix span export",
                            file=source.display, hint=_HINT)


def _normalised(obj: Any) -> Any:
    """A span in the one shape ``span_event`` reads: dataframe records regrouped,
    nested attributes flattened."""
    if type(obj) is not dict:
        return obj
    if "context.span_id" in obj or "context.trace_id" in obj:
        obj = _from_frame(obj)
    attrs = obj.get("attributes")
    if type(attrs) is dict and any(type(v) is dict or _is_records(v) for v in attrs.values()):
        obj = {**obj, "attributes": flatten_attributes(attrs)}
    return obj


def _is_records(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(type(x) is dict for x in v)


def flatten_attributes(attrs: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested attributes back into OpenTelemetry's flat dotted names:
    ``{"llm": {"input_messages": [{"message.role": "user"}]}}`` ->
    ``{"llm.input_messages.0.message.role": "user"}``. An attribute value is never an
    object or a list of objects in OpenTelemetry, so every one is nesting; lists of
    plain values stay lists."""
    out: dict[str, Any] = {}
    for k, v in attrs.items():
        key = f"{prefix}{k}"
        if type(v) is dict:
            out.update(flatten_attributes(v, key + "."))
        elif _is_records(v):
            for i, item in enumerate(v):
                out.update(flatten_attributes(item, f"{key}.{i}."))
        else:
            out[key] = v
    return out


_MS_BEFORE = 10**14  # pandas writes times as epoch milliseconds; ns are beyond this


def _from_frame(row: dict[str, Any]) -> dict[str, Any]:
    """A row of ``get_spans_dataframe`` (columns ``context.*``, ``attributes.*``, missing
    attributes as null) as a span object."""
    span: dict[str, Any] = {"context": {}, "attributes": {}}
    for k, v in row.items():
        if k.startswith("context."):
            span["context"][k[8:]] = v
        elif k.startswith("attributes."):
            if v is not None:
                span["attributes"][k[11:]] = v
        elif k in ("start_time", "end_time") and isinstance(v, int) \
                and not isinstance(v, bool) and 0 < v < _MS_BEFORE:
            span[k] = v * 1_000_000
        else:
            span[k] = v
    return span
