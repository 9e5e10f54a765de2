"""``workbench ingest`` of MCP traffic end to end: detection, --json output, bad input."""

import json

import pytest

from tests.support import BadInput, assert_refused, run

SAMPLING = "mcp-cassette-py/sampling.mcp.json"


def call(id_, tool, **arguments):
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def test_a_cassette_is_detected_and_ingested(capsys, corpus, store_dir):
    code, out, err = run(capsys, "ingest", corpus / SAMPLING, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == 4
    [trace] = doc["traces"]
    assert (trace["events"], trace["format"]) == (4, "mcp")
    assert len(trace["trace_id"]) == 32

    code, out, _ = run(capsys, "sql", "select kind, name, status from events order by seq",
                       "--store", store_dir, "--json")
    assert code == 0
    # the three client messages share a millisecond: seq follows the recording, not time
    assert json.loads(out)["rows"] == [
        {"kind": "other", "name": "initialize", "status": "ok"},
        {"kind": "message", "name": "notifications/initialized", "status": "unset"},
        {"kind": "tool_call", "name": "summarize", "status": "ok"},
        {"kind": "llm_call", "name": "example-llm", "status": "ok"}]

    code, out, _ = run(capsys, "ingest", corpus / SAMPLING, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0  # the same file adds nothing


def test_unanswered_and_unmatched_are_stored_flagged(capsys, tmp_path):
    f = tmp_path / "session.json"
    f.write_text(json.dumps([call(1, "wait"), {"jsonrpc": "2.0", "id": 9, "result": {}}]))
    code, out, err = run(capsys, "ingest", f, "--store", tmp_path / "s", "--json")
    assert code == 0, err
    code, out, _ = run(capsys, "sql", "select name, status, attrs from events order by seq",
                       "--store", tmp_path / "s", "--json")
    rows = json.loads(out)["rows"]
    assert [(r["name"], r["status"], json.loads(r["attrs"])["workbench.flags"])
            for r in rows] == [("wait", "unset", ["unanswered"]),
                               ("response", "ok", ["unmatched"])]


_FULL = json.dumps([call(1, "a"), {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}])
BAD: dict[str, BadInput] = {
    "truncated.json": (_FULL[: len(_FULL) // 2], "INVALID_JSON", []),
    "not-an-object.json": (json.dumps([call(1, "a"), "hello"]), "INVALID_TRACE", []),
    "neither.json": (json.dumps([{"jsonrpc": "2.0", "id": 3}]), "INVALID_TRACE", []),
    "wrong-shape.json": (json.dumps({"hello": "world"}), "INVALID_TRACE", ["--format", "mcp"]),
    "no-messages.json": (json.dumps({"type": "header", "cassetteVersion": 1}), "INVALID_TRACE",
                         []),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_and_leaves_the_store_unchanged(capsys, corpus, tmp_path, store_dir,
                                                          case):
    run(capsys, "ingest", corpus / SAMPLING, "--store", store_dir)
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])
