"""Adapter ``anthropic``: Messages API bodies, message lists, streams, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import assert_reads_or_refuses, with_odd_values
from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.chat._anthropic import ANTHROPIC
from workbench.formats.chat._openai import OPENAI
from workbench.model import EncodingError, InvalidJSONError, InvalidTraceError

FLAGS = "workbench.flags"


def write(tmp_path: Path, doc: Any, name: str = "body.json") -> SourceFile:
    return source(tmp_path / name, json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(ANTHROPIC.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def by_id(events: list[RawEvent]) -> dict[str, RawEvent]:
    return {e.event_id: e for e in events}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(uid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": uid, "name": name, "input": args}


def res(uid: str, content: Any, **kw: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": uid, "content": content, **kw}


TOOLS = [{"name": "lookup_invoice", "description": "find an invoice",
          "input_schema": {"type": "object", "properties": {"number": {"type": "string"}}}},
         {"name": "refund", "input_schema": {"type": "object"}}]

REQUEST = {
    "model": "claude-opus-4-1", "max_tokens": 512, "temperature": 0.2,
    "system": "You handle billing questions.", "tools": TOOLS,
    "messages": [
        {"role": "user", "content": "Refund invoice INV-40 and INV-41 please"},
        {"role": "assistant", "content": [
            text("Checking both."), use("toolu_a", "lookup_invoice", number="INV-40"),
            use("toolu_b", "lookup_invoice", number="INV-41")]},
        {"role": "user", "content": [
            res("toolu_b", [text('{"number": "INV-41", "paid": false}')]),
            res("toolu_a", "no such invoice", is_error=True),
            res("toolu_zz", "stray output"),
            text("also check INV-42")]},
    ],
}
RESPONSE = {
    "id": "msg_0177", "type": "message", "role": "assistant", "model": "claude-opus-4-1-20250805",
    "content": [{"type": "thinking", "thinking": "INV-41 is unpaid", "signature": "c2ln"},
                use("toolu_c", "refund", number="INV-41", amount=30)],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 321, "output_tokens": 45, "cache_read_input_tokens": 0},
}


def test_exchange_pairs_parallel_calls_out_of_order(tmp_path: Path) -> None:
    events, [info] = read(write(tmp_path, {"request": REQUEST, "response": RESPONSE}))
    assert [(e.event_id, e.kind, e.name) for e in events] == [
        ("m0", "message", "system"),
        ("m1", "message", "user"),
        ("m2", "llm_call", "assistant"),
        ("toolu_a", "tool_call", "lookup_invoice"),
        ("toolu_b", "tool_call", "lookup_invoice"),
        ("toolu_zz", "tool_call", ""),
        ("m3", "message", "user"),
        ("msg_0177", "llm_call", "claude-opus-4-1-20250805"),
        ("toolu_c", "tool_call", "refund"),
    ]
    ev = by_id(events)
    assert len({e.trace_id for e in events}) == 1 and events[0].trace_id == info.trace_id
    # results arrived b before a; each pairs with its own call
    assert ev["toolu_a"].args == {"number": "INV-40"}
    assert (ev["toolu_a"].status, ev["toolu_a"].result) == ("error", "no such invoice")
    assert ev["toolu_a"].error == {"message": "no such invoice"}
    assert (ev["toolu_b"].status, ev["toolu_b"].result) == ("ok", {"number": "INV-41",
                                                                   "paid": False})
    assert ev["toolu_b"].error is None
    assert [ev[i].parent_id for i in ("toolu_a", "toolu_b", "toolu_c")] == ["m2", "m2", "msg_0177"]
    # an unknown id is kept and flagged; a call never answered stays unset and flagged
    assert (ev["toolu_zz"].parent_id, ev["toolu_zz"].status, ev["toolu_zz"].result) == (
        None, "ok", "stray output")
    assert ev["toolu_zz"].attrs[FLAGS] == ["unmatched"]
    assert (ev["toolu_c"].status, ev["toolu_c"].result) == ("unset", None)
    assert ev["toolu_c"].attrs[FLAGS] == ["unanswered"]
    assert sum(FLAGS in e.attrs for e in events) == 2
    # the user's text next to the results is its own message
    assert ev["m3"].result == {"role": "user", "content": [text("also check INV-42")]}
    assert ev["m1"].result == {"role": "user",
                               "content": "Refund invoice INV-40 and INV-41 please"}
    assert ev["m1"].args is None and ev["m1"].status == "unset"


def test_response_turn_carries_model_usage_and_stop_reason(tmp_path: Path) -> None:
    events, _ = read(write(tmp_path, {"request": REQUEST, "response": RESPONSE}))
    turn = by_id(events)["msg_0177"]
    assert turn.status == "ok" and turn.args is None
    assert turn.result == {"messages": [{"role": "assistant", "content": RESPONSE["content"]}],
                           "finish_reasons": ["tool_use"]}
    assert turn.attrs["gen_ai.request.model"] == "claude-opus-4-1"
    assert turn.attrs["gen_ai.response.model"] == "claude-opus-4-1-20250805"
    assert turn.attrs["gen_ai.usage.input_tokens"] == 321
    assert turn.attrs["gen_ai.usage.output_tokens"] == 45
    assert turn.attrs["anthropic.stop_reason"] == "tool_use"
    assert turn.attrs["gen_ai.response.id"] == "msg_0177"
    assert by_id(events)["toolu_c"].attrs["gen_ai.tool.call.id"] == "toolu_c"
    assert turn.attrs["anthropic.request"] == {"max_tokens": 512, "temperature": 0.2}
    assert "anthropic.stop_sequence" not in turn.attrs  # null
    history = by_id(events)["m2"]
    assert history.name == "assistant" and history.attrs == {}
    assert history.start_ns is None and history.end_ns is None  # the API gives no times


def test_trace_info(tmp_path: Path) -> None:
    _, [info] = read(write(tmp_path, {"request": REQUEST, "response": RESPONSE}))
    assert info.root_task == "Refund invoice INV-40 and INV-41 please"
    assert info.tools == TOOLS
    assert info.versions == {"provider": "anthropic",
                             "models": ["claude-opus-4-1", "claude-opus-4-1-20250805"]}


def test_system_prompt_is_the_task_when_no_user_text(tmp_path: Path) -> None:
    req = {"system": [text("Summarise the ledger")], "messages": [
        {"role": "user", "content": [res("toolu_q", "x")]}]}
    events, [info] = read(write(tmp_path, req))
    assert info.root_task == "Summarise the ledger"
    assert [e.name for e in events] == ["system", ""]


def test_same_file_gives_same_ids(tmp_path: Path) -> None:
    a, _ = read(write(tmp_path, {"request": REQUEST, "response": RESPONSE}, "a.json"))
    b, _ = read(write(tmp_path, {"request": REQUEST, "response": RESPONSE}, "b.json"))
    assert [(e.trace_id, e.event_id) for e in a] == [(e.trace_id, e.event_id) for e in b]
    assert len(a[0].trace_id) == 32


def test_bare_message_list(tmp_path: Path) -> None:
    msgs = REQUEST["messages"]
    events, [info] = read(write(tmp_path, msgs))
    assert [e.event_id for e in events] == ["m0", "m1", "toolu_a", "toolu_b", "toolu_zz", "m2"]
    assert info.root_task == "Refund invoice INV-40 and INV-41 please"
    assert info.tools == []


def test_jsonl_of_messages_is_one_conversation(tmp_path: Path) -> None:
    lines = "\n".join(json.dumps(m) for m in REQUEST["messages"]) + "\n"
    events, infos = read(source(tmp_path / "msgs.jsonl", lines))
    assert len(infos) == 1
    assert [e.event_id for e in events] == ["m0", "m1", "toolu_a", "toolu_b", "toolu_zz", "m2"]


def test_a_continuing_request_adds_only_its_new_messages(tmp_path: Path) -> None:
    first = {"model": "claude-opus-4-1", "messages": REQUEST["messages"][:1]}
    reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-1",
             "content": [use("toolu_a", "lookup_invoice", number="INV-40")],
             "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}
    second = {"model": "claude-opus-4-1", "messages": [
        *first["messages"], {"role": "assistant", "content": reply["content"]},
        {"role": "user", "content": [res("toolu_a", "found")]}]}
    final = {"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-opus-4-1",
             "content": [text("Done.")], "stop_reason": "end_turn"}
    other = {"messages": [{"role": "user", "content": "unrelated"}]}
    doc = [{"request": first, "response": reply}, {"request": second, "response": final}, other]
    events, infos = read(write(tmp_path, doc))
    assert len(infos) == 2
    one = [e for e in events if e.trace_id == infos[0].trace_id]
    assert [(e.event_id, e.status) for e in one] == [
        ("m0", "unset"), ("msg_1", "ok"), ("toolu_a", "ok"), ("msg_2", "ok")]
    assert one[2].result == "found" and FLAGS not in one[2].attrs
    two = [e for e in events if e.trace_id == infos[1].trace_id]
    assert [e.result for e in two] == [{"role": "user", "content": "unrelated"}]


def test_error_body_is_a_failed_model_call(tmp_path: Path) -> None:
    doc = {"request": {"model": "claude-opus-4-1", "messages": [
        {"role": "user", "content": "hi"}]},
           "response": {"type": "error", "error": {"type": "overloaded_error",
                                                   "message": "Overloaded"},
                        "request_id": "req_9"}}
    events, _ = read(write(tmp_path, doc))
    err = events[-1]
    assert (err.event_id, err.kind, err.name, err.status) == (
        "req_9", "llm_call", "claude-opus-4-1", "error")
    assert err.error == {"code": "overloaded_error", "message": "Overloaded", "retryable": True}


def test_server_tool_use_pairs_inside_the_turn(tmp_path: Path) -> None:
    resp = {"id": "msg_s", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                         "input": {"query": "weather"}},
                        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                         "content": {"type": "web_search_tool_result_error",
                                     "error_code": "max_uses_exceeded"}}],
            "stop_reason": "end_turn"}
    events, _ = read(write(tmp_path, resp))
    call = by_id(events)["srvtoolu_1"]
    assert (call.name, call.status, call.parent_id) == ("web_search", "error", "msg_s")
    assert call.attrs["anthropic.block_type"] == "server_tool_use"


def test_images_keep_a_placeholder_not_the_data(tmp_path: Path) -> None:
    data = "iVBORw0KGgo" * 100
    msgs = [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        text("what is this?")]}]
    events, _ = read(write(tmp_path, msgs))
    block = events[0].result["content"][0]
    assert block["source"]["data"] == "«base64 image/png: 1100 chars»"
    assert block["source"]["media_type"] == "image/png"


STREAM = [
    {"type": "message_start", "message": {
        "id": "msg_st", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [], "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "ping"},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Look"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ing"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {
        "type": "tool_use", "id": "toolu_s", "name": "refund", "input": {}}},
    {"type": "content_block_delta", "index": 1, "delta": {
        "type": "input_json_delta", "partial_json": '{"number": "IN'}},
    {"type": "content_block_delta", "index": 1, "delta": {
        "type": "input_json_delta", "partial_json": 'V-7"}'}},
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
     "usage": {"output_tokens": 20}},
    {"type": "message_stop"},
]


def check_stream(events: list[RawEvent]) -> None:
    turn, call = events
    assert (turn.event_id, turn.name) == ("msg_st", "claude-x")
    assert turn.result["messages"][0]["content"] == [
        text("Looking"), {"type": "tool_use", "id": "toolu_s", "name": "refund",
                          "input": {"number": "INV-7"}}]
    assert turn.result["finish_reasons"] == ["tool_use"]
    assert turn.attrs["gen_ai.usage.output_tokens"] == 20
    assert turn.attrs["anthropic.streamed"] is True
    assert (call.args, call.parent_id, call.attrs[FLAGS]) == (
        {"number": "INV-7"}, "msg_st", ["unanswered"])


def test_streamed_events_are_stitched(tmp_path: Path) -> None:
    src = write(tmp_path, STREAM)
    assert ANTHROPIC.sniff(src) == 95
    check_stream(read(src)[0])


def test_server_sent_events_are_stitched(tmp_path: Path) -> None:
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in STREAM)
    src = source(tmp_path / "stream.txt", sse)
    assert ANTHROPIC.sniff(src) == 95
    check_stream(read(src)[0])


def test_exchange_with_sse_text_response(tmp_path: Path) -> None:
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in STREAM)
    events, _ = read(write(tmp_path, {"request": {"model": "claude-x", "messages": [
        {"role": "user", "content": "refund INV-7"}]}, "response": sse}))
    check_stream(events[1:])


@pytest.mark.parametrize(("doc", "score"), [
    (RESPONSE, 95),
    ({"request": REQUEST, "response": RESPONSE}, 95),  # the surer of its two parts
    ({"request": {"messages": [{"role": "user", "content": "hi"}]}, "response": RESPONSE}, 95),
    (REQUEST, 90),
    (REQUEST["messages"], 90),
    ({"type": "error", "error": {"type": "api_error", "message": "x"}}, 80),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], 55),
    ({"role": "user", "content": "hi"}, 30),
])
def test_sniff(tmp_path: Path, doc: Any, score: int) -> None:
    assert ANTHROPIC.sniff(write(tmp_path, doc)) == score


@pytest.mark.parametrize("doc", [
    # OpenAI shapes
    {"model": "gpt-4o", "messages": [{"role": "system", "content": "x"},
                                     {"role": "user", "content": "y"}]},
    {"id": "chatcmpl-1", "object": "chat.completion", "choices": []},
    # an exchange one part of which is not ours
    {"request": REQUEST, "response": {"id": "chatcmpl-1", "object": "chat.completion"}},
    # other formats that carry Anthropic messages inside their own envelope
    {"type": "assistant", "uuid": "u1", "message": RESPONSE},
    {"trajectory": [], "history": [{"role": "user", "content": "x"}], "info": {}},
    [{"task_id": 0, "reward": 1.0, "traj": [{"role": "user", "content": "x"}]}],
    {"version": 2, "eval": {}, "samples": [{"messages": [{"role": "user", "content": "x"}]}]},
    # an MCP sampling message spells its keys in camelCase
    {"role": "assistant", "content": [use("c1", "get")], "model": "m", "stopReason": "toolUse"},
    {"hello": "world"},
])
def test_sniff_leaves_other_shapes_alone(tmp_path: Path, doc: Any) -> None:
    assert ANTHROPIC.sniff(write(tmp_path, doc)) == 0


def test_plain_text_turns_go_to_openai_by_a_small_margin(tmp_path: Path) -> None:
    src = write(tmp_path, [{"role": "user", "content": "hi"},
                           {"role": "assistant", "content": "hello"}])
    assert OPENAI.sniff(src) > ANTHROPIC.sniff(src) > 0


def test_truncated_json(tmp_path: Path) -> None:
    full = json.dumps({"request": REQUEST, "response": RESPONSE}, indent=2)
    with pytest.raises(InvalidJSONError) as exc:
        read(source(tmp_path / "cut.json", full[: len(full) // 2]))
    assert exc.value.code == "INVALID_JSON"


def test_not_utf8(tmp_path: Path) -> None:
    raw = json.dumps(REQUEST["messages"]).replace("please", "caf\u00e9").encode("latin-1")
    with pytest.raises(EncodingError):
        read(source(tmp_path / "latin1.json", raw))


@pytest.mark.parametrize(("doc", "words"), [
    ({"hello": "world"}, "item 1 is not an anthropic request"),
    ([REQUEST["messages"][0], 42], "item 2 is not"),
    ([], "no anthropic messages"),
    ({"messages": []}, "no anthropic messages"),
    ({"messages": [{"content": "who am I"}]}, "item 1 is malformed: a message has no role"),
    ({"request": REQUEST, "response": {"type": "error", "error": "oops"}}, "item 1 is malformed"),
    ([{"type": "message_start", "message": {}}, {"type": "content_block_delta", "index": 0,
                                                 "delta": "text"}],
     "a streamed response is malformed"),
])
def test_wrong_shape_is_invalid_trace(tmp_path: Path, doc: Any, words: str) -> None:
    with pytest.raises(InvalidTraceError) as exc:
        read(write(tmp_path, doc))
    assert exc.value.code == "INVALID_TRACE"
    assert words in exc.value.message


def test_odd_values_are_kept(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": 5},
            {"role": "assistant", "content": [{"type": "tool_use", "name": "noid", "input": {}},
                                              "loose string"]},
            {"role": "user", "content": [res(["not", "an", "id"], "x")]}]
    events, _ = read(write(tmp_path, msgs))
    assert [(e.event_id, e.kind) for e in events] == [
        ("m0", "message"), ("m1", "llm_call"), ("call-2", "tool_call"),
        ("result-3", "tool_call")]
    assert events[0].result == {"role": "user", "content": 5}
    assert events[2].attrs[FLAGS] == ["unanswered"]
    assert (events[3].result, events[3].attrs[FLAGS]) == ("x", ["unmatched"])


BODIES = [REQUEST, RESPONSE, STREAM, REQUEST["messages"], {"request": REQUEST, "response": RESPONSE}]
ADAPTER = ANTHROPIC


# --- odd values anywhere in a valid body: a clear error or events, never a crash -----------

@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(range(len(BODIES))), st.data())
def test_odd_values_never_crash(tmp_path_factory: pytest.TempPathFactory, n: int,
                                data: st.DataObject) -> None:
    doc = with_odd_values(data, BODIES[n])
    assert_reads_or_refuses(ADAPTER, write(tmp_path_factory.mktemp("odd"), doc))
