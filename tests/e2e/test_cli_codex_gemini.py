"""The CLI on Codex CLI rollouts, ``codex exec --json`` output and Gemini CLI sessions:
detection, --json output, queries, bad input. The files are kept in tests/corpus."""

import json
from pathlib import Path

import pytest

from tests.support import BadInput, assert_refused, run, snapshot

KEPT = Path(__file__).resolve().parents[1] / "corpus"
ROLLOUT = KEPT / "codex-rollouts" / "agentcmd-rollout-2025-09-24T19-22-20.jsonl"


@pytest.mark.parametrize(("path", "fmt", "events", "tool_calls"), [
    (ROLLOUT, "codex", 16, 7),
    (KEPT / "codex-exec" / "stream-output-2.jsonl", "codex-exec", 4, 1),
    (KEPT / "gemini-cli" / "vibecodingtracker-gemini.jsonl", "gemini-cli", 23, 12),
])
def test_ingest_detects_the_format(capsys, store_dir, path, fmt, events, tool_calls):
    code, out, err = run(capsys, "ingest", path, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == events
    [trace] = doc["traces"]
    assert (trace["format"], trace["tool_calls"], trace["orphans"]) == (fmt, tool_calls, 0)
    before = snapshot(store_dir)
    code, out, _ = run(capsys, "ingest", path, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0  # the same file adds nothing
    assert snapshot(store_dir) == before


def test_failed_commands_are_queryable(capsys, store_dir):
    run(capsys, "ingest", ROLLOUT, "--store", store_dir)
    code, out, _ = run(capsys, "sql", "select name, error from tool_calls where status = "
                       "'error' order by seq", "--store", store_dir, "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["name"] for r in rows] == ["shell", "shell"]
    errors = [json.loads(r["error"]) for r in rows]
    assert errors[0]["code"] == "sandbox" and errors[0]["details"] == {"exit_code": 2}
    assert errors[1]["details"] == {"exit_code": 1}
    assert "No such file or directory" in errors[1]["message"]


META = json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
                   "payload": {"id": "s1"}})

BAD: dict[str, BadInput] = {
    # name: (content, error code, extra ingest arguments)
    "truncated-rollout.jsonl": (META + "\n" + META[:40], "INVALID_JSON", []),
    "only-meta.jsonl": (META + "\n", "INVALID_TRACE", []),
    "payload-not-object.jsonl": (META + "\n" + json.dumps(
        {"timestamp": "x", "type": "response_item", "payload": [1]}) + "\n", "INVALID_TRACE",
        []),
    "exec-no-items.jsonl": ('{"type":"thread.started","thread_id":"t"}\n', "INVALID_TRACE",
                            []),
    "gemini-empty.json": (json.dumps({"sessionId": "s", "projectHash": "p", "messages": []}),
                          "INVALID_TRACE", []),
    "gemini-forced.json": ('{"a": 1}', "INVALID_TRACE", ["--format", "gemini-cli"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_and_leaves_the_store_unchanged(capsys, tmp_path, store_dir, case):
    run(capsys, "ingest", ROLLOUT, "--store", store_dir)
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])
