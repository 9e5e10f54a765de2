"""Adapter ``otlp``: OTLP/JSON documents, collector JSONL and the Tempo envelope."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.otel import _otlp
from workbench.formats.otel._otlp import OTLP
from workbench.model import (
    EncodingError,
    InputError,
    InvalidJSONError,
    InvalidTraceError,
    LimitExceededError,
)

TID = "5b8efff798038103d269b633813fc60c"


def otlp_span(span_id: str = "eee19b7ec3c1b174", **kw: Any) -> dict[str, Any]:
    sp: dict[str, Any] = {
        "traceId": TID, "spanId": span_id, "parentSpanId": "", "name": "tools/call get_job",
        "kind": 3, "startTimeUnixNano": "1722518400000000000",
        "endTimeUnixNano": "1722518400500000000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "get_job"}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": '{"job_id": "j1"}'}},
            {"key": "retries", "value": {"intValue": "2"}},
        ],
        "status": {"code": 1},
    }
    sp.update(kw)
    return sp


def document(*spans: dict[str, Any], envelope: str = "resourceSpans") -> dict[str, Any]:
    scope_key, lib_key = (("scopeSpans", "scope") if envelope == "resourceSpans"
                          else ("instrumentationLibrarySpans", "instrumentationLibrary"))
    return {envelope: [{
        "resource": {"attributes": [
            {"key": "service.name", "value": {"stringValue": "jobs"}},
            {"key": "telemetry.sdk.language", "value": {"stringValue": "go"}}]},
        scope_key: [{lib_key: {"name": "jobs.tracing", "version": "1.2"},
                     "spans": list(spans)}],
    }]}


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(OTLP.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def test_one_span_document(tmp_path: Path) -> None:
    src = source(tmp_path / "t.json", json.dumps(document(otlp_span()), indent=2))
    [ev], [info] = read(src)
    assert (ev.trace_id, ev.event_id, ev.parent_id) == (TID, "eee19b7ec3c1b174", None)
    assert (ev.kind, ev.name, ev.status) == ("tool_call", "get_job", "ok")
    assert (ev.start_ns, ev.end_ns) == (1722518400000000000, 1722518400500000000)
    assert ev.args == {"job_id": "j1"}
    assert ev.attrs == {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_job",
                        "retries": 2, "otel.span_name": "tools/call get_job",
                        "otel.span_kind": "CLIENT", "otel.scope.name": "jobs.tracing",
                        "otel.scope.version": "1.2", "service.name": "jobs"}
    assert info.trace_id == TID
    assert info.attrs == {"resources": [{"service.name": "jobs",
                                         "telemetry.sdk.language": "go"}]}


def test_collector_jsonl_reads_every_line(tmp_path: Path) -> None:
    lines = [json.dumps(document(otlp_span("00000000000000a1"))),
             "",
             json.dumps(document(otlp_span("00000000000000a2", parentSpanId="00000000000000a1")))]
    src = source(tmp_path / "t.jsonl", "\n".join(lines) + "\n")
    events, infos = read(src)
    assert [e.event_id for e in events] == ["00000000000000a1", "00000000000000a2"]
    assert events[1].parent_id == "00000000000000a1"
    assert len(infos) == 1   # one TraceInfo per trace, after the events


def test_tempo_legacy_envelope_with_enum_kinds_and_numbers(tmp_path: Path) -> None:
    sp = otlp_span(kind="SPAN_KIND_SERVER", startTimeUnixNano=1777555053780274700,
                   status={"code": 0, "message": ""}, traceState="")
    src = source(tmp_path / "tempo.json", json.dumps(document(sp, envelope="batches")))
    [ev], _ = read(src)
    assert ev.attrs["otel.span_kind"] == "SERVER"
    assert ev.attrs["otel.scope.name"] == "jobs.tracing"
    assert ev.start_ns == 1777555053780274700
    assert ev.status == "unset"
    assert "otel.trace_state" not in ev.attrs


def test_tempo_api_trace_wrapper(tmp_path: Path) -> None:
    src = source(tmp_path / "t.json", json.dumps({"trace": document(otlp_span())}))
    assert OTLP.sniff(src) > 0
    assert len(read(src)[0]) == 1


def test_ids_in_upper_case_hex_and_base64(tmp_path: Path) -> None:
    sp = otlp_span(traceId="W47/95gDgQPSabYzgT/GDA==", spanId="EEE19B7EC3C1B174",
                   parentSpanId="7uGbfsPBsXM=")
    [ev], _ = read(source(tmp_path / "t.json", json.dumps(document(sp))))
    assert (ev.trace_id, ev.event_id, ev.parent_id) == (TID, "eee19b7ec3c1b174",
                                                        "eee19b7ec3c1b173")


def test_events_links_flags_and_dropped_counts_are_kept(tmp_path: Path) -> None:
    sp = otlp_span(
        events=[{"timeUnixNano": "1722518400100000000", "name": "retry",
                 "attributes": [{"key": "n", "value": {"intValue": "1"}}]}],
        links=[{"traceId": TID.upper(), "spanId": "00F067AA0BA902B7", "traceState": "a=b",
                "attributes": [{"key": "why", "value": {"stringValue": "batch"}}]}],
        flags=257, droppedAttributesCount=3, vendorField={"x": 1})
    [ev], _ = read(source(tmp_path / "t.json", json.dumps(document(sp))))
    assert ev.attrs["otel.events"] == [{"name": "retry", "time_ns": 1722518400100000000,
                                        "attrs": {"n": 1}}]
    assert ev.attrs["otel.links"] == [{"trace_id": TID, "span_id": "00f067aa0ba902b7",
                                       "trace_state": "a=b", "attrs": {"why": "batch"}}]
    assert ev.attrs["otel.flags"] == 257
    assert ev.attrs["otel.dropped"] == {"attributes": 3}
    assert ev.attrs["otel.span_fields"] == {"vendorField": {"x": 1}}


def test_error_status_and_exception_event(tmp_path: Path) -> None:
    sp = otlp_span(status={"code": 2, "message": "job store down"}, events=[
        {"timeUnixNano": "1722518400400000000", "name": "exception", "attributes": [
            {"key": "exception.type", "value": {"stringValue": "ConnectionError"}},
            {"key": "exception.stacktrace", "value": {"stringValue": "Traceback"}}]}])
    [ev], _ = read(source(tmp_path / "t.json", json.dumps(document(sp))))
    assert ev.status == "error"
    assert ev.error is not None
    assert (ev.error["code"], ev.error["message"]) == ("ConnectionError", "job store down")
    assert ev.error["details"] == {"stacktrace": "Traceback",
                                   "time_ns": 1722518400400000000}


@pytest.mark.parametrize("pretty", [True, False])
def test_huge_documents_are_streamed_with_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pretty: bool) -> None:
    doc = document(otlp_span("00000000000000a1"), otlp_span("00000000000000a2"))
    doc["resourceSpans"].append(document(otlp_span("00000000000000a3"))["resourceSpans"][0])
    text = json.dumps(doc, indent=1 if pretty else None)
    src = source(tmp_path / "big.json", text)
    expected = read(src)
    monkeypatch.setattr(_otlp, "STREAM_ABOVE", 100)
    streamed = read(src)
    assert streamed == expected
    assert [e.event_id for e in streamed[0]] == ["00000000000000a1", "00000000000000a2",
                                                 "00000000000000a3"]


def test_huge_truncated_document_is_invalid_json(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps(document(otlp_span()), indent=1)
    src = source(tmp_path / "big.json", text[: len(text) // 2])
    monkeypatch.setattr(_otlp, "STREAM_ABOVE", 100)
    with pytest.raises(InvalidJSONError):
        read(src)


# -- sniffing ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "sure"), [
    ('{"resourceSpans": []}', True),
    ('{\n  "resourceSpans": [\n', True),
    ('{"batches":[{"resource":{}, "instrumentationLibrarySpans": []}]}', True),
    ('{"trace": {"resourceSpans": []}}', True),
    ('{"trace": {"id": "x"}, "observations": []}', False),
    ('[{"role": "user"}]', False),
    ('{"gen_ai.operation.name": "chat"}', False),
])
def test_sniff(tmp_path: Path, text: str, sure: bool) -> None:
    assert (OTLP.sniff(source(tmp_path / "x.json", text)) > 0) is sure


# -- bad input: the right error, never a KeyError or TypeError ------------------------------


@pytest.mark.parametrize(("text", "error", "code"), [
    ('{"resourceSpans": [{"scopeSpans": [{"spans": [', InvalidJSONError, "INVALID_JSON"),
    ('{\n "resourceSpans": [\n  {"scopeSpans": [', InvalidJSONError, "INVALID_JSON"),
    ('{"spans": []}', InvalidTraceError, "INVALID_TRACE"),
    ("[1, 2]", InvalidTraceError, "INVALID_TRACE"),
    ('"resourceSpans"', InvalidTraceError, "INVALID_TRACE"),
    ('{"resourceSpans": []}', InvalidTraceError, "INVALID_TRACE"),
    ('{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}', InvalidTraceError,
     "INVALID_TRACE"),
    ('{"resourceSpans": [7]}', InvalidTraceError, "INVALID_TRACE"),
    ('{"resourceSpans": [{"scopeSpans": "x"}]}', InvalidTraceError, "INVALID_TRACE"),
    ('{"resourceSpans": [{"scopeSpans": [{"spans": {"a": 1}}]}]}', InvalidTraceError,
     "INVALID_TRACE"),
    ('{"resourceSpans": [{"scopeSpans": [{"spans": [5]}]}]}', InvalidTraceError,
     "INVALID_TRACE"),
])
def test_bad_input(tmp_path: Path, text: str, error: type[InputError], code: str) -> None:
    with pytest.raises(error) as info:
        read(source(tmp_path / "bad.json", text))
    assert info.value.code == code
    assert str(tmp_path / "bad.json") in info.value.message


def test_zero_spans_says_so(tmp_path: Path) -> None:
    with pytest.raises(InvalidTraceError, match="no spans"):
        read(source(tmp_path / "t.json", '{"resourceSpans": []}'))


@pytest.mark.parametrize("missing", ["traceId", "spanId"])
def test_span_without_ids_names_the_span(tmp_path: Path, missing: str) -> None:
    sp = otlp_span()
    del sp[missing]
    doc = document(otlp_span("00000000000000a1"), sp)
    with pytest.raises(InvalidTraceError, match=f"span 2 has no {missing}"):
        read(source(tmp_path / "t.json", json.dumps(doc)))


def test_odd_optional_span_fields_are_tolerated(tmp_path: Path) -> None:
    doc = document(otlp_span(events="oops", links=[1], status="broken", attributes=7,
                             startTimeUnixNano={"x": 1}))
    [ev], _ = read(source(tmp_path / "t.json", json.dumps(doc)))
    assert ev.start_ns is None and ev.status == "unset"


def test_jsonl_error_names_the_line(tmp_path: Path) -> None:
    text = json.dumps(document(otlp_span())) + "\n" + '{"resourceSpans": [\n'
    with pytest.raises(InvalidJSONError, match="line 2"):
        read(source(tmp_path / "t.jsonl", text))


def test_jsonl_line_of_the_wrong_shape_names_the_line(tmp_path: Path) -> None:
    text = json.dumps(document(otlp_span())) + "\n" + '{"hello": 1}\n'
    with pytest.raises(InvalidTraceError, match="line 2"):
        read(source(tmp_path / "t.jsonl", text))


def test_non_utf8_is_an_encoding_error(tmp_path: Path) -> None:
    text = json.dumps(document(otlp_span(name="caf\u00e9")), ensure_ascii=False)
    raw = text.encode().replace("\u00e9".encode(), b"\xe9")
    with pytest.raises(EncodingError) as info:
        read(source(tmp_path / "t.json", raw))
    assert info.value.code == "INVALID_ENCODING"


def test_non_utf8_pretty_document_is_an_encoding_error(tmp_path: Path) -> None:
    text = json.dumps(document(otlp_span(name="caf\u00e9")), indent=1, ensure_ascii=False)
    raw = text.encode().replace("\u00e9".encode(), b"\xe9")
    with pytest.raises(EncodingError):
        read(source(tmp_path / "t.json", raw))


# -- byte ranges (the pipeline reads large collector files in parallel) ---------------------


def test_collector_jsonl_is_splittable_and_a_document_is_not(tmp_path: Path) -> None:
    line = json.dumps(document(otlp_span()))
    assert OTLP.splittable(source(tmp_path / "a.jsonl", line + "\n" + line + "\n"))
    assert not OTLP.splittable(source(tmp_path / "b.json",
                                      json.dumps(document(otlp_span()), indent=2)))


def test_parts_read_their_own_lines(tmp_path: Path) -> None:
    lines = [json.dumps(document(otlp_span(f"00000000000000a{i}"))) + "\n" for i in range(3)]
    src = source(tmp_path / "t.jsonl", "".join(lines) + "\n\n")
    cut1 = len(lines[0])
    cut2 = cut1 + len(lines[1]) + len(lines[2])
    parts = [src.part(0, cut1), src.part(cut1, cut2), src.part(cut2, src.size)]
    ids = [[e.event_id for e in read(p)[0]] for p in parts]
    assert ids == [["00000000000000a0"], ["00000000000000a1", "00000000000000a2"], []]


def test_error_in_a_part_names_the_line_of_the_file(tmp_path: Path) -> None:
    good = json.dumps(document(otlp_span())) + "\n"
    src = source(tmp_path / "t.jsonl", good * 3 + '{"nope": 1}\n')
    with pytest.raises(InvalidTraceError, match="line 4"):
        read(src.part(len(good) * 2, src.size))


def test_collector_jsonl_may_start_with_a_blank_line(tmp_path: Path) -> None:
    line = json.dumps(document(otlp_span()))
    assert len(read(source(tmp_path / "t.jsonl", "\n" + line + "\n" + line + "\n"))[0]) == 2


def test_huge_non_utf8_document_is_an_encoding_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps(document(otlp_span(name="caf\u00e9")), indent=1, ensure_ascii=False)
    src = source(tmp_path / "big.json", text.encode().replace("\u00e9".encode(), b"\xe9"))
    monkeypatch.setattr(_otlp, "STREAM_ABOVE", 100)
    with pytest.raises(EncodingError):
        read(src)


def test_huge_tempo_document_with_another_key_first(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {"meta": {"x": 1}, **document(otlp_span(), envelope="batches")}
    src = source(tmp_path / "big.json", json.dumps(doc, indent=1))
    monkeypatch.setattr(_otlp, "STREAM_ABOVE", 100)
    assert len(read(src)[0]) == 1


@pytest.mark.parametrize(("nested", "depth"), [
    ("[" * 100_000 + "]" * 100_000, None), ('{"a":' * 2_000 + "1" + "}" * 2_000, None),
    ("[" * 1_000 + "]" * 1_000, 1_000)])
def test_huge_document_streams_within_json_depth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 nested: str, depth: int | None) -> None:
    """A streamed document is held to json_depth as it is read (ijson.items would build
    the path of every event as text: gigabytes for a value 100,000 deep); the size
    threshold is lowered here rather than writing 64 MiB."""
    doc = document(otlp_span())
    doc["resourceSpans"].insert(0, {"x": "PLACE"})
    src = source(tmp_path / "big.json", json.dumps(doc).replace('"PLACE"', nested))
    whole = read(src) if depth is not None else None
    monkeypatch.setattr(_otlp, "STREAM_ABOVE", 100)
    if depth is None:
        with pytest.raises(LimitExceededError, match="json_depth") as info:
            read(src)
        assert info.value.details["file"] == src.display
    else:  # within the limit: streamed as the whole document is read
        streamed = read(src)
        assert streamed == whole and len(streamed[0]) == 1
