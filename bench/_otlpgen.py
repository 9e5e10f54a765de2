"""Deterministic generator of realistic OTLP/JSON GenAI agent traces (bench input).

Writes what the OpenTelemetry collector's file exporter writes: one OTLP/JSON
``{"resourceSpans": [...]}`` document per line, each line one export batch of spans
grouped by resource and instrumentation scope. Spans follow the OTel GenAI semantic
conventions: an ``invoke_agent`` root per trace, ``chat`` spans (model, provider, usage,
input/output messages as JSON strings with tool_call parts), ``execute_tool`` spans
(tool name, call id, arguments and result as JSON strings, where results hand out ids
that later calls use as arguments), HTTP client spans, and about 2 % errors.

Spans are exported when they end, as a real SDK batch processor does, so the spans of
one trace are spread over several lines and interleaved with other traces; the root
span, which ends last, comes last. Every trace is complete (no orphans).

The file is streamed to disk: memory is bounded by the traces in flight and one batch,
whatever the size of the file.

    python bench/_otlpgen.py OUT --events 200000 [--seed 0]
    python bench/_otlpgen.py OUT --gb 2
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

try:
    import orjson

    def _dumps(obj: Any) -> bytes:
        return orjson.dumps(obj)
except ImportError:  # pragma: no cover - orjson is a dependency of the package

    def _dumps(obj: Any) -> bytes:
        return json.dumps(obj, separators=(",", ":")).encode()


__all__ = ["generate"]

BASE_NS = 1_748_736_000 * 1_000_000_000  # 2025-06-01T00:00:00Z
MS = 1_000_000
BATCH_SPANS = 512  # BatchSpanProcessor's default max_export_batch_size
IN_FLIGHT = 12  # traces running at the same time

KIND_INTERNAL, KIND_CLIENT = 1, 3
STATUS_ERROR = 2
ERROR_RATE = 0.02

WORDS = (  # noqa: SIM905 - prose, easier to edit as a sentence
    "the a project job cart order file test patch owner team archive approval request "
    "retry status queued running failed succeeded list get read apply run search user "
    "customer price item total receipt email please check whether can you I will now "
    "next first then done found error timeout because policy allowed not needed update "
    "config deploy service build pipeline branch main release version latest stale old "
    "unused cleanup quota billing invoice refund capture payment method card token"
).split()

CODE_LINES = (
    "def {f}(self, {a}):", "    return self.{a}.{f}()", "    if {a} is None:",
    "        raise ValueError('{a} missing')", "import {a}", "from .{a} import {f}",
    "    for item in {a}:", "        yield item.{f}", "class {F}:", "    # TODO: {f} {a}",
    "    {a} = {f}({a}, timeout=30)", "    assert {a}.{f} == expected",
)
IDENTS = ("items", "job", "cart", "client", "session", "config", "store", "result",
          "project", "queue", "worker", "payload", "cursor", "owner", "state")

RESOURCES = (
    {"service.name": "ops-assistant", "service.version": "1.14.2",
     "deployment.environment.name": "production", "telemetry.sdk.name": "opentelemetry",
     "telemetry.sdk.language": "python", "telemetry.sdk.version": "1.36.0",
     "host.name": "ops-assistant-7d9f8c6b5-x2k4p", "process.pid": 41},
    {"service.name": "dev-agent", "service.version": "0.9.0",
     "deployment.environment.name": "production", "telemetry.sdk.name": "opentelemetry",
     "telemetry.sdk.language": "python", "telemetry.sdk.version": "1.36.0",
     "host.name": "dev-agent-5b6c9d7f4-q8m2z", "process.pid": 7},
    {"service.name": "shop-assistant", "service.version": "2.3.0",
     "deployment.environment.name": "production", "telemetry.sdk.name": "opentelemetry",
     "telemetry.sdk.language": "nodejs", "telemetry.sdk.version": "2.0.1",
     "host.name": "shop-assistant-6f7d8c9b-r5t7w", "process.pid": 1},
)
SCOPE_AGENT = {"name": "openinference.instrumentation.agents", "version": "0.1.12"}
SCOPE_LLM = {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.1b0"}
SCOPE_HTTP = {"name": "opentelemetry.instrumentation.httpx", "version": "0.57b0"}
SCOPES = (SCOPE_AGENT, SCOPE_LLM, SCOPE_HTTP)

MODELS = (
    ("openai", "gpt-4o-2024-08-06", "https://api.openai.com/v1/chat/completions"),
    ("openai", "gpt-4.1-mini", "https://api.openai.com/v1/chat/completions"),
    ("anthropic", "claude-sonnet-4-20250514", "https://api.anthropic.com/v1/messages"),
)
API = "https://api.internal.example.com"


def _pools(seed: int = 12345) -> tuple[list[str], list[str]]:
    """Fixed pools of prose words and code lines; texts are random slices of them."""
    r = random.Random(seed)
    words = r.choices(WORDS, k=1 << 15)
    code = []
    for _ in range(1 << 13):
        f, a = r.choice(IDENTS), r.choice(IDENTS)
        code.append(r.choice(CODE_LINES).format(f=f, a=a, F=f.title()))
    return words, code


_WORD_POOL, _CODE_POOL = _pools()


# --- OTLP AnyValue helpers ------------------------------------------------------------

def _any(v: Any) -> dict[str, Any]:
    t = type(v)
    if t is str:
        return {"stringValue": v}
    if t is bool:
        return {"boolValue": v}
    if t is int:
        return {"intValue": str(v)}  # 64-bit ints are strings in OTLP/JSON
    if t is float:
        return {"doubleValue": v}
    if t is list or t is tuple:
        return {"arrayValue": {"values": [_any(x) for x in v]}}
    return {"stringValue": str(v)}


def _attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"stringValue": v} if type(v) is str else _any(v)}
            for k, v in d.items()]


def _js(obj: Any) -> str:
    return _dumps(obj).decode()


# --- one trace ------------------------------------------------------------------------

class _Trace:
    """Builds the spans of one agent run: a tree laid out on a timeline."""

    def __init__(self, rng: random.Random, n_spans: int, start_ns: int, res_idx: int,
                 agent: _Agent) -> None:
        self.rng = rng
        self.trace_id = f"{rng.getrandbits(128):032x}"
        self.res_idx = res_idx
        self.agent = agent
        self.spans: list[tuple[int, int, dict[str, Any]]] = []  # (end_ns, scope, span)
        self.state: dict[str, list[Any]] = {}
        self.errors = 0
        self.provider, self.model, self.llm_url = rng.choice(MODELS)
        self._build(n_spans, start_ns)

    # ids, text ------------------------------------------------------------------------
    def sid(self) -> str:
        return f"{self.rng.getrandbits(64):016x}"

    def words(self, lo: int, hi: int) -> str:
        k = self.rng.randint(lo, hi)
        i = self.rng.randrange(len(_WORD_POOL) - k)
        return " ".join(_WORD_POOL[i:i + k])

    def span(self, scope: int, name: str, kind: int, parent: str | None, start: int,
             end: int, attrs: dict[str, Any], error: str | None = None,
             err_msg: str = "") -> str:
        span_id = self.sid()
        s: dict[str, Any] = {"traceId": self.trace_id, "spanId": span_id}
        if parent:
            s["parentSpanId"] = parent
        s["flags"] = 257
        s["name"] = name
        s["kind"] = kind
        s["startTimeUnixNano"] = str(start)
        s["endTimeUnixNano"] = str(end)
        if error:
            attrs["error.type"] = error
        s["attributes"] = _attrs(attrs)
        if error:
            self.errors += 1
            s["events"] = [{"timeUnixNano": str(end - 1000), "name": "exception",
                            "attributes": _attrs({"exception.type": error,
                                                  "exception.message": err_msg or error})}]
            s["status"] = {"message": err_msg or error, "code": STATUS_ERROR}
        else:
            s["status"] = {}
        self.spans.append((end, scope, s))
        return span_id

    # layout -----------------------------------------------------------------------------
    def _build(self, n: int, t0: int) -> None:
        rng = self.rng
        root_id = self.sid()
        conv_id = f"conv_{rng.getrandbits(48):012x}"
        task = self.agent.task(self)
        history: list[dict[str, Any]] = [
            {"role": "system", "parts": [{"type": "text", "content": self.agent.system}]},
            {"role": "user", "parts": [{"type": "text", "content": task}]},
        ]
        budget = n - 1  # the root
        t = t0 + rng.randint(1, 20) * MS
        in_tok = 0
        out_tok = 0
        while budget > 0:
            if budget >= 4 and rng.random() < ERROR_RATE:  # a failed call, then the retry
                fh = budget >= 5 and rng.random() < 0.5
                t, _, _ = self._chat(root_id, conv_id, t, history, [], fh, fail=True)
                budget -= 1 + fh
            final = budget <= 2
            # chat span (+ its HTTP client span)
            with_http = budget >= 2 and rng.random() < 0.35
            budget -= 1 + with_http
            if final and budget > 0:  # spend what is left on the last answer
                with_http, budget = True, budget - 1
            calls: list[tuple[str, str, dict[str, Any], Any]] = []
            if budget > 0 and not final:
                k = 1 if rng.random() < 0.75 else rng.randint(2, 3)
                for _ in range(k):
                    if budget <= 0:
                        break
                    call = self.agent.next_call(self)
                    calls.append(call)
                    budget -= 1
            t, used_in, used_out = self._chat(root_id, conv_id, t, history, calls, with_http)
            in_tok += used_in
            out_tok += used_out
            if not calls:
                continue
            # tool calls, sometimes in parallel, some with an HTTP span of their own
            parallel = len(calls) > 1 and rng.random() < 0.5
            t_start = t
            t_end = t
            responses = []
            for call_id, tool, args, result in calls:
                with_http = budget > 0 and self.agent.http_for(tool) is not None \
                    and rng.random() < 0.6
                budget -= with_http
                s = t_start if parallel else t_end
                e = self._tool(root_id, conv_id, s, call_id, tool, args, result, with_http)
                t_end = max(t_end, e)
                responses.append({"type": "tool_call_response", "id": call_id,
                                  "response": result})
            history.append({"role": "tool", "parts": responses})
            t = t_end + rng.randint(1, 5) * MS
        end = t + rng.randint(1, 10) * MS
        attrs = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": self.agent.name,
            "gen_ai.agent.id": self.agent.agent_id,
            "gen_ai.agent.description": self.agent.description,
            "gen_ai.conversation.id": conv_id,
            "gen_ai.provider.name": self.provider,
            "gen_ai.request.model": self.model,
            "gen_ai.usage.input_tokens": in_tok,
            "gen_ai.usage.output_tokens": out_tok,
        }
        root = {"traceId": self.trace_id, "spanId": root_id, "flags": 257,
             "name": f"invoke_agent {self.agent.name}", "kind": KIND_INTERNAL,
             "startTimeUnixNano": str(t0), "endTimeUnixNano": str(end),
             "attributes": _attrs(attrs), "status": {}}
        self.spans.append((end, 0, root))  # built last: it ends last

    def _chat(self, root: str, conv: str, t: int, history: list[dict[str, Any]],
              calls: list[tuple[str, str, dict[str, Any], Any]],
              with_http: bool, fail: bool = False) -> tuple[int, int, int]:
        rng = self.rng
        dur = rng.randint(400, 6000) * MS
        if fail:
            dur //= 4
        parts: list[dict[str, Any]] = []
        if not calls or rng.random() < 0.4:
            parts.append({"type": "text", "content": self.words(8, 60 if calls else 120)})
        for call_id, tool, args, _ in calls:
            parts.append({"type": "tool_call", "id": call_id, "name": tool, "arguments": args})
        finish = "tool_call" if calls else "stop"
        output = [{"role": "assistant", "parts": parts, "finish_reason": finish}]
        # what the instrumentation records: system + task + the last few messages
        window = history[:2] + history[2:][-3:]
        input_json = _js(window)
        output_json = _js(output)
        in_tok = len(input_json) // 4 + rng.randint(50, 400)
        out_tok = len(output_json) // 4 + rng.randint(1, 40)
        error = None
        msg = ""
        if not fail:
            history.append({"role": "assistant", "parts": parts})
        else:
            error, msg = rng.choice((("RateLimitError", "Rate limit reached for requests"),
                                     ("APITimeoutError", "Request timed out."),
                                     ("InternalServerError", "upstream overloaded")))
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self.provider,
            "gen_ai.request.model": self.model,
            "gen_ai.request.temperature": rng.choice((0.0, 0.2, 0.7)),
            "gen_ai.request.max_tokens": 4096,
            "gen_ai.request.top_p": 1.0,
            "gen_ai.conversation.id": conv,
            "server.address": self.llm_url.split("/")[2],
            "server.port": 443,
            "llm.is_streaming": rng.random() < 0.3,
            "gen_ai.input.messages": input_json,
        }
        if not error:
            attrs.update({
                "gen_ai.response.model": self.model,
                "gen_ai.response.id": f"chatcmpl-{rng.getrandbits(96):024x}",
                "gen_ai.response.finish_reasons": [finish],
                "gen_ai.usage.input_tokens": in_tok,
                "gen_ai.usage.output_tokens": out_tok,
                "gen_ai.output.messages": output_json,
            })
        sid = self.span(1, f"chat {self.model}", KIND_CLIENT, root, t, t + dur, attrs,
                        error, msg)
        if with_http:
            self._http(sid, t + rng.randint(1, 5) * MS, t + dur - MS, "POST", self.llm_url,
                       429 if error == "RateLimitError" else (500 if error else 200))
        if error:
            in_tok = out_tok = 0
        return t + dur + rng.randint(1, 20) * MS, in_tok, out_tok

    def _tool(self, root: str, conv: str, t: int, call_id: str, tool: str,
              args: dict[str, Any], result: Any, with_http: bool) -> int:
        rng = self.rng
        dur = rng.randint(5, 900) * MS
        error = None
        msg = ""
        if isinstance(result, dict) and "error" in result:
            error, msg = "ToolExecutionError", result["error"]["message"]
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.description": self.agent.tool_doc.get(tool, tool),
            "gen_ai.conversation.id": conv,
            "gen_ai.tool.call.arguments": _js(args),
            "gen_ai.tool.call.result": _js(result),
        }
        sid = self.span(0, f"execute_tool {tool}", KIND_INTERNAL, root, t, t + dur, attrs,
                        error, msg)
        if with_http:
            method, path = self.agent.http_for(tool) or ("GET", "/")
            status = 500 if error else 200
            self._http(sid, t + MS, t + dur - MS // 2, method, API + path.format(**{
                k: v for k, v in args.items() if isinstance(v, (str, int))}), status)
        return t + dur

    def _http(self, parent: str, s: int, e: int, method: str, url: str, status: int) -> None:
        host = url.split("/")[2]
        attrs: dict[str, Any] = {
            "http.request.method": method,
            "url.full": url,
            "server.address": host,
            "server.port": 443,
            "network.protocol.version": "1.1",
            "http.response.status_code": status,
        }
        error = str(status) if status >= 400 else None
        self.span(2, method, KIND_CLIENT, parent, s, max(e, s + 1), attrs, error,
                  f"HTTP {status}" if error else "")


# --- agents: tools whose results feed later calls ---------------------------------------

class _Agent(ABC):
    name = ""
    agent_id = ""
    description = ""
    system = ""
    tool_doc: ClassVar[dict[str, str]] = {}
    http: ClassVar[dict[str, tuple[str, str]]] = {}

    @abstractmethod
    def task(self, tr: _Trace) -> str:
        """The user task that starts the trace."""

    @abstractmethod
    def tools(self, tr: _Trace) -> list[tuple[str, float, Callable[[_Trace], tuple[Any, Any]]]]:
        """The tools of one turn: name, duration and a function giving (args, result)."""

    def http_for(self, tool: str) -> tuple[str, str] | None:
        return self.http.get(tool)

    def next_call(self, tr: _Trace) -> tuple[str, str, dict[str, Any], Any]:
        rng = tr.rng
        options = self.tools(tr)
        names = [o[0] for o in options]
        weights = [o[1] for o in options]
        i = rng.choices(range(len(options)), weights)[0]
        args, result = options[i][2](tr)
        if rng.random() < ERROR_RATE:
            result = {"error": {"code": rng.choice(("TIMEOUT", "UNAVAILABLE", "CONFLICT")),
                                "message": f"{names[i]} failed: " + tr.words(3, 10)}}
        return f"call_{rng.getrandbits(96):024x}", names[i], args, result


def _pick(tr: _Trace, pool: str) -> Any:
    return tr.rng.choice(tr.state[pool])


def _add(tr: _Trace, pool: str, *items: Any) -> None:
    tr.state.setdefault(pool, []).extend(items)


class _Ops(_Agent):
    name = "ops-assistant"
    agent_id = "asst_ops_01"
    description = "Cleans up stale projects and babysits batch jobs."
    system = ("You are the ops assistant. You may archive a project only after "
              "request_approval granted it. Never retry a job whose retry_allowed is "
              "false. Prefer listing before acting; use explicit limits. ") * 2
    tool_doc: ClassVar[dict[str, str]] = {
        "list_projects": "List projects, newest first. Args: owner, limit, cursor.",
        "get_project": "Details of one project.",
        "request_approval": "Ask a human to approve an action on a project.",
        "archive_project": "Archive a project (needs an approval).",
        "list_jobs": "Jobs of a project.",
        "get_job": "Status of one job.",
        "retry_job": "Retry a failed job.",
    }
    http: ClassVar[dict[str, tuple[str, str]]] = {
        "list_projects": ("GET", "/v1/projects?limit={limit}"),
        "get_project": ("GET", "/v1/projects/{project_id}"),
        "request_approval": ("POST", "/v1/approvals"),
        "archive_project": ("POST", "/v1/projects/{project_id}/archive"),
        "list_jobs": ("GET", "/v1/projects/{project_id}/jobs"),
        "get_job": ("GET", "/v1/jobs/{job_id}"),
        "retry_job": ("POST", "/v1/jobs/{job_id}/retry"),
    }

    def task(self, tr: _Trace) -> str:
        return tr.rng.choice((
            "Archive every project of team-{t} that has not been updated since {y}.",
            "Job failures on team-{t} projects since {y}: retry what may be retried.",
            "Clean up stale team-{t} projects (untouched since {y}) and report.",
        )).format(t=tr.rng.choice("abc"), y=tr.rng.randint(2021, 2024))

    def tools(self, tr: _Trace) -> list[Any]:
        st = tr.state
        opts: list[Any] = [("list_projects", 1.0 if st.get("projects") else 50.0,
                            self._list_projects)]
        if st.get("projects"):
            opts += [("get_project", 1.0, self._get_project),
                     ("request_approval", 2.0, self._request_approval),
                     ("list_jobs", 1.5, self._list_jobs)]
        if st.get("approved"):
            opts.append(("archive_project", 3.0, self._archive))
        elif st.get("projects"):
            opts.append(("archive_project", 0.15, self._archive))  # the incident
        if st.get("jobs"):
            opts += [("get_job", 2.0, self._get_job), ("retry_job", 1.0, self._retry_job)]
        return opts

    def _list_projects(self, tr: _Trace) -> tuple[Any, Any]:
        rng = tr.rng
        limit = rng.choice((20, 50, 100))
        owner = f"team-{rng.choice('abc')}"
        items = []
        for _ in range(rng.randint(3, 14)):
            pid = f"p{rng.randint(1, 9999)}"
            items.append({"id": pid, "name": f"{rng.choice(IDENTS)}-{rng.choice(IDENTS)}",
                          "owner": rng.choice((owner, owner, "team-a", "team-b")),
                          "archived": False, "updated_at":
                          f"20{rng.randint(21, 25)}-{rng.randint(1, 12):02d}-"
                          f"{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z"})
        _add(tr, "projects", *[i["id"] for i in items])
        args = {"owner": owner, "limit": limit}
        return args, {"items": items, "next_cursor": f"c_{rng.getrandbits(40):010x}"}

    def _get_project(self, tr: _Trace) -> tuple[Any, Any]:
        pid = _pick(tr, "projects")
        rng = tr.rng
        return {"project_id": pid}, {
            "id": pid, "owner": f"team-{rng.choice('abc')}", "members": rng.randint(1, 40),
            "description": tr.words(5, 40), "storage_gb": round(rng.random() * 500, 2),
            "contact": f"{rng.choice(IDENTS)}.{rng.choice(IDENTS)}@example.com"}

    def _request_approval(self, tr: _Trace) -> tuple[Any, Any]:
        pid = _pick(tr, "projects")
        apr = f"apr_{tr.rng.getrandbits(48):012x}"
        granted = tr.rng.random() < 0.85
        if granted:
            _add(tr, "approved", (pid, apr))
        return ({"project_id": pid, "action": "archive", "reason": tr.words(4, 16)},
                {"approval_id": apr, "status": "granted" if granted else "denied"})

    def _archive(self, tr: _Trace) -> tuple[Any, Any]:
        if tr.state.get("approved"):
            pid, apr = tr.state["approved"].pop(0)
            args = {"project_id": pid, "approval_id": apr}
        else:
            pid = _pick(tr, "projects")
            args = {"project_id": pid}
        return args, {"project_id": pid, "status": "archived"}

    def _list_jobs(self, tr: _Trace) -> tuple[Any, Any]:
        pid = _pick(tr, "projects")
        rng = tr.rng
        jobs = [{"id": f"job_{rng.getrandbits(40):010x}",
                 "status": rng.choice(("failed", "failed", "succeeded", "running", "queued")),
                 "started_at": f"2025-05-{rng.randint(1, 31):02d}T10:00:00Z"}
                for _ in range(rng.randint(1, 8))]
        _add(tr, "jobs", *[j["id"] for j in jobs])
        return {"project_id": pid, "limit": 50}, {"items": jobs}

    def _get_job(self, tr: _Trace) -> tuple[Any, Any]:
        jid = _pick(tr, "jobs")
        rng = tr.rng
        return {"job_id": jid}, {
            "id": jid, "status": rng.choice(("failed", "running", "succeeded", "queued")),
            "retry_allowed": rng.random() < 0.7, "attempts": rng.randint(1, 4),
            "log_tail": tr.words(10, 60)}

    def _retry_job(self, tr: _Trace) -> tuple[Any, Any]:
        jid = _pick(tr, "jobs")
        return {"job_id": jid}, {"id": jid, "status": "queued",
                                 "attempt": tr.rng.randint(2, 5)}


class _Dev(_Agent):
    name = "dev-agent"
    agent_id = "asst_dev_02"
    description = "Fixes failing tests in a repository."
    system = ("You are a coding agent. Search, read the relevant files, apply a minimal "
              "patch, and run the tests until they pass. Do not touch unrelated files. ") * 3
    tool_doc: ClassVar[dict[str, str]] = {
        "search": "Full-text search in the repository.",
        "read_file": "Read a file.",
        "apply_patch": "Apply a unified diff.",
        "run_tests": "Run the test suite, or some tests.",
    }

    def task(self, tr: _Trace) -> str:
        return (f"Test test_{tr.rng.choice(IDENTS)}_{tr.rng.choice(IDENTS)} fails with "
                f"KeyError: '{tr.rng.choice(IDENTS)}'. Fix it.")

    def tools(self, tr: _Trace) -> list[Any]:
        st = tr.state
        opts: list[Any] = [("search", 3.0 if not st.get("paths") else 0.7, self._search),
                           ("run_tests", 0.5, self._run_tests)]
        if st.get("paths"):
            opts.append(("read_file", 2.5, self._read))
        if st.get("read"):
            opts.append(("apply_patch", 1.2, self._patch))
        return opts

    def _code(self, tr: _Trace, lo: int, hi: int) -> str:
        k = tr.rng.randint(lo, hi)
        i = tr.rng.randrange(len(_CODE_POOL) - k)
        return "\n".join(_CODE_POOL[i:i + k])

    def _search(self, tr: _Trace) -> tuple[Any, Any]:
        rng = tr.rng
        hits = [{"path": f"src/{rng.choice(IDENTS)}/{rng.choice(IDENTS)}.py",
                 "line": rng.randint(1, 800), "snippet": self._code(tr, 1, 2)}
                for _ in range(rng.randint(1, 10))]
        _add(tr, "paths", *[h["path"] for h in hits])
        return {"query": f"{rng.choice(IDENTS)}.{rng.choice(IDENTS)}"}, {"results": hits}

    def _read(self, tr: _Trace) -> tuple[Any, Any]:
        path = _pick(tr, "paths")
        _add(tr, "read", path)
        return {"path": path}, {"path": path, "content": self._code(tr, 10, 80),
                                "sha": f"{tr.rng.getrandbits(160):040x}"}

    def _patch(self, tr: _Trace) -> tuple[Any, Any]:
        path = _pick(tr, "read")
        body = "\n".join("-" + ln if i % 2 else "+" + ln
                         for i, ln in enumerate(self._code(tr, 2, 12).split("\n")))
        return ({"path": path, "diff": f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n{body}"},
                {"applied": True, "hunks": tr.rng.randint(1, 3)})

    def _run_tests(self, tr: _Trace) -> tuple[Any, Any]:
        rng = tr.rng
        failed = rng.randint(0, 3)
        return ({"selector": f"tests/test_{rng.choice(IDENTS)}.py"},
                {"passed": rng.randint(10, 400), "failed": failed,
                 "duration_s": round(rng.random() * 90, 3),
                 "output": self._code(tr, 2, 20) if failed else "ok"})


class _Shop(_Agent):
    name = "shop-assistant"
    agent_id = "asst_shop_03"
    description = "Helps customers find products and check out."
    system = ("You are a shopping assistant. Charge a cart at most once. Confirm the "
              "total with the customer before charging. Send a receipt afterwards. ") * 2
    tool_doc: ClassVar[dict[str, str]] = {
        "search_products": "Search the catalog.",
        "create_cart": "Create a cart for a customer.",
        "add_to_cart": "Add an item to a cart.",
        "charge": "Charge the cart's total to the customer's payment method.",
        "send_receipt": "Email the receipt.",
    }
    http: ClassVar[dict[str, tuple[str, str]]] = {
        "search_products": ("GET", "/v1/products?q={query}"),
        "create_cart": ("POST", "/v1/carts"),
        "add_to_cart": ("POST", "/v1/carts/{cart_id}/items"),
        "charge": ("POST", "/v1/carts/{cart_id}/charge"),
        "send_receipt": ("POST", "/v1/receipts"),
    }

    def task(self, tr: _Trace) -> str:
        rng = tr.rng
        return (f"Hi, I need {rng.randint(1, 4)} {rng.choice(IDENTS)} kits delivered by "
                f"Friday. My email is {rng.choice(IDENTS)}{rng.randint(1, 99)}@example.org")

    def tools(self, tr: _Trace) -> list[Any]:
        st = tr.state
        opts: list[Any] = [("search_products", 2.0, self._search)]
        if st.get("skus") and not st.get("carts"):
            opts.append(("create_cart", 4.0, self._cart))
        if st.get("carts") and st.get("skus"):
            opts.append(("add_to_cart", 3.0, self._add_item))
        if st.get("filled"):
            opts.append(("charge", 1.0, self._charge))
        if st.get("charged"):
            opts.append(("send_receipt", 1.0, self._receipt))
        return opts

    def _search(self, tr: _Trace) -> tuple[Any, Any]:
        rng = tr.rng
        items = [{"sku": f"SKU-{rng.randint(10000, 99999)}",
                  "name": f"{rng.choice(IDENTS)} {rng.choice(IDENTS)} kit",
                  "price": {"amount": rng.randint(199, 99999), "currency": "EUR"},
                  "in_stock": rng.random() < 0.8}
                 for _ in range(rng.randint(2, 12))]
        _add(tr, "skus", *[i["sku"] for i in items])
        return {"query": rng.choice(IDENTS), "limit": 20}, {"items": items}

    def _cart(self, tr: _Trace) -> tuple[Any, Any]:
        cid = f"cart_{tr.rng.getrandbits(48):012x}"
        cust = f"cus_{tr.rng.getrandbits(40):010x}"
        _add(tr, "carts", cid)
        return {"customer_id": cust}, {"cart_id": cid, "customer_id": cust, "items": []}

    def _add_item(self, tr: _Trace) -> tuple[Any, Any]:
        cid, sku = _pick(tr, "carts"), _pick(tr, "skus")
        _add(tr, "filled", cid)
        q = tr.rng.randint(1, 4)
        return ({"cart_id": cid, "sku": sku, "quantity": q},
                {"cart_id": cid, "total": {"amount": tr.rng.randint(199, 400000),
                                           "currency": "EUR"}, "line_items": q})

    def _charge(self, tr: _Trace) -> tuple[Any, Any]:
        cid = _pick(tr, "filled")
        chg = f"ch_{tr.rng.getrandbits(64):016x}"
        _add(tr, "charged", chg)
        return ({"cart_id": cid, "payment_method": f"pm_{tr.rng.getrandbits(40):010x}"},
                {"charge_id": chg, "status": "captured", "cart_id": cid})

    def _receipt(self, tr: _Trace) -> tuple[Any, Any]:
        chg = _pick(tr, "charged")
        rng = tr.rng
        return ({"charge_id": chg, "to": f"{rng.choice(IDENTS)}{rng.randint(1, 99)}@example.org"},
                {"message_id": f"<{rng.getrandbits(64):016x}@mail.example.com>",
                 "queued": True})


AGENTS = (_Ops(), _Dev(), _Shop())


# --- the exporter ---------------------------------------------------------------------

def _resource_blocks() -> list[dict[str, Any]]:
    return [{"attributes": _attrs(r)} for r in RESOURCES]


def _batch_line(batch: list[tuple[int, int, dict[str, Any]]],
                resources: list[dict[str, Any]]) -> bytes:
    """One export request: spans grouped by resource, then by scope, in end order."""
    groups: dict[int, dict[int, list[dict[str, Any]]]] = {}
    for res, scope, span in batch:
        groups.setdefault(res, {}).setdefault(scope, []).append(span)
    doc = {"resourceSpans": [
        {"resource": resources[res],
         "scopeSpans": [{"scope": SCOPES[sc], "spans": spans,
                         "schemaUrl": "https://opentelemetry.io/schemas/1.36.0"}
                        for sc, spans in scopes.items()],
         "schemaUrl": "https://opentelemetry.io/schemas/1.36.0"}
        for res, scopes in groups.items()]}
    return _dumps(doc) + b"\n"


def generate(path: str | Path, n_events: int | None = None, seed: int = 0, *,
             target_bytes: int | None = None, batch_spans: int = BATCH_SPANS) -> dict[str, Any]:
    """Write an OTLP/JSON-lines file of GenAI agent traces; return its statistics.

    Exactly ``n_events`` spans in complete traces, or (with ``target_bytes``) complete
    traces until the file reaches that size. Deterministic for a given seed.
    """
    if (n_events is None) == (target_bytes is None):
        raise ValueError("give exactly one of n_events and target_bytes")
    rng = random.Random(seed)
    resources = _resource_blocks()
    t0 = time.perf_counter()
    heap: list[tuple[int, int, int, int, dict[str, Any]]] = []  # end, n, trace, scope, span
    remaining: dict[int, int] = {}
    res_of: dict[int, int] = {}
    unallocated = n_events if n_events is not None else -1
    clock = BASE_NS
    counter = 0
    trace_no = 0
    stats: dict[str, Any] = {"events": 0, "traces": 0, "lines": 0, "bytes": 0, "errors": 0,
             "by_operation": {}}
    ops: dict[str, int] = stats["by_operation"]

    def start_trace() -> bool:
        nonlocal unallocated, counter, trace_no
        if n_events is not None:
            if unallocated <= 0:
                return False
            size = rng.randint(20, 200)
            if unallocated - size < 20:
                size = unallocated
            unallocated -= size
        else:
            if stats["bytes"] >= target_bytes:
                return False
            size = rng.randint(20, 200)
        res_idx = rng.randrange(len(AGENTS))
        tr = _Trace(rng, size, clock + rng.randint(0, 3000) * MS, res_idx, AGENTS[res_idx])
        trace_no += 1
        remaining[trace_no] = len(tr.spans)
        res_of[trace_no] = res_idx
        stats["errors"] += tr.errors
        stats["traces"] += 1
        for end, scope, span in tr.spans:
            counter += 1
            heapq.heappush(heap, (end, counter, trace_no, scope, span))
        return True

    with open(path, "wb", buffering=1 << 20) as out:
        for _ in range(IN_FLIGHT):
            if not start_trace():
                break
        batch: list[tuple[int, int, dict[str, Any]]] = []
        while heap:
            end, _, tno, scope, span = heapq.heappop(heap)
            clock = end
            batch.append((res_of[tno], scope, span))
            op = span["name"].split(" ", 1)[0]
            ops[op] = ops.get(op, 0) + 1
            remaining[tno] -= 1
            if remaining[tno] == 0:
                del remaining[tno], res_of[tno]
                start_trace()
            if len(batch) >= batch_spans:
                line = _batch_line(batch, resources)
                out.write(line)
                stats["bytes"] += len(line)
                stats["lines"] += 1
                stats["events"] += len(batch)
                batch = []
        if batch:
            line = _batch_line(batch, resources)
            out.write(line)
            stats["bytes"] += len(line)
            stats["lines"] += 1
            stats["events"] += len(batch)
    stats["seconds"] = round(time.perf_counter() - t0, 3)
    stats["path"] = str(path)
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="file to write (OTLP/JSON lines)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--events", type=int, default=None, help="number of spans (default 200000)")
    g.add_argument("--gb", type=float, default=None, help="write about this many GiB instead")
    ap.add_argument("--seed", type=int, default=0)
    ns = ap.parse_args(argv)
    if ns.gb is not None:
        stats = generate(ns.out, seed=ns.seed, target_bytes=int(ns.gb * (1 << 30)))
    else:
        stats = generate(ns.out, ns.events or 200_000, seed=ns.seed)
    stats["events_per_s"] = round(stats["events"] / max(stats["seconds"], 1e-9))
    json.dump(stats, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
