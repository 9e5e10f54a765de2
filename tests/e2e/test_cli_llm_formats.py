"""The CLI on model API bodies: ``anthropic`` and ``openai`` detected, read, queried; their
bad inputs refused with exit 2 and a store left byte-for-byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support import BadInput, assert_refused, run

CASSETTE = "otel-python-contrib-openai-v2/test_chat_completion_tool_calls_with_content.yaml"

ANTHROPIC_EXCHANGE = {
    "request": {
        "model": "claude-sonnet-4-5", "max_tokens": 256, "system": "You manage projects.",
        "tools": [{"name": "archive_project", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "Archive p1 and p2"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "archive_project",
                 "input": {"project_id": "p1"}},
                {"type": "tool_use", "id": "toolu_2", "name": "archive_project",
                 "input": {"project_id": "p2"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "denied",
                 "is_error": True},
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "archived"}]},
        ]},
    "response": {"id": "msg_9", "type": "message", "role": "assistant",
                 "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "p1 done"}],
                 "stop_reason": "end_turn", "usage": {"input_tokens": 9, "output_tokens": 3}},
}


def cassette_exchange(corpus: Path, tmp_path: Path) -> Path:
    """The cassette's second interaction as a ``{request, response}`` document."""
    doc = yaml.safe_load((corpus / CASSETTE).read_text(encoding="utf-8"))
    inter = doc["interactions"][1]
    path = tmp_path / "chat-exchange.json"
    path.write_text(json.dumps({"request": json.loads(inter["request"]["body"]),
                                "response": json.loads(inter["response"]["body"]["string"])}),
                    encoding="utf-8")
    return path


def test_openai_exchange_is_detected_and_ingested(capsys, corpus, tmp_path, store_dir) -> None:
    path = cassette_exchange(corpus, tmp_path)
    code, out, err = run(capsys, "ingest", path, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == 6
    [trace] = doc["traces"]
    assert (trace["format"], trace["events"], trace["tool_calls"], trace["orphans"]) == (
        "openai", 6, 2, 0)
    code, out, _ = run(capsys, "sql", "select name, status, seq from tool_calls order by seq",
                       "--store", store_dir, "--json")
    assert code == 0
    assert json.loads(out)["rows"] == [
        {"name": "get_current_weather", "status": "ok", "seq": 3},
        {"name": "get_current_weather", "status": "ok", "seq": 4}]


def test_anthropic_exchange_is_detected_and_ingested(capsys, tmp_path, store_dir) -> None:
    path = tmp_path / "exchange.json"
    path.write_text(json.dumps(ANTHROPIC_EXCHANGE), encoding="utf-8")
    code, out, err = run(capsys, "ingest", path, "--store", store_dir, "--json")
    assert code == 0, err
    [trace] = json.loads(out)["traces"]
    assert (trace["format"], trace["events"], trace["tool_calls"]) == ("anthropic", 6, 2)
    code, out, _ = run(capsys, "sql", "select event_id, status from tool_calls order by seq",
                       "--store", store_dir, "--json")
    assert json.loads(out)["rows"] == [{"event_id": "toolu_1", "status": "ok"},
                                       {"event_id": "toolu_2", "status": "error"}]
    # the same file again adds nothing
    code, out, _ = run(capsys, "ingest", path, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0


_FULL = json.dumps(ANTHROPIC_EXCHANGE)
_CHUNK = {"id": "c", "object": "chat.completion.chunk", "choices": []}
BAD: dict[str, BadInput] = {
    "anthropic-truncated.json": (_FULL[: len(_FULL) // 2], "INVALID_JSON", []),
    "anthropic-no-role.json": (json.dumps({"messages": [{"content": "who?"}]}), "INVALID_TRACE",
                               ["--format", "anthropic"]),
    "openai-no-messages.json": (json.dumps({"model": "gpt-4o", "messages": []}), "INVALID_TRACE",
                                ["--format", "openai"]),
    "openai-broken-stream.sse": (f"data: {json.dumps(_CHUNK)}\n\ndata: {{\"id\"\n\n",
                                 "INVALID_JSON", ["--format", "openai"]),
    "openai-shaped-wrong.json": (json.dumps({"model": "gpt-4o", "messages": "hi"}),
                                 "INVALID_TRACE", ["--format", "openai"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_and_leaves_store_unchanged(capsys, tmp_path, store_dir, case) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(ANTHROPIC_EXCHANGE), encoding="utf-8")
    assert run(capsys, "ingest", good, "--store", store_dir)[0] == 0
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])
