"""Write the bundled example incidents under traces/examples/ (deterministic).

    python scripts/make_examples.py

The archive incident: an ops agent is asked to archive team-a's stale projects. The
projects API renamed its filter ``owner`` to ``owner_id``; the old name is ignored, so
``list_projects(owner="team-a")`` returns every team's projects, and the agent archives
p18 and p19 (team-b, team-c) as well as p17. Only p17 was approved.

The incident also carries what a real one does, so that redaction has work to show: a
bearer token in each HTTP request's Authorization header, an API key the model put into
the arguments of the ``list_projects`` call it asked for (the tool runner passes on only
the arguments it knows, so the executed call and the contracts' findings are unchanged),
and a customer's name and email in the listing's result. All are made up ("fake"/"demo" in the
credentials, a ``.test`` mail domain) and none is a documented example value that a
detector would let through.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "traces" / "examples"
T0 = 1_764_000_000_000_000_000  # 2025-11-24T16:00:00Z
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
# planted for the redaction step: made-up values, shaped like the real thing
BEARER = "fake0demo.Q7tLw9RkV4mZpN8sDf3HbJc6Ya1x"
API_KEY = "sk-proj-FAKEdemo7Hq2ZtWmX9vLc4RpN6bYs3KdF8jG1aTe5Uo"
CUSTOMER = {"contact_name": "Marta Quillfeather",
            "email": "marta.quillfeather@fernhollow-outfitters.test"}


def _v(value):
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_v(v) for v in value]}}
    return {"stringValue": value}


def span(n, parent, name, start_ms, end_ms, attrs, *, kind=1, error=None):
    s = {
        "traceId": TRACE,
        "spanId": f"{n:016x}",
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(T0 + start_ms * 1_000_000),
        "endTimeUnixNano": str(T0 + end_ms * 1_000_000),
        "attributes": [{"key": k, "value": _v(v)} for k, v in attrs.items()],
        "status": {"code": 1},
    }
    if parent:
        s["parentSpanId"] = f"{parent:016x}"
    if error:
        s["status"] = {"code": 2, "message": error[1]}
        s["attributes"].append({"key": "error.type", "value": _v(error[0])})
    return s


def chat(n, parent, start, end, prompt, calls):
    out = [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": cid, "name": tool, "arguments": args}
        for cid, tool, args in calls]}]
    return span(n, parent, "chat gpt-4.1", start, end, {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4.1", "gen_ai.response.model": "gpt-4.1-2025-04-14",
        "gen_ai.usage.input_tokens": 812 + n, "gen_ai.usage.output_tokens": 41 + n,
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
            {"type": "text", "content": prompt}]}]),
        "gen_ai.output.messages": json.dumps(out),
        "gen_ai.response.finish_reasons": ["tool_calls"],
    }, kind=3)


def tool(n, parent, start, end, name, call_id, args, result, error=None):
    return span(n, parent, f"execute_tool {name}", start, end, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id, "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments": json.dumps(args),
        "gen_ai.tool.call.result": json.dumps(result),
    }, error=error)


def http(n, parent, start, end, method, path, status):
    return span(n, parent, f"{method} {path}", start, end, {
        "http.request.method": method, "url.full": f"https://projects.internal.example{path}",
        "url.path": path, "http.response.status_code": status,
        "server.address": "projects.internal.example",
        "http.request.header.authorization": [f"Bearer {BEARER}"],
    }, kind=3)


def archive_incident():
    task = "Archive the stale projects of team-a (no activity for 90 days)."
    projects = [
        {"id": "p17", "name": "billing-v1", "owner_id": "team-a", "stale": True,
         "customer": CUSTOMER},
        {"id": "p18", "name": "search-ui", "owner_id": "team-b", "stale": True},
        {"id": "p19", "name": "etl-nightly", "owner_id": "team-c", "stale": True},
        {"id": "p20", "name": "billing-v2", "owner_id": "team-a", "stale": False},
    ]
    spans = [
        span(1, None, "invoke_agent ops-agent", 0, 9400, {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ops-agent",
            "gen_ai.agent.id": "agt_ops_01", "gen_ai.conversation.id": "conv_5521",
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                {"type": "text", "content": task}]}]),
        }, kind=2),
        chat(2, 1, 20, 900, task, [("call_01", "list_projects",
                                   {"owner": "team-a", "api_key": API_KEY})]),
        tool(3, 1, 910, 1300, "list_projects", "call_01", {"owner": "team-a", "stale": True},
             {"items": [p for p in projects if p["stale"]], "next_cursor": None}),
        http(4, 3, 950, 1280, "GET", "/v1/projects", 200),
        chat(5, 1, 1310, 2400, task, [("call_02", "request_approval",
                                       {"project_id": "p17", "action": "archive"})]),
        tool(6, 1, 2410, 4100, "request_approval", "call_02",
             {"project_id": "p17", "action": "archive"},
             {"approved": True, "approval_id": "apr_7731", "approver": "lead-team-a"}),
        chat(7, 1, 4110, 5200, task, [
            ("call_03", "archive_project", {"project_id": "p17"}),
            ("call_04", "archive_project", {"project_id": "p18"}),
            ("call_05", "archive_project", {"project_id": "p19"})]),
        tool(8, 1, 5210, 5900, "archive_project", "call_03", {"project_id": "p17"},
             {"project_id": "p17", "state": "archived"}),
        http(9, 8, 5230, 5880, "POST", "/v1/projects/p17/archive", 200),
        tool(10, 1, 5215, 6100, "archive_project", "call_04", {"project_id": "p18"},
             {"project_id": "p18", "state": "archived"}),
        http(11, 10, 5240, 6080, "POST", "/v1/projects/p18/archive", 200),
        tool(12, 1, 5220, 7300, "archive_project", "call_05", {"project_id": "p19"},
             {"error": "project is locked by a running pipeline"},
             error=("ProjectLocked", "project p19 is locked by a running pipeline")),
        http(13, 12, 5250, 7280, "POST", "/v1/projects/p19/archive", 409),
        chat(14, 1, 7310, 9350, task, []),
    ]
    # the collector writes spans as they end: children before parents
    spans.sort(key=lambda s: int(s["endTimeUnixNano"]))
    return {"resourceSpans": [{
        "resource": {"attributes": [
            {"key": "service.name", "value": {"stringValue": "ops-agent"}},
            {"key": "service.version", "value": {"stringValue": "2.3.1"}},
            {"key": "telemetry.sdk.name", "value": {"stringValue": "opentelemetry"}},
            {"key": "telemetry.sdk.language", "value": {"stringValue": "python"}},
        ]},
        "scopeSpans": [{"scope": {"name": "ops_agent.tracing", "version": "2.3.1"},
                        "spans": spans}],
    }]}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "archive-incident.otlp.json").write_text(
        json.dumps(archive_incident(), indent=1) + "\n")


if __name__ == "__main__":
    main()
