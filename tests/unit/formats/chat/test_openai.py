"""Adapter ``openai``: Chat Completions and Responses API bodies, streams, bad input."""

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
from workbench.model import InvalidJSONError, InvalidTraceError

FLAGS = "workbench.flags"


def write(tmp_path: Path, doc: Any, name: str = "body.json") -> SourceFile:
    return source(tmp_path / name, json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(OPENAI.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def by_id(events: list[RawEvent]) -> dict[str, RawEvent]:
    return {e.event_id: e for e in events}


def fcall(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name,
                                                        "arguments": json.dumps(args)}}


TOOLS = [{"type": "function", "function": {"name": "get_stock", "parameters": {
    "type": "object", "properties": {"sku": {"type": "string"}}}}}]

CHAT_REQUEST = {
    "model": "gpt-4.1-mini", "temperature": 0, "tools": TOOLS,
    "messages": [
        {"role": "developer", "content": "Answer from the warehouse data."},
        {"role": "user", "content": [{"type": "text", "text": "Stock of A-1 and B-2?"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            fcall("call_1", "get_stock", sku="A-1"), fcall("call_2", "get_stock", sku="B-2")]},
        {"role": "tool", "tool_call_id": "call_2", "content": '{"sku": "B-2", "count": 0}'},
        {"role": "tool", "tool_call_id": "call_1",
         "content": [{"type": "text", "text": "[3, 4]"}]},
        {"role": "tool", "tool_call_id": "call_404", "content": "orphan"},
    ],
}
CHAT_RESPONSE = {
    "id": "chatcmpl-77", "object": "chat.completion", "created": 1754000000,
    "model": "gpt-4.1-mini-2025-04-14", "system_fingerprint": "fp_x",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "refusal": None,
        "tool_calls": [fcall("call_3", "get_stock", sku="C-3")]}}],
    "usage": {"prompt_tokens": 80, "completion_tokens": 12, "total_tokens": 92},
}


def test_chat_exchange(tmp_path: Path) -> None:
    events, [info] = read(write(tmp_path, {"request": CHAT_REQUEST, "response": CHAT_RESPONSE}))
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events] == [
        ("m0", "message", "developer", None),
        ("m1", "message", "user", None),
        ("m2", "llm_call", "assistant", "m1"),  # turns hang off the user prompt
        ("call_1", "tool_call", "get_stock", "m2"),
        ("call_2", "tool_call", "get_stock", "m2"),
        ("call_404", "tool_call", "", None),
        ("chatcmpl-77", "llm_call", "gpt-4.1-mini-2025-04-14", "m1"),
        ("call_3", "tool_call", "get_stock", "chatcmpl-77"),
    ]
    ev = by_id(events)
    assert (ev["call_1"].args, ev["call_1"].result, ev["call_1"].status) == (
        {"sku": "A-1"}, [3, 4], "ok")
    assert ev["call_2"].result == {"sku": "B-2", "count": 0}
    assert ev["call_404"].attrs[FLAGS] == ["unmatched"]
    assert (ev["call_3"].status, ev["call_3"].attrs[FLAGS]) == ("unset", ["unanswered"])
    assert sum(FLAGS in e.attrs for e in events) == 2
    turn = ev["chatcmpl-77"]
    assert turn.start_ns == 1754000000 * 10**9 and turn.end_ns is None
    assert turn.result == {"messages": [CHAT_RESPONSE["choices"][0]["message"]],
                           "finish_reasons": ["tool_calls"]}
    assert turn.attrs["gen_ai.request.model"] == "gpt-4.1-mini"
    assert turn.attrs["gen_ai.usage.input_tokens"] == 80
    assert turn.attrs["gen_ai.usage.output_tokens"] == 12
    assert turn.attrs["openai.system_fingerprint"] == "fp_x"
    assert turn.attrs["gen_ai.response.id"] == "chatcmpl-77"
    assert ev["call_404"].attrs["gen_ai.tool.call.id"] == "call_404"
    assert turn.attrs["openai.request"] == {"temperature": 0}
    assert ev["m2"].result == {"messages": [CHAT_REQUEST["messages"][2]]}
    assert info.root_task == "Stock of A-1 and B-2?"
    assert info.tools == TOOLS
    assert info.versions == {"provider": "openai",
                             "models": ["gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"]}


def test_several_choices_are_several_turns(tmp_path: Path) -> None:
    resp = {**CHAT_RESPONSE, "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "a"}},
        {"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": "b"}}]}
    events, _ = read(write(tmp_path, resp))
    assert [e.event_id for e in events] == ["chatcmpl-77-0", "chatcmpl-77-1"]


def test_continuing_exchanges_are_one_trace(tmp_path: Path) -> None:
    first = {"model": "gpt-x", "messages": CHAT_REQUEST["messages"][:2]}
    reply = {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-x", "choices": [
        {"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [fcall("call_9", "get_stock", sku="A-1")]}}]}
    second = {"model": "gpt-x", "messages": [
        *first["messages"],
        {"role": "assistant", "tool_calls": [fcall("call_9", "get_stock", sku="A-1")]},
        {"role": "tool", "tool_call_id": "call_9", "content": "7"}]}
    final = {"id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-x", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                                                          "content": "7 left"}}]}
    lines = [{"request": first, "response": reply}, {"request": second, "response": final}]
    src = source(tmp_path / "x.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    events, infos = read(src)
    assert len(infos) == 1
    assert [(e.event_id, e.status) for e in events] == [
        ("m0", "unset"), ("m1", "unset"), ("chatcmpl-1", "ok"), ("call_9", "ok"),
        ("chatcmpl-2", "ok")]
    assert by_id(events)["call_9"].result == "7"  # only JSON objects and arrays are decoded


RESPONSES_REQUEST = {
    "model": "gpt-5", "instructions": "Be brief.", "tools": [
        {"type": "function", "name": "get_stock", "parameters": {"type": "object"}},
        {"type": "web_search"}],
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Is A-1 in stock?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get_stock",
         "arguments": '{"sku": "A-1"}', "status": "completed"},
        {"type": "function_call_output", "call_id": "call_a", "output": '{"count": 2}'},
    ],
}
RESPONSES_RESPONSE = {
    "id": "resp_1", "object": "response", "created_at": 1754000100,
    "completed_at": 1754000102, "status": "completed", "model": "gpt-5-2025-08-07",
    "error": None, "incomplete_details": None, "previous_response_id": None,
    "output": [
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "search", "query": "A-1 restock"}},
        {"type": "file_search_call", "id": "fs_1", "status": "failed", "queries": ["A-1"]},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Yes, 2 left.", "annotations": []}]},
        {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "get_stock",
         "arguments": '{"sku": "B-2"}', "status": "completed"},
    ],
    "usage": {"input_tokens": 50, "output_tokens": 9, "total_tokens": 59},
}


def test_responses_exchange(tmp_path: Path) -> None:
    events, [info] = read(write(tmp_path, {"request": RESPONSES_REQUEST,
                                           "response": RESPONSES_RESPONSE}))
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status) for e in events] == [
        ("m0", "message", "system", None, "unset"),
        ("m1", "message", "user", None, "unset"),
        ("m2", "llm_call", "assistant", "m1", "ok"),
        ("call_a", "tool_call", "get_stock", "m2", "ok"),
        ("resp_1", "llm_call", "gpt-5-2025-08-07", "m1", "ok"),
        ("ws_1", "tool_call", "web_search", "resp_1", "ok"),
        ("fs_1", "tool_call", "file_search", "resp_1", "error"),
        ("call_b", "tool_call", "get_stock", "resp_1", "unset"),
    ]
    ev = by_id(events)
    assert ev["m0"].attrs == {"openai.field": "instructions"}
    assert ev["m2"].result == {"messages": RESPONSES_REQUEST["input"][1:3]}
    assert (ev["call_a"].args, ev["call_a"].result) == ({"sku": "A-1"}, {"count": 2})
    assert ev["call_a"].attrs["openai.item_id"] == "fc_1"
    assert ev["ws_1"].args == {"type": "search", "query": "A-1 restock"}
    assert ev["fs_1"].error == {"message": "file_search_call failed"}
    assert ev["call_b"].attrs[FLAGS] == ["unanswered"]
    turn = ev["resp_1"]
    assert (turn.start_ns, turn.end_ns) == (1754000100 * 10**9, 1754000102 * 10**9)
    assert turn.result == {"messages": RESPONSES_RESPONSE["output"]}
    assert turn.attrs["openai.status"] == "completed"
    assert turn.attrs["gen_ai.usage.output_tokens"] == 9
    assert info.root_task == "Is A-1 in stock?"
    assert len(info.tools) == 2


def test_previous_response_id_continues_the_conversation(tmp_path: Path) -> None:
    follow = {"model": "gpt-5", "previous_response_id": "resp_1", "instructions": "Be brief.",
              "input": [
        {"type": "function_call_output", "call_id": "call_b", "output": "5"}]}
    doc = [{"request": RESPONSES_REQUEST, "response": RESPONSES_RESPONSE}, follow]
    events, infos = read(write(tmp_path, doc))
    assert len(infos) == 1
    call = by_id(events)["call_b"]
    assert (call.status, call.result, FLAGS in call.attrs) == ("ok", "5", False)
    assert [e.name for e in events if e.kind == "message"] == ["system", "user"]
    assert len(events) == 8  # the follow-up adds no event: it only answers call_b


def test_responses_failed_and_incomplete(tmp_path: Path) -> None:
    failed = {"id": "resp_f", "object": "response", "status": "failed", "model": "gpt-5",
              "output": [], "error": {"code": "server_error", "message": "boom"}}
    cut = {"id": "resp_i", "object": "response", "status": "incomplete", "model": "gpt-5",
           "output": [], "incomplete_details": {"reason": "max_output_tokens"}}
    events, infos = read(write(tmp_path, [failed, cut]))
    assert len(infos) == 1  # only a request starts a new conversation
    assert (events[0].status, events[0].error) == (
        "error", {"code": "server_error", "message": "boom"})
    assert (events[1].status, events[1].result["finish_reasons"]) == ("ok", ["max_output_tokens"])


@pytest.mark.parametrize("request_body", [
    {"model": "gpt-nope", "messages": [{"role": "user", "content": "hi"}]},
    {"model": "gpt-nope", "input": "hi"},
])
def test_error_body_is_a_failed_model_call(tmp_path: Path, request_body: Any) -> None:
    err = {"error": {"message": "The model does not exist", "type": "invalid_request_error",
                     "param": None, "code": "model_not_found"}}
    events, _ = read(write(tmp_path, {"request": request_body, "response": err}))
    assert [(e.kind, e.name, e.status) for e in events] == [
        ("message", "user", "unset"), ("llm_call", "gpt-nope", "error")]
    assert events[1].error == {"code": "model_not_found", "message": "The model does not exist",
                               "details": {"type": "invalid_request_error"}}


def test_legacy_function_call(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "time?"},
            {"role": "assistant", "content": None,
             "function_call": {"name": "now", "arguments": "{}"}},
            {"role": "function", "name": "now", "content": "12:00"}]
    events, _ = read(write(tmp_path, msgs))
    call = events[2]
    assert (call.kind, call.name, call.parent_id, call.args, call.result, call.status) == (
        "tool_call", "now", "m1", {}, "12:00", "ok")


def test_responses_items_as_jsonl(tmp_path: Path) -> None:
    items = [{"role": "user", "content": "go"},
             {"type": "function_call", "call_id": "c1", "name": "run", "arguments": "{}"},
             {"type": "function_call", "call_id": "c2", "name": "run", "arguments": "{}"},
             {"type": "function_call_output", "call_id": "c2", "output": "two"},
             {"type": "message", "role": "assistant", "content": [
                 {"type": "output_text", "text": "half done"}]}]
    src = source(tmp_path / "items.jsonl", "\n".join(json.dumps(i) for i in items) + "\n")
    assert OPENAI.sniff(src) == 85
    events, _ = read(src)
    assert [(e.event_id, e.kind, e.parent_id, e.status) for e in events] == [
        ("m0", "message", None, "unset"), ("m1", "llm_call", "m0", "ok"),
        ("c1", "tool_call", "m1", "unset"), ("c2", "tool_call", "m1", "ok"),
        ("m2", "llm_call", "m0", "ok")]


CHUNKS = [
    {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1754000200,
     "model": "gpt-4o", "choices": [{"index": 0, "delta": {"role": "assistant",
                                                           "content": None}}]},
    {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1754000200,
     "model": "gpt-4o", "choices": [{"index": 0, "delta": {"tool_calls": [
         {"index": 0, "id": "call_s", "type": "function",
          "function": {"name": "get_stock", "arguments": ""}}]}}]},
    {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1754000200,
     "model": "gpt-4o", "choices": [{"index": 0, "delta": {"tool_calls": [
         {"index": 0, "function": {"arguments": '{"sku": '}}]}}]},
    {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1754000200,
     "model": "gpt-4o", "choices": [{"index": 0, "delta": {"tool_calls": [
         {"index": 0, "function": {"arguments": '"Z-9"}'}}]}}]},
    {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1754000200,
     "model": "gpt-4o", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1754000200,
     "model": "gpt-4o", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 6}},
]


def check_chunks(events: list[RawEvent]) -> None:
    turn, call = events
    assert (turn.event_id, turn.name, turn.start_ns) == ("chatcmpl-s", "gpt-4o",
                                                         1754000200 * 10**9)
    assert turn.result["finish_reasons"] == ["tool_calls"]
    assert turn.result["messages"][0]["tool_calls"] == [
        {"id": "call_s", "type": "function",
         "function": {"name": "get_stock", "arguments": '{"sku": "Z-9"}'}}]
    assert turn.attrs["openai.streamed"] is True
    assert turn.attrs["gen_ai.usage.output_tokens"] == 6
    assert (call.event_id, call.args, call.parent_id) == ("call_s", {"sku": "Z-9"},
                                                          "chatcmpl-s")


def test_chat_chunks_as_json_array(tmp_path: Path) -> None:
    src = write(tmp_path, CHUNKS)
    assert OPENAI.sniff(src) == 95
    check_chunks(read(src)[0])


def test_chat_chunks_as_server_sent_events(tmp_path: Path) -> None:
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in CHUNKS) + "data: [DONE]\n\n"
    src = source(tmp_path / "chunks.sse", sse)
    assert OPENAI.sniff(src) == 95
    check_chunks(read(src)[0])


def test_chat_chunks_as_jsonl(tmp_path: Path) -> None:
    src = source(tmp_path / "chunks.jsonl", "\n".join(json.dumps(c) for c in CHUNKS) + "\n")
    check_chunks(read(src)[0])


def test_responses_stream_is_stitched(tmp_path: Path) -> None:
    base = {"id": "resp_s", "object": "response", "model": "gpt-5", "output": [],
            "created_at": 1754000300}
    item = {"type": "function_call", "id": "fc_s", "call_id": "call_s", "name": "get_stock",
            "arguments": '{"sku": "Q"}', "status": "completed"}
    events = [
        {"type": "response.created", "sequence_number": 0,
         "response": {**base, "status": "in_progress"}},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
         "item": {**item, "arguments": "", "status": "in_progress"}},
        {"type": "response.function_call_arguments.delta", "sequence_number": 2,
         "delta": '{"sku": "Q"}', "output_index": 0, "item_id": "fc_s"},
        {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0,
         "item": item},
        {"type": "response.completed", "sequence_number": 4,
         "response": {**base, "status": "completed", "completed_at": 1754000301}},
    ]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    got, _ = read(write(tmp_path, {"request": {"model": "gpt-5", "input": "stock of Q"},
                                   "response": sse}))
    assert [(e.event_id, e.kind, e.status) for e in got] == [
        ("m0", "message", "unset"), ("resp_s", "llm_call", "ok"),
        ("call_s", "tool_call", "unset")]
    assert got[1].result["messages"] == [item]
    assert got[2].args == {"sku": "Q"}


@pytest.mark.parametrize(("doc", "score"), [
    (CHAT_RESPONSE, 95),
    (RESPONSES_RESPONSE, 95),
    (CHAT_REQUEST, 90),
    (RESPONSES_REQUEST, 90),
    ({"model": "gpt-5", "input": "hello", "instructions": "be brief"}, 85),
    ({"model": "gpt-5", "input": "hello"}, 60),  # also the embeddings API's shape
    ({"model": "gpt-5", "input": [{"role": "user", "content": "hello"}]}, 85),
    ({"request": CHAT_REQUEST, "response": CHAT_RESPONSE}, 95),
    ({"request": {"model": "gpt-5", "input": "hello"}, "response": RESPONSES_RESPONSE}, 95),
    (CHAT_REQUEST["messages"], 85),
    ({"error": {"message": "bad key", "type": "invalid_request_error"}}, 60),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], 60),
    ({"role": "tool", "tool_call_id": "c", "content": "x"}, 30),
])
def test_sniff(tmp_path: Path, doc: Any, score: int) -> None:
    assert OPENAI.sniff(write(tmp_path, doc)) == score


@pytest.mark.parametrize("doc", [
    {"model": "claude-x", "system": "s", "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                      "content": "x"}]}]},
    {"id": "msg_1", "type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
    # trajectories and logs that hold OpenAI-style messages inside their own envelope
    {"trajectory": [], "history": [{"role": "system", "content": "x"}], "info": {}},
    [{"task_id": 0, "reward": 0.0, "info": {},
      "traj": [{"role": "tool", "tool_call_id": "c", "content": "x"}]}],
    {"version": 2, "eval": {}, "samples": [{"messages": [{"role": "tool", "content": "x"}]}]},
    # a JSON-RPC error is not an API error body
    {"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "bad"}},
    {"hello": "world"},
])
def test_sniff_leaves_other_shapes_alone(tmp_path: Path, doc: Any) -> None:
    assert OPENAI.sniff(write(tmp_path, doc)) == 0


def test_anthropic_does_not_claim_openai_bodies(tmp_path: Path) -> None:
    for doc in (CHAT_REQUEST, CHAT_RESPONSE, RESPONSES_REQUEST, RESPONSES_RESPONSE, CHUNKS):
        assert ANTHROPIC.sniff(write(tmp_path, doc)) == 0


def test_an_error_event_fails_the_streamed_response(tmp_path: Path) -> None:
    events = [{"type": "response.created", "sequence_number": 0, "response": {
        "id": "resp_e", "object": "response", "model": "gpt-5", "status": "in_progress",
        "output": []}},
              {"type": "error", "sequence_number": 1, "code": "server_error",
               "message": "stream broke", "param": None}]
    got, _ = read(write(tmp_path, events))
    assert [(e.event_id, e.status) for e in got] == [("resp_e", "error")]
    assert got[0].error == {"code": "server_error", "message": "stream broke"}


def test_large_file_is_judged_from_its_opening(tmp_path: Path) -> None:
    big = {**CHAT_REQUEST, "messages": [*CHAT_REQUEST["messages"],
                                        {"role": "user", "content": "x" * 70000}]}
    src = write(tmp_path, big)
    assert src.size > len(src.head)
    assert OPENAI.sniff(src) == 40
    assert len(read(src)[0]) == 7


def test_truncated_json(tmp_path: Path) -> None:
    full = json.dumps({"request": CHAT_REQUEST, "response": CHAT_RESPONSE})
    with pytest.raises(InvalidJSONError):
        read(source(tmp_path / "cut.json", full[: len(full) // 2]))


def test_broken_event_in_a_stream_names_its_line(tmp_path: Path) -> None:
    sse = f"data: {json.dumps(CHUNKS[0])}\n\ndata: {{\"id\": \n\n"
    with pytest.raises(InvalidJSONError) as exc:
        read(source(tmp_path / "s.sse", sse))
    assert "line 3" in exc.value.message


@pytest.mark.parametrize(("doc", "words"), [
    ({"hello": "world"}, "item 1 is not an openai request"),
    ([], "no openai messages"),
    ({"model": "gpt-x", "messages": []}, "no openai messages"),
    ({"messages": [{"content": "anon"}]}, "a message has no role"),
    ({"messages": [{"role": "user", "content": "x"}, "text"]}, "a message is not an object"),
    ({"id": "c", "object": "chat.completion", "choices": ["not a choice"]},
     "item 1 is malformed"),
    ([{"object": "chat.completion.chunk", "choices": [None]}],
     "a streamed response is malformed"),
    ({"request": {"model": "text-embedding-3-small", "input": "hi"},
      "response": {"object": "list", "data": [{"embedding": [0.1]}]}},
     "is not a chat.completion, a Responses API response or an error body"),
])
def test_wrong_shape_is_invalid_trace(tmp_path: Path, doc: Any, words: str) -> None:
    with pytest.raises(InvalidTraceError) as exc:
        read(write(tmp_path, doc))
    assert exc.value.code == "INVALID_TRACE"
    assert words in exc.value.message


def test_recording_order_is_the_file_order(tmp_path: Path) -> None:
    # only the response has a time; the store must keep the messages before it
    events, _ = read(write(tmp_path, {"request": CHAT_REQUEST, "response": CHAT_RESPONSE}))
    assert OPENAI.file_order and all(e.seq is None for e in events)
    times = [e.start_ns for e in events]
    assert times[0] is None and any(t is not None for t in times)


def test_inline_images_keep_a_placeholder(tmp_path: Path) -> None:
    url = "data:image/jpeg;base64," + "A" * 400
    msgs = [{"role": "user", "content": [{"type": "text", "text": "what is it?"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]
    events, _ = read(write(tmp_path, msgs))
    assert events[0].result["content"][1] == {
        "type": "image_url", "image_url": {"url": "«base64 image/jpeg: 400 chars»"}}


def test_jsonl_with_a_first_line_longer_than_the_head(tmp_path: Path) -> None:
    long = {"model": "gpt-x", "messages": [{"role": "user", "content": "y" * 70000}]}
    short = {"model": "gpt-x", "messages": [{"role": "user", "content": "other task"}]}
    events, infos = read(source(tmp_path / "two.jsonl", f"{json.dumps(long)}\n"
                                                         f"{json.dumps(short)}\n"))
    assert len(infos) == 2 and len(events) == 2


BODIES = [CHAT_REQUEST, CHAT_RESPONSE, RESPONSES_REQUEST, RESPONSES_RESPONSE, CHUNKS,
          {"request": CHAT_REQUEST, "response": CHAT_RESPONSE}]
ADAPTER = OPENAI


# --- odd values anywhere in a valid body: a clear error or events, never a crash -----------

@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(range(len(BODIES))), st.data())
def test_odd_values_never_crash(tmp_path_factory: pytest.TempPathFactory, n: int,
                                data: st.DataObject) -> None:
    doc = with_odd_values(data, BODIES[n])
    assert_reads_or_refuses(ADAPTER, write(tmp_path_factory.mktemp("odd"), doc))


def test_generated_images_and_audio_keep_a_placeholder(tmp_path: Path) -> None:
    png = "iVBORw0KGgo" * 200
    resp = {"id": "resp_img", "object": "response", "status": "completed", "model": "gpt-5",
            "instructions": "Draw what is asked.",
            "output": [{"type": "image_generation_call", "id": "ig_1", "status": "completed",
                        "result": png}]}
    events, [info] = read(write(tmp_path, resp))
    assert [(e.event_id, e.kind) for e in events] == [
        ("m0", "message"), ("resp_img", "llm_call"), ("ig_1", "tool_call")]
    assert info.root_task == "Draw what is asked."  # no request: the response's instructions
    assert events[2].result == "«base64 data: 2200 chars»"
    assert events[1].result["messages"][0]["result"] == "«base64 data: 2200 chars»"
    chat = {"id": "chatcmpl-a", "object": "chat.completion", "model": "gpt-4o-audio",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": None,
                "audio": {"id": "audio_1", "data": png, "transcript": "hi"}}}]}
    [turn], _ = read(write(tmp_path, chat, "chat.json"))
    assert turn.result["messages"][0]["audio"] == {
        "id": "audio_1", "data": "«base64 data: 2200 chars»", "transcript": "hi"}
