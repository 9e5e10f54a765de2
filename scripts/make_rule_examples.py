"""Write the rules library under traces/examples/rules/ (deterministic).

    python scripts/make_rule_examples.py

Six seed failures, one folder each: ``rules.yaml`` (the rules that catch the failure),
``bad.jsonl`` (a trace that breaks them) and ``good.jsonl`` (the same task done right).
``traces/examples/rules/rules.yaml`` holds every rule; checked against all twelve
traces it reports findings in the bad traces only. docs/rules.md tells each story and
lists the findings expected.

The traces are our JSONL without ``seq`` and ``refs``: the ingest numbers the steps by
start time and infers data flow, so an id that a result returned and a later call used
shows up as a ref.
"""

from __future__ import annotations

import calendar
import hashlib
import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "traces" / "examples" / "rules"
HEADER = {"format": "workbench-events", "version": 1}
MS = 1_000_000


def at(day: int, hour: int, minute: int) -> int:
    """Nanoseconds since the epoch of 2025-11-DAY HOUR:MINUTE UTC."""
    return calendar.timegm((2025, 11, day, hour, minute, 0)) * 1_000_000_000


def _token(seed: str, n: int) -> str:
    alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:n])


def _text(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": content}]}


class Recorder:
    """Builds one trace the way an agent runtime records it: an agent span, model calls
    that ask for tools, tool calls (with their HTTP requests) that answer them.

    Times are milliseconds after the trace's start. The model sees each tool's result in
    its next call unless ``seen`` says it saw something else (a timeout).
    """

    def __init__(self, trace_id: str, start_ns: int, *, agent: str, model: str,
                 provider: str, system: str, task: str, service_version: str) -> None:
        self.trace_id, self.t0, self.agent = trace_id, start_ns, agent
        self.model, self.provider, self.system, self.task = model, provider, system, task
        self.version = service_version
        self.events: list[dict[str, Any]] = []
        self.calls: dict[str, tuple[str, Any]] = {}
        self.n_calls = 0
        self.pending: list[dict[str, Any]] = [_text("user", task)]
        self.root = self._event("agent", agent, 0, 0, args=[_text("user", task)], attrs={
            "gen_ai.agent.name": agent,
            "gen_ai.conversation.id": "conv_" + _token(trace_id, 10),
        })

    def _event(self, kind: str, name: str, start_ms: float, end_ms: float, *,
               parent: dict[str, Any] | None = None, status: str = "ok", args: Any = None,
               result: Any = None, error: Any = None,
               attrs: dict[str, Any] | None = None) -> dict[str, Any]:
        ev: dict[str, Any] = {
            "trace_id": self.trace_id, "event_id": None, "parent_id": parent,
            "kind": kind, "name": name,
            "start_ns": self.t0 + round(start_ms * MS), "end_ns": self.t0 + round(end_ms * MS),
            "status": status, "args": args, "result": result,
        }
        if error is not None:
            ev["error"] = error
        ev["attrs"] = {**(attrs or {}), "service.name": self.agent,
                       "service.version": self.version}
        self.events.append(ev)
        return ev

    def _call_id(self) -> str:
        self.n_calls += 1
        seed = f"{self.trace_id}/{self.n_calls}"
        if self.provider == "anthropic":
            return "toolu_01" + _token(seed, 22)
        return "call_" + _token(seed, 24)

    def llm(self, start_ms: float, end_ms: float, *, text: str | None = None,
            calls: tuple[tuple[str, dict[str, Any]], ...] = (),
            input_tokens: int | None = None) -> list[str]:
        """A model call that reads what happened since the last one and asks for tools."""
        ids = [self._call_id() for _ in calls]
        parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
        for cid, (tool, args) in zip(ids, calls, strict=True):
            self.calls[cid] = (tool, args)
            parts.append({"type": "tool_call", "id": cid, "name": tool, "arguments": args})
        args = {"messages": self.pending, "system": self.system,
                "params": {"temperature": 0, "max_tokens": 2048}}
        result = {"messages": [{"role": "assistant", "parts": parts}],
                  "finish_reasons": ["tool_calls" if calls else "stop"]}
        self._event("llm_call", self.model, start_ms, end_ms, parent=self.root, args=args,
                    result=result, attrs={
                        "gen_ai.operation.name": "chat", "gen_ai.provider.name": self.provider,
                        "gen_ai.request.model": self.model,
                        "gen_ai.response.model": _RESPONSE_MODEL[self.model],
                        "gen_ai.usage.input_tokens": input_tokens or 900 + len(
                            json.dumps(self.pending)) // 4 + 40 * len(self.events),
                        "gen_ai.usage.output_tokens": 12 + len(json.dumps(parts)) // 4,
                    })
        self.pending = []
        if not calls:
            self.final = text
        return ids

    def tool(self, call_id: str, start_ms: float, end_ms: float, result: Any = None, *,
             error: dict[str, Any] | None = None, seen: Any = None,
             attrs: dict[str, Any] | None = None) -> dict[str, Any]:
        """The tool call a model call asked for, with its arguments and result."""
        name, args = self.calls[call_id]
        ev = self._event("tool_call", name, start_ms, end_ms, parent=self.root,
                         status="error" if error else "ok", args=args, result=result,
                         error=error, attrs={"gen_ai.tool.call.id": call_id,
                                             "gen_ai.tool.type": "function", **(attrs or {})})
        response = seen if seen is not None else (
            {"error": error["message"]} if error else result)
        self.pending.append({"role": "tool", "parts": [
            {"type": "tool_call_response", "id": call_id, "response": response}]})
        return ev

    def http(self, parent: dict[str, Any], start_ms: float, end_ms: float, method: str,
             path: str, status: int, *, query: dict[str, str] | None = None,
             headers: dict[str, str] | None = None, body: Any = None,
             response_headers: dict[str, str] | None = None, host: str) -> None:
        """An HTTP request a tool made (recorded by the HTTP client's instrumentation)."""
        qs = "&".join(f"{k}={v}" for k, v in (query or {}).items())
        self._event("http", f"{method} {path}", start_ms, end_ms, parent=parent,
                    status="error" if status >= 500 else "ok",
                    args={"method": method, "path": path, "query": query or {},
                          "headers": headers or {}, "body": body},
                    result={"status": status, "headers": response_headers or {}, "body": None},
                    attrs={"url.full": f"https://{host}{path}" + (f"?{qs}" if qs else ""),
                           "server.address": host})

    def finish(self, end_ms: float) -> list[dict[str, Any]]:
        """The trace's events in recording order, with event ids and parents filled in."""
        self.root["end_ns"] = self.t0 + round(end_ms * MS)
        self.root["result"] = [_text("assistant", self.final)]
        events = sorted(self.events, key=lambda e: (e["start_ns"], -e["end_ns"]))
        for i, ev in enumerate(events):
            ev["event_id"] = f"e{i:02d}"
        for ev in events:
            if ev["parent_id"] is not None:
                ev["parent_id"] = ev["parent_id"]["event_id"]
        return events


_RESPONSE_MODEL = {
    "gpt-4.1": "gpt-4.1-2025-04-14",
    "gpt-4.1-mini": "gpt-4.1-mini-2025-04-14",
    "claude-sonnet-4-5": "claude-sonnet-4-5-20250929",
}

# --- 1. renamed selection field ------------------------------------------------------

OPS_SYSTEM = ("You are ops-agent. You manage projects with the tools given. Act only on "
              "projects of the team named in the task, and archive a project only after "
              "request_approval approved it.")
PROJECTS_HOST = "projects.internal.example"


def _project(pid: str, name: str, owner: str, last: str) -> dict[str, Any]:
    return {"id": pid, "name": name, "owner_id": owner, "stale": True, "last_activity": last}


def renamed_field(good: bool) -> list[dict[str, Any]]:
    """list_projects(owner=...) after the API renamed the filter to owner_id."""
    task = "Archive the stale projects of team-a (no activity for 90 days)."
    r = Recorder(f"rules-renamed-field-{'good' if good else 'bad'}",
                 at(3, 9, 12) if not good else at(3, 14, 40), agent="ops-agent",
                 model="gpt-4.1", provider="openai", system=OPS_SYSTEM, task=task,
                 service_version="2.4.0")
    if good:
        items = [_project("p17", "billing-v1", "team-a", "2025-07-28"),
                 _project("p22", "billing-reports", "team-a", "2025-06-30")]
        filt = {"owner_id": "team-a", "stale": True}
    else:  # the old name is ignored: every team's stale projects come back
        items = [_project("p17", "billing-v1", "team-a", "2025-07-28"),
                 _project("p18", "search-ui", "team-b", "2025-08-02"),
                 _project("p19", "etl-nightly", "team-c", "2025-07-11")]
        filt = {"owner": "team-a", "stale": True}
    [c] = r.llm(20, 880, calls=(("list_projects", filt),))
    listing = r.tool(c, 890, 1270, {"items": items, "next_cursor": None})
    r.http(listing, 910, 1250, "GET", "/projects", 200, host=PROJECTS_HOST,
           query={k: str(v).lower() for k, v in filt.items()} | {"limit": "100"},
           headers={"accept": "application/json"},
           response_headers={"content-type": "application/json",
                             "x-total-count": str(len(items)), "x-api-version": "2025-10-15"})
    ids = [p["id"] for p in items]
    approvals = r.llm(1280, 2350, text=f"Requesting approval to archive {len(ids)} stale "
                      "projects of team-a.", calls=tuple(
                          ("request_approval", {"project_id": pid, "action": "archive",
                                                "reason": "no activity for 90 days"})
                          for pid in ids))
    for i, (cid, pid) in enumerate(zip(approvals, ids, strict=True)):
        r.tool(cid, 2360 + 2 * i, (3900, 3820, 3950)[i], {
            "project_id": pid, "approved": True, "approval_id": f"apr_{7731 + i}",
            "approver": "policy:stale-90d"})
    archives = r.llm(3960, 4900, calls=tuple(
        ("archive_project", {"project_id": pid}) for pid in ids))
    for i, (cid, pid) in enumerate(zip(archives, ids, strict=True)):
        r.tool(cid, 4910 + 2 * i, (5600, 5750, 5690)[i],
               {"project_id": pid, "state": "archived"})
    names = ", ".join(f"{p['id']} {p['name']}" for p in items)
    r.llm(5760, 6800, text=f"Archived {len(ids)} stale projects of team-a: {names}.")
    return r.finish(6810)


# --- 2. added enum member treated as retryable ---------------------------------------

JOBS_SYSTEM = ("You are jobs-agent. You watch batch jobs with get_job and may restart a "
               "job with retry_job. Explain what you did.")


def _job(job: dict[str, str], status: str, **rest: Any) -> dict[str, Any]:
    return {"job_id": job["job_id"], "status": status, **rest, "name": job["name"]}


def added_enum(good: bool) -> list[dict[str, Any]]:
    """get_job answers a status the agent does not know; the agent retries the job."""
    if not good:
        task = ("The nightly billing export (job j-88412) has not published yet. Find out "
                "why and get it done.")
        r = Recorder("rules-added-enum-bad", at(6, 2, 40), agent="jobs-agent",
                     model="claude-sonnet-4-5", provider="anthropic", system=JOBS_SYSTEM,
                     task=task, service_version="1.9.2")
        job = {"job_id": "j-88412", "name": "billing-export-nightly"}
        [c] = r.llm(15, 1180, calls=(("get_job", {"job_id": "j-88412"}),))
        r.tool(c, 1190, 1420, _job(
            job, "paused_for_review", retry_allowed=False, attempt=1,
            reason="row count 41% below the 7-day median; held for data-quality review",
            updated_at="2025-11-06T02:31:07Z"))
        [c] = r.llm(1430, 3310, text="The job is neither running nor succeeded; "
                    "paused_for_review looks like a failure state, so I will retry it.",
                    calls=(("retry_job", {"job_id": "j-88412"}),))
        r.tool(c, 3320, 3610, _job(job, "queued", attempt=2))
        [c] = r.llm(3620, 4400, text="Queued as attempt 2; waiting for it to start.",
                    calls=(("get_job", {"job_id": "j-88412", "wait_s": 60}),))
        r.tool(c, 4410, 64630, _job(job, "running", retry_allowed=False, attempt=2,
                                    updated_at="2025-11-06T02:41:05Z"))
        [c] = r.llm(64640, 65500, calls=(("get_job", {"job_id": "j-88412", "wait_s": 180}),))
        r.tool(c, 65510, 245710, _job(job, "succeeded", retry_allowed=False, attempt=2,
                                      rows=1204331, updated_at="2025-11-06T02:44:01Z"))
        r.llm(245720, 247100, text="The billing export succeeded on attempt 2 and is "
              "published (1,204,331 rows).")
        return r.finish(247110)
    task = ("Last night's jobs j-88410 (usage rollup) and j-88411 (invoice render) failed. "
            "Retry what can be retried and tell me about the rest.")
    r = Recorder("rules-added-enum-good", at(6, 7, 5), agent="jobs-agent",
                 model="claude-sonnet-4-5", provider="anthropic", system=JOBS_SYSTEM,
                 task=task, service_version="1.9.2")
    a = {"job_id": "j-88410", "name": "usage-rollup-nightly"}
    b = {"job_id": "j-88411", "name": "invoice-render-nightly"}
    ca, cb = r.llm(15, 1320, calls=(("get_job", {"job_id": "j-88410"}),
                                    ("get_job", {"job_id": "j-88411"})))
    r.tool(ca, 1330, 1560, _job(a, "failed", retry_allowed=True, attempt=1,
                                reason="worker lost: node preempted",
                                updated_at="2025-11-06T03:12:44Z"))
    r.tool(cb, 1332, 1590, _job(
        b, "failed", retry_allowed=False, attempt=1,
        reason="input schema changed (column tax_region); needs a migration",
        updated_at="2025-11-06T04:02:19Z"))
    [c] = r.llm(1600, 3050, text="j-88410 may be retried; j-88411 may not, it needs a "
                "schema migration first.", calls=(("retry_job", {"job_id": "j-88410"}),))
    r.tool(c, 3060, 3330, _job(a, "queued", attempt=2))
    [c] = r.llm(3340, 4100, text="Queued as attempt 2; waiting for it to start.",
                calls=(("get_job", {"job_id": "j-88410", "wait_s": 60}),))
    r.tool(c, 4110, 64320, _job(a, "running", retry_allowed=False, attempt=2,
                                updated_at="2025-11-06T07:06:02Z"))
    [c] = r.llm(64330, 65200, calls=(("get_job", {"job_id": "j-88410", "wait_s": 180}),))
    r.tool(c, 65210, 185430, _job(a, "succeeded", retry_allowed=False, attempt=2,
                                  updated_at="2025-11-06T07:07:51Z"))
    r.llm(185440, 187000, text="j-88410 (usage rollup) succeeded on attempt 2. j-88411 "
          "(invoice render) was not retried: the API does not allow it because its input "
          "schema changed (column tax_region) and it needs a migration.")
    return r.finish(187010)


# --- 3. a default that widens scope --------------------------------------------------

REPORT_SYSTEM = ("You are reporting-agent. Read the projects API with api_get and post "
                 "summaries with post_message.")
_NAMES = ["payments-ledger", "search-ui", "billing-v2", "etl-nightly", "auth-gateway",
          "mobile-app", "data-lake", "ml-sandbox", "docs-site", "status-page",
          "feature-flags", "inventory-sync", "email-relay", "fraud-scoring", "partner-api",
          "warehouse-ui", "tax-engine", "support-bot", "metrics-pipeline", "release-tools"]
_TEAMS = ["team-pay", "team-b", "team-a", "team-c", "team-id", "team-mob"]


def _recent(n: int) -> list[dict[str, Any]]:
    return [{"id": f"p{2231 - 7 * i}", "name": _NAMES[i], "owner_id": _TEAMS[i % 6],
             "updated_at": f"2025-11-10T07:{52 - 2 * i:02d}:00Z"} for i in range(n)]


def widening_default(good: bool) -> list[dict[str, Any]]:
    """GET /projects without limit: the API's default returns every project."""
    task = "Post the 20 most recently updated projects to #eng-weekly, one line each."
    r = Recorder(f"rules-widening-default-{'good' if good else 'bad'}",
                 at(10, 8, 0) if not good else at(10, 8, 30), agent="reporting-agent",
                 model="gpt-4.1-mini", provider="openai", system=REPORT_SYSTEM, task=task,
                 service_version="0.8.5")
    query: dict[str, Any] = {"sort": "-updated_at"} | ({"limit": 20} if good else {})
    [c] = r.llm(20, 640, calls=(("api_get", {"path": "/projects", "query": query}),))
    end = 980 if good else 9900
    items = _recent(20)
    if good:
        call = r.tool(c, 650, end, {"status": 200, "total": 1832, "items": items})
        size = "9211"
    else:
        call = r.tool(c, 650, end, {"status": 200, "total": 1832, "items": items[:5]},
                      attrs={"tracer.truncated": "result.items: 5 of 1832 kept (5.9 MB)"})
        size = "6187342"
    r.http(call, 670, end - 20, "GET", "/projects", 200, host=PROJECTS_HOST,
           query={k: str(v) for k, v in query.items()},
           headers={"accept": "application/json"},
           response_headers={"content-type": "application/json", "content-length": size,
                             "x-total-count": "1832"})
    if good:
        lines = [f"• {p['id']} {p['name']} ({p['owner_id']}), updated {p['updated_at']}"
                 for p in items]
        text = "Recently updated projects (20):\n" + "\n".join(lines)
        [c] = r.llm(990, 4800, calls=(("post_message",
                                        {"channel": "#eng-weekly", "text": text}),))
        r.tool(c, 4810, 5120, {"ok": True, "ts": "1762763704.118300"})
        r.llm(5130, 5700, text="Posted the 20 most recently updated projects to "
              "#eng-weekly.")
        return r.finish(5710)
    lines = [f"• {p['id']} {p['name']} ({p['owner_id']}), updated {p['updated_at']}"
             for p in items[:3]]
    text = "Recently updated projects (1,832):\n" + "\n".join(lines) + "\n…"
    [c] = r.llm(9910, 51200, calls=(("post_message",
                                       {"channel": "#eng-weekly", "text": text}),),
                input_tokens=212944)
    r.tool(c, 51210, 53900, {"ok": True, "ts": "1762761653.004200"},
           attrs={"tracer.truncated": "args.text: 160 of 98114 characters kept"})
    r.llm(53910, 54600, text="Posted 1,832 recently updated projects to #eng-weekly.")
    return r.finish(54610)


# --- 4. retry without an idempotency key ---------------------------------------------

CHECKOUT_SYSTEM = ("You are checkout-agent. Charge carts with charge and confirm orders "
                   "with confirm_order. A charge moves real money.")
PAY_HOST = "payments.internal.example"
TIMEOUT = {"runtime.timeout_ms": 10000,
           "runtime.outcome": "timed out after 10000 ms; the model was told, the request "
                              "was left running"}
TIMED_OUT = {"error": "timeout", "message": "charge did not answer within 10 s; it may or "
             "may not have gone through"}


def retry_without_key(good: bool) -> list[dict[str, Any]]:
    """A timed-out charge is retried; without an idempotency key both attempts capture."""
    task = "Check out cart c-20931 for customer cus_7Q2LmX and confirm the order."
    r = Recorder(f"rules-retry-without-key-{'good' if good else 'bad'}",
                 at(14, 19, 3) if not good else at(14, 19, 48), agent="checkout-agent",
                 model="claude-sonnet-4-5", provider="anthropic", system=CHECKOUT_SYSTEM,
                 task=task, service_version="3.1.0")
    [c] = r.llm(20, 900, calls=(("get_cart", {"cart_id": "c-20931"}),))
    cart = {"cart_id": "c-20931", "customer_id": "cus_7Q2LmX", "total_cents": 12900,
            "currency": "EUR", "lines": 3, "payment_method": "pm_1QxR8sLk"}
    r.tool(c, 910, 1100, cart)
    charge: dict[str, Any] = {"cart_id": "c-20931", "customer_id": "cus_7Q2LmX",
                              "amount_cents": 12900, "currency": "EUR",
                              "payment_method": "pm_1QxR8sLk"}
    headers = {"content-type": "application/json"}
    if good:
        charge["idempotency_key"] = "checkout-c-20931"
        headers["idempotency-key"] = "checkout-c-20931"
    body = {k: v for k, v in charge.items() if k != "idempotency_key"}
    [c] = r.llm(1110, 1900, calls=(("charge", charge),))
    first = r.tool(c, 1910, 13200, {"status": "captured", "charge_id": "ch_3QhT9aLk",
                                    "cart_id": "c-20931", "amount_cents": 12900},
                   seen=TIMED_OUT, attrs=TIMEOUT)
    r.http(first, 1930, 13180, "POST", "/v1/charges", 200, headers=headers, body=body,
           host=PAY_HOST, response_headers={"content-type": "application/json"})
    retry_note = ("The charge timed out. Retrying with the same idempotency key, so the "
                  "gateway cannot capture twice." if good else
                  "The charge timed out; retrying it.")
    [c] = r.llm(11920, 12600, text=retry_note, calls=(("charge", charge),))
    if not good:
        second = r.tool(c, 12610, 13700, {"status": "captured", "charge_id": "ch_3QhTB7Wm",
                                          "cart_id": "c-20931", "amount_cents": 12900})
        r.http(second, 12630, 13680, "POST", "/v1/charges", 200, headers=headers, body=body,
               host=PAY_HOST, response_headers={"content-type": "application/json"})
        [c] = r.llm(13710, 14400, calls=(("confirm_order", {"cart_id": "c-20931",
                                                             "charge_id": "ch_3QhTB7Wm"}),))
        r.tool(c, 14410, 14700, {"order_id": "ord_55120", "status": "confirmed"})
        r.llm(14710, 15300, text="Order ord_55120 is confirmed; the customer was charged "
              "129.00 EUR (ch_3QhTB7Wm).")
        return r.finish(15310)
    in_use = {"code": "idempotency_key_in_use", "message": "a request with this "
              "idempotency key is still in progress", "retryable": True,
              "safe_to_continue": True, "user_action_required": False,
              "details": {"http_status": 409}}
    second = r.tool(c, 12610, 12900, {"error": {"code": "idempotency_key_in_use"}},
                    error=in_use)
    r.http(second, 12630, 12880, "POST", "/v1/charges", 409, headers=headers, body=body,
           host=PAY_HOST, response_headers={"content-type": "application/json"})
    [c] = r.llm(12910, 13500, text="The first attempt is still in progress. Checking the "
                "cart's payments before anything else.",
                calls=(("get_payments", {"cart_id": "c-20931"}),))
    r.tool(c, 13510, 13700, {"cart_id": "c-20931", "charges": [
        {"charge_id": "ch_3QhT9aLk", "status": "captured", "amount_cents": 12900}]})
    [c] = r.llm(13710, 14400, calls=(("confirm_order", {"cart_id": "c-20931",
                                                         "charge_id": "ch_3QhT9aLk"}),))
    r.tool(c, 14410, 14700, {"order_id": "ord_55120", "status": "confirmed"})
    r.llm(14710, 15300, text="Order ord_55120 is confirmed; the customer was charged "
          "129.00 EUR once (ch_3QhT9aLk).")
    return r.finish(15310)


# --- 5. a cursor that repeats an item ------------------------------------------------

REFUNDS_SYSTEM = ("You are refunds-agent. Page through a work queue with list_items and "
                  "handle each request with process_item, which pays the refund.")


def _refund(n: int) -> dict[str, Any]:
    return {"id": f"i-{n}", "order_id": f"ord_{54000 + 37 * n}",
            "amount_cents": 1500 + 250 * (n % 7), "created_at": f"2025-11-18T{n - 89:02d}:05:00Z"}


def repeating_cursor(good: bool) -> list[dict[str, Any]]:
    """An offset cursor: a request queued between pages shifts page 2 by one item."""
    task = "Work through the refunds queue: process every pending refund request."
    r = Recorder(f"rules-repeating-cursor-{'good' if good else 'bad'}",
                 at(18, 23, 30) if not good else at(19, 6, 0), agent="refunds-agent",
                 model="gpt-4.1", provider="openai", system=REFUNDS_SYSTEM, task=task,
                 service_version="1.2.7")
    page1 = [_refund(n) for n in (109, 108, 107, 106, 105)]
    page2 = [_refund(n) for n in (105, 104, 103, 102, 101)]
    cursor = "eyJvZmZzZXQiOjV9"  # {"offset":5}
    [c] = r.llm(20, 700, calls=(("list_items", {"queue": "refunds", "page_size": 5}),))
    r.tool(c, 710, 930, {"items": page1, "next_cursor": cursor})
    t = r.llm(940, 2100, calls=tuple(("process_item", {"item_id": i["id"]}) for i in page1))
    for k, (cid, item) in enumerate(zip(t, page1, strict=True)):
        r.tool(cid, 2110 + 3 * k, 2700 + 90 * k, {"item_id": item["id"], "state": "refunded",
                                                   "refund_id": "re_" + _token(item["id"], 12)})
    [c] = r.llm(3200, 3900, calls=(("list_items", {"queue": "refunds", "page_size": 5,
                                                   "cursor": cursor}),))
    r.tool(c, 3910, 4120, {"items": page2, "next_cursor": None})
    todo = page2 if not good else page2[1:]
    note = (None if not good else "i-105 was on page 1 and is already refunded; "
            "skipping it.")
    t = r.llm(4130, 5300, text=note, calls=tuple(
        ("process_item", {"item_id": i["id"]}) for i in todo))
    for k, (cid, item) in enumerate(zip(t, todo, strict=True)):
        r.tool(cid, 5310 + 3 * k, 5900 + 90 * k, {
            "item_id": item["id"], "state": "refunded",
            "refund_id": "re_" + _token(item["id"] + ("/2" if k == 0 and not good else ""),
                                        12)})
    done = 10 if not good else 9
    r.llm(6400, 7100, text=f"Processed {done} refund requests; the queue is empty.")
    return r.finish(7110)


# --- 6. a destructive call without approval ------------------------------------------


def unapproved_destructive(good: bool) -> list[dict[str, Any]]:
    """One approval, for p31, taken as approval for every project in the batch."""
    task = "Archive team-a's stale projects."
    r = Recorder(f"rules-unapproved-destructive-{'good' if good else 'bad'}",
                 at(21, 14, 5) if not good else at(21, 15, 20), agent="ops-agent",
                 model="gpt-4.1", provider="openai", system=OPS_SYSTEM, task=task,
                 service_version="2.4.1")
    items = [_project("p31", "legacy-exports", "team-a", "2025-06-02"),
             _project("p34", "ml-sandbox", "team-a", "2025-07-19")]
    [c] = r.llm(20, 820, calls=(("list_projects", {"owner_id": "team-a", "stale": True}),))
    r.tool(c, 830, 1150, {"items": items, "next_cursor": None})
    if not good:
        [c] = r.llm(1160, 2200, calls=(("request_approval", {
            "project_id": "p31", "action": "archive",
            "reason": "stale projects of team-a: p31 legacy-exports, p34 ml-sandbox"}),))
        r.tool(c, 2210, 61400, {"project_id": "p31", "approved": True,
                                "approval_id": "apr_8120", "approver": "lead-team-a"})
        a, b = r.llm(61410, 62300, text="Approved; archiving both stale projects.",
                     calls=(("archive_project", {"project_id": "p31"}),
                            ("archive_project", {"project_id": "p34"})))
        r.tool(a, 62310, 62900, {"project_id": "p31", "state": "archived"})
        r.tool(b, 62312, 63050, {"project_id": "p34", "state": "archived"})
        r.llm(63060, 63800, text="Archived p31 legacy-exports and p34 ml-sandbox.")
        return r.finish(63810)
    a, b = r.llm(1160, 2300, calls=tuple(
        ("request_approval", {"project_id": p["id"], "action": "archive",
                              "reason": f"stale since {p['last_activity']}"}) for p in items))
    r.tool(a, 2310, 61400, {"project_id": "p31", "approved": True, "approval_id": "apr_8120",
                            "approver": "lead-team-a"})
    r.tool(b, 2312, 74100, {"project_id": "p34", "approved": False, "approval_id": "apr_8121",
                            "approver": "lead-team-a", "note": "ml-sandbox holds the Q4 "
                            "experiment data; keep it until 2026-01-15"})
    [c] = r.llm(74110, 75000, text="p31 is approved; p34 was refused, so it stays.",
                calls=(("archive_project", {"project_id": "p31"}),))
    r.tool(c, 75010, 75600, {"project_id": "p31", "state": "archived"})
    r.llm(75610, 76400, text="Archived p31 legacy-exports. p34 ml-sandbox was not "
          "archived: lead-team-a refused (it holds the Q4 experiment data until 2026-01-15).")
    return r.finish(76410)


# --- rules ---------------------------------------------------------------------------

RULES: dict[str, tuple[str, str]] = {
    "renamed-field": ("renamed selection field: owner -> owner_id", """\
  archive-own-team-only:
    description: >-
      archive_project archives only a project that an earlier list_projects call
      returned as owned by team-a
    severity: error
    flow:
      event: {tool: archive_project}
      value: args.project_id
      from: {tool: list_projects}
      from_value: "result.items[*].id"
      source_where: {owner_id: {in: [team-a]}}
  list-projects-by-owner-id:
    description: >-
      list_projects filters by args.owner_id; the API ignores the old name owner and
      then returns every team's projects
    severity: error
    every:
      event: {tool: list_projects}
      where: {args.owner_id: {exists: true}}
"""),
    "added-enum": ("added enum member treated as retryable", """\
  known-job-status:
    description: >-
      get_job answers one of the statuses the agent was built for; any other value
      means the jobs API grew a state the agent does not understand
    severity: warn
    every:
      event: {tool: get_job}
      where: {result.status: {in: [queued, running, succeeded, failed, cancelled]}}
  no-retry-when-refused:
    description: >-
      once get_job said a job may not be retried (result.retry_allowed false), the
      agent does not call retry_job for that job
    severity: error
    never:
      event: {tool: retry_job}
      after: {tool: get_job, where: {result.retry_allowed: false}}
      same: [args.job_id]
"""),
    "widening-default": ("a default that widens scope: limit omitted", """\
  explicit-project-limit:
    description: >-
      every GET /projects request states query.limit; without it the API returns
      every project in one response
    severity: warn
    every:
      event: {kind: http, name: GET /projects}
      where: {args.query.limit: {exists: true}}
"""),
    "retry-without-key": ("retry without an idempotency key", """\
  one-capture-per-cart:
    description: >-
      a cart is captured at most once: at most one charge call per args.cart_id
      returns result.status captured
    severity: error
    count:
      event: {tool: charge, where: {result.status: captured}}
      per: [args.cart_id]
      max: 1
  charge-has-idempotency-key:
    description: >-
      every charge call sends args.idempotency_key, so that a retry after a timeout
      cannot capture twice
    severity: error
    every:
      event: {tool: charge}
      where: {args.idempotency_key: {exists: true}}
"""),
    "repeating-cursor": ("a cursor that repeats an item", """\
  process-item-once:
    description: >-
      process_item pays a refund, so it runs at most once per args.item_id, however
      often the listing returns the item
    severity: error
    count:
      event: {tool: process_item}
      per: [args.item_id]
      max: 1
"""),
    "unapproved-destructive": ("a destructive call without approval", """\
  approval-before-archive:
    description: >-
      archive_project runs only after a request_approval for the same project_id
      finished with result.approved true
    severity: error
    before:
      first: {tool: request_approval, where: {result.approved: true}}
      then: {tool: archive_project}
      same: [args.project_id]
"""),
}

TRACES = {
    "renamed-field": renamed_field,
    "added-enum": added_enum,
    "widening-default": widening_default,
    "retry-without-key": retry_without_key,
    "repeating-cursor": repeating_cursor,
    "unapproved-destructive": unapproved_destructive,
}


def _rules_file(title: str, blocks: list[tuple[str, str]]) -> str:
    out = [f"# {title}", "# See docs/rules.md, \"A rules library\".", "version: 1", "rules:"]
    for heading, block in blocks:
        if heading:
            out.append(f"  # -- {heading}")
        out.append(block.rstrip("\n"))
    return "\n".join(out) + "\n"


def _jsonl(events: list[dict[str, Any]]) -> str:
    lines = [json.dumps(HEADER)] + [json.dumps(e, ensure_ascii=False) for e in events]
    return "\n".join(lines) + "\n"


def main() -> None:
    for folder, make in TRACES.items():
        d = OUT / folder
        d.mkdir(parents=True, exist_ok=True)
        title, block = RULES[folder]
        (d / "rules.yaml").write_text(_rules_file(f"Rules for the seed failure: {title}.",
                                                  [("", block)]))
        (d / "bad.jsonl").write_text(_jsonl(make(False)))
        (d / "good.jsonl").write_text(_jsonl(make(True)))
    (OUT / "rules.yaml").write_text(_rules_file(
        "The rules library: every rule of the six seed failures.",
        [(f"{folder}: {title}", block) for folder, (title, block) in RULES.items()]))


if __name__ == "__main__":
    main()
