"""The one mapping from an OpenTelemetry span onto the event model.

Every OTel-shaped reader decodes its own envelope (see ``_value``) and then calls
``map_span`` with the span's parts; the model-call part is ``_genai`` and the HTTP
part ``_http_span``. The mapping, rule by rule, is documented in
``docs/formats.md``. It moves the attributes it uses for ``args``, ``result`` and
``error`` out of ``attrs``; every other attribute stays in ``attrs`` under its own
key, so nothing the span carried is lost. It takes ownership of the attribute dict
it is given (keys are popped).
"""

from __future__ import annotations

from typing import Any

from .._adapter import RawEvent
from .._decode import maybe_json
from ._attributes import MISSING, first, take_chain
from ._genai import llm
from ._http_span import http
from ._value import SpanScope

__all__ = ["map_span"]

_OP_KIND = {
    "invoke_agent": "agent", "create_agent": "agent", "invoke_workflow": "agent",
    "chat": "llm_call", "text_completion": "llm_call", "generate_content": "llm_call",
    "embeddings": "llm_call", "execute_tool": "tool_call",
    "call_llm": "llm_call",  # any-agent's name for a model call
}
#: operations of the GenAI conventions (v0.1) that are neither a model call, a tool
#: call nor an agent: ``other``, with what they were asked and what they gave
_OP_OTHER = frozenset({"create_memory_store", "search_memory", "create_memory",
                       "update_memory", "upsert_memory", "delete_memory",
                       "delete_memory_store", "retrieval", "plan"})
_OI_KIND = {"AGENT": "agent", "LLM": "llm_call", "EMBEDDING": "llm_call", "TOOL": "tool_call"}
_LLM_REQUEST_TYPES = {"chat": "llm_call", "completion": "llm_call", "embedding": "llm_call"}
_TRACELOOP_KIND = {"agent": "agent", "tool": "tool_call"}
_VERCEL_OUTER = frozenset({"ai.generateText", "ai.streamText", "ai.generateObject",
                           "ai.streamObject"})


def _event_kind(a: dict[str, Any], default: str) -> str:
    op = a.get("gen_ai.operation.name")
    if type(op) is str:
        kind = _OP_KIND.get(op)
        if kind is not None:
            return kind
        if op in _OP_OTHER:
            return default
    oi = a.get("openinference.span.kind")
    if type(oi) is str:
        kind = _OI_KIND.get(oi.upper())
        if kind is not None:
            return kind
    lt = a.get("llm.request.type")
    if type(lt) is str and lt in _LLM_REQUEST_TYPES:
        return "llm_call"
    tk = a.get("traceloop.span.kind")
    if type(tk) is str and tk in _TRACELOOP_KIND:
        return _TRACELOOP_KIND[tk]
    vo = a.get("ai.operationId")
    if type(vo) is str:
        if vo == "ai.toolCall":
            return "tool_call"
        if vo.endswith((".doGenerate", ".doStream", ".doEmbed")):
            return "llm_call"
        if vo in _VERCEL_OUTER:
            return "agent"
    if "gen_ai.tool.name" in a:
        return "tool_call"
    if "gen_ai.agent.name" in a:
        return "agent"
    if "http.request.method" in a or "http.method" in a:
        return "http"
    return default


_TOOL_ARGS = ("gen_ai.tool.call.arguments", "input.value", "gcp.vertex.agent.tool_call_args",
              "ai.toolCall.args", "ai.toolCall.input", "traceloop.entity.input",
              "tool_arguments", "gen_ai.tool.args", "input")
_TOOL_RESULT = ("gen_ai.tool.call.result", "output.value", "gcp.vertex.agent.tool_response",
                "ai.toolCall.result", "ai.toolCall.output", "traceloop.entity.output",
                "tool_response", "gen_ai.output", "output")


def _tool(a: dict[str, Any], span_name: str) -> tuple[str, Any, Any]:
    name = first(a, "gen_ai.tool.name", "tool.name", "ai.toolCall.name")
    if name is None:
        name = span_name[13:] if span_name.startswith("execute_tool ") else span_name
    args = take_chain(a, _TOOL_ARGS)
    if args is MISSING:  # OpenInference: the call's own values, where no input.value
        args = _tool_parameters(a)
    return str(name), args, take_chain(a, _TOOL_RESULT)


def _tool_parameters(a: dict[str, Any]) -> Any:
    """``tool.parameters`` as the call's arguments: some OpenInference instrumentations
    (Claude Agent SDK, ADK) record the values there. A JSON Schema (the tool's
    definition, as the OpenInference spec means it) stays in attrs."""
    v = a.get("tool.parameters", MISSING)
    if v is MISSING:
        return MISSING
    d = maybe_json(v)
    if type(d) is dict and ("properties" in d or d.get("type") == "object"):
        return MISSING
    del a["tool.parameters"]
    return d


_MEMORY_ARGS = ("gen_ai.memory.store.id", "gen_ai.memory.record.id", "gen_ai.memory.query.text",
                "gen_ai.retrieval.query.text", "gen_ai.data_source.id",
                "gen_ai.retrieval.top_k", "gen_ai.request.top_k")
_MEMORY_RESULT = ("gen_ai.memory.records", "gen_ai.retrieval.documents")


def _operation(a: dict[str, Any]) -> tuple[Any, Any]:
    """A memory, retrieval or plan span: args are what it was asked (the store, the
    record, the query: their attribute names as keys), the result what it gave."""
    args: dict[str, Any] = {}
    for k in _MEMORY_ARGS:
        if k in a:
            args[k] = a.pop(k)
    result = take_chain(a, _MEMORY_RESULT)
    msgs_in, msgs_out = _io(a)
    if msgs_in is not MISSING:
        args["input"] = msgs_in
    if result is MISSING:
        result = msgs_out
    return args or MISSING, result


_IN = ("gen_ai.input.messages", "input.value", "input", "ai.prompt")
_OUT = ("gen_ai.output.messages", "output.value", "output", "ai.response.text",
        "ai.response.object", "gen_ai.output")


def _io(a: dict[str, Any]) -> tuple[Any, Any]:
    return take_chain(a, _IN), take_chain(a, _OUT)


_EXCEPTION_EVENTS = frozenset({"exception", "gen_ai.execute_tool.exception"})


def _error(a: dict[str, Any], message: Any, events: list[Any] | None) -> dict[str, Any]:
    code = a.pop("error.type", None)
    details: dict[str, Any] = {}
    if events:
        for ev in events:
            if ev.get("name") in _EXCEPTION_EVENTS:
                events.remove(ev)
                ea = dict(ev.get("attrs") or {})
                code = code or ea.pop("exception.type", None)
                emsg = ea.pop("exception.message", None)
                if not message:
                    message = emsg
                elif emsg:
                    details["exception.message"] = emsg
                if "exception.stacktrace" in ea:
                    details["stacktrace"] = ea.pop("exception.stacktrace")
                if ev.get("time_ns") is not None:
                    details["time_ns"] = ev["time_ns"]
                details.update(ea)
                break
    return {"code": code, "message": message or None, "retryable": None,
            "safe_to_continue": None, "user_action_required": None, "details": details}


def map_span(trace_id: str, span_id: str, parent_id: str | None, name: Any,
             span_kind: str | None, start_ns: int | None, end_ns: int | None,
             status: str, status_message: Any, attrs: dict[str, Any],
             events: list[dict[str, Any]] | None = None,
             links: list[dict[str, Any]] | None = None, trace_state: Any = None,
             flags: Any = None, scope: SpanScope | None = None,
             extra: dict[str, Any] | None = None, default_kind: str = "other",
             fallback: dict[str, Any] | None = None) -> RawEvent:
    """One span as a ``RawEvent``. ``events`` are ``{name, time_ns, attrs}`` and
    ``links`` ``{trace_id, span_id, ...}`` dicts; ``extra`` goes to attrs as given.
    ``default_kind`` is the kind when no attribute decides it, and ``fallback``
    (``input``, ``output``, ``model``) fills what the attributes leave empty.

    Hot readers call it positionally (keyword calls cost several times more)."""
    a = attrs
    span_name = name if isinstance(name, str) else ("" if name is None else str(name))
    kind = _event_kind(a, default_kind)
    model = fallback.get("model") if fallback else None
    if kind == "tool_call":
        ev_name, args, result = _tool(a, span_name)
    elif kind == "llm_call":
        ev_name, args, result = llm(a, span_name, events, model)
    elif kind == "http":
        ev_name, args, result = http(a, span_name)
    elif a.get("gen_ai.operation.name") in _OP_OTHER:
        ev_name = span_name or str(a["gen_ai.operation.name"])
        args, result = _operation(a)
    else:
        ev_name = str((first(a, "gen_ai.agent.name", "gen_ai.workflow.name")
                       if kind == "agent" else None) or span_name)
        args, result = _io(a)
    if fallback:
        args, result = _fill(kind, args, result, fallback)
    if args is MISSING:
        args = None
    if result is MISSING:
        result = None

    error = None
    if status == "error" or (status == "unset" and (
            "error.type" in a or (events and any(e.get("name") in _EXCEPTION_EVENTS
                                                 for e in events)))):
        status = "error"
        error = _error(a, status_message, events)
    elif status == "unset" and kind == "tool_call" and _failed_command(a):
        status = "error"
        error = _error(a, status_message or f"exit code {a['process.exit.code']}", events)
        error["code"] = error["code"] or "EXIT_CODE"
    elif status_message:
        a["otel.status_message"] = status_message

    a["otel.span_name"] = span_name
    if span_kind:
        a["otel.span_kind"] = span_kind
    if scope is not None:
        if "service.name" in a:  # the span's own service.name wins over the resource's
            a.update({k: v for k, v in scope.attrs.items() if k != "service.name"})
        else:
            a.update(scope.attrs)
    if trace_state:
        a["otel.trace_state"] = trace_state
    if events:
        a["otel.events"] = events
    if links:
        a["otel.links"] = links
    if flags:
        a["otel.flags"] = flags
    if extra:
        a.update(extra)
    # positional: a keyword call of the dataclass costs three times as much
    return RawEvent(trace_id, span_id, parent_id, kind, ev_name, start_ns, end_ns, status,
                    args, result, error, a)


def _failed_command(a: dict[str, Any]) -> bool:
    """A command-execution span (GenAI v0.1) whose process exited non-zero."""
    code = a.get("process.exit.code")
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


def _fill(kind: str, args: Any, result: Any, fb: dict[str, Any]) -> tuple[Any, Any]:
    """Fill args/result the attributes left empty from a source's own fields."""
    fin = fb.get("input", MISSING)
    fout = fb.get("output", MISSING)
    if kind == "llm_call":
        if args["messages"] is None and fin is not MISSING and fin is not None:
            args["messages"] = maybe_json(fin)
        if result["messages"] is None and fout is not MISSING and fout is not None:
            result["messages"] = maybe_json(fout)
        return args, result
    if kind == "http":
        return args, result
    if (args is MISSING or args is None) and fin is not MISSING:
        args = maybe_json(fin)
    if (result is MISSING or result is None) and fout is not MISSING:
        result = maybe_json(fout)
    return args, result
