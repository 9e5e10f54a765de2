"""``workbench contract import|lint|export`` as users run them: what each prints, the
files written, exit codes, and every bad input refused with its code, naming the file,
the tool and the path, with nothing written."""

import json
import sys
import types

import pytest
import yaml

from tests.support import run, snapshot

TOOLS = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
    {"name": "projects.archive", "description": "Archive one project.",
     "inputSchema": {"type": "object", "required": ["project_id"],
                     "properties": {"project_id": {"type": "string", "maxLength": 40},
                                    "reason": {"type": "string"}}},
     "annotations": {"destructiveHint": True}},
    {"name": "projects_list", "description": "List projects.",
     "inputSchema": {"type": "object", "additionalProperties": False, "properties": {}},
     "annotations": {"readOnlyHint": True}}]}}
OPENAPI = """openapi: 3.1.0
info: {title: Projects, version: '1'}
paths:
  /projects/{id}:
    delete:
      operationId: deleteProject
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '204': {description: gone}
        '404': {description: no such project}
"""


@pytest.fixture(autouse=True)
def no_env_store(monkeypatch, tmp_path):
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def tools(tmp_path):
    path = tmp_path / "tools.mcp.json"
    path.write_text(json.dumps(TOOLS))
    return path


def test_import_prints_a_manifest_that_reads_back(capsys, tmp_path, tools):
    code, out, err = run(capsys, "contract", "import", tools)
    assert code == 0, err
    doc = yaml.safe_load(out)
    assert doc["version"] == 1 and [t["tool"] for t in doc["tools"]] == [
        "projects.archive", "projects_list"]
    assert doc["tools"][0]["side_effect"] == "destructive"
    (tmp_path / "m.yaml").write_text(out)
    code, out, _ = run(capsys, "contract", "import", tmp_path / "m.yaml", "--json")
    assert code == 0 and json.loads(out)["manifest"] == doc


def test_import_writes_one_file_per_tool_and_says_what_is_unknown(capsys, tmp_path, tools):
    api = tmp_path / "api.yaml"
    api.write_text(OPENAPI)
    code, out, err = run(capsys, "contract", "import", tools, api, "--out", "contracts",
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["out"] == "contracts" and "manifest" not in doc
    assert [(t["tool"], t["format"], t["status"]) for t in doc["tools"]] == [
        ("projects.archive", "mcp", "written"), ("projects_list", "mcp", "written"),
        ("deleteProject", "openapi", "written")]
    assert doc["tools"][2]["unknown"] == ["revision", "errors.retryable", "timeout_s",
                                          "cancellable", "auth_scope"]
    assert doc["tools"][2]["path"] == "contracts/deleteProject.yaml"
    assert sorted(p.name for p in (tmp_path / "contracts").iterdir()) == [
        "deleteProject.yaml", "projects.archive.yaml", "projects_list.yaml"]
    code, out, _ = run(capsys, "contract", "import", tools, "--out", "contracts")
    assert code == 0 and out.startswith("unchanged contracts/projects.archive.yaml (mcp; ")


def test_import_refuses_to_overwrite_a_changed_descriptor_unless_forced(capsys, tools):
    assert run(capsys, "contract", "import", tools, "--out", "c")[0] == 0
    TOOLS2 = json.loads(json.dumps(TOOLS))
    TOOLS2["result"]["tools"][1]["description"] = "List every project."
    tools.write_text(json.dumps(TOOLS2))
    code, out, err = run(capsys, "contract", "import", tools, "--out", "c")
    assert code == 2 and out == ""
    assert err.startswith("error[DESCRIPTOR_EXISTS]: c/projects_list.yaml exists")
    code, out, _ = run(capsys, "contract", "import", tools, "--out", "c", "--force")
    assert code == 0 and "replaced c/projects_list.yaml" in out


def test_import_from_the_store(capsys, tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(json.dumps(m) for m in [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, TOOLS]) + "\n")
    assert run(capsys, "ingest", session, "--store", "st")[0] == 0
    code, out, err = run(capsys, "--store", "st", "contract", "import", "--from-store",
                         "--json")
    assert code == 0, err
    files = {t["file"] for t in json.loads(out)["tools"]}
    assert len(files) == 1 and files.pop().startswith("store:")
    code, _, err = run(capsys, "contract", "import", "--trace", "nope", "--store", "st")
    assert code == 2 and err.startswith("error[TRACE_NOT_FOUND]")
    code, _, err = run(capsys, "contract", "import")
    assert code == 2 and err.startswith("error[USAGE]: workbench contract import: name files")


BAD = {
    "unknown.json": ('{"hello": "world"}', "UNKNOWN_CONTRACT_FORMAT", "not a descriptor"),
    "broken.json": ('{"tools": [', "INVALID_JSON", "invalid JSON"),
    "typo.json": (json.dumps({"tools": [{"name": "t", "inputSchema": {"type": "strnig"}}]}),
                  "SCHEMA_INVALID", "tool t, input at /type"),
    "ref.json": (json.dumps([{"name": "t", "inputSchema": {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}}]),
                 "SCHEMA_INVALID", "tool t, input at /properties/a: $ref '#/$defs/A' resolves"),
    "twice.json": (json.dumps([{"type": "function", "function": {"name": "t"}}] * 2),
                   "DUPLICATE_TOOL", "tool t is described twice ([0] and [1])"),
    "anthropic.json": (json.dumps([{"name": "t", "input_schema": {
        "type": "object", "properties": {"n": {"type": "integer", "minimum": "0"}}}}]),
        "SCHEMA_INVALID", "tool t, input at /properties/n/minimum"),
    "openai.json": (json.dumps({"model": "m", "tools": [{"type": "function", "function": {
        "name": "t", "parameters": {"type": "object", "required": "q"}}}]}),
        "SCHEMA_INVALID", "tool t, input at /required"),
    "newer.yaml": ("version: 2\ntool: t\n", "CONTRACT_TOO_NEW", "tool t: descriptor version 2"),
    "gemini.json": (json.dumps([{"functionDeclarations": [{"name": "t", "parameters": {
        "type": "OBJECT", "properties": {"a": {"type": "STRNIG"}}}}]}]), "SCHEMA_INVALID",
        "tool t, input at /properties/a/type"),
    "api.yaml": (OPENAPI.replace("{type: string}}", "{$ref: '#/components/schemas/Id'}}"),
                 "SCHEMA_INVALID", "tool deleteProject, paths./projects/{id}.delete.parameters.id"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_inputs_exit_2_with_their_code_and_write_nothing(capsys, tmp_path, tools, name):
    text, code_, words = BAD[name]
    bad = tmp_path / name
    bad.write_text(text)
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "contract", "import", tools, bad, "--out", out_dir,
                         "--strict")
    assert code == 2 and out == ""
    assert err.startswith(f"error[{code_}]: ") and str(bad) in err and words in err, err
    assert "hint:" in err and "Traceback" not in err
    assert not out_dir.exists()
    code, out, _ = run(capsys, "contract", "import", bad, "--json")
    if name == "twice.json":  # the first t is kept, the second refused
        assert code == 4 and json.loads(out)["refused"][0]["code"] == code_
    else:
        assert code == 2 and json.loads(out)["error"]["code"] == code_
    if code_ in ("SCHEMA_INVALID", "DUPLICATE_TOOL"):  # a tool refused alone: partial
        code, out, err = run(capsys, "contract", "import", tools, bad, "--json")
        assert code == 4 and [r["code"] for r in json.loads(out)["refused"]] == [code_]


def test_lint_names_each_problem_and_exits_1(capsys, tools):
    code, out, err = run(capsys, "contract", "lint", tools, "--provider", "openai", "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["providers"] == ["openai"] and doc["tools"] == 2
    assert [(p["tool"], p["path"], p["keyword"], p["severity"], p["fix"])
            for p in doc["problems"]] == [
        ("projects.archive", "/tool", "name", "reject", "none"),
        ("projects.archive", "/input/properties/project_id/maxLength", "maxLength", "reject",
         "lossy"),
        ("projects.archive", "/input/additionalProperties", "additionalProperties", "reject",
         "lossless"),
        ("projects.archive", "/input/properties/reason", "required", "reject", "lossless")]
    code, out, _ = run(capsys, "contract", "lint", tools, "--provider", "mcp")
    assert code == 0 and out == "no problems: 2 tools fit mcp\n"
    code, out, _ = run(capsys, "contract", "lint", tools)
    assert code == 1 and "(openai, anthropic, gemini, mcp): " in out.splitlines()[-1]


LOSSLESS = {"tools": [
    {"name": f"list_{i}", "description": "List things.",
     "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
     "annotations": {"readOnlyHint": True}} for i in range(3)]}


def test_lint_groups_by_rule_and_exits_0_when_export_fixes_everything(capsys, tmp_path):
    """Three tools each lacking `additionalProperties` and with one optional argument:
    six OpenAI problems in two rules, all rewritten by export without loss."""
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(LOSSLESS))
    code, out, err = run(capsys, "contract", "lint", path, "--provider", "openai")
    assert code == 0, err
    assert out.splitlines() == [
        "export fixes without loss: 6 problem(s)",
        "  openai/additionalProperties  reject, export: lossless  3 in 3 tool(s)",
        "      e.g. list_0 /input/additionalProperties: strict mode needs "
        "`additionalProperties: false` on every object; export adds it",
        "  openai/required  reject, export: lossless  3 in 3 tool(s)",
        "      e.g. list_0 /input/properties/q: strict mode needs every property required; "
        "export requires 'q' and lets it be null",
        "6 problems in 3 of 3 tools (openai): 0 need a decision, 6 export fixes without loss"]
    code, out, _ = run(capsys, "contract", "lint", path, "--provider", "openai", "--json")
    doc = json.loads(out)
    assert code == 0 and (doc["fixable"], doc["decisions"], doc["hidden"]) == (6, 0, 0)
    assert len(doc["problems"]) == 6 and {p["decision"] for p in doc["problems"]} == {False}
    assert [(g["rule"], g["fix"], g["count"], g["tools"], g["decision"], g["example"]["tool"])
            for g in doc["groups"]] == [
        ("openai/additionalProperties", "lossless", 3, 3, False, "list_0"),
        ("openai/required", "lossless", 3, 3, False, "list_0")]


def test_lint_puts_decisions_first_and_filters_by_severity(capsys, tmp_path):
    """Gemini keeps one example (`drop`, lossy) and has no `exclusiveMinimum` (`reject`,
    lossy): both need a decision; `--severity reject` leaves the drop out and says so."""
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [
        {"name": "find", "inputSchema": {"type": "object", "properties": {
            "n": {"type": "integer", "exclusiveMinimum": 0, "examples": [1, 2]}}}}]}))
    code, out, _ = run(capsys, "contract", "lint", path, "--provider", "gemini", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["decisions"] == 2 and doc["severity"] == "drop"
    assert [(g["rule"], g["severity"], g["fix"]) for g in doc["groups"]] == [
        ("gemini/examples", "drop", "lossy"), ("gemini/exclusiveMinimum", "reject", "lossy")]
    code, out, _ = run(capsys, "contract", "lint", path, "--provider", "gemini",
                       "--severity", "reject")
    assert code == 1
    assert out.splitlines()[0] == "needs a decision: 1 problem(s)"
    assert out.splitlines()[-1] == ("1 problems in 1 of 1 tools (gemini): 1 need a decision, "
                                    "0 export fixes without loss (1 less severe than reject "
                                    "not shown)")
    code, out, _ = run(capsys, "contract", "lint", path, "--provider", "mcp", "--severity",
                       "reject")
    assert code == 0 and out == "no problems: 1 tools fit mcp\n"


def test_export_to_stdout_to_a_file_and_refusals(capsys, tmp_path, tools):
    code, out, err = run(capsys, "contract", "export", tools, "--provider", "mcp")
    assert code == 0, err
    assert [t["name"] for t in json.loads(out)["tools"]] == ["projects.archive", "projects_list"]
    code, out, err = run(capsys, "contract", "export", tools, "--provider", "anthropic")
    assert code == 2 and out == ""
    assert err.startswith("error[EXPORT_UNSUPPORTED]: anthropic cannot take")
    assert "projects.archive /tool" in err
    single = tmp_path / "list.json"
    single.write_text(json.dumps({"tools": TOOLS["result"]["tools"][:1]}))
    target = tmp_path / "gemini.json"
    code, out, err = run(capsys, "contract", "export", single, "--provider", "gemini",
                         "--out", target)
    assert code == 0, err  # maxLength is Gemini's too; nothing lost
    assert json.loads(target.read_text())[0]["functionDeclarations"][0]["name"] == (
        "projects.archive")
    renamed = tmp_path / "r.json"
    tool = dict(TOOLS["result"]["tools"][0], name="archive")
    renamed.write_text(json.dumps([tool]))
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "contract", "export", renamed, "--provider", "openai",
                         "--out", tmp_path / "o.json")
    assert code == 2 and err.startswith("error[EXPORT_LOSSY]: exporting to openai would lose")
    assert "archive /input/properties/project_id/maxLength" in err
    assert snapshot(tmp_path) == before
    code, out, _ = run(capsys, "contract", "export", renamed, "--provider", "openai", "--json")
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "EXPORT_LOSSY"
    assert [(p["path"], p["fix"]) for p in error["details"]["problems"]] == [
        ("/input/properties/project_id/maxLength", "lossy")]
    code, out, err = run(capsys, "contract", "export", renamed, "--provider", "openai",
                         "--lossy", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["out"] is None and doc["document"][0]["function"]["strict"]
    assert [p["keyword"] for p in doc["dropped"]] == ["maxLength"]
    assert {p["keyword"] for p in doc["transformed"]} == {"additionalProperties", "required"}
    assert doc["omitted"] == [{"tool": "archive", "fields": ["side_effect"]}]


def test_contract_without_an_action_is_a_usage_error(capsys):
    code, _, err = run(capsys, "contract")
    assert code == 2 and err.startswith("error[USAGE]: workbench contract: name an action")


def test_other_contract_actions_register_from_their_modules(capsys, monkeypatch):
    from workbench.cli import _contract

    module = types.ModuleType("workbench.cli._contract_probe")

    def register_action(actions):
        a = actions.add_parser("probe", help="a probe")
        a.add_argument("--json", action="store_true")
        a.set_defaults(func=lambda args: print("probed") or 0)

    module.register_action = register_action
    monkeypatch.setitem(sys.modules, "workbench.cli._contract_probe", module)
    monkeypatch.setattr(_contract, "_ACTIONS", ("_contract_probe",))
    code, out, _ = run(capsys, "contract", "probe")
    assert code == 0 and out == "probed\n"
