"""Adapter ``langfuse``: Langfuse trace exports.

A Langfuse export is ``{"trace": {...}, "observations": [...]}`` (or the public API's
trace object with its ``observations`` embedded; a list of either, or a
``{"data": [...]}`` page of them, is read too). Each observation becomes one event.
Observations that arrived at Langfuse as OTel spans keep the span's attributes,
resource attributes and scope in ``metadata`` (a JSON string); those go through the
shared OTel mapping, and the observation's own fields (``type``, ``input``,
``output``, ``model``, ``level``) fill what the attributes leave open.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...model import InvalidTraceError, JSONDecodeError, loads
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from .._decode import load_document, maybe_json
from ._facts import TraceFacts, user_task
from ._span import map_span
from ._value import SpanScope, norm_id, time_ns

__all__ = ["LANGFUSE", "LangfuseAdapter"]

_OBSERVATIONS = re.compile(rb'"observations"\s*:\s*\[')
_TRACE = re.compile(rb'"trace"\s*:\s*\{')
_OBS_FIELDS = re.compile(rb'"parentObservationId"\s*:')

_TYPE_KIND = {"AGENT": "agent", "GENERATION": "llm_call", "EMBEDDING": "llm_call",
              "TOOL": "tool_call"}

# observation fields the event takes elsewhere, or Langfuse's own bookkeeping
_USED = frozenset({
    "id", "traceId", "parentObservationId", "type", "name", "startTime", "endTime",
    "input", "output", "metadata", "level", "statusMessage",
    "projectId", "createdAt", "updatedAt", "latency", "internalModel", "internalModelId",
    "inputUsage", "outputUsage", "totalUsage", "inputCost", "outputCost", "totalCost",
})
_TRACE_ATTRS = ("name", "sessionId", "userId", "tags", "release", "version", "environment",
                "scores", "corrections")


class LangfuseAdapter:
    """Langfuse ``{trace, observations[]}`` exports."""

    name = "langfuse"

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _OBSERVATIONS.search(head) is None:
            return 0
        if _TRACE.search(head) is not None:
            return 90
        return 80 if _OBS_FIELDS.search(head) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        facts = TraceFacts()
        index = 0
        for trace, observations in _exports(load_document(source), source):
            if trace is not None:
                info = _trace_info(trace)
                if info is not None:
                    yield info
            for obs in observations:
                index += 1
                ev, scope = _observation(obs, trace, source, index)
                facts.add(ev, scope)
                yield ev
        if index == 0:
            raise InvalidTraceError(f"{source.display}: no observations in the file",
                                    file=source.display)
        yield from facts.infos()


LANGFUSE = LangfuseAdapter()


def _is_observation(v: Any) -> bool:
    return type(v) is dict and "id" in v and "type" in v and "traceId" in v


def _exports(doc: Any, source: SourceFile) -> list[tuple[dict[str, Any] | None, list[Any]]]:
    """``(trace object or None, observations)`` pairs of the document."""
    if type(doc) is dict and not isinstance(doc.get("observations"), list) \
            and "trace" not in doc and isinstance(doc.get("data"), list):
        doc = doc["data"]
    items = doc if isinstance(doc, list) else [doc]
    out: list[tuple[dict[str, Any] | None, list[Any]]] = []
    loose: list[Any] = []
    for it in items:
        if type(it) is dict and type(it.get("trace")) is dict:
            trace = it["trace"]
            obs = it.get("observations")
            if not isinstance(obs, list):
                obs = trace.get("observations")
            out.append((trace, [o for o in obs if type(o) is dict]
                        if isinstance(obs, list) else []))
        elif type(it) is dict and isinstance(it.get("observations"), list) and "id" in it:
            out.append((it, [o for o in it["observations"] if type(o) is dict]))
        elif _is_observation(it):
            loose.append(it)
        else:
            raise InvalidTraceError(
                f"{source.display}: not a Langfuse export: expected {{trace, observations}}",
                file=source.display)
    if loose:
        out.append((None, loose))
    return out


def _metadata(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = loads(value)
        except JSONDecodeError:
            return {"metadata": value}
    if value is None:
        return {}
    return value if type(value) is dict else {"metadata": value}


def _observation(o: dict[str, Any], trace: dict[str, Any] | None, source: SourceFile,
                 index: int) -> tuple[RawEvent, SpanScope]:
    with malformed(source, f"observation {index}", span=index):
        tid = norm_id(o.get("traceId") or (trace or {}).get("id"))
        sid = norm_id(o.get("id"))
        if not tid or not sid:
            missing = "trace id" if not tid else "id"
            raise InvalidTraceError(f"{source.display}: observation {index} has no {missing}",
                                    file=source.display, span=index)
        meta = _metadata(o.get("metadata"))
        attrs = meta.pop("attributes", None)
        attrs = attrs if type(attrs) is dict else {}
        res = meta.pop("resourceAttributes", None)
        sc = meta.pop("scope", None)
        sc = sc if type(sc) is dict else {}
        scope = SpanScope.build(res if type(res) is dict else None, sc.get("name"),
                                sc.get("version"), sc.get("attributes") or None)
        extra: dict[str, Any] = {f"langfuse.{k}": v for k, v in o.items()
                                 if k not in _USED and v not in (None, "", {}, [])}
        if meta:
            extra["langfuse.metadata"] = meta
        level = o.get("level")
        if level not in (None, "DEFAULT"):
            extra["langfuse.level"] = level
        fallback = {"model": o.get("model")}
        for key in ("input", "output"):
            if o.get(key) is not None:
                fallback[key] = o[key]
        ev = map_span(
            trace_id=tid, span_id=sid, parent_id=norm_id(o.get("parentObservationId")),
            name=o.get("name"), span_kind=None, start_ns=time_ns(o.get("startTime")),
            end_ns=time_ns(o.get("endTime")), status="error" if level == "ERROR" else "unset",
            status_message=o.get("statusMessage"), attrs=attrs, scope=scope, extra=extra,
            default_kind=_TYPE_KIND.get(str(o.get("type")).upper(), "other"),
            fallback=fallback)
        return ev, scope


def _unquote(value: Any) -> Any:
    """Langfuse stores some inputs JSON-encoded twice (``"\\"{...}\\""``)."""
    if isinstance(value, str) and value.startswith('"'):
        try:
            value = loads(value)
        except JSONDecodeError:
            return value
    return maybe_json(value)


def _trace_info(trace: dict[str, Any]) -> TraceInfo | None:
    tid = norm_id(trace.get("id"))
    if not tid:
        return None
    given = _unquote(trace.get("input"))
    if isinstance(given, str):  # a bare question is the task; a dict's repr is not
        text = given.strip()
        task = text if text and text[0] not in "{[(" else None
    else:
        task = user_task(given)
    attrs: dict[str, Any] = {}
    for k in _TRACE_ATTRS:
        v = trace.get(k)
        if v not in (None, "", [], {}):
            attrs[k] = v
    meta = _metadata(trace.get("metadata"))
    for k in ("attributes", "resourceAttributes", "scope"):  # the root span's, repeated
        meta.pop(k, None)
    if meta:
        attrs["metadata"] = meta
    return TraceInfo(trace_id=tid, root_task=task, attrs={"langfuse": attrs} if attrs else {})
