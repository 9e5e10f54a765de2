"""The CLI on ATIF and mini-swe-agent trajectories: detection, `export --format atif` of
a stored trace and of a fixture (valid ATIF-v1.7, read back to the same tool calls), bad
input."""

import json
from pathlib import Path

import jsonschema
import pytest

from tests.support import EXAMPLES, assert_refused, run

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"
SCHEMA = json.loads((HERE.parent / "unit" / "formats" / "agents" /
                     "atif-v1.7.schema.json").read_text())
TERMINUS = CORPUS / "harbor-atif" / "terminus-2-hello-world-context-summarization.trajectory.json"
MINI = CORPUS / "mini-swe-agent" / "sqlfluff__sqlfluff-2419.traj.json"
CALLS = ("select name, args, result, status from tool_calls where trace_id = '{}' "
         "order by seq")


def ingest(capsys, path, store):
    code, out, err = run(capsys, "ingest", path, "--store", store, "--json")
    assert code == 0, err
    [trace] = json.loads(out)["traces"]
    return trace


def tool_calls(capsys, store, trace_id):
    code, out, err = run(capsys, "sql", CALLS.format(trace_id), "--store", store, "--json")
    assert code == 0, err
    return json.loads(out)["rows"]


def names(doc):
    """The tool names of a trajectory and its sub-agents', in the order ingest reads them."""
    out = []
    for step in doc["steps"]:
        out += [c["function_name"] for c in step.get("tool_calls", [])]
        for res in step.get("observation", {}).get("results", []):
            for ref in res.get("subagent_trajectory_ref") or []:
                out += names(next(t for t in doc["subagent_trajectories"]
                                  if t["trajectory_id"] == ref.get("trajectory_id")))
    return out


@pytest.mark.parametrize(("path", "fmt", "events", "calls", "errors"), [
    (TERMINUS, "atif", 21, 7, 0),
    (MINI, "mini-swe-agent", 84, 41, 5),
])
def test_ingest_export_atif_and_ingest_again(capsys, tmp_path, path, fmt, events, calls,
                                             errors):
    store = tmp_path / "store"
    trace = ingest(capsys, path, store)
    assert (trace["format"], trace["events"], trace["tool_calls"], trace["orphans"]) == (
        fmt, events, calls, 0)
    first = tool_calls(capsys, store, trace["trace_id"])
    assert sum(r["status"] == "error" for r in first) == errors

    out = tmp_path / "trajectory.json"
    code, text, err = run(capsys, "export", trace["trace_id"][:10], "--store", store,
                          "--format", "atif", "--out", out, "--json")
    assert code == 0, err
    assert json.loads(text) == {"trace_id": trace["trace_id"], "events": events,
                                "out": str(out), "format": "atif"}
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["schema_version"] == "ATIF-v1.7"

    again = ingest(capsys, out, tmp_path / "store2")
    assert (again["format"], again["tool_calls"]) == ("atif", calls)
    assert tool_calls(capsys, tmp_path / "store2", again["trace_id"]) == first


def test_export_atif_to_stdout(capsys, tmp_path):
    store = tmp_path / "store"
    trace = ingest(capsys, TERMINUS, store)
    code, out, _ = run(capsys, "export", trace["trace_id"], "--store", store, "--format", "atif")
    assert code == 0
    doc = json.loads(out)
    assert doc["agent"]["name"] == "terminus-2" and doc["agent"]["model_name"] == "openai/gpt-4o"
    assert [s["source"] for s in doc["steps"]][:2] == ["user", "agent"]


def test_export_a_fixture_as_atif(capsys, tmp_path):
    case = EXAMPLES / "rules" / "unapproved-destructive"
    store, fixtures = tmp_path / "store", tmp_path / "fixtures"
    assert run(capsys, "ingest", case, "--store", store)[0] == 0
    code, _, err = run(capsys, "promote", "rules-unapproved-destructive-bad", "--rules",
                       case / "rules.yaml", "--name", "archive", "--store", store,
                       "--fixtures", fixtures)
    assert code == 0, err
    out = tmp_path / "fixture.atif.json"
    code, text, err = run(capsys, "export", "archive/v1", "--fixtures", fixtures, "--format",
                          "atif", "--out", out, "--json")
    assert code == 0, err
    assert json.loads(text)["fixture"] == "archive/v1"
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["session_id"] == "archive/v1"
    exported = names(doc)
    again = ingest(capsys, out, tmp_path / "store2")
    assert [r["name"] for r in tool_calls(capsys, tmp_path / "store2", again["trace_id"])] \
        == exported
    assert "archive_project" in exported


@pytest.mark.parametrize(("data", "code"), [
    ('{"schema_version": "ATIF-v2.0", "agent": {}, "steps": []}', "INVALID_TRACE"),
    ('{"schema_version": "ATIF-v1.7", "agent": {}, "steps": []}', "INVALID_TRACE"),
    ('{"schema_version": "ATIF-v1.7", "agent": {}, "steps": [1]}', "INVALID_TRACE"),
    ('{"schema_version": "ATIF-v1.7", "steps": [', "INVALID_JSON"),
    ('{"info": {"mini_version": "1.0"}, "messages": [], "trajectory_format": '
     '"mini-swe-agent-1"}', "INVALID_TRACE"),
])
def test_bad_trajectories_are_refused(capsys, tmp_path, data, code):
    ingest(capsys, TERMINUS, tmp_path / "store")  # a store that has something to keep
    assert_refused(capsys, tmp_path / "store", tmp_path / "t.json", data, code)
