"""Adapter ``phoenix``: Phoenix span exports (lists, JSONL, REST pages, ``px`` trace
objects, older nested attributes, dataframe records) through the one span mapping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent
from workbench.formats.otel._genai import _unflatten
from workbench.formats.otel._phoenix import PHOENIX, flatten_attributes
from workbench.ingest import detect
from workbench.model import InvalidTraceError

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "phoenix-spans"
TID = "73b0daa1b19c689af2f72a553cdea89d"


def span(span_id: str, kind: str, parent: str | None, attrs: dict[str, Any],
         status: str = "OK", message: str = "") -> dict[str, Any]:
    """A span as Phoenix's REST API returns it: no ``openinference.span.kind`` in the
    attributes, the kind and the status at the top level."""
    return {"id": "U3BhbjoyNTQ=", "name": f"span-{span_id}",
            "context": {"trace_id": TID, "span_id": span_id}, "span_kind": kind,
            "parent_id": parent, "start_time": "2026-02-21T06:45:49.076614+00:00",
            "end_time": "2026-02-21T06:45:49.571064+00:00", "status_code": status,
            "status_message": message, "attributes": attrs, "events": []}


SPANS = [
    span("1b85de45f4aac981", "AGENT", None, {"input.value": "weather in Rome?"}),
    span("2b85de45f4aac981", "LLM", "1b85de45f4aac981",
         {"llm.model_name": "gpt-4o", "llm.input_messages.0.message.role": "user",
          "llm.input_messages.0.message.content": "weather in Rome?"}),
    span("3b85de45f4aac981", "TOOL", "1b85de45f4aac981",
         {"tool.name": "get_weather", "input.value": '{"city": "Rome"}',
          "output.value": '{"temp": 21}'}),
    span("4b85de45f4aac981", "TOOL", "1b85de45f4aac981",
         {"tool.name": "send_mail", "input.value": '{"to": "a@b.c"}'},
         status="ERROR", message="smtp refused"),
]


def read_text(tmp_path: Path, text: str) -> list[RawEvent]:
    return [e for e in PHOENIX.read(source(tmp_path / "spans.json", text))
            if isinstance(e, RawEvent)]


def test_top_level_span_kind_and_status_decide_kind_status_args_and_result(
        tmp_path: Path) -> None:
    evs = read_text(tmp_path, json.dumps(SPANS))
    assert [(e.kind, e.name, e.status) for e in evs] == [
        ("agent", "span-1b85de45f4aac981", "ok"), ("llm_call", "gpt-4o", "ok"),
        ("tool_call", "get_weather", "ok"), ("tool_call", "send_mail", "error")]
    tool = evs[2]
    assert tool.args == {"city": "Rome"} and tool.result == {"temp": 21}
    assert tool.parent_id == "1b85de45f4aac981" and tool.trace_id == TID
    assert evs[1].args["messages"] == [{"role": "user", "content": "weather in Rome?"}]
    assert evs[3].error is not None and evs[3].error["message"] == "smtp refused"
    assert tool.attrs["otel.span_fields"] == {"id": "U3BhbjoyNTQ="}


@pytest.mark.parametrize("wrap", [
    lambda s: json.dumps({"data": s, "next_cursor": None}),
    lambda s: "".join(json.dumps(x) + "\n" for x in s),
    lambda s: json.dumps([{"traceId": TID, "status": "OK", "rootSpan": s[0], "spans": s}]),
], ids=["rest-page", "jsonl", "px-traces"])
def test_every_envelope_gives_the_same_events(tmp_path: Path, wrap: Any) -> None:
    plain = read_text(tmp_path, json.dumps(SPANS))
    (tmp_path / "w").mkdir()
    wrapped = read_text(tmp_path / "w", wrap(SPANS))
    assert [(e.event_id, e.kind, e.args, e.result) for e in wrapped] == \
        [(e.event_id, e.kind, e.args, e.result) for e in plain]


def test_nested_and_listed_attributes_are_flattened_back() -> None:
    nested = {"llm": {"model_name": "gpt-4o",
                      "input_messages": [{"message.role": "user", "message.content": "hi"}]},
              "tag.tags": ["a", "b"]}
    assert flatten_attributes(nested) == {
        "llm.model_name": "gpt-4o", "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "hi", "tag.tags": ["a", "b"]}


def test_dataframe_records_are_spans_too(tmp_path: Path) -> None:
    rows = [{"context.span_id": "3b85de45f4aac981", "context.trace_id": TID,
             "name": "get_weather", "span_kind": "TOOL", "parent_id": None,
             "start_time": 1771656349076, "end_time": 1771656349571, "status_code": "OK",
             "attributes.tool.name": "get_weather", "attributes.input.value": '{"city": "Rome"}',
             "attributes.output.value": "21", "attributes.llm.model_name": None}]
    text = json.dumps(rows)
    assert detect(source(tmp_path / "frame.json", text)).name == "phoenix"
    (ev,) = read_text(tmp_path, text)
    assert (ev.kind, ev.name, ev.args, ev.result) == ("tool_call", "get_weather",
                                                      {"city": "Rome"}, "21")
    assert ev.start_ns == 1771656349076 * 1_000_000
    assert "llm.model_name" not in ev.attrs


def test_detected_over_otel_json(tmp_path: Path) -> None:
    assert detect(source(tmp_path / "s.json", json.dumps(SPANS))).name == "phoenix"


def test_not_a_span_export_and_no_spans_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidTraceError):
        read_text(tmp_path, json.dumps({"data": []}))
    with pytest.raises(InvalidTraceError):
        read_text(tmp_path, json.dumps("span_kind"))


def test_real_openhands_export_has_its_tool_calls_with_arguments_and_results(
        tmp_path: Path) -> None:
    data = (CORPUS / "harbor_openhands.spans.json").read_bytes()
    evs = [e for e in PHOENIX.read(source(tmp_path / "x.json", data))
           if isinstance(e, RawEvent)]
    calls = sorted((e.name, e.args, e.result) for e in evs if e.kind == "tool_call")
    assert calls == sorted([
        ("str_replace_editor", {"command": "create", "path": "/app/hello.txt",
                                "file_text": "Hello, world!", "security_risk": "LOW"},
         "File created successfully at: /app/hello.txt"),
        ("finish", {"message": "Task complete. Created /app/hello.txt with 'Hello, world!'"},
         None)])
    # the REST export names the kind at the top level only
    assert "openinference.span.kind" not in json.loads(data)[0]["attributes"]


def test_real_dataframe_rows_rebuild_listed_messages(tmp_path: Path) -> None:
    data = (CORPUS / "harbor_terminus2_summarization.frame.jsonl").read_bytes()
    evs = [e for e in PHOENIX.read(source(tmp_path / "x.jsonl", data))
           if isinstance(e, RawEvent)]
    llm = next(e for e in evs if e.event_id == "c6cecc7630d1b5ed")
    assert llm.kind == "llm_call" and llm.name == "gpt-4o"
    call = llm.result["messages"][0]["tool_calls"][0]
    assert call["function"]["name"] == "mark_task_complete"
    assert llm.attrs["metadata.atif.step_id"] == 10


def test_spec_examples_rebuild_the_listed_messages(tmp_path: Path) -> None:
    data = (CORPUS / "openinference-spec-llm-spans.json").read_bytes()
    evs = [e for e in PHOENIX.read(source(tmp_path / "x.json", data))
           if isinstance(e, RawEvent)]
    first = evs[0]
    assert first.args["messages"][1] == {"role": "user", "content": "what is 23 times 87"}
    assert first.result["messages"][0]["tool_calls"][0]["function"]["name"] == "multiply"


_KEY = st.text(alphabet="abcdefghij_", min_size=1, max_size=6)
_LEAF = st.one_of(st.integers(), st.text(max_size=5), st.booleans(),
                  st.lists(st.integers(), max_size=3))
_NESTED = st.recursive(
    st.dictionaries(_KEY, _LEAF, min_size=1, max_size=3),
    lambda inner: st.dictionaries(_KEY, st.one_of(_LEAF, inner,
                                                  st.lists(inner, min_size=1, max_size=3)),
                                  min_size=1, max_size=3),
    max_leaves=12)


@settings(max_examples=200)
@given(_NESTED)
def test_flattened_attributes_unflatten_to_what_was_nested(nested: dict[str, Any]) -> None:
    flat = flatten_attributes(nested)
    assert all(type(v) is not dict for v in flat.values())
    assert _unflatten(sorted(flat.items())) == nested
