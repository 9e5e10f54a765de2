"""The OTel GenAI conventions as released in their own repository (v0.1): invoke_agent
and invoke_workflow, plan, memory and retrieval operations, skill and command-execution
tool spans, beside the older names. Spans written as the Python SDK prints them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent
from workbench.formats.otel._otel_json import OTEL_JSON

TID = "0x5b8aa5a2d2c872e8321cf37308d69df2"


def span(sid: int, name: str, attrs: dict[str, Any], parent: int | None = 1,
         status: str = "UNSET", events: list[Any] | None = None) -> dict[str, Any]:
    return {"name": name, "context": {"trace_id": TID, "span_id": f"0x{sid:016x}",
                                      "trace_state": "[]"},
            "kind": "SpanKind.INTERNAL", "parent_id": None if parent is None else
            f"0x{parent:016x}", "start_time": "2026-05-01T10:00:00.000000Z",
            "end_time": "2026-05-01T10:00:01.000000Z", "status": {"status_code": status},
            "attributes": attrs, "events": events or [], "links": [],
            "resource": {"attributes": {"service.name": "support-agent"}, "schema_url": ""}}


SPANS = [
    span(1, "invoke_workflow triage", {"gen_ai.operation.name": "invoke_workflow",
                                       "gen_ai.agent.name": "triage"}, parent=None),
    span(2, "invoke_agent billing", {"gen_ai.operation.name": "invoke_agent",
                                     "gen_ai.agent.name": "billing",
                                     "gen_ai.input.messages": '[{"role": "user", "parts": '
                                     '[{"type": "text", "content": "refund 42"}]}]'}),
    span(3, "plan billing", {"gen_ai.operation.name": "plan", "gen_ai.agent.name": "billing",
                             "gen_ai.output.messages": '[{"role": "assistant"}]'}),
    span(4, "search_memory", {"gen_ai.operation.name": "search_memory",
                              "gen_ai.memory.store.id": "store-001",
                              "gen_ai.memory.query.text": "refund policy",
                              "gen_ai.memory.record.count": 1,
                              "gen_ai.memory.records": '[{"id": "rec-001"}]'}),
    span(5, "execute_tool load_skill", {"gen_ai.operation.name": "execute_tool",
                                        "gen_ai.tool.name": "load_skill",
                                        "gen_ai.skill.name": "refunds",
                                        "gen_ai.tool.call.arguments": '{"name": "refunds"}',
                                        "gen_ai.tool.call.result": "# Refunds"}),
    span(6, "execute_tool bash", {"gen_ai.operation.name": "execute_tool",
                                  "gen_ai.tool.name": "bash",
                                  "process.executable.name": "python",
                                  "process.exit.code": 2,
                                  "gen_ai.tool.call.arguments": '{"command": "python x.py"}',
                                  "gen_ai.tool.call.result": "usage: x.py"}),
    span(7, "execute_tool refund", {"gen_ai.operation.name": "execute_tool",
                                    "gen_ai.tool.name": "refund"},
         events=[{"name": "gen_ai.execute_tool.exception", "timestamp":
                  "2026-05-01T10:00:00.500000Z",
                  "attributes": {"exception.type": "PermissionError",
                                 "exception.message": "not allowed"}}]),
]


def read(tmp_path: Path) -> dict[str, RawEvent]:
    src = source(tmp_path / "spans.json", json.dumps(SPANS))
    return {e.event_id: e for e in OTEL_JSON.read(src) if isinstance(e, RawEvent)}


def test_agents_and_workflows_are_agents_named_by_the_agent(tmp_path: Path) -> None:
    evs = read(tmp_path)
    assert (evs["0000000000000001"].kind, evs["0000000000000001"].name) == ("agent", "triage")
    billing = evs["0000000000000002"]
    assert (billing.kind, billing.name) == ("agent", "billing")
    assert billing.args == [{"role": "user", "parts": [{"type": "text",
                                                       "content": "refund 42"}]}]


def test_plan_and_memory_are_other_with_what_they_were_asked_and_gave(tmp_path: Path) -> None:
    evs = read(tmp_path)
    plan = evs["0000000000000003"]
    assert (plan.kind, plan.name, plan.result) == ("other", "plan billing",
                                                   [{"role": "assistant"}])
    assert plan.attrs["gen_ai.agent.name"] == "billing"
    mem = evs["0000000000000004"]
    assert (mem.kind, mem.name) == ("other", "search_memory")
    assert mem.args == {"gen_ai.memory.store.id": "store-001",
                        "gen_ai.memory.query.text": "refund policy"}
    assert mem.result == [{"id": "rec-001"}]
    assert mem.attrs["gen_ai.memory.record.count"] == 1


def test_skill_and_command_spans_are_tool_calls(tmp_path: Path) -> None:
    evs = read(tmp_path)
    skill = evs["0000000000000005"]
    assert (skill.kind, skill.name, skill.args, skill.result) == (
        "tool_call", "load_skill", {"name": "refunds"}, "# Refunds")
    assert skill.attrs["gen_ai.skill.name"] == "refunds" and skill.status == "unset"
    cmd = evs["0000000000000006"]
    assert (cmd.kind, cmd.status, cmd.args) == ("tool_call", "error", {"command": "python x.py"})
    assert cmd.error is not None and cmd.error["code"] == "EXIT_CODE"
    assert cmd.error["message"] == "exit code 2"


def test_the_tool_exception_event_is_the_error(tmp_path: Path) -> None:
    ev = read(tmp_path)["0000000000000007"]
    assert ev.status == "error" and ev.error is not None
    assert (ev.error["code"], ev.error["message"]) == ("PermissionError", "not allowed")
    assert "otel.events" not in ev.attrs
