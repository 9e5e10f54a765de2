"""``otlp-proto``: OTLP protobuf files read through the OTLP/JSON mapping — the bundled
archive incident as protobuf gives the very events its JSON gives; the file exporter's
size-prefixed stream, gzip, and what is refused (truncated, zstd, a gzip bomb, a
metrics export)."""

from __future__ import annotations

import base64
import copy
import gzip
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import EXAMPLES, assert_reads_or_refuses, assert_refused, read, run, write_source
from workbench.formats import OTLP, OTLP_PROTO
from workbench.formats.otel import decode_traces
from workbench.model import InvalidTraceError, Limit, LimitExceededError

pytest.importorskip("opentelemetry.proto")
from google.protobuf.json_format import ParseDict
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

INCIDENT = EXAMPLES / "archive-incident.otlp.json"


def _b64_ids(doc):
    doc = copy.deepcopy(doc)
    for rs in doc["resourceSpans"]:
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                for k in ("traceId", "spanId", "parentSpanId"):
                    if sp.get(k):
                        sp[k] = base64.b64encode(bytes.fromhex(sp[k])).decode()
                for ln in sp.get("links", []):
                    for k in ("traceId", "spanId"):
                        ln[k] = base64.b64encode(bytes.fromhex(ln[k])).decode()
    return doc


def _proto(doc) -> bytes:
    return ParseDict(_b64_ids(doc), TracesData()).SerializeToString()


DOC = json.loads(INCIDENT.read_text())
MESSAGE = _proto(DOC)


def _plain(events):
    return [(e.trace_id, e.event_id, e.parent_id, e.kind, e.name, e.start_ns, e.end_ns,
             e.status, e.args, e.result, e.error, e.attrs) for e in events]


def test_the_incident_as_protobuf_gives_the_events_its_json_gives(tmp_path):
    want, want_info = read(OTLP, INCIDENT)
    src = write_source(tmp_path / "incident.binpb", MESSAGE)
    assert OTLP_PROTO.sniff(src) == 90
    got, info = read(OTLP_PROTO, tmp_path / "incident.binpb")
    assert len(got) == 14 and _plain(got) == _plain(want)
    assert [(i.trace_id, i.root_task) for i in info] == \
        [(i.trace_id, i.root_task) for i in want_info]


def test_ids_come_out_hex_as_otlp_json_spells_them():
    sp = decode_traces(MESSAGE)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    first = DOC["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert (sp["traceId"], sp["spanId"]) == (first["traceId"], first["spanId"])


RICH = {"resourceSpans": [{
    "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "a"}}],
                 "droppedAttributesCount": 2},
    "schemaUrl": "https://opentelemetry.io/schemas/1.26.0",
    "scopeSpans": [{
        "scope": {"name": "s", "version": "1", "attributes": [
            {"key": "k", "value": {"boolValue": True}}]},
        "schemaUrl": "https://opentelemetry.io/schemas/1.26.0",
        "spans": [{
            "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
            "parentSpanId": "aaa19b7ec3c1b174", "traceState": "x=1", "flags": 257,
            "name": "execute_tool search", "kind": 3,
            "startTimeUnixNano": "1700000000000000001", "endTimeUnixNano": "1700000000000000002",
            "attributes": [
                {"key": "s", "value": {"stringValue": "v"}},
                {"key": "i", "value": {"intValue": "-9007199254740993"}},
                {"key": "d", "value": {"doubleValue": 1.5}},
                {"key": "nan", "value": {"doubleValue": "NaN"}},
                {"key": "inf", "value": {"doubleValue": "-Infinity"}},
                {"key": "b", "value": {"bytesValue": "AAEC"}},
                {"key": "e", "value": {}},
                {"key": "a", "value": {"arrayValue": {"values": [
                    {"stringValue": "x"}, {"intValue": "1"}]}}},
                {"key": "kv", "value": {"kvlistValue": {"values": [
                    {"key": "n", "value": {"kvlistValue": {"values": []}}}]}}}],
            "droppedAttributesCount": 1,
            "events": [{"timeUnixNano": "1700000000000000001", "name": "exception",
                        "attributes": [{"key": "exception.message",
                                        "value": {"stringValue": "boom"}}],
                        "droppedAttributesCount": 3}],
            "droppedEventsCount": 4,
            "links": [{"traceId": "0af7651916cd43dd8448eb211c80319c",
                       "spanId": "b7ad6b7169203331", "traceState": "y=2", "flags": 1,
                       "attributes": [{"key": "l", "value": {"intValue": "7"}}]}],
            "droppedLinksCount": 5,
            "status": {"code": 2, "message": "failed"}},
            {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "bbb19b7ec3c1b174",
             "status": {}}]}]}]}


def test_the_direct_walk_is_what_message_to_dict_gives_with_hex_ids():
    from google.protobuf.json_format import MessageToDict

    from workbench.formats.otel import to_otlp_json
    for doc in (RICH, DOC, {"resourceSpans": [{}, {"scopeSpans": [{}]}]}):
        msg = ParseDict(_b64_ids(doc), TracesData())
        want = MessageToDict(msg, use_integers_for_enums=True)
        for rs in want.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for sp in ss.get("spans", []):
                    for k in ("traceId", "spanId", "parentSpanId"):
                        if k in sp:
                            sp[k] = base64.b64decode(sp[k]).hex()
                    for ln in sp.get("links", []):
                        for k in ("traceId", "spanId"):
                            ln[k] = base64.b64decode(ln[k]).hex()
        assert to_otlp_json(msg) == want


def test_the_file_exporter_s_size_prefixed_stream_and_gzip_are_read(tmp_path):
    half = len(DOC["resourceSpans"]) // 2 or 1
    one = _proto({"resourceSpans": DOC["resourceSpans"][:half]})
    two = _proto({"resourceSpans": DOC["resourceSpans"][half:]})
    stream = b"".join(struct.pack(">I", len(m)) + m for m in (one, two))
    want = _plain(read(OTLP, INCIDENT)[0])
    for name, data in [("stream.pb", stream), ("one.pb.gz", gzip.compress(MESSAGE)),
                       ("stream.binpb.gz", gzip.compress(stream)),
                       ("no-suffix", gzip.compress(MESSAGE))]:
        assert OTLP_PROTO.sniff(write_source(tmp_path / name, data)) >= 80, name
        assert _plain(read(OTLP_PROTO, tmp_path / name)[0]) == want, name


@pytest.mark.parametrize(("data", "says"), [
    (MESSAGE[:-7], "not an OTLP protobuf trace message"),
    (struct.pack(">I", len(MESSAGE) + 10) + MESSAGE, "is cut short"),
    (struct.pack(">I", 9) + b"\x28\xb5\x2f\xfd" + b"\x00" * 5, "zstd"),
    (gzip.compress(MESSAGE)[:-9], "gzip"),
])
def test_a_damaged_file_is_invalid_trace_naming_what_is_wrong(tmp_path, data, says):
    src = write_source(tmp_path / "bad.pb", data)
    with pytest.raises(InvalidTraceError, match=says):
        list(OTLP_PROTO.read(src))


def test_a_gzip_bomb_is_refused_once_past_the_limit(tmp_path, monkeypatch):
    import workbench.formats.otel._otlp_proto as mod
    monkeypatch.setattr(mod, "_LIMIT", Limit("protobuf_bytes", 1 << 20, "bytes", "x"))
    src = write_source(tmp_path / "bomb.pb.gz", gzip.compress(b"\x0a" * (64 << 20)))
    with pytest.raises(LimitExceededError, match="protobuf_bytes"):
        list(OTLP_PROTO.read(src))


def test_other_binary_and_other_otlp_signals_are_not_claimed(tmp_path):
    from opentelemetry.proto.metrics.v1.metrics_pb2 import MetricsData
    metrics = ParseDict({"resourceMetrics": [{"scopeMetrics": [{"metrics": [
        {"name": "http.server.duration", "gauge": {"dataPoints": [{"asInt": "3"}]}}]}]}]},
        MetricsData()).SerializeToString()
    for name, data in [("m.pb", metrics), ("x.pb", b"\x00\x01\x02garbage"),
                       ("d.json", json.dumps(DOC).encode()), ("z.gz", gzip.compress(b"hi"))]:
        assert OTLP_PROTO.sniff(write_source(tmp_path / name, data)) == 0, name


def test_ingest_reads_a_pb_file_and_refuses_a_truncated_one(tmp_path, capsys):
    store = tmp_path / "store"
    (tmp_path / "incident.pb").write_bytes(MESSAGE)
    code, out, _ = run(capsys, "ingest", tmp_path / "incident.pb", "--store", store, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["events"] == 14 and doc["traces"][0]["format"] == "otlp-proto"
    assert_refused(capsys, store, tmp_path / "cut.pb", MESSAGE[: len(MESSAGE) - 7],
                   "INVALID_TRACE")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(0, len(MESSAGE)), st.integers(0, 255))
def test_damaged_messages_are_read_or_refused_never_a_crash(tmp_path_factory, junk, at, byte):
    data = MESSAGE[:at] + bytes([byte]) + MESSAGE[at + 1:] + junk
    src = write_source(tmp_path_factory.mktemp("p") / "x.pb", data)
    assert_reads_or_refuses(OTLP_PROTO, src)


def test_without_the_protobuf_definitions_the_error_says_what_to_install(tmp_path,
                                                                        monkeypatch):
    import sys

    from workbench.formats import ProtoUnavailableError
    monkeypatch.setitem(sys.modules, "opentelemetry.proto.trace.v1.trace_pb2", None)
    src = write_source(tmp_path / "incident.pb", MESSAGE)
    assert OTLP_PROTO.sniff(src) == 90  # detection needs no package
    with pytest.raises(ProtoUnavailableError) as err:
        list(OTLP_PROTO.read(src))
    assert err.value.code == "PROTOBUF_UNAVAILABLE"
    assert "opentelemetry-proto" in err.value.hint
