"""``workbench ingest`` on Claude Code transcripts and Agent SDK streams, end to end."""

from __future__ import annotations

import json

import pytest

from tests.support import BadInput, assert_refused, run

SIDECHAIN = "claude-code-log/sidechain_integrated.jsonl"
SDK = "openinference-claude-agent-sdk/test_query_task_subagent_spans.yaml"


def test_transcript_is_detected_and_ingested(capsys, corpus, store_dir):
    code, out, err = run(capsys, "ingest", corpus / SIDECHAIN, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == 7  # 6 and the sub-agent's run
    [trace] = doc["traces"]
    assert (trace["trace_id"], trace["format"], trace["events"], trace["tool_calls"],
            trace["orphans"]) == ("88a8d761-7b9a-4bf1-a8ca-c1febe6bf358", "claude-code", 7, 3, 1)
    code, out, _ = run(capsys, "sql", "select name, status from tool_calls order by seq",
                       "--store", store_dir, "--json")
    assert code == 0
    assert json.loads(out)["rows"] == [{"name": "Task", "status": "ok"},
                                       {"name": "Grep", "status": "unset"},
                                       {"name": "", "status": "ok"}]


def test_sdk_stream_is_detected_and_ingested(capsys, corpus, store_dir):
    code, out, err = run(capsys, "ingest", corpus / SDK, "--store", store_dir, "--json")
    assert code == 0, err
    [trace] = json.loads(out)["traces"]
    assert (trace["format"], trace["events"], trace["tool_calls"], trace["orphans"]) == (
        "claude-code", 8, 2, 0)
    code, out, _ = run(capsys, "sql", "select kind, name, parent_id from events order by seq",
                       "--store", store_dir, "--json")
    rows = json.loads(out)["rows"]
    assert [r["kind"] for r in rows] == ["llm_call", "tool_call", "agent", "message",
                                         "llm_call", "tool_call", "llm_call", "agent"]
    # the Agent call, its sub-agent's run, the prompt given to that run
    assert rows[2]["parent_id"] == "toolu_01CmP9G62riKUZRqXCjyfpGA"
    assert rows[3]["parent_id"] == "agent-a7da442314ff745d1"
    # re-ingesting the same file adds nothing
    code, out, _ = run(capsys, "ingest", corpus / SDK, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0


LINE = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1",
        "timestamp": "2026-01-05T09:00:00Z", "message": {"role": "user", "content": "hi"}}

BAD: dict[str, BadInput] = {
    "truncated-transcript": ((json.dumps(LINE) + "\n" + json.dumps(LINE)[:40]).encode(),
                             "INVALID_JSON", []),
    "line-without-message": (json.dumps({**LINE, "type": "assistant", "message": None}).encode()
                             + b"\n", "INVALID_TRACE", []),
    "truncated-sdk-yaml": (b"messages:\n- type: system\n  subtype: init\n"
                           b"  session_id: s1\n- type: assistant\n  message: {content: [",
                           "INVALID_YAML", []),
    "latin1-transcript": (json.dumps({**LINE, "message": {"role": "user", "content": "caf\u00e9"}},
                                     ensure_ascii=False).encode("latin-1") + b"\n",
                          "INVALID_ENCODING", []),
    "summary-only-forced": (b'{"type": "summary", "summary": "t", "leafUuid": "x"}\n',
                            "INVALID_TRACE", ["--format", "claude-code"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_and_leaves_the_store_unchanged(capsys, corpus, tmp_path, store_dir,
                                                          case):
    run(capsys, "ingest", corpus / SIDECHAIN, "--store", store_dir)
    path = tmp_path / (f"{case}.yaml" if "yaml" in case else f"{case}.jsonl")
    assert_refused(capsys, store_dir, path, *BAD[case])
