"""The CLI on Inspect AI logs and tau-bench results: detection, --json output, bad input."""

import io
import json
import zipfile

import pytest

from tests.support import BadInput, assert_refused, run, snapshot

INSPECT_JSON = "inspect-ai/2025-05-12T20-27-36-04-00_browser.json"
INSPECT_EVAL = "inspect-ai/log_streaming.eval"
TAU = "tau-bench/gpt-4o-airline.first24.json"


@pytest.mark.parametrize(("name", "fmt", "events", "traces", "tool_calls"), [
    (INSPECT_JSON, "inspect", 35, 1, 4),
    (INSPECT_EVAL, "inspect", 32, 4, 0),
    (TAU, "tau-bench", 760, 24, 137),
])
def test_ingest_detects_the_format(capsys, corpus, store_dir, name, fmt, events, traces,
                                   tool_calls):
    code, out, err = run(capsys, "ingest", corpus / name, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert {"traces", "events", "skipped", "batch", "store"} <= set(doc)
    assert doc["events"] == events
    assert len(doc["traces"]) == traces
    assert {t["format"] for t in doc["traces"]} == {fmt}
    assert sum(t["tool_calls"] for t in doc["traces"]) == tool_calls
    assert all(t["orphans"] == 0 for t in doc["traces"])
    before = snapshot(store_dir)
    code, out, _ = run(capsys, "ingest", corpus / name, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0  # the same file adds nothing
    assert snapshot(store_dir) == before


def test_tool_calls_are_queryable(capsys, corpus, store_dir):
    run(capsys, "ingest", corpus / TAU, "--store", store_dir)
    code, out, _ = run(capsys, "sql", "select count(*) as n from tool_calls where status = "
                       "'error'", "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["rows"] == [{"n": 14}]


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in members.items():
            z.writestr(k, v)
    return buf.getvalue()


LOG = {"version": 2, "status": "success", "eval": {"run_id": "r1", "task": "t"},
       "plan": {"steps": []},
       "samples": [{"epoch": 1, "messages": [{"role": "user", "content": "hi"}]}]}
EPISODES = [{"task_id": 0, "reward": 1.0, "info": {},
             "traj": [{"role": "user", "content": "hi"}]}]

BAD: dict[str, BadInput] = {
    # name: (content, error code, extra ingest arguments)
    "sample-without-id.json": (json.dumps(LOG), "INVALID_TRACE", []),
    "truncated-inspect.json": (json.dumps(LOG)[:60], "INVALID_JSON", ["--format", "inspect"]),
    "not-inspect.eval": (_zip({"word/document.xml": b"<w/>"}), "UNKNOWN_FORMAT", []),
    "not-inspect-forced.eval": (_zip({"word/document.xml": b"<w/>"}), "INVALID_TRACE",
                                ["--format", "inspect"]),
    "truncated.eval": (_zip({"header.json": json.dumps(LOG).encode()})[:80], "INVALID_TRACE",
                       ["--format", "inspect"]),
    "truncated-tau.json": (json.dumps(EPISODES)[:50], "INVALID_JSON", ["--format", "tau-bench"]),
    "no-traj.json": (json.dumps([{"task_id": 0, "reward": 1.0}]), "INVALID_TRACE",
                     ["--format", "tau-bench"]),
    "empty-episodes.json": ("[]", "INVALID_TRACE", ["--format", "tau-bench"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_and_leaves_the_store_unchanged(capsys, corpus, tmp_path, store_dir,
                                                          case):
    run(capsys, "ingest", corpus / INSPECT_EVAL, "--store", store_dir)
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])


def test_unmatched_tool_message_is_kept_and_flagged(capsys, tmp_path, store_dir):
    traj = [{"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "nope", "name": "lookup", "content": "x"}]
    f = tmp_path / "episodes.json"
    f.write_text(json.dumps([{"task_id": 1, "reward": 0.0, "info": {}, "traj": traj}]))
    code, out, err = run(capsys, "ingest", f, "--store", store_dir, "--json")
    assert code == 0, err
    code, out, _ = run(capsys, "sql", "select name, attrs from tool_calls", "--store",
                       store_dir, "--json")
    [row] = json.loads(out)["rows"]
    assert row["name"] == "lookup"
    assert json.loads(row["attrs"])["workbench.flags"] == ["unmatched"]
