"""`workbench minimize` end to end: the contract's JSON keys, the store, --out, oracles,
budgets, and every bad input refused with its code and nothing written."""

import json
import sys

import pytest

from tests.support import EXAMPLES, run, snapshot

EXAMPLE = EXAMPLES / "archive-incident.otlp.json"
RULES = EXAMPLES / "archive-incident.rules.yaml"
TRACE = "4bf92f35"
CONTRACT = {"trace_id", "rule", "signature", "original_events", "kept_events",
            "kept_event_ids", "oracle_calls", "one_minimal", "seconds"}


@pytest.fixture
def store(tmp_path, capsys):
    s = tmp_path / "store"
    assert run(capsys, "ingest", EXAMPLE, "--store", s)[0] == 0
    return s


def minimize(capsys, store, *extra):
    return run(capsys, "minimize", TRACE, "--rules", RULES, "--rule",
               "approval-before-archive", "--store", store, *extra)


def test_minimize_keeps_the_archive_and_its_listing_and_stores_it(capsys, store, tmp_path):
    out = tmp_path / "min.jsonl"
    code, stdout, err = minimize(capsys, store, "--out", out, "--json")
    assert code == 0, err
    doc = json.loads(stdout)
    assert set(doc) >= CONTRACT
    assert (doc["rule"], doc["original_events"], doc["kept_events"], doc["kept_steps"],
            doc["one_minimal"], doc["stored"]) == (
        "approval-before-archive", 14, 3, [0, 2, 8], True, True)
    assert doc["oracle_calls"] == 3 and doc["source_trace_id"].startswith(TRACE)
    lines = out.read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[1])["trace_id"] == doc["trace_id"]

    code, stdout, _ = run(capsys, "show", doc["trace_id"], "--store", store, "--json")
    assert code == 0 and len(json.loads(stdout)["events"]) == 3
    code, stdout, _ = run(capsys, "sql", "select derived_from from traces where trace_id = "
                          f"'{doc['trace_id']}'", "--store", store, "--json")
    assert json.loads(stdout)["rows"][0]["derived_from"] == doc["source_trace_id"]
    # the stored minimized trace still breaks the rule, with the same signature
    code, stdout, _ = run(capsys, "check", RULES, "--trace", doc["trace_id"], "--store",
                          store, "--engine", "python", "--no-record", "--json")
    sigs = {f["signature"] for f in json.loads(stdout)["findings"]
            if f["rule"] == "approval-before-archive"}
    assert code == 1 and sigs == {doc["signature"]}

    before = snapshot(store)
    code, stdout, _ = minimize(capsys, store, "--json")
    assert code == 0 and json.loads(stdout)["stored"] is False
    assert snapshot(store) == before
    code, _, err = run(capsys, "ingest", out, "--store", store)
    assert code == 2 and err.startswith("error[TRACE_EXISTS]")


def test_text_output_lists_the_kept_steps(capsys, store):
    code, out, err = minimize(capsys, store, "--no-save")
    assert code == 0 and err == ""
    assert "from 14 to 3 events in 3 oracle calls, 1-minimal (verified)" in out
    assert [ln.split()[1] for ln in out.splitlines() if ln.startswith("  step")] == [
        "0", "2", "8"]
    assert "stored" not in out


def test_the_second_finding_and_an_oracle_command(capsys, store, tmp_path):
    oracle = tmp_path / "replay.py"
    oracle.write_text("import json, sys\nev = [json.loads(x) for x in open(sys.argv[1])][1:]\n"
                      "names = [e['name'] for e in ev]\n"
                      "sys.exit(1 if 'archive_project' in names and 'request_approval' "
                      "not in names else 0)\n")
    code, out, err = minimize(capsys, store, "--finding", "2", "--no-save", "--json",
                              "--oracle-cmd", f"{sys.executable} {oracle} {{trace}}")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["finding"]["seq"] == 9 and doc["kept_steps"] == [0, 2, 9]
    assert doc["retest"] is True and doc["calls_by_phase"]["retest"] == 1


def test_a_spent_budget_exits_1_with_an_unproven_result(capsys, store, tmp_path):
    code, out, _ = minimize(capsys, store, "--no-save", "--json", "--max-calls", "1",
                            "--oracle-cmd", "exit 1 # {trace}")
    doc = json.loads(out)
    assert code == 1 and doc["one_minimal"] is False and doc["stopped"] == "max_calls"
    assert doc["oracle_calls"] == 1


def refused(capsys, store, tmp_path, argv, expected):
    out_file = tmp_path / "out.jsonl"
    before = snapshot(store)
    code, out, err = run(capsys, *argv, "--store", store, "--out", out_file)
    assert code == 2, err
    assert err.startswith(f"error[{expected}]: "), err
    assert "hint:" in err and "Traceback" not in err and out == ""
    code, out, _ = run(capsys, *argv, "--store", store, "--out", out_file, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == expected
    assert snapshot(store) == before and not out_file.exists()


@pytest.mark.parametrize(("extra", "expected"), [
    (["--rule", "nope"], "UNKNOWN_RULE"),
    (["--rule", "list-filters-by-owner-id", "--signature", "ffff"], "NO_FINDING"),
    (["--rule", "approval-before-archive", "--finding", "3"], "NO_FINDING"),
    (["--rule", "approval-before-archive", "--finding", "0"], "USAGE"),
    (["--rule", "approval-before-archive", "--max-calls", "0"], "USAGE"),
    (["--rule", "approval-before-archive", "--repeat", "0"], "USAGE"),
    (["--rule", "approval-before-archive", "--max-seconds", "-1"], "USAGE"),
    (["--rule", "approval-before-archive", "--vote", "most"], "USAGE"),
    (["--rule", "approval-before-archive", "--finding", "1", "--signature", "x"], "USAGE"),
    (["--rule", "approval-before-archive", "--oracle-cmd", "replay.sh"], "ORACLE_COMMAND"),
    (["--rule", "approval-before-archive", "--oracle-cmd", "/no/such/replay {trace}"],
     "ORACLE_FAILED"),
    (["--rule", "approval-before-archive", "--oracle-cmd", "exit 0 # {trace}"],
     "NOT_REPRODUCED"),
])
def test_bad_input_is_refused_and_writes_nothing(capsys, store, tmp_path, extra, expected):
    refused(capsys, store, tmp_path, ["minimize", TRACE, "--rules", RULES, *extra], expected)


def test_no_finding_in_a_clean_trace(capsys, store, tmp_path):
    rules = tmp_path / "clean.yaml"
    rules.write_text("version: 1\nrules:\n  has-list:\n    exists: {tool: list_projects}\n")
    refused(capsys, store, tmp_path, ["minimize", TRACE, "--rules", rules, "--rule",
                                      "has-list"], "NO_FINDING")


def test_missing_trace_rules_and_out_directory(capsys, store, tmp_path):
    refused(capsys, store, tmp_path, ["minimize", "ffff", "--rules", RULES, "--rule",
                                      "approval-before-archive"], "TRACE_NOT_FOUND")
    refused(capsys, store, tmp_path, ["minimize", TRACE, "--rules", tmp_path / "no.yaml",
                                      "--rule", "x"], "FILE_NOT_FOUND")
    before = snapshot(store)
    code, _, err = minimize(capsys, store, "--out", tmp_path / "no" / "dir" / "m.jsonl")
    assert code == 2 and err.startswith("error[FILE_NOT_FOUND]")
    assert snapshot(store) == before
