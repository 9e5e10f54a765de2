"""The shared OTel span mapping: one rule, one tiny input, one known answer."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from workbench.formats._adapter import RawEvent
from workbench.formats.otel._facts import TraceFacts, user_task
from workbench.formats.otel._span import map_span
from workbench.formats.otel._value import (
    SpanScope,
    any_value,
    attributes_dict,
    norm_id,
    span_kind_name,
    status_of,
    time_ns,
)

TID = "0af7651916cd43dd8448eb211c80319c"
SID = "b7ad6b7169203331"


def span(attrs: dict[str, Any], name: str = "span", **kw: Any) -> RawEvent:
    args: dict[str, Any] = {
        "trace_id": TID, "span_id": SID, "parent_id": None, "name": name,
        "span_kind": None, "start_ns": 1, "end_ns": 2, "status": "unset",
        "status_message": None, "attrs": dict(attrs),
    }
    args.update(kw)
    return map_span(**args)


# -- values, ids, kinds, status, times ------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [
    ({"stringValue": "x"}, "x"),
    ({"intValue": "42"}, 42),
    ({"intValue": 42}, 42),
    ({"intValue": "18446744073709551617"}, 18446744073709551617),
    ({"doubleValue": 0.5}, 0.5),
    ({"doubleValue": "NaN"}, pytest.approx(float("nan"), nan_ok=True)),
    ({"boolValue": True}, True),
    ({"boolValue": "false"}, False),
    ({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}]}}, ["a", 1]),
    ({"arrayValue": {}}, []),
    ({"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": False}}]}}, {"k": False}),
    ({"bytesValue": "AAEC"}, "AAEC"),
    ({}, None),
    ("plain", "plain"),
])
def test_any_value(value: Any, expected: Any) -> None:
    assert any_value(value) == expected


def test_attributes_dict_from_otlp_list_and_flat_map() -> None:
    raw = [{"key": "a", "value": {"stringValue": "x"}}, {"key": "n", "value": {"intValue": "3"}}]
    assert attributes_dict(raw) == {"a": "x", "n": 3}
    assert attributes_dict({"a": 1}) == {"a": 1}
    assert attributes_dict(None) == {}


def test_attributes_dict_skips_malformed_entries_instead_of_failing() -> None:
    raw = [{"key": "a", "value": {"stringValue": "x"}}, {"value": {"stringValue": "no key"}},
           "junk", {"key": "b"}]
    assert attributes_dict(raw) == {"a": "x", "b": None}


@pytest.mark.parametrize(("value", "expected"), [
    ("5B8EFFF798038103D269B633813FC60C", "5b8efff798038103d269b633813fc60c"),
    ("EEE19B7EC3C1B174", "eee19b7ec3c1b174"),
    ("0x5b8efff798038103d269b633813fc60c", "5b8efff798038103d269b633813fc60c"),
    ("W47/95gDgQPSabYzgT/GDA==", "5b8efff798038103d269b633813fc60c"),  # base64, 16 bytes
    ("7uGbfsPBsXQ=", "eee19b7ec3c1b174"),  # base64, 8 bytes
    ("", None),
    (None, None),
    ("0000000000000000", None),
    ("not-an-otel-id", "not-an-otel-id"),
    ("Obs-UUID-Kept-As-Given", "Obs-UUID-Kept-As-Given"),
])
def test_norm_id(value: Any, expected: str | None) -> None:
    assert norm_id(value) == expected


@pytest.mark.parametrize(("value", "sdk", "expected"), [
    (0, False, None), (1, False, "INTERNAL"), (2, False, "SERVER"), (3, False, "CLIENT"),
    (4, False, "PRODUCER"), (5, False, "CONSUMER"), (6, False, None),
    (0, True, "INTERNAL"), (2, True, "CLIENT"), (4, True, "CONSUMER"),
    ("SPAN_KIND_SERVER", False, "SERVER"), ("SpanKind.CLIENT", True, "CLIENT"),
    ("internal", False, "INTERNAL"), ("SPAN_KIND_UNSPECIFIED", False, None), (None, False, None),
])
def test_span_kind_name(value: Any, sdk: bool, expected: str | None) -> None:
    assert span_kind_name(value, sdk=sdk) == expected


@pytest.mark.parametrize(("code", "expected"), [
    (0, "unset"), (1, "ok"), (2, "error"), ("STATUS_CODE_ERROR", "error"),
    ("STATUS_CODE_OK", "ok"), ("ERROR", "error"), ("OK", "ok"), ("UNSET", "unset"),
    ("StatusCode.ERROR", "error"), (None, "unset"), (7, "unset"), ([1], "unset"),
])
def test_status_of(code: Any, expected: str) -> None:
    assert status_of(code) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("1544712660000000000", 1544712660000000000),
    (1777555053780274700, 1777555053780274700),
    ([1770131992, 242000000], 1770131992242000000),
    ("2025-09-30T09:03:59.962Z", 1759223039962000000),
    ("0", None), (0, None), (None, None), ("garbage", None),
])
def test_time_ns(value: Any, expected: int | None) -> None:
    assert time_ns(value) == expected


def test_raw_event_field_order_is_what_map_span_builds_positionally() -> None:
    names = [f.name for f in dataclasses.fields(RawEvent)][:12]
    assert names == ["trace_id", "event_id", "parent_id", "kind", "name", "start_ns",
                     "end_ns", "status", "args", "result", "error", "attrs"]


# -- kind ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("attrs", "kind"), [
    ({"gen_ai.operation.name": "invoke_agent"}, "agent"),
    ({"gen_ai.operation.name": "create_agent"}, "agent"),
    ({"gen_ai.operation.name": "chat"}, "llm_call"),
    ({"gen_ai.operation.name": "text_completion"}, "llm_call"),
    ({"gen_ai.operation.name": "generate_content"}, "llm_call"),
    ({"gen_ai.operation.name": "embeddings"}, "llm_call"),
    ({"gen_ai.operation.name": "execute_tool"}, "tool_call"),
    ({"openinference.span.kind": "AGENT"}, "agent"),
    ({"openinference.span.kind": "LLM"}, "llm_call"),
    ({"openinference.span.kind": "EMBEDDING"}, "llm_call"),
    ({"openinference.span.kind": "TOOL"}, "tool_call"),
    ({"openinference.span.kind": "CHAIN"}, "other"),
    ({"llm.request.type": "chat"}, "llm_call"),
    ({"traceloop.span.kind": "tool"}, "tool_call"),
    ({"ai.operationId": "ai.generateText.doGenerate"}, "llm_call"),
    ({"ai.operationId": "ai.streamText.doStream"}, "llm_call"),
    ({"ai.operationId": "ai.toolCall"}, "tool_call"),
    ({"ai.operationId": "ai.generateText"}, "agent"),
    ({"gen_ai.tool.name": "search"}, "tool_call"),
    ({"gen_ai.agent.name": "planner"}, "agent"),
    ({"http.request.method": "GET"}, "http"),
    ({"http.method": "POST"}, "http"),
    ({"gen_ai.operation.name": "chain"}, "other"),
    ({}, "other"),
    # the operation name wins over everything else on the span
    ({"gen_ai.operation.name": "chat", "openinference.span.kind": "TOOL",
      "http.method": "POST"}, "llm_call"),
])
def test_kind(attrs: dict[str, Any], kind: str) -> None:
    assert span(attrs).kind == kind


def test_default_kind_applies_only_when_no_attribute_decides() -> None:
    assert span({}, default_kind="tool_call").kind == "tool_call"
    assert span({"gen_ai.operation.name": "chat"}, default_kind="tool_call").kind == "llm_call"


# -- name -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("attrs", "span_name", "name"), [
    ({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_job"}, "x", "get_job"),
    ({"openinference.span.kind": "TOOL", "tool.name": "search"}, "x", "search"),
    ({"gen_ai.operation.name": "execute_tool"}, "execute_tool get_job", "get_job"),
    ({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1",
      "gen_ai.response.model": "gpt-4.1-2025"}, "chat", "gpt-4.1"),
    ({"gen_ai.operation.name": "chat", "gen_ai.response.model": "gpt-4.1-2025"}, "c",
     "gpt-4.1-2025"),
    ({"openinference.span.kind": "LLM", "llm.model_name": "claude"}, "x", "claude"),
    ({"gen_ai.operation.name": "chat"}, "chat", "chat"),
    ({"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "ops"}, "x", "ops"),
    ({"gen_ai.operation.name": "invoke_agent"}, "invoke_agent ops", "invoke_agent ops"),
    ({"http.request.method": "get", "url.path": "/v1/orders"}, "GET", "GET /v1/orders"),
    ({"http.method": "GET", "http.target": "/v1/orders?limit=5"}, "GET", "GET /v1/orders"),
    ({"http.method": "GET", "http.route": "/v1/orders/{id}"}, "GET", "GET /v1/orders/{id}"),
    ({"http.request.method": "POST", "url.full": "https://api.x.com/v1/a?b=1"}, "POST",
     "POST /v1/a"),
    ({"http.method": "DELETE", "http.url": "http://tools:8084/mcp"}, "DELETE", "DELETE /mcp"),
    ({"http.request.method": "GET"}, "GET", "GET"),
    ({"foo": "bar"}, "a2a.dequeue", "a2a.dequeue"),
])
def test_name(attrs: dict[str, Any], span_name: str, name: str) -> None:
    assert span(attrs, name=span_name).name == name


# -- args and result ----------------------------------------------------------------------


def test_tool_arguments_and_result_are_decoded_and_moved_out_of_attrs() -> None:
    ev = span({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_job",
               "gen_ai.tool.call.arguments": '{"job_id": "j1"}',
               "gen_ai.tool.call.result": '{"status": "queued"}',
               "gen_ai.tool.call.id": "call_1"})
    assert ev.args == {"job_id": "j1"}
    assert ev.result == {"status": "queued"}
    assert "gen_ai.tool.call.arguments" not in ev.attrs
    assert "gen_ai.tool.call.result" not in ev.attrs
    assert ev.attrs["gen_ai.tool.call.id"] == "call_1"


@pytest.mark.parametrize(("args_key", "result_key"), [
    ("input.value", "output.value"),
    ("gcp.vertex.agent.tool_call_args", "gcp.vertex.agent.tool_response"),
    ("ai.toolCall.args", "ai.toolCall.result"),
    ("traceloop.entity.input", "traceloop.entity.output"),
    ("tool_arguments", "tool_response"),
    ("input", "output"),
])
def test_tool_arguments_fall_back_through_the_dialects(args_key: str, result_key: str) -> None:
    ev = span({"gen_ai.operation.name": "execute_tool", args_key: '{"a": 1}',
               result_key: "plain text"})
    assert (ev.args, ev.result) == ({"a": 1}, "plain text")
    assert args_key not in ev.attrs and result_key not in ev.attrs


def test_tool_arguments_prefer_the_genai_attribute_and_keep_the_others() -> None:
    ev = span({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.arguments": "{}",
               "input.value": '{"other": 1}'})
    assert ev.args == {}
    assert ev.attrs["input.value"] == '{"other": 1}'


def test_tool_arguments_already_an_object_stay_as_they_are() -> None:
    ev = span({"gen_ai.operation.name": "execute_tool",
               "gen_ai.tool.call.arguments": {"city": "Paris"}})
    assert ev.args == {"city": "Paris"}


def test_llm_call_with_current_genai_attributes() -> None:
    ev = span({
        "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1",
        "gen_ai.request.temperature": 0.2, "gen_ai.request.max_tokens": 100,
        "gen_ai.input.messages": '[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]',
        "gen_ai.system_instructions": '[{"type": "text", "content": "be brief"}]',
        "gen_ai.output.messages": '[{"role": "assistant", "parts": [], "finish_reason": "stop"}]',
        "gen_ai.response.finish_reasons": ["stop"], "gen_ai.usage.input_tokens": 5,
    })
    assert ev.args == {
        "messages": [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}],
        "system": [{"type": "text", "content": "be brief"}],
        "params": {"temperature": 0.2, "max_tokens": 100},
    }
    assert ev.result == {"messages": [{"role": "assistant", "parts": [], "finish_reason": "stop"}],
                         "finish_reasons": ["stop"]}
    assert ev.attrs["gen_ai.request.model"] == "gpt-4.1"
    assert ev.attrs["gen_ai.usage.input_tokens"] == 5
    for used in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.request.temperature",
                 "gen_ai.system_instructions", "gen_ai.response.finish_reasons"):
        assert used not in ev.attrs


def test_llm_call_with_deprecated_prompt_and_completion_strings() -> None:
    ev = span({"gen_ai.operation.name": "chat", "gen_ai.prompt": '[{"role": "user"}]',
               "gen_ai.completion": '{"text": "ok"}'})
    assert ev.args["messages"] == [{"role": "user"}]
    assert ev.result["messages"] == {"text": "ok"}


def test_llm_call_unflattens_openllmetry_prompt_and_completion() -> None:
    ev = span({
        "llm.request.type": "chat",
        "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "sys",
        "gen_ai.prompt.1.role": "assistant",
        "gen_ai.prompt.1.tool_calls.0.id": "call_1",
        "gen_ai.prompt.1.tool_calls.0.name": "helm_list",
        "gen_ai.prompt.10.role": "user", "gen_ai.prompt.10.content": "late",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "llm.request.functions.0.name": "helm_list",
        "llm.request.functions.0.parameters": '{"type": "object"}',
    })
    assert ev.args["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "name": "helm_list"}]},
        {"role": "user", "content": "late"},
    ]
    assert ev.result == {"messages": [{"role": "assistant", "finish_reason": "tool_calls"}],
                         "finish_reasons": ["tool_calls"]}
    assert ev.args["tools"] == [{"name": "helm_list", "parameters": {"type": "object"}}]
    assert not [k for k in ev.attrs if k.startswith(("gen_ai.prompt", "gen_ai.completion",
                                                      "llm.request.functions"))]


def test_llm_call_unwraps_openinference_messages() -> None:
    ev = span({
        "openinference.span.kind": "LLM", "llm.model_name": "gpt-4",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.contents.0.message_content.type": "text",
        "llm.input_messages.0.message.contents.0.message_content.text": "Weather?",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "get_weather",
        "llm.invocation_parameters": '{"temperature": 0.5}',
        "llm.tools.0.tool.json_schema": '{"type": "function", "function": {"name": "get_weather"}}',
        "input.value": "raw input",
    })
    assert ev.args["messages"] == [
        {"role": "user", "contents": [{"type": "text", "text": "Weather?"}]}]
    assert ev.result["messages"] == [
        {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "get_weather"}}]}]
    assert ev.args["params"] == {"temperature": 0.5}
    assert ev.args["tools"] == [{"type": "function", "function": {"name": "get_weather"}}]
    assert ev.attrs["input.value"] == "raw input"  # the structured messages won


def test_llm_call_without_structured_messages_takes_the_raw_input() -> None:
    ev = span({"openinference.span.kind": "LLM", "input.value": '{"contents": []}',
               "output.value": "done"})
    assert ev.args["messages"] == {"contents": []}
    assert ev.result["messages"] == "done"


@pytest.mark.parametrize(("value", "expected"), [
    ('["stop"]', ["stop"]),   # a JSON-encoded string (ADK)
    (["stop"], ["stop"]),
    ("stop", ["stop"]),
])
def test_finish_reasons(value: Any, expected: list[str]) -> None:
    ev = span({"gen_ai.operation.name": "generate_content",
               "gen_ai.response.finish_reasons": value})
    assert ev.result["finish_reasons"] == expected


def test_llm_call_reads_prompt_and_completion_from_older_content_events() -> None:
    events = [{"name": "gen_ai.content.prompt", "time_ns": 1,
               "attrs": {"gen_ai.prompt": '[{"role": "user", "content": "hi"}]'}},
              {"name": "gen_ai.content.completion", "time_ns": 2,
               "attrs": {"gen_ai.completion": '[{"role": "assistant", "content": "yo"}]'}}]
    ev = span({"gen_ai.operation.name": "chat"}, events=events)
    assert ev.args["messages"] == [{"role": "user", "content": "hi"}]
    assert ev.result["messages"] == [{"role": "assistant", "content": "yo"}]
    assert "otel.events" not in ev.attrs


def test_vercel_model_call_and_tool_call() -> None:
    llm = span({"ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o-mini",
                "ai.prompt.messages": '[{"role": "user", "content": "hi"}]',
                "ai.response.text": "hello", "ai.response.finishReason": "stop"})
    assert (llm.kind, llm.name) == ("llm_call", "gpt-4o-mini")
    assert llm.args["messages"] == [{"role": "user", "content": "hi"}]
    assert llm.result == {"messages": None, "finish_reasons": ["stop"], "text": "hello"}
    tool = span({"ai.operationId": "ai.toolCall", "ai.toolCall.name": "getWeather",
                 "ai.toolCall.args": '{"city": "SF"}', "ai.toolCall.result": '{"t": 64}'})
    assert (tool.kind, tool.name, tool.args, tool.result) == (
        "tool_call", "getWeather", {"city": "SF"}, {"t": 64})


@pytest.mark.parametrize("tools", [
    ['{"type": "function", "name": "getWeather"}'],
    '["{\\"type\\": \\"function\\", \\"name\\": \\"getWeather\\"}"]',
])
def test_vercel_tool_definitions_are_json_texts(tools: Any) -> None:
    ev = span({"ai.operationId": "ai.generateText.doGenerate", "ai.prompt.tools": tools})
    assert ev.args["tools"] == [{"type": "function", "name": "getWeather"}]


def test_agent_and_other_spans_take_input_and_output_values() -> None:
    ev = span({"openinference.span.kind": "AGENT", "input.value": '{"q": 1}',
               "output.value": "done"})
    assert (ev.args, ev.result) == ({"q": 1}, "done")
    assert span({"x": 1}).args is None


def test_http_request_and_response() -> None:
    ev = span({"http.request.method": "GET", "url.full": "https://api.x.com/v1/orders?limit=5",
               "url.path": "/v1/orders", "url.query": "limit=5&tag=a&tag=b",
               "http.request.header.authorization": ["Bearer x"],
               "http.response.header.content-type": ["application/json"],
               "http.response.status_code": 200, "server.address": "api.x.com"})
    assert ev.args == {"method": "GET", "path": "/v1/orders",
                       "query": {"limit": "5", "tag": ["a", "b"]},
                       "headers": {"authorization": ["Bearer x"]}, "body": None}
    assert ev.result == {"status": 200, "headers": {"content-type": ["application/json"]},
                         "body": None}
    assert ev.attrs["url.full"] == "https://api.x.com/v1/orders?limit=5"
    assert ev.attrs["server.address"] == "api.x.com"
    for used in ("http.request.method", "url.path", "url.query", "http.response.status_code",
                 "http.request.header.authorization"):
        assert used not in ev.attrs


def test_http_older_attributes() -> None:
    ev = span({"http.method": "POST", "http.url": "http://h/api/events?user_id=u1",
               "http.status_code": "201"})
    assert ev.name == "POST /api/events"
    assert ev.args["query"] == {"user_id": "u1"}
    assert ev.result["status"] == 201


# -- status and error -----------------------------------------------------------------------


def test_error_status_with_message_and_error_type() -> None:
    ev = span({"error.type": "TimeoutError"}, status="error", status_message="timed out")
    assert ev.status == "error"
    assert ev.error == {"code": "TimeoutError", "message": "timed out", "retryable": None,
                        "safe_to_continue": None, "user_action_required": None, "details": {}}
    assert "error.type" not in ev.attrs


def test_error_type_attribute_turns_an_unset_status_into_error() -> None:
    ev = span({"error.type": "500"})
    assert ev.status == "error"
    assert ev.error is not None and ev.error["code"] == "500"


def test_exception_event_becomes_the_error() -> None:
    events = [{"name": "exception", "time_ns": 5,
               "attrs": {"exception.type": "ValueError", "exception.message": "bad",
                         "exception.stacktrace": "Traceback ...", "exception.escaped": "False"}},
              {"name": "retry", "time_ns": 6, "attrs": {}}]
    ev = span({}, events=events)
    assert ev.status == "error"
    assert ev.error == {"code": "ValueError", "message": "bad", "retryable": None,
                        "safe_to_continue": None, "user_action_required": None,
                        "details": {"stacktrace": "Traceback ...", "time_ns": 5,
                                    "exception.escaped": "False"}}
    assert ev.attrs["otel.events"] == [{"name": "retry", "time_ns": 6, "attrs": {}}]


def test_explicit_ok_status_is_kept_and_the_exception_stays_an_event() -> None:
    events = [{"name": "exception", "time_ns": 5, "attrs": {"exception.type": "KeyError"}}]
    ev = span({"error.type": "KeyError"}, status="ok", events=events)
    assert ev.status == "ok" and ev.error is None
    assert ev.attrs["error.type"] == "KeyError"
    assert ev.attrs["otel.events"] == events


def test_status_message_without_error_is_kept_in_attrs() -> None:
    ev = span({}, status="ok", status_message="fine")
    assert ev.error is None and ev.attrs["otel.status_message"] == "fine"


# -- attrs ----------------------------------------------------------------------------------


def test_attrs_carry_what_the_span_had_besides_args_and_result() -> None:
    scope = SpanScope.build({"service.name": "svc", "host.name": "h1"}, "lib", "1.0",
                            {"scope.attr": 1})
    links = [{"trace_id": TID, "span_id": "00f067aa0ba902b7"}]
    ev = span({"custom": "x"}, name="op", span_kind="SERVER", trace_state="k=v", flags=257,
              scope=scope, links=links, extra={"otel.dropped": {"events": 2}})
    assert ev.attrs == {
        "custom": "x", "otel.span_name": "op", "otel.span_kind": "SERVER",
        "otel.scope.name": "lib", "otel.scope.version": "1.0",
        "otel.scope.attributes": {"scope.attr": 1}, "service.name": "svc",
        "otel.trace_state": "k=v", "otel.links": links, "otel.flags": 257,
        "otel.dropped": {"events": 2},
    }


def test_langfuse_style_fallback_fills_what_attributes_leave_empty() -> None:
    ev = span({}, name="ChatOpenAI", default_kind="llm_call",
              fallback={"model": "gpt-4o", "input": '[{"role": "user", "content": "hi"}]',
                        "output": {"role": "assistant"}})
    assert ev.name == "gpt-4o"
    assert ev.args["messages"] == [{"role": "user", "content": "hi"}]
    assert ev.result["messages"] == {"role": "assistant"}
    tool = span({}, name="Web-Search", default_kind="tool_call",
                fallback={"input": '{"q": "x"}', "output": "found"})
    assert (tool.name, tool.args, tool.result) == ("Web-Search", {"q": "x"}, "found")


# -- trace facts ----------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "task"), [
    ([{"role": "system", "content": "s"}, {"role": "user", "content": " do it "}], "do it"),
    ([{"role": "user", "parts": [{"type": "text", "content": "a"},
                                 {"type": "text", "content": "b"}]}], "a\nb"),
    ('[{"role": "user", "content": [{"type": "text", "text": "json"}]}]', "json"),
    ({"messages": [{"type": "human", "content": "lg"}]}, "lg"),
    ({"prompt": "vercel"}, "vercel"),
    ({"new_message": {"role": "user", "parts": [{"text": "adk"}]}}, "adk"),
    ({"args": ["programming"], "kwargs": {}}, None),
    ("just text", None),
    (None, None),
])
def test_user_task(value: Any, task: str | None) -> None:
    assert user_task(value) == task


def test_trace_facts_collect_models_providers_tools_task_and_resources() -> None:
    facts = TraceFacts()
    scope = SpanScope.build({"service.name": "svc", "service.version": "2",
                             "telemetry.sdk.language": "python",
                             "telemetry.sdk.version": "1.3"}, "lib")
    agent = span({"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai",
                  "gen_ai.tool.definitions": '[{"name": "a"}, {"name": "b"}]',
                  "input.value": '[{"role": "user", "content": "root task"}]'})
    llm = span({"gen_ai.operation.name": "chat", "gen_ai.system": "gemini",
                "gen_ai.request.model": "m1", "gen_ai.response.model": "m1-2025",
                "gen_ai.tool.definitions": [{"type": "function", "function": {"name": "a"}},
                                            {"name": "c"}],
                "gen_ai.input.messages": '[{"role": "user", "content": "later"}]'},
               parent_id=SID)
    for ev in (llm, agent):
        facts.add(ev, scope)
    [info] = list(facts.infos())
    assert info.trace_id == TID
    assert info.root_task == "root task"   # the root agent's beats the first model call's
    assert [t.get("name") or t["function"]["name"] for t in info.tools] == ["a", "c", "b"]
    assert info.versions == {"models": ["m1", "m1-2025"], "providers": ["gemini", "openai"],
                             "sdk": {"language": "python", "version": "1.3"},
                             "service": {"name": "svc", "version": "2"}}
    assert info.attrs == {"resources": [scope.resource]}


def test_trace_facts_skip_traces_with_nothing_to_say() -> None:
    facts = TraceFacts()
    facts.add(span({"x": 1}), None)
    assert list(facts.infos()) == []
