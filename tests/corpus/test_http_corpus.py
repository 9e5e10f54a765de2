"""The HTTP recording corpus folders (HAR, VCR.py cassettes, Pact files), read by their
adapters, against counts taken from the files themselves.

How the counts were taken: each file was loaded with the standard ``json`` module (HAR,
Pact) or ``yaml.safe_load`` (cassettes) and its records counted directly:

- events: HAR ``log.entries``, cassette ``interactions``, Pact ``interactions`` plus
  ``messages`` (one event each);
- tool_calls: none; HTTP recordings hold HTTP exchanges, not tool calls (the OpenAI
  tool calls inside the cassettes' bodies stay in the bodies);
- errors: responses with status >= 400, plus HAR entries with status 0 and a non-empty
  ``response._error`` (the request failed; mitmproxy's incomplete flows have status 0
  and ``_error: null`` and stay ``unset``);
- unanswered: HAR entries with status 0;
- binary: bodies that are not text (Chrome's base64 PNG; the gRPC pact's protobuf);
- parented: none of these formats has parent links;
- traces: one per file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import counts, flagged, read
from workbench.formats import Adapter, open_source
from workbench.formats.http._har import HAR
from workbench.formats.http._pact import PACT
from workbench.formats.http._vcr import VCR
from workbench.ingest import detect

HAR_DIR = "mitmproxy-har"
VCR_DIR = "otel-python-contrib-openai-v2"
PACT_DIR = "pact-python"

# file -> (adapter, events, tool_calls, errors, parented, traces, unanswered, binary)
EXPECTED: dict[str, tuple[Adapter, int, int, int, int, int, int, int]] = {
    # a status-0 entry with _error "Multiple exceptions: …" and a 405
    f"{HAR_DIR}/flows_error_log.har": (HAR, 2, 0, 2, 0, 1, 1, 0),
    # two 200 text/event-stream entries with empty content text
    f"{HAR_DIR}/flows_event_stream.har": (HAR, 2, 0, 0, 0, 1, 0, 0),
    # four status-0 entries, time 0, _error null: no response, no reason given
    f"{HAR_DIR}/flows_incomplete_log.har": (HAR, 4, 0, 0, 0, 1, 4, 0),
    # two 200s (GET html, POST form to httpbin)
    f"{HAR_DIR}/flows_successful_log.har": (HAR, 2, 0, 0, 0, 1, 0, 0),
    # Chrome: a 304 (base64 html), a status-0 net::ERR_INTERNET_DISCONNECTED, a base64 PNG
    f"{HAR_DIR}/har_files_chrome.har": (HAR, 3, 0, 1, 0, 1, 1, 1),
    # one POST with a JSON postData text under text/plain
    f"{HAR_DIR}/har_files_postdata.har": (HAR, 1, 0, 0, 0, 1, 0, 0),
    # one 404 (model not found)
    f"{VCR_DIR}/test_chat_completion_404.yaml": (VCR, 1, 0, 1, 0, 1, 0, 0),
    # one 200 SSE stream of chat.completion.chunk with two streamed tool calls
    f"{VCR_DIR}/test_chat_completion_multiple_tools_streaming_with_content.yaml":
        (VCR, 1, 0, 0, 0, 1, 0, 0),
    # two 200s: tool_calls returned, then the tool results sent back
    f"{VCR_DIR}/test_chat_completion_tool_calls_with_content.yaml": (VCR, 2, 0, 0, 0, 1, 0, 0),
    # one 400 from the Responses API
    f"{VCR_DIR}/test_responses_create_api_error__content_mode0.yaml": (VCR, 1, 0, 1, 0, 1, 0, 0),
    # one 200 Responses API call with a function_call output
    f"{VCR_DIR}/test_responses_create_captures_tool_call_content__content_mode0.yaml":
        (VCR, 1, 0, 0, 0, 1, 0, 0),
    # one 200 Responses API SSE stream ending in response.completed
    f"{VCR_DIR}/test_responses_create_streaming__content_mode0.yaml": (VCR, 1, 0, 0, 0, 1, 0, 0),
    # v3, one HTTP interaction (POST /api/books, 200)
    f"{PACT_DIR}/http-consumer-1-http-provider.json": (PACT, 1, 0, 0, 0, 1, 0, 0),
    # v3 message pact, one message
    f"{PACT_DIR}/message-consumer-2-message-provider.json": (PACT, 1, 0, 0, 0, 1, 0, 0),
    # v2, three interactions promising 200, 404 and 500
    f"{PACT_DIR}/v2-http.json": (PACT, 3, 0, 2, 0, 1, 0, 0),
    f"{PACT_DIR}/v3-http.json": (PACT, 1, 0, 0, 0, 1, 0, 0),
    f"{PACT_DIR}/v3-message.json": (PACT, 1, 0, 0, 0, 1, 0, 0),
    # v4, one Synchronous/Messages interaction over gRPC (protobuf plugin), base64 protobuf
    f"{PACT_DIR}/v4-grpc.json": (PACT, 1, 0, 0, 0, 1, 0, 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(corpus: Path, name: str) -> None:
    adapter, n, tools, errors, parented, traces, unanswered, binary = EXPECTED[name]
    events, infos = read(adapter, corpus / name)
    assert counts(events) == (n, tools, errors, parented, traces)
    assert len(infos) == traces
    assert flagged(events, "unanswered") == unanswered
    assert flagged(events, "binary_body") == binary
    assert len({e.event_id for e in events}) == n


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection(corpus: Path, name: str) -> None:
    assert detect(open_source(corpus / name)).name == EXPECTED[name][0].name


def test_folder_totals(corpus: Path) -> None:
    for folder, adapter, pattern, total in [(HAR_DIR, HAR, "*.har", 14),
                                            (VCR_DIR, VCR, "*.yaml", 7),
                                            (PACT_DIR, PACT, "*.json", 8)]:
        files = sorted((corpus / folder).glob(pattern))
        assert len(files) == 6
        assert sum(len(read(adapter, f)[0]) for f in files) == total


def test_streamed_tool_calls_are_stitched(corpus: Path) -> None:
    [ev], _ = read(VCR, corpus / VCR_DIR /
                   "test_chat_completion_multiple_tools_streaming_with_content.yaml")
    body = ev.result["body"]
    assert body["events"][-1] == {"data": "[DONE]"}
    [choice] = body["stitched"]["choices"]
    assert choice["finish_reason"] == "tool_calls"
    assert [c["function"]["arguments"] for c in choice["message"]["tool_calls"]] == [
        '{"location": "Seattle, WA"}', '{"location": "San Francisco, CA"}']
    assert ev.attrs["gen_ai.usage.input_tokens"] == 75
    assert ev.args["body"]["tools"][0]["function"]["name"] == "get_current_weather"


def test_root_task_and_tools(corpus: Path) -> None:
    _, [info] = read(VCR, corpus / VCR_DIR / "test_chat_completion_tool_calls_with_content.yaml")
    assert info.root_task == "What's the weather in Seattle and San Francisco today?"
    assert [t["function"]["name"] for t in info.tools] == ["get_current_weather"]


def test_responses_stream_and_cookies(corpus: Path) -> None:
    [ev], _ = read(VCR, corpus / VCR_DIR / "test_responses_create_streaming__content_mode0.yaml")
    stitched = ev.result["body"]["stitched"]
    assert stitched["status"] == "completed"
    assert stitched["output"][0]["content"][0]["text"] == "This is a test."
    cookies = ev.result["headers"]["set-cookie"]
    assert cookies[0] == "test_set_cookie" and len(cookies) == 2


def test_har_failures_and_pages(corpus: Path) -> None:
    events, [info] = read(HAR, corpus / HAR_DIR / "har_files_chrome.har")
    assert [e.status for e in events] == ["ok", "error", "ok"]
    assert events[1].error == {"code": "NO_RESPONSE", "message": "net::ERR_INTERNET_DISCONNECTED"}
    assert events[2].result["body"] == "«binary: 7108 bytes, image/png»"
    assert [e.attrs["har.pageref"] for e in events] == ["page_1", "page_1", "page_2"]
    assert [p["id"] for p in info.attrs["har.pages"]] == ["page_1"]
    [post], _ = read(HAR, corpus / HAR_DIR / "har_files_postdata.har")
    assert isinstance(post.args["body"], dict)


def test_pact_kinds(corpus: Path) -> None:
    [grpc], [info] = read(PACT, corpus / PACT_DIR / "v4-grpc.json")
    assert (grpc.kind, grpc.name, grpc.event_id) == ("other", "Calculator/calculateOne",
                                                     "103e10b578b91d6b")
    assert info.versions["pact_specification"] == "4.0"
    assert info.attrs["pact.provider"] == "area-calculator-provider"
    [msg], _ = read(PACT, corpus / PACT_DIR / "v3-message.json")
    assert msg.kind == "message" and set(msg.result) == {"uuid"}
    events, _ = read(PACT, corpus / PACT_DIR / "v2-http.json")
    assert [e.result["status"] for e in events] == [200, 404, 500]
    assert events[2].event_id == "e57e7ac251a8bd078fcb81cad1e577cbafebcef5"  # its own _id
