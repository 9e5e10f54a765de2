"""The model-call part of the span mapping: messages, parameters, tool definitions and
finish reasons of an LLM span, from every dialect we read (OTel GenAI, the older
``gen_ai.prompt.N`` and span-event forms, OpenInference ``llm.*``, Traceloop, Vercel
``ai.*``). Flattened attribute families are unflattened back into lists and objects."""

from __future__ import annotations

from typing import Any

from .._decode import maybe_json
from ._attributes import MISSING, first, take, take_chain

__all__ = ["llm"]


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


def llm(a: dict[str, Any], span_name: str, events: list[Any] | None,
         model: Any) -> tuple[str, Any, Any]:
    name = first(a, "gen_ai.request.model", "gen_ai.response.model", "llm.model_name",
                  "ai.model.id") or model or span_name
    groups, params = _llm_families(a)
    messages, out, extra = _llm_messages(a, groups, events)
    tools = _llm_tools(a, groups)
    system = take(a, "gen_ai.system_instructions")
    args: dict[str, Any] = {
        "messages": None if messages is MISSING else messages,
        "system": None if system is MISSING else maybe_json(system),
        "params": params,
    }
    if tools is not None:
        args["tools"] = tools
    result: dict[str, Any] = {"messages": None if out is MISSING else out,
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
        f = known(k, MISSING)
        if f is MISSING:
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
    messages = take_chain(a, ("gen_ai.input.messages", "gen_ai.prompt"))
    if messages is MISSING and "gen_ai.prompt." in groups:
        messages = _unflatten(groups["gen_ai.prompt."])
    if messages is MISSING and "llm.input_messages." in groups:
        messages = _oi_messages(groups["llm.input_messages."])
    if messages is MISSING:
        messages = take_chain(a, ("ai.prompt.messages", "input.value", "input", "ai.prompt"))
    out = take_chain(a, ("gen_ai.output.messages", "gen_ai.completion", "gen_ai.output"))
    if out is MISSING and "gen_ai.completion." in groups:
        out = _unflatten(groups["gen_ai.completion."])
    if out is MISSING and "llm.output_messages." in groups:
        out = _oi_messages(groups["llm.output_messages."])
    if events and (messages is MISSING or out is MISSING):
        messages, out = _content_events(events, messages, out)
    extra: dict[str, Any] = {}
    if out is MISSING:
        for key, slot in (("ai.response.text", "text"), ("ai.response.object", "object"),
                          ("ai.response.toolCalls", "tool_calls")):
            v = a.pop(key, MISSING)
            if v is not MISSING:
                extra[slot] = maybe_json(v)
        if not extra:
            out = take_chain(a, ("output.value", "output"))
    return messages, out, extra


def _llm_reasons(a: dict[str, Any], out: Any) -> Any:
    reasons = take(a, "gen_ai.response.finish_reasons")
    if reasons is not MISSING:
        return _finish_reasons(reasons)
    if isinstance(out, list):
        found = [m.get("finish_reason") for m in out
                 if type(m) is dict and m.get("finish_reason") is not None]
        return found or None
    vr = take(a, "ai.response.finishReason")
    return None if vr is MISSING else [vr]


def _llm_tools(a: dict[str, Any], groups: dict[str, list[tuple[str, Any]]]) -> list[Any] | None:
    """The tool definitions the model call was given, where the span lists them."""
    defs = a.pop("gen_ai.tool.definitions", MISSING)
    if defs is MISSING:
        defs = a.pop("ai.prompt.tools", MISSING)  # Vercel: a list of JSON texts
    if defs is not MISSING:
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
        if messages is MISSING and n == "gen_ai.content.prompt" and "gen_ai.prompt" in ea:
            messages = maybe_json(ea["gen_ai.prompt"])
            events.remove(ev)
        elif out is MISSING and n == "gen_ai.content.completion" and "gen_ai.completion" in ea:
            out = maybe_json(ea["gen_ai.completion"])
            events.remove(ev)
    return messages, out
