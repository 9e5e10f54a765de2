"""Adapter ``any-agent``: the ``AgentTrace`` of mozilla-ai's any-agent, as its
``model_dump_json`` writes it.

``{"spans": [...], "final_output": ...}``: each span is the OpenTelemetry Python SDK's
span made a pydantic model, so its ids are *integers* (``context.trace_id``,
``context.span_id``, and the parent's whole ``context`` under ``parent``), its kind a
lower-case name (``"internal"``), its status ``{"status_code": "ok", "description"}``
and its times integer nanoseconds. Ids are written as the lower-case hex OpenTelemetry
uses (32 digits for a trace id, 16 for a span id) and the span then goes through the
one span mapping (``_span``) as the SDK's span JSON does. any-agent's attributes are the
OTel GenAI ones plus ``gen_ai.tool.args`` (a tool call's arguments) and
``gen_ai.output`` (a tool's result, a model call's output), which the mapping reads.
A bare list of such spans is read too. ``final_output`` goes to the trace's attrs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...model import InvalidTraceError
from .._adapter import RawEvent, SourceFile, TraceInfo, malformed
from ._facts import TraceFacts
from ._otel_json import span_event, span_values
from ._value import SpanScope

__all__ = ["ANY_AGENT", "AnyAgentAdapter", "hex_id"]

#: an integer trace id: what tells any-agent's spans from the SDK's hex ones
_INT_CONTEXT = re.compile(rb'"context"\s*:\s*\{\s*"trace_id"\s*:\s*\d')
_HINT = 'an any-agent trace is {"spans": [{"name", "context": {"trace_id": <int>, ...}}]}'


class AnyAgentAdapter:
    """any-agent ``AgentTrace`` objects (``{"spans": [...]}``), or a list of its spans."""

    name = "any-agent"

    def sniff(self, source: SourceFile) -> int:
        return 93 if _INT_CONTEXT.search(source.head) else 0  # above otel-json's 90

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        facts = TraceFacts()
        index = 0
        outputs: list[tuple[Any, str | None]] = []
        for value in span_values(source):
            if type(value) is dict and isinstance(value.get("spans"), list):
                spans, first = value["spans"], None
                for obj in spans:
                    index += 1
                    ev, scope = _event(obj, source, index)
                    first = first or ev.trace_id
                    facts.add(ev, scope)
                    yield ev
                if value.get("final_output") is not None:
                    outputs.append((value["final_output"], first))
            elif isinstance(value, list):
                for obj in value:
                    index += 1
                    ev, scope = _event(obj, source, index)
                    facts.add(ev, scope)
                    yield ev
            else:
                raise InvalidTraceError(f"{source.display}: not an any-agent trace",
                                        file=source.display, hint=_HINT)
        if index == 0:
            raise InvalidTraceError(f"{source.display}: no spans in the file",
                                    file=source.display, hint=_HINT)
        for output, tid in outputs:
            if tid is not None:
                yield TraceInfo(trace_id=tid, attrs={"any_agent.final_output": output})
        yield from facts.infos()


ANY_AGENT = AnyAgentAdapter()


def _event(obj: Any, source: SourceFile, index: int) -> tuple[RawEvent, SpanScope]:
    with malformed(source, f"span {index}", span=index):
        obj = _normalised(obj)
    return span_event(obj, source, index)


def hex_id(value: Any, digits: int) -> Any:
    """An integer id as ``digits`` lower-case hex digits (OpenTelemetry's spelling of
    a 128-bit trace id or 64-bit span id); anything else as it is (an integer too large
    for ``digits`` included: ``norm_id`` keeps it as given)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 16**digits:
        return format(value, f"0{digits}x")
    return value


def _context(ctx: Any) -> Any:
    if type(ctx) is not dict:
        return ctx
    out = {k: v for k, v in ctx.items() if k not in ("is_remote", "trace_flags")}
    out["trace_id"] = hex_id(ctx.get("trace_id"), 32)
    out["span_id"] = hex_id(ctx.get("span_id"), 16)
    state = ctx.get("trace_state")
    entries = state.get("entries") if type(state) is dict else state
    out["trace_state"] = entries or None
    return out


def _normalised(obj: Any) -> Any:
    """An any-agent span in the Python SDK's span JSON shape."""
    if type(obj) is not dict:
        return obj
    span = {k: v for k, v in obj.items() if k != "parent"}
    span["context"] = _context(obj.get("context"))
    parent = obj.get("parent")
    span["parent_id"] = hex_id(parent.get("span_id"), 16) if type(parent) is dict else None
    links = obj.get("links")
    if isinstance(links, list):
        span["links"] = [{**ln, "context": _context(ln.get("context"))}
                         if type(ln) is dict else ln for ln in links]
    return span
