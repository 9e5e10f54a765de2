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

Beside it, one example for each step of the README's tour that needs files:

- ``projects-api/run.har``: the ops agent's calls to the projects API (projects-api/
  service.py, run here on 127.0.0.1 with its ``double-write`` bug on), recorded by a real
  HTTP client and normalised (times, the port) so that the file is the same on every run:
  a listing walked with a cursor, an approval requested and retried under its
  Idempotency-Key after a lost answer (the bug writes it twice), the approval read back,
  the archive. The bearer token is in every request, contacts (names, emails, phones)
  in the answers; nothing personal is in a request, so a replay sends what was recorded;
- ``diff/golden.jsonl`` and ``diff/candidate.jsonl``: a run of the ops agent that kept
  to its rules, and the run after the listing's filter was renamed — one argument
  changed, an extra project listed and archived, an archive moved before its approval;
- ``shadow/fixtures/``: frozen orders for the two builds of shadow/app.py.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import threading
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

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


#: the tools the agent was given, as its chat spans record them (what `contract import
#: --from-store` reads back): the projects API as the agent knew it, `owner` filter and all
TOOLS = [
    {"type": "function", "name": "list_projects",
     "description": "List the projects of one team. Filter with owner; stale=true keeps "
                    "projects untouched for 90 days.",
     "parameters": {"type": "object", "properties": {
         "owner": {"type": "string", "description": "the owning team's id"},
         "stale": {"type": "boolean"},
         "limit": {"type": "integer", "minimum": 1, "maximum": 500}}}},
    {"type": "function", "name": "request_approval",
     "description": "Ask a human to approve an action on a project; answers whether it "
                    "was approved.",
     "parameters": {"type": "object", "required": ["project_id", "action"], "properties": {
         "project_id": {"type": "string"}, "action": {"type": "string"}}}},
    {"type": "function", "name": "archive_project",
     "description": "Archive one project. Needs an approval.",
     "parameters": {"type": "object", "required": ["project_id"], "properties": {
         "project_id": {"type": "string"}}}},
]


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
        "gen_ai.tool.definitions": json.dumps(TOOLS),
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


def _service():
    spec = importlib.util.spec_from_file_location("projects_api_service",
                                                  OUT / "projects-api" / "service.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# what the agent's client sends: (method, path, JSON body or None, Idempotency-Key or None)
AGENT_CALLS = [
    ("GET", "/v1/projects?owner_id=team-a&stale=true&limit=2", None, None),
    ("GET", "/v1/projects?owner_id=team-a&stale=true&limit=2&cursor=c2", None, None),
    ("POST", "/v1/approvals", {"project_id": "p17", "action": "archive",
                               "reason": "no activity for 90 days"}, "approve-p17-archive"),
    # the answer was lost on the way back: the client retries under the same key
    ("POST", "/v1/approvals", {"project_id": "p17", "action": "archive",
                               "reason": "no activity for 90 days"}, "approve-p17-archive"),
    ("GET", "/v1/approvals/{approval_id}", None, None),
    ("POST", "/v1/projects/p17/archive", None, "archive-p17"),
]
HAR_T0 = dt.datetime(2025, 11, 24, 16, 0, tzinfo=dt.UTC)
HAR_HOST = "127.0.0.1:8080"


def recorded_run() -> dict[str, Any]:
    """``AGENT_CALLS`` sent to the projects service with its ``double-write`` bug on,
    as HAR: times and the port normalised, the answers as the service gave them."""
    service = _service()
    server = service.serve(0, {"double-write"}, service.DEFAULT_TOKEN)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        return {"log": {"version": "1.2",
                        "creator": {"name": "ops-agent http client", "version": "2.3.1"},
                        "entries": _entries(server.server_address[1],
                                            service.DEFAULT_TOKEN)}}
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _entries(port: int, token: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    for i, (method, path, body, key) in enumerate(AGENT_CALLS):
        path = path.format(**last)
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json",
                   "User-Agent": "ops-agent/2.3.1"}
        data = None if body is None else json.dumps(body)
        if data is not None:
            headers["Content-Type"] = "application/json"
        if key:
            headers["Idempotency-Key"] = key
        conn = HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        text = resp.read().decode()
        conn.close()
        last = json.loads(text)
        kept = [{"name": k, "value": v} for k, v in resp.getheaders()
                if k.lower() in ("content-type", "location")]
        request: dict[str, Any] = {
            "method": method, "url": f"http://{HAR_HOST}{path}", "httpVersion": "HTTP/1.1",
            "headers": [{"name": k, "value": v} for k, v in headers.items()],
            "queryString": [{"name": k, "value": v} for k, _, v in (
                q.partition("=") for q in path.partition("?")[2].split("&") if q)],
            "cookies": [], "headersSize": -1, "bodySize": len(data or "")}
        if data is not None:
            request["postData"] = {"mimeType": "application/json", "text": data}
        wait = 40 + 15 * i
        entries.append({
            "startedDateTime": (HAR_T0 + dt.timedelta(seconds=i)).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "time": wait + 2, "request": request,
            "response": {"status": resp.status, "statusText": resp.reason,
                         "httpVersion": "HTTP/1.1", "cookies": [], "headers": kept,
                         "content": {"size": len(text), "mimeType": "application/json",
                                     "text": text},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
            "cache": {}, "timings": {"send": 1, "wait": wait, "receive": 1}})
    return entries


def _event(trace: str, seq: int, kind: str, name: str, args: Any, result: Any = None,
           parent: str | None = "0000000000000001", ms: tuple[int, int] = (0, 0),
           attrs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"trace_id": trace, "event_id": f"{seq + 1:016x}", "parent_id": parent,
            "seq": seq, "kind": kind, "name": name,
            "start_ns": T0 + ms[0] * 1_000_000, "end_ns": T0 + ms[1] * 1_000_000,
            "status": "ok", "args": args, "result": result, "error": None,
            "attrs": attrs or {}}


def _run(trace: str, version: str, steps: list[tuple[str, Any, Any]]) -> str:
    """One run of the ops agent as our JSONL: the agent, then its tool calls, one after
    the other (each starts when the one before ended)."""
    task = "Archive the stale projects of team-a (no activity for 90 days)."
    events = [_event(trace, 0, "agent", "ops-agent", task, parent=None,
                     ms=(0, 400 * len(steps) + 100),
                     attrs={"service.version": version})]
    for i, (tool, args, result) in enumerate(steps, start=1):
        events.append(_event(trace, i, "tool_call", tool, args, result,
                             ms=(400 * i - 350, 400 * i), attrs={"latency_ms": 250 + 7 * i}))
    lines = [{"format": "workbench-events", "version": 1}, *events]
    return "".join(json.dumps(e) + "\n" for e in lines)


def _project(pid: str, name: str, owner: str) -> dict[str, Any]:
    return {"id": pid, "name": name, "owner_id": owner, "stale": True}


def _approval(pid: str, approval: str) -> tuple[str, Any, Any]:
    return ("request_approval", {"project_id": pid, "action": "archive"},
            {"approved": True, "approval_id": approval, "approver": "lead-team-a"})


def _archive(pid: str) -> tuple[str, Any, Any]:
    return ("archive_project", {"project_id": pid}, {"project_id": pid, "state": "archived"})


def golden_run() -> str:
    """The ops agent with listing v1: it archives team-a's two stale projects, each
    after its approval."""
    listed = [_project("p17", "billing-v1", "team-a"), _project("p21", "ledger-sync", "team-a")]
    return _run("9c1e0b7a52d64f0e8a3b61c7d2e94f10", "2.3.0", [
        ("list_projects", {"owner_id": "team-a", "stale": True},
         {"items": listed, "next_cursor": None, "request_id": "req_51c0a2"}),
        _approval("p17", "apr_6204"), _archive("p17"),
        _approval("p21", "apr_6205"), _archive("p21")])


def candidate_run() -> str:
    """The same agent after the listing renamed its filter: it sends ``owner``, gets
    team-b's p18 too, archives p21 before its approval came back, and archives p18."""
    listed = [_project("p17", "billing-v1", "team-a"), _project("p18", "search-ui", "team-b"),
              _project("p21", "ledger-sync", "team-a")]
    return _run("5d7f3c9e14b04a2b9e6f80a1c3d5b7e9", "2.4.0", [
        ("list_projects", {"owner": "team-a", "stale": True},
         {"items": listed, "next_cursor": None, "request_id": "req_93e7d4"}),
        _approval("p17", "apr_7731"), _archive("p17"),
        _archive("p21"), _approval("p21", "apr_7732"),
        _archive("p18")])


# the frozen inputs of the shadow example: orders whose lines sum to a total
SHADOW_FIXTURES = {
    "orders/standard.json": {"order_id": "o-1041", "kind": "sale", "currency": "EUR",
                             "lines": [{"sku": "MUG-01", "amount": 12.5},
                                       {"sku": "TEA-07", "amount": 4.25}]},
    "orders/refund.json": {"order_id": "o-1042", "kind": "refund", "currency": "EUR",
                           "lines": [{"sku": "PEN-02", "amount": 0.1},
                                     {"sku": "PEN-03", "amount": 0.2}]},
    "orders/bulk.json": {"order_id": "o-1043", "kind": "sale", "currency": "EUR",
                         "lines": [{"sku": "MUG-01", "amount": 2.5},
                                   {"sku": "TEA-07", "amount": 7.25},
                                   {"sku": "BAG-11", "amount": 0.25}]},
}


def examples() -> dict[str, str]:
    """Every file this script writes, by its path under traces/examples/."""
    files = {"archive-incident.otlp.json": json.dumps(archive_incident(), indent=1) + "\n",
             "projects-api/run.har": json.dumps(recorded_run(), indent=1) + "\n",
             "diff/golden.jsonl": golden_run(), "diff/candidate.jsonl": candidate_run()}
    for name, doc in SHADOW_FIXTURES.items():
        files[f"shadow/fixtures/{name}"] = json.dumps(doc, indent=1) + "\n"
    return files


def main() -> None:
    for name, text in examples().items():
        (OUT / name).parent.mkdir(parents=True, exist_ok=True)
        (OUT / name).write_text(text)


if __name__ == "__main__":
    main()
