"""`workbench runs`: an agent's command run until Wald's sequential test decides, each
run's trace stored with its scenario and build and judged by the rules."""

import json
import sys

import pytest

from tests.support import run

RULES = """version: 1
rules:
  approval-before-archive:
    description: an archive needs an approval that finished earlier, for the same project
    before: {first: {tool: request_approval, where: {result.approved: true}},
             then: {tool: archive_project}, same: [args.project_id]}
"""
# an agent: run N archives project pN, asking for approval unless N is a multiple of
# EVERY (EVERY 0: it always asks); it writes its trace as our JSONL to the path given
AGENT = """import json, os, sys
n, every, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tid = f"{os.environ['WORKBENCH_SCENARIO']}-{os.environ['WORKBENCH_BUILD']}-{n}"
ev = []
if not (every and n % every == 0):
    ev.append({"trace_id": tid, "event_id": "a", "kind": "tool_call", "seq": 0,
               "name": "request_approval", "args": {"project_id": f"p{n}"},
               "result": {"approved": True}})
ev.append({"trace_id": tid, "event_id": "x", "kind": "tool_call", "seq": 1,
           "name": "archive_project", "args": {"project_id": f"p{n}"}, "result": {}})
ev.append({"trace_id": tid, "event_id": "r", "kind": "other", "seq": 2, "name": "resource",
           "attrs": {"otel": os.environ["OTEL_RESOURCE_ATTRIBUTES"]}})
open(out, "w").write("".join(json.dumps(e) + "\\n" for e in ev))
"""


@pytest.fixture
def setup(tmp_path):
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "agent.py").write_text(AGENT)
    return tmp_path


def runs(capsys, tmp, every, *extra):
    cmd = f"{sys.executable} {tmp / 'agent.py'} {{run}} {every} {{out}}"
    return run(capsys, "runs", cmd, "--scenario", "archive", "--build", "1.0", "--rules",
               tmp / "rules.yaml", "--store", tmp / "store", "--max-rate", "0.2", *extra)


def test_clean_runs_pass_as_soon_as_the_test_decides(capsys, setup):
    code, out, err = runs(capsys, setup, 0, "--json")
    assert code == 0, err
    doc = json.loads(out)
    # good 10 %, bad 40 %: each clean run moves the ratio by log(0.6/0.9); the boundary
    # log(0.05/0.95) is crossed at the 8th
    assert doc["verdict"] == "PASS" and doc["runs"] == 8
    assert doc["sequential"]["good"] == 0.1 and doc["sequential"]["bad"] == 0.4
    assert doc["rules"]["approval-before-archive"]["violations"] == 0
    # every run is stored with its scenario and build, and the agent saw them too
    code, out, _ = run(capsys, "sql", "select scenario, build, count(*) as n from traces "
                       "group by all", "--store", setup / "store", "--json")
    assert json.loads(out)["rows"] == [{"scenario": "archive", "build": "1.0", "n": 8}]
    code, out, _ = run(capsys, "sql", "select distinct attrs from events where name = "
                       "'resource'", "--store", setup / "store", "--json")
    assert "workbench.scenario=archive,workbench.build=1.0" in out
    # and check --by reads the same runs
    code, out, _ = run(capsys, "check", setup / "rules.yaml", "--store", setup / "store",
                       "--by", "scenario,build", "--max-rate", "0.4", "--json",
                       "--no-record")
    g = json.loads(out)["rates"]["groups"][0]
    assert (g["violations"], g["runs"], g["verdict"]) == (0, 8, "PASS")


def test_a_rule_broken_every_other_run_fails_early(capsys, setup):
    code, out, _ = runs(capsys, setup, 2)
    assert code == 1
    # a violation moves the ratio by log(4), a clean run by log(2/3): after 6 runs
    # 3 log(4) + 3 log(2/3) = 2.943, just short of log(0.95/0.05) = 2.944; run 8 brings 3.92
    assert out.splitlines()[:3] == ["run 1: clean", "run 2: approval-before-archive",
                                    "run 3: clean"]
    assert out.splitlines()[-1].startswith("FAIL after 8 run(s) of archive @ 1.0")


def test_undecided_after_max_runs_is_inconclusive(capsys, setup):
    code, out, _ = runs(capsys, setup, 0, "--max", "3", "--json")
    assert code == 1 and json.loads(out)["verdict"] == "INCONCLUSIVE"
    assert json.loads(out)["runs"] == 3


def test_a_run_that_gives_no_trace_stops_the_runs(capsys, setup):
    code, _out, err = run(capsys, "runs", f"{sys.executable} -c 'raise SystemExit(3)'",
                         "--scenario", "s", "--rules", setup / "rules.yaml", "--store",
                         setup / "store")
    assert code == 2 and "error[RUN_FAILED]: run 1: the command exited with status 3" in err


@pytest.mark.parametrize(("argv", "code"), [
    (["--scenario", "a b"], "SCENARIO_INVALID"),
    (["--scenario", "s", "--max-rate", "0"], "RATE_INVALID"),
    (["--scenario", "s", "--good-rate", "0.3"], "RATE_INVALID"),
])
def test_bad_settings_are_refused(capsys, setup, argv, code):
    got, _out, err = run(capsys, "runs", "true", "--rules", setup / "rules.yaml", "--store",
                        setup / "store", *argv)
    assert got == 2 and f"error[{code}]" in err and not (setup / "store").exists()
