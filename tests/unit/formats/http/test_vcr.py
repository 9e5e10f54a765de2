"""Adapter ``vcr``: VCR.py cassettes, from hand-written YAML with known answers."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats._pairing import derived_id
from workbench.formats.http._vcr import VCR
from workbench.model import InputError, InvalidTraceError

CASSETTE = """\
interactions:
- request:
    body: '{"model": "m-small", "messages": [{"role": "user", "content": "hi"}]}'
    headers:
      Content-Type:
      - application/json
      authorization:
      - Bearer sk-test
    method: POST
    uri: https://llm.test/v1/chat/completions?trace=1
  response:
    body:
      string: '{"id": "c1", "model": "m-small-01", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}'
    headers:
      Content-Type:
      - application/json
      Set-Cookie: first=1
      set-cookie:
      - second=2
    status:
      code: 200
      message: OK
- request:
    body: null
    headers: {}
    method: GET
    uri: https://llm.test/v1/models/nope
  response:
    body:
      string: '{"error": {"message": "model not found", "code": "model_not_found"}}'
    headers:
      Content-Type:
      - application/json
    status:
      code: 404
      message: Not Found
version: 1
"""


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(VCR.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def interaction(body: Any, headers: dict[str, list[str]] | None = None,
                code: int = 200) -> dict[str, Any]:
    return {"request": {"body": None, "headers": {}, "method": "GET",
                        "uri": "https://files.test/blob"},
            "response": {"body": {"string": body}, "headers": headers or {},
                         "status": {"code": code, "message": "OK"}}}


def cassette(tmp_path: Path, *items: dict[str, Any]) -> SourceFile:
    text = yaml.safe_dump({"interactions": list(items), "version": 1})
    return source(tmp_path / "c.yaml", text)


def test_sniff_scores(tmp_path: Path) -> None:
    assert VCR.sniff(source(tmp_path / "a.yaml", CASSETTE)) == 95
    assert VCR.sniff(source(tmp_path / "b.yaml", "interactions:\n- request:\n    uri: x\n")) == 85
    sdk = "messages:\n- type: assistant\n  message:\n    content: []\n"  # claude-code YAML
    assert VCR.sniff(source(tmp_path / "c.yaml", sdk)) == 0
    assert VCR.sniff(source(tmp_path / "d.yaml", "interactions:\n- name: x\n")) == 0
    js = json.dumps({"interactions": [{"request": {"uri": "https://a.test/"}}], "version": 1})
    assert VCR.sniff(source(tmp_path / "e.json", js)) == 85
    pact = json.dumps({"consumer": {"name": "c"}, "interactions": [
        {"request": {"uri": "/x"}}]})
    assert VCR.sniff(source(tmp_path / "f.json", pact)) == 0


def test_interactions_become_http_events(tmp_path: Path) -> None:
    src = source(tmp_path / "c.yaml", CASSETTE)
    (ok, missing), [info] = read(src)
    tid = derived_id(src.sha256, "vcr")
    assert [(e.trace_id, e.event_id, e.parent_id) for e in (ok, missing)] == [
        (tid, "interaction-0", None), (tid, "interaction-1", None)]
    assert ok.name == "POST /v1/chat/completions"
    assert ok.args == {
        "method": "POST", "url": "https://llm.test/v1/chat/completions?trace=1",
        "path": "/v1/chat/completions", "query": {"trace": "1"},
        "headers": {"content-type": "application/json", "authorization": "Bearer sk-test"},
        "body": {"model": "m-small", "messages": [{"role": "user", "content": "hi"}]}}
    assert ok.result["status"] == 200
    assert ok.result["headers"] == {"content-type": "application/json",
                                    "set-cookie": ["first=1", "second=2"]}
    assert ok.result["body"]["id"] == "c1"
    assert (ok.status, ok.start_ns, ok.end_ns) == ("ok", None, None)
    assert ok.attrs == {"vcr.status_message": "OK", "gen_ai.request.model": "m-small",
                        "gen_ai.response.model": "m-small-01",
                        "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 4}
    assert "body" not in missing.args
    assert missing.status == "error"
    assert missing.error == {"code": "HTTP_404", "message": "Not Found", "details": {
        "error": {"message": "model not found", "code": "model_not_found"}}}
    assert info.versions == {"vcr_cassette": 1}
    assert (info.root_task, info.tools) == ("hi", [])


def test_root_task_and_tools_from_model_requests(tmp_path: Path) -> None:
    tool = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}
    first = interaction('{"ok": true}')
    first["request"]["body"] = json.dumps({"model": "m", "tools": [tool], "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "find order 7"}]}]})
    again = interaction('{"ok": true}')
    again["request"]["body"] = json.dumps({"model": "m", "tools": [tool], "input": "next"})
    _, [info] = read(cassette(tmp_path, first, again))
    assert (info.root_task, info.tools) == ("find order 7", [tool])


def test_binary_body_is_a_placeholder_and_flagged(tmp_path: Path) -> None:
    blob = b"\xff\xd8\xff\xe0\x00\x10JFIF"
    [ev], _ = read(cassette(tmp_path, interaction(blob, {"Content-Type": ["image/jpeg"]})))
    assert "!!binary" in (tmp_path / "c.yaml").read_text()
    assert ev.result["body"] == "«binary: 10 bytes, image/jpeg»"
    assert ev.attrs["workbench.flags"] == ["binary_body"]
    assert ev.status == "ok"


def test_gzip_body_is_inflated_when_the_header_says_so(tmp_path: Path) -> None:
    packed = gzip.compress(b'{"answer": 42}')
    gz = {"Content-Type": ["application/json"], "Content-Encoding": ["gzip"]}
    plain = {"Content-Type": ["application/json"]}
    evs, _ = read(cassette(tmp_path, interaction(packed, gz), interaction(packed, plain),
                           interaction(b"\x1f\x8b\x08broken", gz)))
    assert evs[0].result["body"] == {"answer": 42}
    assert "workbench.flags" not in evs[0].attrs
    assert evs[1].result["body"] == f"«binary: {len(packed)} bytes, application/json»"
    assert evs[1].attrs["workbench.flags"] == ["binary_body"]
    assert evs[2].result["body"] == "«binary: 9 bytes, application/json (gzip)»"
    assert evs[2].attrs["workbench.flags"] == ["binary_body"]


def test_utf8_bytes_are_text(tmp_path: Path) -> None:
    [ev], _ = read(cassette(tmp_path, interaction("caf\u00e9 ok".encode())))
    assert ev.result["body"] == "caf\u00e9 ok"
    assert "workbench.flags" not in ev.attrs


def test_responses_stream_is_stitched_to_the_completed_response(tmp_path: Path) -> None:
    final = {"id": "r1", "status": "completed", "model": "m-2",
             "output": [{"type": "message", "content": [{"type": "output_text",
                                                         "text": "Yes."}]}],
             "usage": {"input_tokens": 5, "output_tokens": 2}}
    events = [("response.created", {"type": "response.created",
                                    "response": {"id": "r1", "status": "in_progress"}}),
              ("response.output_text.delta", {"type": "response.output_text.delta",
                                              "delta": "Yes."}),
              ("response.completed", {"type": "response.completed", "response": final})]
    text = ": keep-alive\n\n" + "".join(
        f"event: {name}\ndata: {json.dumps(d)}\n\n" for name, d in events)
    item = interaction(text, {"Content-Type": ["text/event-stream; charset=utf-8"]})
    item["request"]["body"] = json.dumps({"model": "m-2", "input": "?", "stream": True})
    [ev], _ = read(cassette(tmp_path, item))
    body = ev.result["body"]
    assert [e["event"] for e in body["events"]] == [n for n, _ in events]
    assert body["stitched"] == final
    assert ev.attrs["gen_ai.response.model"] == "m-2"
    assert ev.attrs["gen_ai.usage.output_tokens"] == 2


def test_streamed_tool_calls_are_stitched(tmp_path: Path) -> None:
    base = {"id": "c9", "object": "chat.completion.chunk", "created": 7, "model": "m"}

    def call(index: int, **fn: str) -> dict[str, Any]:
        tc: dict[str, Any] = {"index": index, "function": fn}
        if "name" in fn:
            tc.update(id=f"call_{index}", type="function")
        return {**base, "choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]}

    chunks = [call(0, name="lookup", arguments=""), call(1, name="lookup", arguments='{"q"'),
              call(0, arguments='{"q": "a"}'), call(1, arguments=': "b"}'),
              {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
              {**base, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 8}}]
    text = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks) + "data: [DONE]\r\n\r\n"
    [ev], _ = read(cassette(tmp_path, interaction(text, {"Content-Type": ["text/event-stream"]})))
    stitched = ev.result["body"]["stitched"]
    assert stitched["usage"] == {"prompt_tokens": 9, "completion_tokens": 8}
    [choice] = stitched["choices"]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"] == [
        {"id": "call_0", "type": "function", "function": {"name": "lookup",
                                                          "arguments": '{"q": "a"}'}},
        {"id": "call_1", "type": "function", "function": {"name": "lookup",
                                                          "arguments": '{"q": "b"}'}}]


def test_interaction_without_response_is_kept_and_flagged(tmp_path: Path) -> None:
    item = interaction("x")
    del item["response"]
    [ev], _ = read(cassette(tmp_path, item))
    assert (ev.status, ev.result, ev.error) == ("unset", None, None)
    assert ev.attrs["workbench.flags"] == ["unanswered"]


def test_json_cassette_and_ruby_vcr(tmp_path: Path) -> None:
    js = json.dumps({"interactions": [interaction('{"a": 1}')], "version": 1})
    [ev], _ = read(source(tmp_path / "c.json", js))
    assert ev.result["body"] == {"a": 1}
    ruby = """\
http_interactions:
- request:
    method: get
    uri: https://api.test/v2/items
    body: {encoding: UTF-8, string: ''}
    headers: {Accept: ['*/*']}
  response:
    status: {code: 200, message: OK}
    headers: {Content-Type: [application/json]}
    body: {encoding: UTF-8, string: '[1]'}
    http_version: '1.1'
  recorded_at: Tue, 04 Mar 2025 10:00:00 GMT
recorded_with: VCR 6.2.0
"""
    src = source(tmp_path / "r.yml", ruby)
    assert VCR.sniff(src) == 95
    [ev], [info] = read(src)
    assert (ev.name, ev.result["body"], ev.start_ns) == ("GET /v2/items", [1],
                                                         1741082400_000_000_000)
    assert "body" not in ev.args
    assert info.versions == {"recorded_with": "VCR 6.2.0"}


def test_same_file_same_ids(tmp_path: Path) -> None:
    a, _ = read(source(tmp_path / "a.yaml", CASSETTE))
    b, _ = read(source(tmp_path / "a.yaml", CASSETTE))
    assert [(e.trace_id, e.event_id) for e in a] == [(e.trace_id, e.event_id) for e in b]


@pytest.mark.parametrize(("text", "code", "message"), [
    ("interactions:\n- request: {uri: 'x'\n", "INVALID_YAML", "line"),
    ("interactions: []\nversion: 1\n", "INVALID_TRACE", "no interactions"),
    ("version: 1\n", "INVALID_TRACE", "not a VCR cassette"),
    ("- 1\n- 2\n", "INVALID_TRACE", "not a VCR cassette"),
    ("interactions:\n- request: {method: GET}\n", "INVALID_TRACE", "interaction 0 has no"),
    ("interactions:\n- just text\n", "INVALID_TRACE", "interaction 0 has no"),
])
def test_bad_cassettes(tmp_path: Path, text: str, code: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as exc:
        list(VCR.read(source(tmp_path / "bad.yaml", text)))
    assert exc.value.code == code
    if code == "INVALID_TRACE":
        assert isinstance(exc.value, InvalidTraceError)


def test_odd_status_is_unanswered_not_a_crash(tmp_path: Path) -> None:
    item = interaction("x")
    item["response"]["status"] = {"code": "teapot"}
    item["response"]["headers"] = ["not", "a", "map"]
    [ev], _ = read(cassette(tmp_path, item))
    assert ev.status == "unset" and ev.attrs["workbench.flags"] == ["unanswered"]


def test_base64_is_not_guessed_for_text_bodies(tmp_path: Path) -> None:
    text = base64.b64encode(b"hello").decode()
    [ev], _ = read(cassette(tmp_path, interaction(text)))
    assert ev.result["body"] == text
