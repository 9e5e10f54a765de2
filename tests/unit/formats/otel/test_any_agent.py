"""Adapter ``any-agent``: ``AgentTrace`` wrappers, integer ids made hex, the tool
arguments and results any-agent records (``gen_ai.tool.args``, ``gen_ai.output``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, TraceInfo
from workbench.formats.otel._any_agent import ANY_AGENT, hex_id
from workbench.ingest import detect
from workbench.model import InvalidTraceError

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "any-agent-traces"
TRACE = 100927429609276267646756448943279827607
ROOT, TOOL = 12324293800750531911, 13687147528289423029


def ctx(span_id: int, trace_id: int = TRACE) -> dict[str, Any]:
    return {"trace_id": trace_id, "span_id": span_id, "is_remote": False,
            "trace_flags": {"value": 0}, "trace_state": {"entries": {}}}


def agent_trace(tool_id: int = TOOL, trace_id: int = TRACE) -> dict[str, Any]:
    return {"spans": [
        {"name": "execute_tool get_current_time", "kind": "internal",
         "parent": ctx(ROOT, trace_id), "start_time": 1758026593450406000,
         "end_time": 1758026593452926000, "status": {"status_code": "ok", "description": None},
         "context": ctx(tool_id, trace_id),
         "attributes": {"gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "get_current_time",
                        "gen_ai.tool.args": '{"timezone": "America/New_York"}',
                        "gen_ai.output": '{"year": 2025}', "gen_ai.output.type": "json"},
         "links": [], "events": [],
         "resource": {"attributes": {"service.name": "unknown_service"}, "schema_url": ""}},
        {"name": "invoke_agent [any_agent]", "kind": "internal", "parent": None,
         "start_time": 1758026593210770000, "end_time": 1758026593460000000,
         "status": {"status_code": "unset", "description": None},
         "context": ctx(ROOT, trace_id),
         "attributes": {"gen_ai.operation.name": "invoke_agent",
                        "gen_ai.agent.name": "any_agent"},
         "links": [], "events": [], "resource": {"attributes": {}, "schema_url": ""}},
    ], "final_output": {"steps": [{"number": 1}]}}


def read(tmp_path: Path, doc: Any) -> list[RawEvent | TraceInfo]:
    return list(ANY_AGENT.read(source(tmp_path / "trace.json", json.dumps(doc))))


def test_integer_ids_become_hex_and_tool_calls_keep_args_and_result(tmp_path: Path) -> None:
    out = read(tmp_path, agent_trace())
    tool, agent = [e for e in out if isinstance(e, RawEvent)]
    assert tool.trace_id == format(TRACE, "032x") == "4bedea77bb33b9c5f280371eae21ea97"
    assert tool.event_id == format(TOOL, "016x") and tool.parent_id == format(ROOT, "016x")
    assert (tool.kind, tool.name, tool.status) == ("tool_call", "get_current_time", "ok")
    assert tool.args == {"timezone": "America/New_York"} and tool.result == {"year": 2025}
    assert (agent.kind, agent.name, agent.parent_id) == ("agent", "any_agent", None)
    assert "otel.trace_state" not in tool.attrs
    infos = [i for i in out if isinstance(i, TraceInfo)]
    assert infos[0].attrs == {"any_agent.final_output": {"steps": [{"number": 1}]}}


def test_detected_over_otel_json_and_the_bare_span_list_too(tmp_path: Path) -> None:
    doc = json.dumps(agent_trace())
    assert detect(source(tmp_path / "a.json", doc)).name == "any-agent"
    spans = json.dumps(agent_trace()["spans"])
    assert detect(source(tmp_path / "b.json", spans)).name == "any-agent"
    evs = [e for e in ANY_AGENT.read(source(tmp_path / "b.json", spans))
           if isinstance(e, RawEvent)]
    assert len(evs) == 2


def test_not_a_trace_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidTraceError):
        read(tmp_path, {"spans": []})
    with pytest.raises(InvalidTraceError):
        read(tmp_path, "spans")


_HEX = {32: re.compile(r"[0-9a-f]{32}"), 16: re.compile(r"[0-9a-f]{16}")}


@settings(max_examples=200)
@given(st.integers(min_value=1, max_value=2**128 - 1), st.integers(min_value=1,
                                                                   max_value=2**64 - 1))
def test_any_integer_ids_give_valid_hex_ids_that_read_back(trace_id: int, span_id: int) -> None:
    t, s = hex_id(trace_id, 32), hex_id(span_id, 16)
    assert _HEX[32].fullmatch(t) and _HEX[16].fullmatch(s)
    assert int(t, 16) == trace_id and int(s, 16) == span_id


@given(st.integers(min_value=2**128, max_value=2**200) | st.integers(max_value=-1))
def test_integers_that_are_no_id_are_kept_as_given(value: int) -> None:
    assert hex_id(value, 32) == value


def test_an_agent_trace_with_drawn_ids_reads(tmp_path: Path) -> None:
    out = read(tmp_path, agent_trace(tool_id=1, trace_id=2**128 - 1))
    tool = next(e for e in out if isinstance(e, RawEvent))
    assert tool.trace_id == "f" * 32 and tool.event_id == "0" * 15 + "1"


@pytest.mark.parametrize("name,calls", [
    ("OPENAI_trace.json", [("get_current_time", {"timezone": "America/New_York"}),
                           ("write_file", {"text": "2025"})]),
    ("SMOLAGENTS_trace.json", [("get_current_time", {"timezone": "America/New_York"}),
                               ("write_file", {"text": "2025"}), ("final_answer", None)]),
])
def test_real_traces_have_no_null_arguments(tmp_path: Path, name: str,
                                            calls: list[tuple[str, Any]]) -> None:
    data = (CORPUS / name).read_bytes()
    evs = [e for e in ANY_AGENT.read(source(tmp_path / name, data)) if isinstance(e, RawEvent)]
    tools = [e for e in evs if e.kind == "tool_call"]
    assert [e.name for e in tools] == [c[0] for c in calls]
    assert all(e.args is not None for e in tools)
    for e, (_, args) in zip(tools, calls, strict=True):
        if args is not None:
            assert e.args == args
