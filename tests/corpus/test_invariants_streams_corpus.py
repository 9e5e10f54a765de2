"""Contract invariants on real recorded LLM calls: OpenAI's own OpenAPI document (an
extract, tests/corpus/openai-openapi-chat) against VCR cassettes of streamed and plain
chat completions (the OTel contrib cassettes of the corpus, and dd-trace-py's, kept in
tests/corpus/dd-trace-py-llm-cassettes), and an Anthropic Messages document written
here from Anthropic's API reference against dd-trace-py's streamed Anthropic call.

- ``shape`` judges a streamed answer event by event against the schema the document
  declares for ``text/event-stream``, never against the JSON one;
- ``refuses_unknown_caller`` does not call a cassette whose recorder stripped the
  credential header (vcrpy's ``filter_headers``) a break: it is not judged, and the
  header is named.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from workbench.ingest import ingest
from workbench.invariants import check_invariants, parse_spec
from workbench.store import Store

HERE = Path(__file__).parent
KEPT = HERE / "dd-trace-py-llm-cassettes"
OPENAI: dict[str, Any] = json.loads((HERE / "openai-openapi-chat" / "openapi.json").read_text())
OTEL = "otel-python-contrib-openai-v2"
STREAMED = "test_chat_completion_multiple_tools_streaming_with_content.yaml"
PLAIN = "test_chat_completion_tool_calls_with_content.yaml"

_EVENTS = ["message_start", "content_block_start", "ping", "content_block_delta",
           "content_block_stop", "message_delta", "message_stop", "error"]
#: Anthropic's Messages API as its reference describes it (not a published document):
#: the API key travels in ``x-api-key``; a stream's events each carry their ``type``
ANTHROPIC: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "Anthropic Messages (fragment)", "version": "1"},
    "servers": [{"url": "https://api.anthropic.com"}],
    "security": [{"api_key": []}],
    "components": {
        "securitySchemes": {"api_key": {"type": "apiKey", "in": "header",
                                        "name": "x-api-key"}},
        "schemas": {
            "Message": {"type": "object", "required": ["id", "type", "role", "content"],
                        "properties": {"id": {"type": "string"},
                                       "type": {"const": "message"},
                                       "role": {"const": "assistant"},
                                       "content": {"type": "array"}}},
            "StreamEvent": {"type": "object", "required": ["type"], "properties": {
                "type": {"type": "string", "enum": _EVENTS},
                "index": {"type": "integer"},
                "message": {"$ref": "#/components/schemas/Message"},
                "delta": {"type": "object"}, "usage": {"type": "object"}}}}},
    "paths": {"/v1/messages": {"post": {
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["model", "messages", "max_tokens"]}}}},
        "responses": {"200": {"description": "a message, or its events", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Message"}},
            "text/event-stream": {"schema": {"$ref": "#/components/schemas/StreamEvent"}}}},
            "4XX": {"description": "an error"}}}}}}


def _judge(store: Store, doc: dict[str, Any]):
    return check_invariants(store, parse_spec(doc, "openapi.json"), record=False)


@pytest.fixture(scope="module")
def otel_store(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Store:
    store = Store(tmp_path_factory.mktemp("otel") / "store")
    ingest([corpus / OTEL / STREAMED, corpus / OTEL / PLAIN], store)
    return store


@pytest.fixture(scope="module")
def stripped_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("stripped") / "store")
    ingest([KEPT / "openai_completion_stream.yaml"], store)
    return store


@pytest.fixture(scope="module")
def anthropic_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("anthropic") / "store")
    ingest([KEPT / "anthropic_completion_stream.yaml"], store)
    return store


def test_streamed_and_plain_openai_calls_hold_to_openais_document(otel_store):
    result = _judge(otel_store, OPENAI)
    assert (result.exchanges, result.judged, result.undocumented) == (3, 3, {})
    assert result.findings == []  # the stream is not held to the JSON body's schema
    assert result.not_judged == {}  # every answer judged: 2 JSON, 1 stream of 18 events


def test_each_event_of_a_stream_is_judged_against_the_streams_schema(otel_store):
    doc = copy.deepcopy(OPENAI)
    doc["components"]["schemas"]["CreateChatCompletionStreamResponse"]["required"].append(
        "moderation")  # a field no recorded chunk carries
    [f] = _judge(otel_store, doc).findings
    assert f.rule == "shape" and f.message == (
        "POST /chat/completions at step 0 answered 200 with a body that breaks its schema: "
        "body.events[0].data.moderation is missing (the contract requires it); in 18 of "
        "the stream's 18 items")


def test_a_stream_where_the_document_declares_json_only_is_counted_not_judged(otel_store):
    doc = copy.deepcopy(OPENAI)
    del doc["paths"]["/chat/completions"]["post"]["responses"]["200"]["content"][
        "text/event-stream"]
    result = _judge(otel_store, doc)
    assert result.findings == []
    assert result.not_judged == {
        ("shape", "no schema declared for text/event-stream answers"): 1}


def test_a_recorder_that_stripped_authorization_is_named_not_called_a_break(stripped_store):
    result = _judge(stripped_store, OPENAI)
    assert "refuses_unknown_caller" not in {f.rule for f in result.findings}
    assert result.not_judged == {
        ("refuses_unknown_caller", "credential stripped by the recorder: no request of the "
                                   "trace carries authorization"): 1}
    # what the stream does break is real: this 2025 answer sent a null the 2026
    # document no longer allows (system_fingerprint: string), in each of its chunks
    assert [f.message for f in result.findings] == [
        "POST /chat/completions at step 0 answered 200 with a body that breaks its schema: "
        "body.events[0].data.system_fingerprint is null, the contract says string; in 22 "
        "of the stream's 22 items"]


def test_the_anthropic_stream_is_judged_per_event_and_x_api_key_named(anthropic_store):
    result = _judge(anthropic_store, ANTHROPIC)
    assert result.findings == []
    assert result.not_judged == {
        ("refuses_unknown_caller", "credential stripped by the recorder: no request of the "
                                   "trace carries x-api-key"): 1}
    doc = copy.deepcopy(ANTHROPIC)
    doc["components"]["schemas"]["StreamEvent"]["properties"]["type"]["enum"].remove("ping")
    [f] = _judge(anthropic_store, doc).findings
    assert f.message.endswith("body.events[2].data.type holds a value the contract's enum "
                              "does not allow; in 1 of the stream's 21 items")

