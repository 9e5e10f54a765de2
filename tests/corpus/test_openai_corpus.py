"""Real OpenAI and Anthropic API bodies from the corpus, read by the ``openai`` and
``anthropic`` adapters, against counts taken from the bodies themselves.

No corpus folder holds raw API bodies as files, so the test takes them out of other
recordings at test time and writes them into ``tmp_path``:

- ``otel-python-contrib-openai-v2/*.yaml`` (VCR cassettes): each interaction becomes a
  ``{request, response}`` document, the request body and the response body as the API
  sent them (JSON decoded; a streamed body kept as its server-sent-event text, which the
  adapter stitches back into one response).
- ``openinference-claude-agent-sdk/*.yaml``: the Anthropic ``message`` objects of the
  ``assistant`` / ``user`` entries, in file order, become a bare list of messages.

How the counts were taken: the cassette bodies and the SDK messages were read by eye
(and with ``yaml.safe_load``), counting

- events: one per user / system / developer message or ``instructions`` text, one per
  assistant turn (a message with role assistant in a request, each response or error
  body, each Anthropic ``message`` object) and one per tool call (``tool_calls[]`` entry,
  ``function_call`` item, ``tool_use`` block), its result not counted again;
- errors: error bodies (the cassettes' 404 and 400 responses); no tool result there
  has ``is_error: true``;
- parented: tool calls (each is parented to the turn that asked for it) and every turn
  after a user message (parented to the latest one: the prompt that opened its turn);
- unanswered: tool calls whose result is not in the same document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import counts, flagged, orphans, read
from workbench.formats import RawEvent, open_source
from workbench.formats.chat._anthropic import ANTHROPIC
from workbench.formats.chat._openai import OPENAI
from workbench.ingest import detect

CASSETTES = "otel-python-contrib-openai-v2"
SDK = "openinference-claude-agent-sdk"

# written file -> (events, tool_calls, errors, parented, unanswered, traces)
OPENAI_EXPECTED: dict[str, tuple[int, int, int, int, int, int]] = {
    # user message + the 404 error body as a failed llm_call
    "test_chat_completion_404.0.json": (2, 0, 1, 1, 0, 1),
    # system + user + one streamed turn with two parallel get_current_weather calls
    "test_chat_completion_multiple_tools_streaming_with_content.0.json": (5, 2, 0, 3, 2, 1),
    # system + user + a turn with two parallel calls, answered only in the next request
    "test_chat_completion_tool_calls_with_content.0.json": (5, 2, 0, 3, 2, 1),
    # the same conversation resent: system, user, the earlier turn, its two calls (answered
    # by the two role-tool messages), and the final answer
    "test_chat_completion_tool_calls_with_content.1.json": (6, 2, 0, 4, 0, 1),
    # Responses API: input "Hello" + the 400 error body
    "test_responses_create_api_error__content_mode0.0.json": (2, 0, 1, 1, 0, 1),
    # Responses API: input text + the response with one function_call item
    "test_responses_create_captures_tool_call_content__content_mode0.0.json": (3, 1, 0, 2, 1, 1),
    # Responses API stream: instructions + input text + the streamed message
    "test_responses_create_streaming__content_mode0.0.json": (3, 0, 0, 1, 0, 1),
}

# written file -> (events, tool_calls, errors, parented, unanswered, traces)
ANTHROPIC_EXPECTED: dict[str, tuple[int, int, int, int, int, int]] = {
    # turns: thinking, tool_use Bash (same message id, streamed block by block), final
    # text; the Bash result comes in a user message
    "test_client_tool_hooks_create_tool_spans.json": (4, 1, 0, 1, 0, 1),
    # turns: thinking, Agent call, the sub-agent's Bash call, final text; the sub-agent's
    # prompt is a user text message; both results come back (Bash first, then Agent); the
    # two turns after that prompt are its children (a bare list of messages does not say
    # the last one is the main agent's again)
    "test_query_task_subagent_spans.json": (7, 2, 0, 4, 0, 1),
    # turns: Bash call, final text
    "test_query_tool_spans_from_messages.json": (3, 1, 0, 1, 0, 1),
}


def body(text: str) -> Any:
    """A recorded body as the API sent it: JSON decoded, server-sent events as text."""
    return json.loads(text) if text.lstrip().startswith(("{", "[")) else text


def exchanges(corpus: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for f in sorted((corpus / CASSETTES).glob("*.yaml")):
        doc = yaml.safe_load(f.read_text(encoding="utf-8"))
        out.append((f.stem, [{"request": body(i["request"]["body"]),
                              "response": body(i["response"]["body"]["string"])}
                             for i in doc["interactions"]]))
    return out


@pytest.fixture(scope="module")
def openai_files(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("openai-bodies")
    files = {}
    for stem, found in exchanges(corpus):
        for n, ex in enumerate(found):
            path = tmp / f"{stem}.{n}.json"
            path.write_text(json.dumps(ex, indent=2), encoding="utf-8")
            files[path.name] = path
    return files


@pytest.fixture(scope="module")
def anthropic_files(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("anthropic-messages")
    files = {}
    for f in sorted((corpus / SDK).glob("*.yaml")):
        doc = yaml.safe_load(f.read_text(encoding="utf-8"))
        msgs = [m["message"] for m in doc["messages"] if m.get("type") in ("assistant", "user")]
        path = tmp / f"{f.stem}.json"
        path.write_text(json.dumps(msgs, indent=2), encoding="utf-8")
        files[path.name] = path
    return files


def body_counts(events: list[RawEvent]) -> tuple[int, ...]:
    """The tables' layout: (events, tool_calls, errors, parented, unanswered, traces)."""
    n, tools, errors, parented, traces = counts(events)
    return (n, tools, errors, parented, flagged(events, "unanswered"), traces)


def test_every_cassette_exchange_is_covered(openai_files: dict[str, Path]) -> None:
    assert sorted(openai_files) == sorted(OPENAI_EXPECTED)


@pytest.mark.parametrize("name", sorted(OPENAI_EXPECTED))
def test_openai_counts(openai_files: dict[str, Path], name: str) -> None:
    events, infos = read(OPENAI, openai_files[name])
    assert body_counts(events) == OPENAI_EXPECTED[name]
    assert len(infos) == 1
    assert orphans(events) == 0


@pytest.mark.parametrize("name", sorted(OPENAI_EXPECTED))
def test_openai_detection(openai_files: dict[str, Path], name: str) -> None:
    assert detect(open_source(openai_files[name])).name == "openai"


def test_whole_cassette_is_one_conversation(corpus: Path, tmp_path: Path) -> None:
    # both exchanges in one list: the second request repeats the first exchange, so only
    # its two tool messages and the new answer are added, and the calls are answered
    [found] = [ex for stem, ex in exchanges(corpus) if stem.endswith("tool_calls_with_content")]
    path = tmp_path / "both.json"
    path.write_text(json.dumps(found), encoding="utf-8")
    events, _ = read(OPENAI, path)
    assert body_counts(events) == (6, 2, 0, 4, 0, 1)
    calls = [e for e in events if e.kind == "tool_call"]
    assert [(c.name, c.args, c.result, c.status) for c in calls] == [
        ("get_current_weather", {"location": "Seattle, WA"}, "50 degrees and raining", "ok"),
        ("get_current_weather", {"location": "San Francisco, CA"}, "70 degrees and sunny",
         "ok")]
    assert {c.parent_id for c in calls} == {"chatcmpl-ASYMU9Ntix7ePttk0MSuerJstef6U"}
    assert [e.kind for e in events] == ["message", "message", "llm_call", "tool_call",
                                        "tool_call", "llm_call"]


def test_streamed_tool_calls_are_stitched(openai_files: dict[str, Path]) -> None:
    events, _ = read(OPENAI, openai_files[
        "test_chat_completion_multiple_tools_streaming_with_content.0.json"])
    turn = events[2]
    assert (turn.event_id, turn.name) == ("chatcmpl-ASYMbACebDoWcuraMEWQhU48q4dAp",
                                          "gpt-4o-mini-2024-07-18")
    assert turn.result["finish_reasons"] == ["tool_calls"]
    assert turn.attrs["gen_ai.usage.input_tokens"] == 75
    assert [(e.event_id, e.args) for e in events[3:]] == [
        ("call_fHCjJqt9Pysde6vcJcvbXGBx", {"location": "Seattle, WA"}),
        ("call_3J9foSw3CUb48lrqIXoTky6U", {"location": "San Francisco, CA"})]


def test_error_bodies(openai_files: dict[str, Path]) -> None:
    for name, model in (("test_chat_completion_404.0.json", "this-model-does-not-exist"),
                        ("test_responses_create_api_error__content_mode0.0.json",
                         "this-model-does-not-exist")):
        events, _ = read(OPENAI, openai_files[name])
        err = events[-1]
        assert (err.kind, err.name, err.status) == ("llm_call", model, "error")
        assert err.error is not None and err.error["code"] == "model_not_found"


@pytest.mark.parametrize("name", sorted(ANTHROPIC_EXPECTED))
def test_anthropic_counts(anthropic_files: dict[str, Path], name: str) -> None:
    events, _ = read(ANTHROPIC, anthropic_files[name])
    assert body_counts(events) == ANTHROPIC_EXPECTED[name]
    assert all(e.status == "ok" for e in events if e.kind == "tool_call")


@pytest.mark.parametrize("name", sorted(ANTHROPIC_EXPECTED))
def test_anthropic_detection(anthropic_files: dict[str, Path], name: str) -> None:
    assert detect(open_source(anthropic_files[name])).name == "anthropic"


def test_repeated_message_ids_stay_unique(anthropic_files: dict[str, Path]) -> None:
    # the SDK sends a thinking block and a tool_use block as two messages with one id
    events, _ = read(ANTHROPIC, anthropic_files["test_client_tool_hooks_create_tool_spans.json"])
    turns = [e.event_id for e in events if e.kind == "llm_call"]
    assert turns[:2] == ["msg_0127FHQ7z5iofz5KUgos1WGB", "msg_0127FHQ7z5iofz5KUgos1WGB-2"]
    [bash] = [e for e in events if e.kind == "tool_call"]
    assert (bash.name, bash.parent_id) == ("Bash", "msg_0127FHQ7z5iofz5KUgos1WGB-2")


def test_cassette_files_are_left_to_their_own_adapter(corpus: Path) -> None:
    for f in [*sorted((corpus / CASSETTES).glob("*.yaml")), *sorted((corpus / SDK).glob("*.yaml"))]:
        src = open_source(f)
        assert (OPENAI.sniff(src), ANTHROPIC.sniff(src)) == (0, 0), f.name
