"""Adapter ``otel-json``: SDK span objects (JS and Python) and attribute maps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.otel._otel_json import OTEL_JSON, SYNTHESIZED_KEY
from workbench.model import EncodingError, InputError, InvalidJSONError, InvalidTraceError

TID = "b3e700af9eab81e19f72f964d62a35af"


def read(src: SourceFile) -> list[RawEvent]:
    return [e for e in OTEL_JSON.read(src) if isinstance(e, RawEvent)]


def js_span(span_id: str = "39d6e9b3ddec9996", **kw: Any) -> dict[str, Any]:
    sp: dict[str, Any] = {
        "name": "ai.generateText.doGenerate",
        "spanContext": {"traceId": TID, "spanId": span_id, "traceFlags": 1},
        "kind": 2,
        "startTime": [1770131992, 242000000], "endTime": [1770131994, 21415667],
        "attributes": {"ai.operationId": "ai.generateText.doGenerate",
                       "gen_ai.request.model": "gpt-4o-mini",
                       "ai.prompt.messages": '[{"role": "user", "content": "haiku"}]',
                       "ai.response.text": "lines of code"},
        "status": {"code": 0},
        "events": [],
    }
    sp.update(kw)
    return sp


PY_SPAN = {
    "name": "execute_tool get_job",
    "context": {"trace_id": "0x" + TID, "span_id": "0x051581bf3cb55c13",
                "trace_state": "[]"},
    "kind": "SpanKind.INTERNAL",
    "parent_id": "0x39d6e9b3ddec9996",
    "start_time": "2026-02-03T15:19:52.242000Z",
    "end_time": "2026-02-03T15:19:53.000000Z",
    "status": {"status_code": "ERROR", "description": "job store down"},
    "attributes": {"gen_ai.operation.name": "execute_tool",
                   "gen_ai.tool.call.arguments": '{"job_id": "j1"}'},
    "events": [{"name": "exception", "timestamp": "2026-02-03T15:19:52.900000Z",
                "attributes": {"exception.type": "ConnectionError",
                               "exception.message": "refused"}}],
    "links": [],
    "resource": {"attributes": {"service.name": "jobs", "telemetry.sdk.language": "python"},
                 "schema_url": ""},
}


def test_js_readable_span_array(tmp_path: Path) -> None:
    child = js_span("00000000000000b2", parentSpanContext={"spanId": "39d6e9b3ddec9996"},
                    kind=0, attributes={"gen_ai.operation.name": "execute_tool",
                                        "gen_ai.tool.name": "getWeather"},
                    status={"code": 2, "message": "boom"},
                    instrumentationScope={"name": "ai", "version": "6"},
                    resource={"attributes": {"service.name": "web"}})
    src = source(tmp_path / "spans.json", json.dumps([js_span(), child]))
    assert OTEL_JSON.sniff(src) == 90
    first, second = read(src)
    assert (first.trace_id, first.event_id, first.parent_id) == (TID, "39d6e9b3ddec9996", None)
    assert (first.kind, first.name) == ("llm_call", "gpt-4o-mini")
    assert (first.start_ns, first.end_ns) == (1770131992242000000, 1770131994021415667)
    assert first.attrs["otel.span_kind"] == "CLIENT"   # JS numbering: 2 = CLIENT
    assert first.attrs["otel.flags"] == 1
    assert first.args["messages"] == [{"role": "user", "content": "haiku"}]
    assert first.result["text"] == "lines of code"
    assert second.parent_id == "39d6e9b3ddec9996"
    assert (second.kind, second.name, second.status) == ("tool_call", "getWeather", "error")
    assert second.error is not None and second.error["message"] == "boom"
    assert second.attrs["otel.span_kind"] == "INTERNAL"
    assert (second.attrs["otel.scope.name"], second.attrs["service.name"]) == ("ai", "web")


def test_js_events_links_and_unknown_fields(tmp_path: Path) -> None:
    sp = js_span(events=[{"name": "ai.stream.firstChunk", "time": [1770132001, 25056459],
                          "attributes": {"ai.response.msToFirstChunk": 426.85}}],
                 links=[{"context": {"traceId": TID, "spanId": "00000000000000c3"},
                         "attributes": {"k": 1}}],
                 parentSpanId="00000000000000a1", duration=[1, 0], ended=True,
                 customField="kept", _internal="dropped")
    [ev] = read(source(tmp_path / "s.json", json.dumps([sp])))
    assert ev.parent_id == "00000000000000a1"
    assert ev.attrs["otel.events"] == [{"name": "ai.stream.firstChunk",
                                        "time_ns": 1770132001025056459,
                                        "attrs": {"ai.response.msToFirstChunk": 426.85}}]
    assert ev.attrs["otel.links"] == [{"trace_id": TID, "span_id": "00000000000000c3",
                                       "attrs": {"k": 1}}]
    assert ev.attrs["otel.span_fields"] == {"customField": "kept"}


def test_js_spans_one_per_line(tmp_path: Path) -> None:
    text = "\n".join(json.dumps(js_span(f"00000000000000a{i}")) for i in range(3)) + "\n"
    assert [e.event_id for e in read(source(tmp_path / "s.jsonl", text))] == [
        "00000000000000a0", "00000000000000a1", "00000000000000a2"]


def test_python_sdk_to_json_span(tmp_path: Path) -> None:
    src = source(tmp_path / "py.json", json.dumps(PY_SPAN, indent=4))
    assert OTEL_JSON.sniff(src) == 90
    out = list(OTEL_JSON.read(src))
    [ev] = [e for e in out if isinstance(e, RawEvent)]
    assert (ev.trace_id, ev.event_id, ev.parent_id) == (TID, "051581bf3cb55c13",
                                                        "39d6e9b3ddec9996")
    assert (ev.kind, ev.name, ev.status) == ("tool_call", "get_job", "error")
    assert ev.start_ns == 1770131992242000000
    assert ev.args == {"job_id": "j1"}
    assert ev.error is not None
    assert (ev.error["code"], ev.error["message"]) == ("ConnectionError", "job store down")
    assert ev.error["details"]["exception.message"] == "refused"
    assert ev.attrs["otel.span_kind"] == "INTERNAL"
    assert ev.attrs["service.name"] == "jobs"
    assert "otel.trace_state" not in ev.attrs   # "[]" is the Python SDK's empty state
    [info] = [e for e in out if isinstance(e, TraceInfo)]
    assert info.attrs == {"resources": [{"service.name": "jobs",
                                         "telemetry.sdk.language": "python"}]}


def test_console_span_exporter_output_of_several_spans(tmp_path: Path) -> None:
    second = dict(PY_SPAN, context={"trace_id": "0x" + TID, "span_id": "0x00000000000000d4"},
                  parent_id=None, status={"status_code": "UNSET"}, events=[])
    text = json.dumps(PY_SPAN, indent=4) + "\n" + json.dumps(second, indent=4) + "\n"
    events = read(source(tmp_path / "console.txt", text))
    assert [e.event_id for e in events] == ["051581bf3cb55c13", "00000000000000d4"]
    assert events[1].status == "unset"


def test_attribute_map_is_one_event_with_ids_from_the_file_hash(tmp_path: Path) -> None:
    text = json.dumps({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                       "input": '{"city": "Paris"}', "output": "rainy"})
    src = source(tmp_path / "attrs.json", text)
    assert OTEL_JSON.sniff(src) > 0
    [ev] = read(src)
    assert (ev.trace_id, ev.event_id) == (src.sha256[:32], src.sha256[32:48])
    assert ev.parent_id is None
    assert (ev.kind, ev.name, ev.args, ev.result) == ("tool_call", "get_weather",
                                                      {"city": "Paris"}, "rainy")
    assert ev.attrs[SYNTHESIZED_KEY] == ["trace_id", "event_id"]
    assert (ev.start_ns, ev.end_ns) == (None, None)
    assert "otel.span_name" not in ev.attrs
    assert read(src)[0].event_id == ev.event_id   # deterministic


def test_attribute_map_without_a_name_is_named_by_its_operation(tmp_path: Path) -> None:
    [ev] = read(source(tmp_path / "a.json", '{"openinference.span.kind": "CHAIN"}'))
    assert (ev.kind, ev.name) == ("other", "CHAIN")


@pytest.mark.parametrize(("text", "sure"), [
    ('{"gen_ai.operation.name": "chat"}', True),
    ('{"openinference.span.kind": "LLM", "llm.model_name": "x"}', True),
    ('{"gen_ai.usage.input_tokens": 3}', True),
    # a capture manifest that lists attribute names as values is not a span
    ('{"captureDate": "2026-02-03", "attributeSummary": {"genAi": ["gen_ai.request.model"]}}',
     False),
    ('{"resourceSpans": []}', False),
    ('{"llm.model_name": "x"}', False),
    ('[{"role": "user"}]', False),
    ('{"trace": {}, "observations": []}', False),
])
def test_sniff(tmp_path: Path, text: str, sure: bool) -> None:
    assert (OTEL_JSON.sniff(source(tmp_path / "x.json", text)) > 0) is sure


def test_sniff_a_large_attribute_map_by_its_keys(tmp_path: Path) -> None:
    big = {"gen_ai.operation.name": "chat", "input": "x" * 70000}
    assert OTEL_JSON.sniff(source(tmp_path / "x.json", json.dumps(big))) == 50
    assert OTEL_JSON.sniff(source(tmp_path / "y.json", json.dumps(
        {"note": "x" * 70000, "see": '{"gen_ai.operation.name": "chat"}'}))) == 0


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "error", "code"), [
    ('[{"name": "a", "spanContext": {"traceId": "', InvalidJSONError, "INVALID_JSON"),
    ("[]", InvalidTraceError, "INVALID_TRACE"),
    ("[1, 2]", InvalidTraceError, "INVALID_TRACE"),
    ('[{"name": "no context"}]', InvalidTraceError, "INVALID_TRACE"),
    ('{"hello": "world"}', InvalidTraceError, "INVALID_TRACE"),
    ('[{"name": "x", "spanContext": {"traceId": "' + TID + '"}}]', InvalidTraceError,
     "INVALID_TRACE"),
    ('[{"name": "x", "context": {"span_id": "0x0000000000000001"}}]', InvalidTraceError,
     "INVALID_TRACE"),
])
def test_bad_input(tmp_path: Path, text: str, error: type[InputError], code: str) -> None:
    with pytest.raises(error) as info:
        read(source(tmp_path / "bad.json", text))
    assert info.value.code == code


def test_span_without_span_id_names_the_span(tmp_path: Path) -> None:
    bad = js_span(spanContext={"traceId": TID})
    with pytest.raises(InvalidTraceError, match="span 2 has no span id"):
        read(source(tmp_path / "s.json", json.dumps([js_span(), bad])))


def test_truncated_console_output_is_invalid_json(tmp_path: Path) -> None:
    text = json.dumps(PY_SPAN, indent=4) + "\n" + json.dumps(PY_SPAN, indent=4)[:50]
    with pytest.raises(InvalidJSONError):
        read(source(tmp_path / "console.txt", text))


def test_non_utf8_is_an_encoding_error(tmp_path: Path) -> None:
    raw = json.dumps([js_span(name="caf\u00e9")], ensure_ascii=False).encode()
    with pytest.raises(EncodingError):
        read(source(tmp_path / "s.json", raw.replace("\u00e9".encode(), b"\xe9")))
