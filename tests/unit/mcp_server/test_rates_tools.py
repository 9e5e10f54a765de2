"""The MCP `check` tool over runs of a scenario (`by`, `compare`, `max_rate`, `alpha`,
`margin`) and `replay`'s `fixed_below`: the same `rates` the CLI's `check --json` gives,
each answer valid against the tool's output schema, bad input a tool error with a code."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from tests.e2e.test_cli_rates import RULES, write_runs
from workbench.cli import main
from workbench.ingest import ingest
from workbench.mcp_server import TOOLS, ToolContext, call_tool
from workbench.store import Store


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """Forty runs of scenario s by build 1.4.2 (1 violating) and by 1.5.0 (12), and 20
    runs of scenario t by 1.5.0 (10 violating)."""
    root = tmp_path_factory.mktemp("rates-project")
    (root / "rules.yaml").write_text(RULES)
    store = Store(root / "store")
    for folder, name, n, k, scenario, build in (
            ("a", "base", 40, 1, "s", "1.4.2"), ("b", "cand", 40, 12, "s", "1.5.0"),
            ("c", "other", 20, 10, "t", "1.5.0")):
        ingest([write_runs(root / folder, name, n, k)], store, workers=1,
               scenario=scenario, build=build)
    return root


@pytest.fixture
def ctx(project):
    return ToolContext(project / "store", project)


def call(ctx, args):
    r = call_tool(TOOLS, ctx, "check", args)
    if not r.is_error:
        Draft202012Validator(TOOLS["check"].output_schema).validate(r.doc)
        assert json.loads(r.text) == r.doc
    return r


def cli_rates(project, capsys, *argv):
    main(["check", str(project / "rules.yaml"), "--store", str(project / "store"),
          "--no-record", "--json", *argv])
    return json.loads(capsys.readouterr().out)["rates"]


def test_by_scenario_answers_the_rates_of_check_by(ctx, project, capsys):
    r = call(ctx, {"rules": "rules.yaml", "by": "scenario", "max_rate": 0.05,
                   "record": False})
    assert not r.is_error, r.doc
    rates = r.doc["rates"]
    assert rates == cli_rates(project, capsys, "--by", "scenario", "--max-rate", "0.05")
    got = {(g["rule"], g["scenario"]): (g["violations"], g["runs"], g["verdict"])
           for g in rates["groups"]}
    assert got[("approval-before-archive", "s")] == (13, 80, "FAIL")
    assert got[("approval-before-archive", "t")] == (10, 20, "FAIL")
    assert got[("list-first", "t")] == (0, 20, "INCONCLUSIVE")
    assert (rates["by"], rates["compare"], rates["unlabelled"]) == ("scenario", None, 0)
    # the findings are the check's, as without `by`
    assert len(r.doc["findings"]) == 1 + 12 + 10 and r.doc["recorded"] is False
    by_build = call(ctx, {"rules": "rules.yaml", "by": "scenario,build", "record": False})
    assert {(g["scenario"], g["build"]) for g in by_build.doc["rates"]["groups"]} == {
        ("s", "1.4.2"), ("s", "1.5.0"), ("t", "1.5.0")}


def test_compare_answers_the_rates_of_check_compare(ctx, project, capsys):
    r = call(ctx, {"rules": "rules.yaml", "compare": "1.4.2..1.5.0", "record": False})
    assert not r.is_error, r.doc
    rates = r.doc["rates"]
    assert rates == cli_rates(project, capsys, "--compare", "1.4.2..1.5.0")
    g = next(g for g in rates["groups"] if g["rule"] == "approval-before-archive")
    assert (g["scenario"], g["base"]["violations"], g["base"]["runs"],
            g["candidate"]["violations"], g["candidate"]["runs"]) == ("s", 1, 40, 12, 40)
    assert g["verdict"] == "REGRESSED" and g["p_value"] < 0.01
    assert g["difference"] == pytest.approx(11 / 40)
    # a wider margin and a stricter alpha reach the comparison
    r = call(ctx, {"rules": "rules.yaml", "compare": "1.5.0..1.4.2", "alpha": 0.001,
                   "margin": 0.5, "record": False})
    g = next(g for g in r.doc["rates"]["groups"] if g["rule"] == "approval-before-archive")
    assert (g["alpha"], g["margin"], g["verdict"]) == (0.001, 0.5, "IMPROVED")
    assert r.doc["rates"] == cli_rates(project, capsys, "--compare", "1.5.0..1.4.2",
                                       "--alpha", "0.001", "--margin", "0.5")


@pytest.mark.parametrize(("args", "code"), [
    ({"by": "build"}, "BAD_ARGUMENTS"),
    ({"by": "scenario", "compare": "1.4.2..1.5.0"}, "USAGE"),
    ({"compare": "1.4.2"}, "USAGE"),
    ({"compare": "1.4.2..9.9"}, "BUILD_UNKNOWN"),
    ({"max_rate": 1.0, "by": "scenario"}, "BAD_ARGUMENTS"),
    ({"alpha": 0, "compare": "1.4.2..1.5.0"}, "BAD_ARGUMENTS"),
    ({"by": "scenario", "recording": "a/base-000.jsonl"}, "USAGE"),
])
def test_bad_rate_arguments_are_tool_errors(ctx, args, code):
    r = call(ctx, {"rules": "rules.yaml", "record": False, **args})
    assert r.is_error and r.doc["error"]["code"] == code, r.doc
    assert r.text.startswith(f"error[{code}]: ") and "\n  hint: " in r.text


def test_replay_declares_fixed_below_and_the_reproduction_rate():
    tool = TOOLS["replay"]
    fb = tool.input_schema["properties"]["fixed_below"]
    assert (fb["exclusiveMinimum"], fb["exclusiveMaximum"]) == (0, 1)
    assert {"reproduction", "fixed_below"} <= set(tool.output_schema["required"])


def test_shadow_compare_answers_shadow_compare_json(ctx, project, capsys):
    (project / "canon.yaml").write_text("version: 1\nsymbolize: [project_id]\n")
    r = call_tool(TOOLS, ctx, "shadow_compare", {"compare": "1.4.2..1.5.0",
                                                 "scenario": "s", "canon": "canon.yaml"})
    assert not r.is_error, r.doc
    Draft202012Validator(TOOLS["shadow_compare"].output_schema).validate(r.doc)
    main(["shadow", "--compare", "1.4.2..1.5.0", "--scenario", "s", "--canon",
          str(project / "canon.yaml"), "--store", str(project / "store"), "--json"])
    assert json.loads(capsys.readouterr().out) == r.doc
    (sc,) = r.doc["scenarios"]
    # base-000 skipped the approval: against it, the other runs add one (39 of 39 base,
    # 28 of 40 candidate: the candidate is more often like that reference)
    assert (sc["reference"], sc["base_runs"], sc["candidate_runs"]) == ("base-000", 39, 40)
    (added,) = sc["fields"]
    assert (added["path"], added["base"]["changed"], added["candidate"]["changed"],
            added["verdict"]) == ("+ tool_call request_approval", 39, 28, "IMPROVED")
    # a golden run as the reference reads the skipped approvals as what they are
    r = call_tool(TOOLS, ctx, "shadow_compare", {"compare": "1.4.2..1.5.0",
                                                 "scenario": "s", "canon": "canon.yaml",
                                                 "reference": "base-001"})
    (gone,) = r.doc["scenarios"][0]["fields"]
    assert (gone["path"], gone["base"]["changed"], gone["candidate"]["changed"],
            gone["verdict"]) == ("- tool_call request_approval", 1, 12, "REGRESSED")


@pytest.mark.parametrize(("args", "code"), [
    ({"compare": "1.4.2..9.9"}, "BUILD_UNKNOWN"),
    ({"compare": "1.4.2"}, "USAGE"),
    ({"compare": "1.4.2..1.5.0", "reference": "base-001"}, "USAGE"),  # two scenarios
    ({"compare": "1.4.2..1.5.0", "canon": "../x.yaml"}, "REF_OUTSIDE"),
    ({"compare": "1.4.2..1.5.0", "alpha": 1}, "BAD_ARGUMENTS"),
])
def test_shadow_compare_bad_arguments(ctx, args, code):
    r = call_tool(TOOLS, ctx, "shadow_compare", args)
    assert r.is_error and r.doc["error"]["code"] == code, r.doc
