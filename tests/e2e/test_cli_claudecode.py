"""``workbench ingest`` on Claude Code transcripts and Agent SDK streams, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main

SIDECHAIN = "claude-code-log/sidechain_integrated.jsonl"
SDK = "openinference-claude-agent-sdk/test_query_task_subagent_spans.yaml"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock"} if root.exists() else {}


def test_transcript_is_detected_and_ingested(capsys, corpus, store_dir):
    code, out, err = run(capsys, "ingest", corpus / SIDECHAIN, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == 6
    [trace] = doc["traces"]
    assert (trace["trace_id"], trace["format"], trace["events"], trace["tool_calls"],
            trace["orphans"]) == ("88a8d761-7b9a-4bf1-a8ca-c1febe6bf358", "claude-code", 6, 3, 2)
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
        "claude-code", 7, 2, 0)
    code, out, _ = run(capsys, "sql", "select kind, name, parent_id from events order by seq",
                       "--store", store_dir, "--json")
    rows = json.loads(out)["rows"]
    assert [r["kind"] for r in rows] == ["llm_call", "tool_call", "message", "llm_call",
                                         "tool_call", "llm_call", "agent"]
    assert rows[2]["parent_id"] == "toolu_01CmP9G62riKUZRqXCjyfpGA"
    # re-ingesting the same file adds nothing
    code, out, _ = run(capsys, "ingest", corpus / SDK, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0


LINE = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1",
        "timestamp": "2026-01-05T09:00:00Z", "message": {"role": "user", "content": "hi"}}

BAD: dict[str, tuple[str, bytes, list[str]]] = {
    "truncated-transcript": ("INVALID_JSON",
                             (json.dumps(LINE) + "\n" + json.dumps(LINE)[:40]).encode(), []),
    "line-without-message": ("INVALID_TRACE", json.dumps(
        {**LINE, "type": "assistant", "message": None}).encode() + b"\n", []),
    "truncated-sdk-yaml": ("INVALID_YAML", b"messages:\n- type: system\n  subtype: init\n"
                           b"  session_id: s1\n- type: assistant\n  message: {content: [", []),
    "latin1-transcript": ("INVALID_ENCODING", json.dumps(
        {**LINE, "message": {"role": "user", "content": "caf\u00e9"}},
        ensure_ascii=False).encode("latin-1") + b"\n", []),
    "summary-only-forced": ("INVALID_TRACE",
                            b'{"type": "summary", "summary": "t", "leafUuid": "x"}\n',
                            ["--format", "claude-code"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_and_leaves_the_store_unchanged(capsys, corpus, tmp_path, case):
    store = tmp_path / "store"
    run(capsys, "ingest", corpus / SIDECHAIN, "--store", store)
    before = snapshot(store)
    expected, data, extra = BAD[case]
    path = tmp_path / (f"{case}.yaml" if "yaml" in case else f"{case}.jsonl")
    path.write_bytes(data)
    code, out, err = run(capsys, "ingest", path, "--store", store, *extra)
    assert code == 2
    assert err.startswith(f"error[{expected}]: "), err
    assert "hint:" in err and "Traceback" not in err
    assert out == ""
    assert snapshot(store) == before
    code, out, _ = run(capsys, "ingest", path, "--store", store, "--json", *extra)
    assert code == 2 and json.loads(out)["error"]["code"] == expected
