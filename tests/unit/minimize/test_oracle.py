"""Oracles: offline rule, user command (exit codes, time-outs, refusals), callables."""

import sys

import pytest

from tests.dags import ev
from workbench.ingest import ingest
from workbench.minimize import OracleError, command_oracle, minimize, rule_oracle
from workbench.model import Trace, UsageError
from workbench.rules import check_trace, parse_rules
from workbench.store import Store

RULE = parse_rules("version: 1\nrules:\n  no-delete:\n    absent: {tool: delete}\n").get(
    "no-delete")
TRACE = Trace.from_events([ev("r", 0, "agent", kind="agent"), ev("a", 1, "list", parent="r"),
                           ev("d", 2, "delete", parent="r"), ev("b", 3, "noise", parent="r")])
PY = sys.executable


def script(tmp_path, body):
    p = tmp_path / "oracle.py"
    p.write_text("import sys, json\nlines = open(sys.argv[1]).read().splitlines()\n"
                 "events = [json.loads(x) for x in lines[1:]]\n" + body)
    return f"{PY} {p} {{trace}}"


def test_the_rule_oracle_looks_for_the_same_signature():
    sig = check_trace(TRACE, [RULE])[0].signature
    o = rule_oracle(RULE, sig)
    assert o(TRACE) and not o(TRACE.subtrace(["r", "a"])) and o.deterministic
    assert not rule_oracle(RULE, "0" * 16)(TRACE)


def test_a_command_gets_the_candidate_as_jsonl_and_exit_1_means_fails(tmp_path):
    cmd = script(tmp_path, "sys.exit(1 if any(e['name'] == 'delete' for e in events) else 0)")
    r = minimize(TRACE, RULE, oracle=command_oracle(cmd))
    assert r.kept_event_ids == ("r", "d") and r.one_minimal
    assert r.retest is True  # a command is not known to be deterministic


def test_other_exit_codes_and_time_outs_are_unresolved(tmp_path):
    o = command_oracle(script(tmp_path, "sys.exit(3)"))
    assert o(TRACE) is False and o.unresolved == 1
    slow = command_oracle(script(tmp_path, "import time; time.sleep(5)"), timeout=0.2)
    assert slow(TRACE) is False and slow.unresolved == 1


def test_a_command_that_cannot_run_stops_with_oracle_failed():
    o = command_oracle("/nonexistent/replay {trace}")
    with pytest.raises(OracleError) as exc:
        o(TRACE)
    assert exc.value.code == "ORACLE_FAILED" and exc.value.hint


def test_a_command_without_the_placeholder_is_a_usage_error():
    with pytest.raises(UsageError) as exc:
        command_oracle("replay.sh")
    assert exc.value.code == "ORACLE_COMMAND"
    with pytest.raises(UsageError):
        command_oracle("x {trace}", timeout=0)


def test_the_candidate_file_ingests_back_as_the_same_events(tmp_path):
    seen = tmp_path / "seen.jsonl"
    o = command_oracle(f"cp {{trace}} {seen}; exit 1")
    assert o(TRACE.subtrace(["r", "d"]))
    got = Store(tmp_path / "s")
    ingest([seen], got)
    assert [(e.event_id, e.seq) for e in got.trace("t").events] == [("r", 0), ("d", 2)]


def test_a_python_callable_is_an_oracle():
    r = minimize(TRACE, RULE, oracle=lambda t: "d" in t)
    assert r.kept_event_ids == ("r", "d") and r.one_minimal
