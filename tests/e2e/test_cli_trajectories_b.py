"""The CLI on SWE-agent trajectories and OpenHands event streams: auto-detection, the
--json document, flagged events, and bad input leaving the store unchanged."""

import json
from pathlib import Path

import pytest

from workbench.cli import main

SWE = "swe-agent/marshmallow-code__marshmallow-1867.function_calling.traj"
OH = "openhands/basic_gui_mode.json"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock"} if root.exists() else {}


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


def bad_inputs(tmp: Path) -> dict[str, tuple[Path, list[str], str]]:
    cases = {}

    def put(name, data, extra, code):
        p = tmp / name
        p.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
        cases[name] = (p, extra, code)

    traj = json.dumps({"trajectory": [{"action": "ls", "observation": "a", "thought": "t",
                                       "response": "t"}],
                       "history": [], "info": {"exit_status": "submitted"}}, indent=2)
    put("truncated.traj", traj[: len(traj) // 2], [], "INVALID_JSON")
    put("not-a-list.traj", {"trajectory": {"step": 1}, "history": []},
        ["--format", "swe-agent"], "INVALID_TRACE")
    put("no-steps.traj", {"trajectory": [], "history": [], "info": {}}, [], "INVALID_TRACE")
    stream = json.dumps([{"id": i, "timestamp": "2025-01-01T10:00:00", "source": "user",
                          "message": "go", "action": "message", "args": {"content": "go"}}
                         for i in range(3)], indent=2)
    put("truncated-stream.json", stream[: len(stream) // 2], [], "INVALID_JSON")
    put("object-stream.json", {"events": json.loads(stream)}, ["--format", "openhands"],
        "INVALID_TRACE")
    return cases


@pytest.mark.parametrize("case", ["truncated.traj", "not-a-list.traj", "no-steps.traj",
                                  "truncated-stream.json", "object-stream.json"])
def test_bad_input_exits_2_and_leaves_store_unchanged(capsys, corpus, tmp_path, case):
    store = tmp_path / "store"
    run(capsys, "ingest", corpus / OH, "--store", store)
    before = snapshot(store)
    path, extra, expected = bad_inputs(tmp_path)[case]
    code, out, err = run(capsys, "ingest", path, "--store", store, *extra)
    assert code == 2
    assert err.startswith(f"error[{expected}]: "), err
    assert "hint:" in err and "Traceback" not in err
    assert out == ""
    assert snapshot(store) == before
    code, out, _ = run(capsys, "ingest", path, "--store", store, "--json", *extra)
    assert code == 2 and json.loads(out)["error"]["code"] == expected
    assert snapshot(store) == before
