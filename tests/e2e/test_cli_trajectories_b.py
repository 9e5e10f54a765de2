"""The CLI on SWE-agent trajectories and OpenHands event streams: auto-detection, the
--json document, flagged events, and bad input leaving the store unchanged."""

import json

import pytest

from tests.support import BadInput, assert_refused, run

SWE = "swe-agent/marshmallow-code__marshmallow-1867.function_calling.traj"
OH = "openhands/basic_gui_mode.json"


@pytest.mark.parametrize(("name", "fmt", "events", "tools"), [
    (SWE, "swe-agent", 24, 11),
    (OH, "openhands", 15, 4),
])
def test_ingest_detects_the_format(capsys, corpus, store_dir, name, fmt, events, tools):
    code, out, err = run(capsys, "ingest", corpus / name, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == events
    [trace] = doc["traces"]
    assert (trace["format"], trace["events"]) == (fmt, events)
    assert len(trace["trace_id"]) == 32
    code, out, _ = run(capsys, "sql", "select count(*) as n from tool_calls",
                       "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["rows"] == [{"n": tools}]
    code, out, _ = run(capsys, "ingest", corpus / name, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0  # same file, same ids


def test_unknown_cause_is_kept_and_flagged(capsys, tmp_path):
    f = tmp_path / "stream.json"
    f.write_text(json.dumps([
        {"id": 0, "timestamp": "2025-01-01T10:00:00", "source": "user", "message": "go",
         "action": "message", "args": {"content": "go"}},
        {"id": 1, "timestamp": "2025-01-01T10:00:01", "source": "agent", "message": "",
         "observation": "run", "cause": 42, "content": "hello",
         "extras": {"metadata": {"exit_code": 0}}}]))
    store = tmp_path / "s"
    code, out, err = run(capsys, "ingest", f, "--store", store, "--json")
    assert code == 0, err
    assert json.loads(out)["traces"][0]["format"] == "openhands"
    code, out, _ = run(capsys, "sql", "select kind, parent_id, attrs from events where "
                       "event_id = '1'", "--store", store, "--json")
    [row] = json.loads(out)["rows"]
    assert (row["kind"], row["parent_id"]) == ("tool_call", "42")
    assert sorted(json.loads(row["attrs"])["workbench.flags"]) == ["orphan", "unmatched"]


_TRAJ = json.dumps({"trajectory": [{"action": "ls", "observation": "a", "thought": "t",
                                    "response": "t"}],
                    "history": [], "info": {"exit_status": "submitted"}}, indent=2)
_STREAM = json.dumps([{"id": i, "timestamp": "2025-01-01T10:00:00", "source": "user",
                       "message": "go", "action": "message", "args": {"content": "go"}}
                      for i in range(3)], indent=2)
BAD: dict[str, BadInput] = {
    "truncated.traj": (_TRAJ[: len(_TRAJ) // 2], "INVALID_JSON", []),
    "not-a-list.traj": (json.dumps({"trajectory": {"step": 1}, "history": []}, indent=2),
                        "INVALID_TRACE", ["--format", "swe-agent"]),
    "no-steps.traj": (json.dumps({"trajectory": [], "history": [], "info": {}}, indent=2),
                      "INVALID_TRACE", []),
    "truncated-stream.json": (_STREAM[: len(_STREAM) // 2], "INVALID_JSON", []),
    "object-stream.json": (json.dumps({"events": json.loads(_STREAM)}, indent=2),
                           "INVALID_TRACE", ["--format", "openhands"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_and_leaves_store_unchanged(capsys, corpus, tmp_path, store_dir, case):
    run(capsys, "ingest", corpus / OH, "--store", store_dir)
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])
