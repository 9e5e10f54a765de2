"""Writing OTLP/JSON: events (store rows) as the spans the OTel readers map back.

OTLP/JSON (``{"resourceSpans": …}``, what an OpenTelemetry collector's file exporter
writes) puts one span per event, in step order, under the GenAI and HTTP semantic
conventions the workbench's own OTel reader maps (``docs/formats.md``):

- tool calls: ``gen_ai.operation.name = execute_tool``, ``gen_ai.tool.name``,
  ``gen_ai.tool.call.arguments`` / ``.result`` (JSON text of ``args`` / ``result``);
- model calls: ``chat``, ``gen_ai.request.model``, ``gen_ai.input.messages``,
  ``gen_ai.system_instructions``, ``gen_ai.request.*`` parameters,
  ``gen_ai.output.messages``, ``gen_ai.response.finish_reasons``;
- agents: ``invoke_agent``, ``gen_ai.agent.name``, input and output messages;
- HTTP: ``http.request.method``, ``url.path``, ``url.query``, headers as
  ``http.request.header.*`` / ``http.response.header.*``, ``http.response.status_code``
  and the bodies as ``http.request.body`` / ``http.response.body``;
- other kinds: ``input.value`` / ``output.value``.

Every span also carries ``workbench.kind``, ``workbench.event_id`` and
``workbench.seq``; an error's code is ``error.type`` and its message the status
message. Ids that are not OTel ids (16/32 hex digits) become the first hex digits of
their sha256, so parent links survive. The event's ``attrs`` are written back as
attributes (nested values as ``kvlistValue`` / ``arrayValue``).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlencode

from ...model import dumps, event_dict

__all__ = ["otlp_rows"]

_HEX = re.compile(r"[0-9a-f]+")
_OWN = frozenset({"otel.span_name", "otel.span_kind", "otel.status_message"})


def _id(value: str, digits: int, salt: str = "") -> str:
    if len(value) == digits and _HEX.fullmatch(value) and value.strip("0"):
        return value
    return hashlib.sha256((salt + "\0" + value).encode()).hexdigest()[:digits]


def _any(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [_any(x) for x in v]}}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": [{"key": str(k), "value": _any(x)}
                                           for k, x in v.items()]}}
    return {}


def _json(v: Any) -> str | None:
    return None if v is None else dumps(v)


def _tool(e: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": e["name"],
            "gen_ai.tool.call.arguments": _json(e["args"]),
            "gen_ai.tool.call.result": _json(e["result"])}


def _llm(e: dict[str, Any]) -> dict[str, Any]:
    args, result = e["args"], e["result"]
    a: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.request.model": e["name"]}
    if isinstance(args, dict) and "messages" in args:
        a["gen_ai.input.messages"] = _json(args.get("messages"))
        a["gen_ai.system_instructions"] = _json(args.get("system"))
        a["gen_ai.tool.definitions"] = _json(args.get("tools"))
        for k, v in (args.get("params") or {}).items():
            if isinstance(v, str | int | float | bool):
                a[f"gen_ai.request.{k}"] = v
    else:
        a["gen_ai.input.messages"] = _json(args)
    if isinstance(result, dict) and "messages" in result:
        a["gen_ai.output.messages"] = _json(result.get("messages"))
        reasons = result.get("finish_reasons")
        a["gen_ai.response.finish_reasons"] = reasons if isinstance(reasons, list) else None
    else:
        a["gen_ai.output.messages"] = _json(result)
    return a


def _http(e: dict[str, Any]) -> dict[str, Any]:
    args = e["args"] if isinstance(e["args"], dict) else {}
    result = e["result"] if isinstance(e["result"], dict) else {}
    a: dict[str, Any] = {"http.request.method": args.get("method"), "url.path": args.get("path"),
                         "http.response.status_code": result.get("status")}
    query = args.get("query")
    if isinstance(query, dict) and query:
        a["url.query"] = urlencode(query, doseq=True)
    for side, headers in (("request", args.get("headers")), ("response", result.get("headers"))):
        for k, v in (headers or {}).items() if isinstance(headers, dict) else ():
            a[f"http.{side}.header.{k}"] = v
    a["http.request.body"] = _json(args.get("body"))
    a["http.response.body"] = _json(result.get("body"))
    return a


def _mapped(e: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
    """Span name, span kind and semantic-convention attributes of one event."""
    kind = e["kind"]
    if kind == "tool_call":
        return f"execute_tool {e['name']}", 1, _tool(e)
    if kind == "llm_call":
        return f"chat {e['name']}", 3, _llm(e)
    if kind == "http":
        return e["name"], 3, _http(e)
    if kind == "agent":
        return f"invoke_agent {e['name']}", 1, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": e["name"],
            "gen_ai.input.messages": _json(e["args"]), "gen_ai.output.messages": _json(e["result"])}
    return e["name"], 1, {"input.value": _json(e["args"]), "output.value": _json(e["result"])}


def _span(e: dict[str, Any], trace_hex: str) -> dict[str, Any]:
    name, span_kind, sem = _mapped(e)
    attrs = {k: v for k, v in (e["attrs"] or {}).items() if k not in _OWN}
    attrs.update({k: v for k, v in sem.items() if v is not None})
    attrs.update({"workbench.kind": e["kind"], "workbench.event_id": e["event_id"],
                  "workbench.seq": e["seq"]})
    status: dict[str, Any] = {"ok": {"code": 1}, "error": {"code": 2}}.get(e["status"], {})
    err = e["error"]
    if isinstance(err, dict):
        if err.get("code") is not None:
            attrs["error.type"] = str(err["code"])
        if err.get("message"):
            status["message"] = str(err["message"])
    span: dict[str, Any] = {"traceId": trace_hex, "spanId": _id(e["event_id"], 16, trace_hex),
                            "name": name, "kind": span_kind}
    if e["parent_id"] is not None:
        span["parentSpanId"] = _id(e["parent_id"], 16, trace_hex)
    if e["start_ns"] is not None:
        span["startTimeUnixNano"] = str(e["start_ns"])
    if e["end_ns"] is not None:
        span["endTimeUnixNano"] = str(e["end_ns"])
    span["attributes"] = [{"key": k, "value": _any(v)} for k, v in attrs.items()
                          if v is not None]
    span["status"] = status
    return span


def otlp_rows(rows: list[dict[str, Any]], label: str, version: str = "") -> dict[str, Any]:
    """Events (store rows, JSON columns as text) as one OTLP/JSON ``TracesData``;
    ``label`` names the fixture or trace in the resource (``workbench.source``) and
    ``version`` is the instrumentation scope's (the workbench's own)."""
    parsed = [event_dict(r) for r in sorted(rows, key=lambda r: r["seq"])]
    trace_hex = _id(parsed[0]["trace_id"], 32)
    service = next((r["attrs"].get("service.name") for r in parsed
                    if isinstance(r["attrs"], dict) and isinstance(
                        r["attrs"].get("service.name"), str)), "workbench-fixture")
    resource = {"attributes": [{"key": "service.name", "value": _any(service)},
                               {"key": "workbench.source", "value": _any(label)}]}
    scope = {"name": "workbench.fixtures", "version": version}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [
        {"scope": scope, "spans": [_span(r, trace_hex) for r in parsed]}]}]}
