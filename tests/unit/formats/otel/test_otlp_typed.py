"""Collector lines read into typed structs give the very events (or the very error) the
generic reading gives; lines the structs do not describe exactly are read the generic
way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import EXAMPLES, with_odd_values, write_source
from workbench.formats import OTLP
from workbench.formats.otel import _otlp_typed
from workbench.formats.otel._otlp_typed import NotTyped, TypedRequest, decode
from workbench.model import InputError

DOC = json.loads((EXAMPLES / "archive-incident.otlp.json").read_text())


def _generic(raw: bytes) -> TypedRequest:
    raise NotTyped


def _read(path: Path, typed: bool, monkeypatch: pytest.MonkeyPatch) -> object:
    """The events (or the error code) of the file, read with or without the structs."""
    with monkeypatch.context() as m:
        if not typed:
            m.setattr(_otlp_typed, "decode", _generic)
        try:
            return list(OTLP.read(write_source(path, path.read_bytes())))
        except InputError as exc:
            return exc.code, str(exc)
        except (TypeError, AttributeError, ValueError) as exc:  # the pipeline's guard's
            return type(exc).__name__, str(exc)


def _span(**over: object) -> dict[str, object]:
    sp: dict[str, object] = {"traceId": "0af7651916cd43dd8448eb211c80319c",
                             "spanId": "b7ad6b7169203331", "name": "execute_tool x",
                             "kind": 1, "startTimeUnixNano": "1700000000000000000",
                             "endTimeUnixNano": "1700000001000000000",
                             "attributes": [{"key": "gen_ai.tool.name",
                                             "value": {"stringValue": "x"}}]}
    sp.update(over)
    return sp


def _line(*spans: dict[str, object], **rs: object) -> dict[str, object]:
    return {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "svc"}}]},
        "scopeSpans": [{"scope": {"name": "s", "version": "1"}, "spans": list(spans)}],
        **rs}]}


def _attr(key: str, value: object) -> dict[str, object]:
    return {"key": key, "value": value}


TYPED = {
    "the example": DOC,
    "every typed value": _line(_span(attributes=[
        _attr("i", {"intValue": "42"}), _attr("j", {"intValue": 7}),
        _attr("d", {"doubleValue": 0.5}), _attr("b", {"boolValue": "TRUE"}),
        _attr("a", {"arrayValue": {"values": [{"intValue": "1"}, {"stringValue": "x"}]}}),
        _attr("k", {"kvlistValue": {"values": [_attr("n", {"boolValue": False})]}}),
        _attr("y", {"bytesValue": "AAE="}), _attr("none", {}),
        _attr("s", {"stringValue": "wins", "intValue": "1"}),
        _attr("dup", {"stringValue": "first"}), _attr("dup", {"stringValue": "last"})])),
    "dropped counts, status, events, links": _line(_span(
        droppedAttributesCount=2, droppedLinksCount=0, droppedEventsCount=1,
        status={"code": 2, "message": "boom"}, traceState="k=v", flags=1,
        events=[{"name": "exception", "timeUnixNano": "1700000000500000000",
                 "attributes": [_attr("exception.type", {"stringValue": "E"})]}],
        links=[{"traceId": "0af7651916cd43dd8448eb211c80319d", "spanId": "00f067aa0ba902b7"}])),
    "old names and a schema": {"resourceSpans": [{"schemaUrl": "https://x/1",
                                                  "instrumentationLibrarySpans": [{
                                                      "instrumentationLibrary": {"name": "o"},
                                                      "spans": [_span()]}]}]},
    "no span id": _line(_span(spanId="")),
    "odd ids and times": _line(_span(traceId="AAAAAAAAAAAAAAAAAAAAAQ==", kind="SPAN_KIND_CLIENT",
                                     startTimeUnixNano=1700000000000000000, parentSpanId="")),
}

GENERIC = {
    "an unknown span field": _line(_span(foo=1)),
    "attributes as an object": _line(_span(attributes={"a": 1})),
    "an attribute without a value": _line(_span(attributes=[{"key": "a"}])),
    "a key that is not text": _line(_span(attributes=[_attr(3, {"stringValue": "x"})])),
    "two typed fields": _line(_span(attributes=[_attr("a", {"boolValue": True,
                                                             "intValue": "3"})])),
    "a list of requests": [DOC],
    "scope spans not a list": {"resourceSpans": [{"scopeSpans": {}}]},
    "a span not an object": _line("x"),  # type: ignore[arg-type]
    "a wide integer": _line(_span(attributes=[_attr("n", {"intValue": 10**30})])),
}


@pytest.mark.parametrize("name", list(TYPED))
def test_lines_the_structs_describe_read_the_same(tmp_path, monkeypatch, name):
    raw = json.dumps(TYPED[name]).encode()
    assert isinstance(decode(raw), TypedRequest)
    path = tmp_path / "a.jsonl"
    path.write_bytes(raw + b"\n" + raw.replace(b"0af7", b"1af7") + b"\n")
    assert _read(path, True, monkeypatch) == _read(path, False, monkeypatch)


@pytest.mark.parametrize("name", list(GENERIC))
def test_other_lines_are_read_the_generic_way(tmp_path, monkeypatch, name):
    raw = json.dumps(GENERIC[name]).encode()
    if name != "a wide integer":  # the reader never hands those to the structs
        with pytest.raises(NotTyped):
            decode(raw)
    path = tmp_path / "a.jsonl"
    path.write_bytes(raw + b"\n")
    assert _read(path, True, monkeypatch) == _read(path, False, monkeypatch)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_odd_values_anywhere_read_the_same_either_way(tmp_path, monkeypatch, data):
    doc = with_odd_values(data, TYPED[data.draw(st.sampled_from(sorted(TYPED)))])
    path = tmp_path / "odd.jsonl"
    path.write_bytes(json.dumps(doc).encode() + b"\n")
    assert _read(path, True, monkeypatch) == _read(path, False, monkeypatch)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(value=_JSON, spelling=st.sampled_from(["repr", "exp"]))
def test_msgspec_reads_64_bit_json_as_orjson_does(value, spelling):
    """What the structs rest on: where no integer passes 64 bits, msgspec's values are
    orjson's (floats to the last bit, in any spelling of the exponent)."""
    import msgspec
    import orjson

    text = json.dumps(value, ensure_ascii=False)
    if spelling == "exp":
        text = text.replace("e+", "E")
    got = msgspec.json.decode(text.encode())
    want = orjson.loads(text.encode())
    assert got == want
    assert json.dumps(got) == json.dumps(want)  # -0.0 and int/float kept apart
