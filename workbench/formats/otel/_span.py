"""The one mapping from an OpenTelemetry span onto the event model.

Every OTel-shaped reader decodes its own envelope (see ``_otelvalue``) and then calls
``map_span`` with the span's parts. The mapping, rule by rule, is documented in
``docs/formats.md``. It moves the attributes it uses for ``args``, ``result`` and
``error`` out of ``attrs``; every other attribute stays in ``attrs`` under its own
key, so nothing the span carried is lost. It takes ownership of the attribute dict
it is given (keys are popped).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .._adapter import RawEvent
from .._decode import maybe_json
from ._value import SpanScope

__all__ = ["map_span"]

_MISSING: Any = object()


_OP_KIND = {
    "invoke_agent": "agent", "create_agent": "agent",
    "chat": "llm_call", "text_completion": "llm_call", "generate_content": "llm_call",
    "embeddings": "llm_call", "execute_tool": "tool_call",
}
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


def _take(a: dict[str, Any], *keys: str) -> Any:
    """Pop the first of ``keys`` that is present (and later keys holding the same value)."""
    for i, k in enumerate(keys):
        v = a.pop(k, _MISSING)
        if v is not _MISSING:
            for k2 in keys[i + 1:]:
                if a.get(k2, _MISSING) == v:
                    del a[k2]
            return v
    return _MISSING


def _first(a: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        v = a.get(k)
        if v is not None and v != "":
            return v
    return None


_TOOL_ARGS = ("gen_ai.tool.call.arguments", "input.value", "gcp.vertex.agent.tool_call_args",
              "ai.toolCall.args", "ai.toolCall.input", "traceloop.entity.input",
              "tool_arguments", "input")
_TOOL_RESULT = ("gen_ai.tool.call.result", "output.value", "gcp.vertex.agent.tool_response",
                "ai.toolCall.result", "ai.toolCall.output", "traceloop.entity.output",
                "tool_response", "output")


def _take_chain(a: dict[str, Any], chain: tuple[str, ...]) -> Any:
    for k in chain:
        v = a.pop(k, _MISSING)
        if v is not _MISSING:
            return maybe_json(v)
    return _MISSING


def _tool(a: dict[str, Any], span_name: str) -> tuple[str, Any, Any]:
    name = _first(a, "gen_ai.tool.name", "tool.name", "ai.toolCall.name")
    if name is None:
        name = span_name[13:] if span_name.startswith("execute_tool ") else span_name
    return str(name), _take_chain(a, _TOOL_ARGS), _take_chain(a, _TOOL_RESULT)


_IN = ("gen_ai.input.messages", "input.value", "input", "ai.prompt")
_OUT = ("gen_ai.output.messages", "output.value", "output", "ai.response.text",
        "ai.response.object")


def _io(a: dict[str, Any]) -> tuple[Any, Any]:
    return _take_chain(a, _IN), _take_chain(a, _OUT)


# The flattened families of an LLM span: prefix -> slot.
_LLM_PREFIXES = ("gen_ai.prompt.", "gen_ai.completion.", "llm.input_messages.",
                 "llm.output_messages.", "gen_ai.request.", "llm.tools.",
                 "llm.request.functions.")


def _unflatten(items: list[tuple[str, Any]]) -> Any:
    """``[("0.role", "user"), ("0.content", "hi")]`` -> ``[{"role": "user", "content": "hi"}]``."""
    root: dict[str, Any] = {}
    for path, v in items:
        parts = path.split(".")
        node = root
        for i, p in enumerate(parts[:-1]):
            nxt = node.get(p)
            if nxt is None:
                nxt = node[p] = {}
            elif type(nxt) is not dict:
                node[".".join(parts[i:])] = v
                break
            node = nxt
        else:
            node[parts[-1]] = v
    return _listify(root)


def _listify(node: Any) -> Any:
    if type(node) is not dict:
        return node
    if node and all(k.isdigit() for k in node):
        return [_listify(node[k]) for k in sorted(node, key=int)]
    return {k: _listify(v) for k, v in node.items()}


def _unwrap(value: Any, key: str) -> Any:
    """OpenInference wraps list items (``{"message": {...}}``); take the inner object."""
    if type(value) is dict and len(value) == 1 and key in value:
        return value[key]
    return value


def _oi_messages(flat: list[tuple[str, Any]]) -> Any:
    msgs = _unflatten(flat)
    if not isinstance(msgs, list):
        return msgs
    out = []
    for m in msgs:
        m = _unwrap(m, "message")
        if type(m) is dict:
            for key, inner in (("contents", "message_content"), ("tool_calls", "tool_call")):
                if isinstance(m.get(key), list):
                    m[key] = [_unwrap(x, inner) for x in m[key]]
        out.append(m)
    return out


def _finish_reasons(value: Any) -> Any:
    if isinstance(value, str):
        decoded = maybe_json(value)
        return decoded if decoded is not value else [value]
    return value


def _llm(a: dict[str, Any], span_name: str, events: list[Any] | None,
         model: Any) -> tuple[str, Any, Any]:
    name = _first(a, "gen_ai.request.model", "gen_ai.response.model", "llm.model_name",
                  "ai.model.id") or model or span_name
    groups, params = _llm_families(a)
    messages, out, extra = _llm_messages(a, groups, events)
    tools = _llm_tools(a, groups)
    system = _take(a, "gen_ai.system_instructions")
    args: dict[str, Any] = {
        "messages": None if messages is _MISSING else messages,
        "system": None if system is _MISSING else maybe_json(system),
        "params": params,
    }
    if tools is not None:
        args["tools"] = tools
    result: dict[str, Any] = {"messages": None if out is _MISSING else out,
                              "finish_reasons": _llm_reasons(a, out)}
    result.update(extra)
    return str(name), args, result


# (family prefix, rest) of each attribute key seen, None for other keys: attribute
# keys repeat from span to span; bounded, since keys can be data
_FAMILIES: dict[str, tuple[str, str] | None] = {}


def _family(k: str) -> tuple[str, str] | None:
    f = None
    if k.startswith(_LLM_PREFIXES):
        for p in _LLM_PREFIXES:
            if k.startswith(p):
                f = (p, k[len(p):])
                break
    if len(_FAMILIES) >= 1 << 14:
        _FAMILIES.clear()
    _FAMILIES[k] = f
    return f


def _llm_families(a: dict[str, Any]) -> tuple[dict[str, list[tuple[str, Any]]], dict[str, Any]]:
    """Take the flattened attribute families out of ``a``: ``{prefix: [(rest, value)]}``,
    and the request parameters (``gen_ai.request.*`` but the model, and
    ``llm.invocation_parameters``)."""
    groups: dict[str, list[tuple[str, Any]]] = {}
    known = _FAMILIES.get
    for k in a:
        f = known(k, _MISSING)
        if f is _MISSING:
            f = _family(k)
        if f is not None:
            groups.setdefault(f[0], []).append((f[1], a[k]))
    params: dict[str, Any] = {}
    for sub, v in groups.pop("gen_ai.request.", ()):
        if sub != "model":
            params[sub] = v
            del a["gen_ai.request." + sub]
    for p, items in groups.items():
        for sub, _ in items:
            del a[p + sub]
    inv = a.pop("llm.invocation_parameters", None)
    if inv is not None:
        inv = maybe_json(inv)
        if isinstance(inv, dict):
            for k, v in inv.items():
                params.setdefault(k, v)
        else:
            params["invocation_parameters"] = inv
    return groups, params


def _llm_messages(a: dict[str, Any], groups: dict[str, list[tuple[str, Any]]],
                  events: list[Any] | None) -> tuple[Any, Any, dict[str, Any]]:
    """Input and output messages, and Vercel's text/object/tool call results."""
    messages = _take_chain(a, ("gen_ai.input.messages", "gen_ai.prompt"))
    if messages is _MISSING and "gen_ai.prompt." in groups:
        messages = _unflatten(groups["gen_ai.prompt."])
    if messages is _MISSING and "llm.input_messages." in groups:
        messages = _oi_messages(groups["llm.input_messages."])
    if messages is _MISSING:
        messages = _take_chain(a, ("ai.prompt.messages", "input.value", "input", "ai.prompt"))
    out = _take_chain(a, ("gen_ai.output.messages", "gen_ai.completion"))
    if out is _MISSING and "gen_ai.completion." in groups:
        out = _unflatten(groups["gen_ai.completion."])
    if out is _MISSING and "llm.output_messages." in groups:
        out = _oi_messages(groups["llm.output_messages."])
    if events and (messages is _MISSING or out is _MISSING):
        messages, out = _content_events(events, messages, out)
    extra: dict[str, Any] = {}
    if out is _MISSING:
        for key, slot in (("ai.response.text", "text"), ("ai.response.object", "object"),
                          ("ai.response.toolCalls", "tool_calls")):
            v = a.pop(key, _MISSING)
            if v is not _MISSING:
                extra[slot] = maybe_json(v)
        if not extra:
            out = _take_chain(a, ("output.value", "output"))
    return messages, out, extra


def _llm_reasons(a: dict[str, Any], out: Any) -> Any:
    reasons = _take(a, "gen_ai.response.finish_reasons")
    if reasons is not _MISSING:
        return _finish_reasons(reasons)
    if isinstance(out, list):
        found = [m.get("finish_reason") for m in out
                 if type(m) is dict and m.get("finish_reason") is not None]
        return found or None
    vr = _take(a, "ai.response.finishReason")
    return None if vr is _MISSING else [vr]


def _llm_tools(a: dict[str, Any], groups: dict[str, list[tuple[str, Any]]]) -> list[Any] | None:
    """The tool definitions the model call was given, where the span lists them."""
    defs = a.pop("gen_ai.tool.definitions", _MISSING)
    if defs is _MISSING:
        defs = a.pop("ai.prompt.tools", _MISSING)  # Vercel: a list of JSON texts
    if defs is not _MISSING:
        defs = maybe_json(defs)
        return [maybe_json(t) for t in defs] if isinstance(defs, list) else [defs]
    if "llm.tools." in groups:
        listed = _unflatten(groups["llm.tools."])
        return [maybe_json(_unwrap(_unwrap(t, "tool"), "json_schema"))
                for t in (listed if isinstance(listed, list) else [listed])]
    if "llm.request.functions." in groups:
        listed = _unflatten(groups["llm.request.functions."])
        tools = listed if isinstance(listed, list) else [listed]
        for t in tools:
            if type(t) is dict and "parameters" in t:
                t["parameters"] = maybe_json(t["parameters"])
        return tools
    return None


def _content_events(events: list[Any], messages: Any, out: Any) -> tuple[Any, Any]:
    """Older GenAI instrumentations put the prompt and completion on span events."""
    for ev in list(events):
        n = ev.get("name")
        ea = ev.get("attrs") or {}
        if messages is _MISSING and n == "gen_ai.content.prompt" and "gen_ai.prompt" in ea:
            messages = maybe_json(ea["gen_ai.prompt"])
            events.remove(ev)
        elif out is _MISSING and n == "gen_ai.content.completion" and "gen_ai.completion" in ea:
            out = maybe_json(ea["gen_ai.completion"])
            events.remove(ev)
    return messages, out


_HEADER_PREFIXES = ("http.request.header.", "http.response.header.")


def _headers(a: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    req: dict[str, Any] = {}
    resp: dict[str, Any] = {}
    found = [k for k in a if k.startswith(_HEADER_PREFIXES)]
    for k in found:
        if k.startswith("http.request.header."):
            req[k[20:]] = a.pop(k)
        else:
            resp[k[21:]] = a.pop(k)
    return req, resp


def _query(q: Any) -> dict[str, Any]:
    if not isinstance(q, str) or not q:
        return {}
    return dict(_parsed_query(q))


@lru_cache(maxsize=4096)
def _parsed_query(q: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in parse_qsl(q, keep_blank_values=True):
        if k in out:
            prev = out[k]
            out[k] = [*prev, v] if isinstance(prev, list) else [prev, v]
        else:
            out[k] = v
    return out


@lru_cache(maxsize=4096)
def _split_url(url: str) -> tuple[str, str | None]:
    parts = urlsplit(url)
    return parts.path or "/", parts.query or None


def _http(a: dict[str, Any], span_name: str) -> tuple[str, Any, Any]:
    method = _take(a, "http.request.method", "http.method")
    method = "" if method is _MISSING else str(method).upper()
    path: Any = None
    query: Any = None
    v = a.pop("url.path", _MISSING)
    if v is not _MISSING:
        path = v
    else:
        target = a.pop("http.target", _MISSING)
        if target is not _MISSING and isinstance(target, str):
            path, _, q = target.partition("?")
            query = q or None
        elif a.get("http.route") is not None:
            path = a["http.route"]
        else:
            url = _first(a, "url.full", "http.url")
            if isinstance(url, str):
                try:
                    path, query = _split_url(url)
                except ValueError:  # an unparseable URL: keep it in attrs only
                    path = None
    q = a.pop("url.query", _MISSING)
    if q is not _MISSING:
        query = q
    status = _take(a, "http.response.status_code", "http.status_code")
    if isinstance(status, str) and status.isdigit():
        status = int(status)
    req_headers, resp_headers = _headers(a)
    args = {"method": method or None, "path": path, "query": _query(query),
            "headers": req_headers, "body": maybe_json(a.pop("http.request.body", None))}
    result = {"status": None if status is _MISSING else status, "headers": resp_headers,
              "body": maybe_json(a.pop("http.response.body", None))}
    name = f"{method} {path}" if method and path else (method or span_name)
    return name, args, result


def _error(a: dict[str, Any], message: Any, events: list[Any] | None) -> dict[str, Any]:
    code = a.pop("error.type", None)
    details: dict[str, Any] = {}
    if events:
        for ev in events:
            if ev.get("name") == "exception":
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
        ev_name, args, result = _llm(a, span_name, events, model)
    elif kind == "http":
        ev_name, args, result = _http(a, span_name)
    else:
        ev_name = str((_first(a, "gen_ai.agent.name") if kind == "agent" else None)
                      or span_name)
        args, result = _io(a)
    if fallback:
        args, result = _fill(kind, args, result, fallback)
    if args is _MISSING:
        args = None
    if result is _MISSING:
        result = None

    error = None
    if status == "error" or (status == "unset" and (
            "error.type" in a or (events and any(e.get("name") == "exception"
                                                 for e in events)))):
        status = "error"
        error = _error(a, status_message, events)
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


def _fill(kind: str, args: Any, result: Any, fb: dict[str, Any]) -> tuple[Any, Any]:
    """Fill args/result the attributes left empty from a source's own fields."""
    fin = fb.get("input", _MISSING)
    fout = fb.get("output", _MISSING)
    if kind == "llm_call":
        if args["messages"] is None and fin is not _MISSING and fin is not None:
            args["messages"] = maybe_json(fin)
        if result["messages"] is None and fout is not _MISSING and fout is not None:
            result["messages"] = maybe_json(fout)
        return args, result
    if kind == "http":
        return args, result
    if (args is _MISSING or args is None) and fin is not _MISSING:
        args = maybe_json(fin)
    if (result is _MISSING or result is None) and fout is not _MISSING:
        result = maybe_json(fout)
    return args, result
