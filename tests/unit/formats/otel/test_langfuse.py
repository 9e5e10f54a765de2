"""Adapter ``langfuse``: Langfuse ``{trace, observations[]}`` exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.otel._langfuse import LANGFUSE
from workbench.model import EncodingError, InputError, InvalidJSONError, InvalidTraceError

TID = "fee618f96dc31e0ca38b2f7b26eb8b29"


def observation(oid: str, type_: str, parent: str | None = None,
                attributes: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    obs: dict[str, Any] = {
        "id": oid, "traceId": TID, "parentObservationId": parent, "type": type_,
        "name": kw.pop("name", type_.lower()), "level": "DEFAULT", "statusMessage": None,
        "startTime": "2025-09-30T09:03:59.962Z", "endTime": "2025-09-30T09:04:02.152Z",
        "input": None, "output": None, "model": None, "projectId": "proj",
        "latency": 2.19, "usageDetails": {}, "costDetails": {},
        "metadata": json.dumps({
            "attributes": attributes or {},
            "resourceAttributes": {"service.name": "agents", "telemetry.sdk.version": "1.37.0"},
            "scope": {"name": "openinference.instrumentation.openai_agents", "version": "1.3.0",
                      "attributes": {}},
        }),
    }
    obs.update(kw)
    return obs


def export(*observations: dict[str, Any], **trace: Any) -> dict[str, Any]:
    t = {"id": TID, "name": "Agent workflow", "timestamp": "2025-09-30T09:03:59.962Z",
         "sessionId": None, "userId": None, "tags": [], "input": None, "metadata": "{}"}
    t.update(trace)
    return {"trace": t, "observations": list(observations)}


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(LANGFUSE.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def write(tmp_path: Path, doc: Any) -> SourceFile:
    return source(tmp_path / "t.trace.json", json.dumps(doc, indent=2))


def test_observations_become_events_through_the_otel_mapping(tmp_path: Path) -> None:
    doc = export(
        observation("e5a76f27f51ad40e", "AGENT", attributes={"openinference.span.kind": "AGENT"},
                    name="Agent workflow"),
        observation("5b99c3e3411ed17b", "TOOL", "e5a76f27f51ad40e", name="get_weather",
                    attributes={"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                                "input.value": '{"city": "Tokyo"}', "output.value": "sunny"},
                    input='{"city": "Tokyo"}', output="sunny"))
    src = write(tmp_path, doc)
    assert LANGFUSE.sniff(src) == 90
    (agent, tool), _ = read(src)
    assert (agent.trace_id, agent.event_id, agent.parent_id) == (TID, "e5a76f27f51ad40e", None)
    assert (agent.kind, agent.name) == ("agent", "Agent workflow")
    assert (agent.start_ns, agent.end_ns) == (1759223039962000000, 1759223042152000000)
    assert tool.parent_id == "e5a76f27f51ad40e"
    assert (tool.kind, tool.name, tool.args, tool.result) == ("tool_call", "get_weather",
                                                              {"city": "Tokyo"}, "sunny")
    assert tool.attrs["otel.scope.name"] == "openinference.instrumentation.openai_agents"
    assert tool.attrs["service.name"] == "agents"
    assert tool.attrs["otel.span_name"] == "get_weather"
    assert "langfuse.projectId" not in tool.attrs   # Langfuse bookkeeping


def test_observation_type_decides_when_attributes_do_not(tmp_path: Path) -> None:
    doc = export(
        observation("00000000000000a1", "SPAN", name="LangGraph"),
        observation("00000000000000a2", "GENERATION", "00000000000000a1", name="ChatOpenAI",
                    model="gpt-4o-2024-08-06", input='[{"role": "user", "content": "hi"}]',
                    output='{"role": "assistant", "content": "hello"}',
                    usageDetails={"input": 5, "output": 2}),
        observation("00000000000000a3", "TOOL", "00000000000000a1", name="Web-Search",
                    input={"query": "example"}, output="found"),
        observation("00000000000000a4", "EVENT", "00000000000000a1", name="note"))
    events, _ = read(write(tmp_path, doc))
    span, gen, tool, note = events
    assert (span.kind, note.kind) == ("other", "other")
    assert (gen.kind, gen.name) == ("llm_call", "gpt-4o-2024-08-06")
    assert gen.args["messages"] == [{"role": "user", "content": "hi"}]
    assert gen.result["messages"] == {"role": "assistant", "content": "hello"}
    assert gen.attrs["langfuse.usageDetails"] == {"input": 5, "output": 2}
    assert (tool.kind, tool.name, tool.args, tool.result) == ("tool_call", "Web-Search",
                                                              {"query": "example"}, "found")


def test_attributes_win_over_the_observation_type(tmp_path: Path) -> None:
    doc = export(observation("00000000000000a1", "GENERATION", name="ai.generateText",
                             attributes={"ai.operationId": "ai.generateText"}))
    [ev], _ = read(write(tmp_path, doc))
    assert ev.kind == "agent"


def test_level_error_is_an_error_with_the_status_message(tmp_path: Path) -> None:
    doc = export(observation("00000000000000a1", "TOOL", level="ERROR",
                             statusMessage="tool crashed"),
                 observation("00000000000000a2", "SPAN", level="WARNING",
                             statusMessage="slow"))
    (bad, warn), _ = read(write(tmp_path, doc))
    assert bad.status == "error"
    assert bad.error is not None and bad.error["message"] == "tool crashed"
    assert warn.status == "unset" and warn.error is None
    assert warn.attrs["langfuse.level"] == "WARNING"
    assert warn.attrs["otel.status_message"] == "slow"


def test_trace_object_becomes_trace_info(tmp_path: Path) -> None:
    doc = export(observation("00000000000000a1", "AGENT"),
                 sessionId="s1", userId="u1", tags=["demo"],
                 input=json.dumps(json.dumps({"prompt": "What is the weather?"})),
                 metadata=json.dumps({"attributes": {"x": 1}, "topic": "weather"}))
    _, infos = read(write(tmp_path, doc))
    first = infos[0]
    assert first.trace_id == TID
    assert first.root_task == "What is the weather?"
    assert first.attrs == {"langfuse": {"name": "Agent workflow", "sessionId": "s1",
                                        "userId": "u1", "tags": ["demo"],
                                        "metadata": {"topic": "weather"}}}


@pytest.mark.parametrize(("given", "task"), [
    ("What is the weather?", "What is the weather?"),
    (json.dumps("What is the weather?"), "What is the weather?"),
    ([{"role": "system", "content": "s"}, {"role": "user", "content": "Hi there"}], "Hi there"),
    ("{'query': 'example'}", None),
])
def test_root_task_from_the_trace_input(tmp_path: Path, given: Any, task: str | None) -> None:
    _, infos = read(write(tmp_path, export(observation("00000000000000a1", "SPAN"),
                                           input=given)))
    assert infos[0].root_task == task


def test_trace_input_that_is_not_a_user_task_gives_no_root_task(tmp_path: Path) -> None:
    doc = export(observation("00000000000000a1", "SPAN"),
                 input=json.dumps(json.dumps({"args": ["programming"], "kwargs": {}})))
    _, infos = read(write(tmp_path, doc))
    assert all(i.root_task is None for i in infos)


def test_metadata_may_be_an_object_and_other_metadata_is_kept(tmp_path: Path) -> None:
    obs = observation("00000000000000a1", "SPAN")
    obs["metadata"] = {"attributes": {"k": "v"}, "langgraph_node": "agent"}
    [ev], _ = read(write(tmp_path, export(obs)))
    assert ev.attrs["k"] == "v"
    assert ev.attrs["langfuse.metadata"] == {"langgraph_node": "agent"}


@pytest.mark.parametrize("wrap", ["list", "data", "embedded"])
def test_other_export_shapes(tmp_path: Path, wrap: str) -> None:
    one = export(observation("00000000000000a1", "SPAN"))
    if wrap == "list":
        doc: Any = [one, export(observation("00000000000000a2", "SPAN"))]
    elif wrap == "data":
        doc = {"data": [one], "meta": {"page": 1}}
    else:  # the public API's trace object, observations embedded
        doc = dict(one["trace"], observations=one["observations"])
    events, _ = read(write(tmp_path, doc))
    assert events[0].event_id == "00000000000000a1"


def test_bare_observation_list(tmp_path: Path) -> None:
    doc = {"data": [observation("00000000000000a1", "SPAN"),
                    observation("00000000000000a2", "TOOL", "00000000000000a1")]}
    events, _ = read(write(tmp_path, doc))
    assert [e.kind for e in events] == ["other", "tool_call"]


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "error", "code"), [
    ('{"trace": {"id": "x"}, "observations": [', InvalidJSONError, "INVALID_JSON"),
    ('{"trace": {"id": "x"}, "observations": []}', InvalidTraceError, "INVALID_TRACE"),
    ('{"hello": 1}', InvalidTraceError, "INVALID_TRACE"),
    ("[1]", InvalidTraceError, "INVALID_TRACE"),
    ('{"trace": {"id": "' + TID + '"}, "observations": [{"type": "SPAN"}]}',
     InvalidTraceError, "INVALID_TRACE"),
])
def test_bad_input(tmp_path: Path, text: str, error: type[InputError], code: str) -> None:
    with pytest.raises(error) as info:
        read(source(tmp_path / "bad.json", text))
    assert info.value.code == code


def test_observation_without_id_names_it(tmp_path: Path) -> None:
    bad = observation("00000000000000a2", "SPAN")
    del bad["id"]
    doc = export(observation("00000000000000a1", "SPAN"), bad)
    with pytest.raises(InvalidTraceError, match="observation 2 has no id"):
        read(write(tmp_path, doc))


def test_malformed_metadata_is_kept_not_fatal(tmp_path: Path) -> None:
    obs = observation("00000000000000a1", "SPAN", metadata="{not json")
    [ev], _ = read(write(tmp_path, export(obs)))
    assert ev.attrs["langfuse.metadata"] == {"metadata": "{not json"}


def test_non_utf8_is_an_encoding_error(tmp_path: Path) -> None:
    raw = json.dumps(export(observation("00000000000000a1", "SPAN", name="caf\u00e9")),
                     ensure_ascii=False).encode()
    with pytest.raises(EncodingError):
        read(source(tmp_path / "t.json", raw.replace("\u00e9".encode(), b"\xe9")))
