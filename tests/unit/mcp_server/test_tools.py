"""The MCP tools called in-process: each one's known answer over the example incident,
every answer valid against the tool's declared output schema, and bad input as a tool
error with our code (never an exception)."""

from __future__ import annotations

import json
import os

import pytest
from jsonschema import Draft202012Validator

from tests.mcp_support import FINDINGS, GHP, TRACE, make_project
from workbench.mcp_server import TOOLS, Tool, ToolContext, call_tool


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    return root, make_project(root)


@pytest.fixture
def ctx(project):
    root, store = project
    return ToolContext(store, root, allow_targets=("http://127.0.0.1:9",),
                       allow_auth_env=frozenset({"WB_TEST_NEVER_SET"}))


def call(ctx, name, args=None):
    """The tool's answer; a success is checked against its output schema."""
    r = call_tool(TOOLS, ctx, name, args or {})
    if not r.is_error:
        Draft202012Validator(TOOLS[name].output_schema).validate(r.doc)
        assert json.loads(r.text) == r.doc
    return r


def error(ctx, name, args) -> str:
    r = call(ctx, name, args)
    assert r.is_error, r.doc
    code = r.doc["error"]["code"]
    assert r.text.startswith(f"error[{code}]: ") and "\n  hint: " in r.text
    return code


def test_every_tool_declares_object_schemas_that_are_valid():
    assert list(TOOLS) == ["list_findings", "list_groups", "show_finding", "check",
                           "invariants", "minimize", "replay", "fixture_status", "ingest",
                           "shadow_compare"]
    for tool in TOOLS.values():
        for schema in (tool.input_schema, tool.output_schema):
            Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object"
        assert tool.input_schema.get("additionalProperties") is False
        assert tool.listing()["outputSchema"] is tool.output_schema
    read_only = [t.name for t in TOOLS.values() if t.listing()["annotations"]["readOnlyHint"]]
    assert read_only == ["list_findings", "list_groups", "show_finding", "fixture_status",
                         "shadow_compare"]


def test_list_findings_newest_first_with_ids_and_filters(ctx):
    doc = call(ctx, "list_findings").doc
    assert doc["total"] == 5 and not doc["truncated"]
    assert sorted((f["rule"], f["seq"], f["signature"]) for f in doc["findings"]) == FINDINGS
    assert len({f["finding_id"] for f in doc["findings"]}) == 5
    assert all(len(f["finding_id"]) == 16 for f in doc["findings"])
    again = call(ctx, "list_findings").doc
    assert [f["finding_id"] for f in again["findings"]] == [f["finding_id"] for f in doc["findings"]]
    warn = call(ctx, "list_findings", {"severity": "warn"}).doc
    assert [(f["rule"], f["seq"]) for f in warn["findings"]] == [("list-filters-by-owner-id", 2)]
    by_sig = call(ctx, "list_findings", {"signature": "3a09"}).doc
    assert [f["seq"] for f in by_sig["findings"]] == [8, 9]
    assert call(ctx, "list_findings", {"trace_id": TRACE[:8], "rule": "archive-owned-only"}
                ).doc["total"] == 2
    two = call(ctx, "list_findings", {"limit": 2}).doc
    assert len(two["findings"]) == 2 and two["total"] == 5 and two["truncated"]
    pages = [call(ctx, "list_findings", {"limit": 2, "offset": o}).doc for o in (0, 2, 4)]
    assert [f["finding_id"] for p in pages for f in p["findings"]] == [f["finding_id"] for f in doc["findings"]]
    assert [p["truncated"] for p in pages] == [True, True, False]
    past = call(ctx, "list_findings", {"offset": 10}).doc
    assert (past["findings"], past["total"], past["truncated"]) == ([], 5, False)


def test_list_groups_reads_every_column_of_the_view(ctx):
    doc = call(ctx, "list_groups").doc
    assert {"signature", "rule", "count", "status", "example", "last_seen"} <= set(
        doc["columns"])
    assert sorted((g["rule"], g["count"], g["status"]) for g in doc["groups"]) == [
        ("approval-before-archive", 2, "open"), ("archive-owned-only", 2, "open"),
        ("list-filters-by-owner-id", 1, "open")]
    assert all(set(g) == set(doc["columns"]) for g in doc["groups"])
    assert call(ctx, "list_groups", {"status": "open"}).doc["total"] == 3
    assert call(ctx, "list_groups", {"status": "fixed"}).doc == {
        "groups": [], "columns": doc["columns"], "total": 0, "truncated": False}
    second = call(ctx, "list_groups", {"limit": 1, "offset": 1}).doc
    assert second["groups"] == doc["groups"][1:2] and second["truncated"]
    only = call(ctx, "list_groups", {"rule": "archive-owned-only"}).doc["groups"]
    assert [g["signature"] for g in only] == ["e3cd8e366278883f"]


def test_show_finding_gives_the_steps_that_lead_to_it(ctx):
    listed = call(ctx, "list_findings", {"rule": "archive-owned-only"}).doc["findings"]
    first = next(f for f in listed if f["seq"] == 8)
    doc = call(ctx, "show_finding", {"finding": first["finding_id"]}).doc
    assert doc["finding_id"] == first["finding_id"] and doc["message"] == (
        "archive_project p18 at step 8 came from list_projects at step 2 (result.items[1]), "
        "whose owner_id does not qualify")
    assert [(s["seq"], s["name"], s["role"]) for s in doc["steps"]] == [
        (0, "ops-agent", "leads_to"), (2, "list_projects", "witness"),
        (8, "archive_project", "offender")]
    offender = doc["steps"][-1]
    assert offender["args"] == {"project_id": "string(3)"}  # shapes, never values
    assert offender["from"] == [
        "args.project_id <- list_projects at step 2 result.items[1].id"]
    assert offender["text"] == (
        'archive_project at step 8 (tool_call, ok): args {"project_id":"string(3)"} -> '
        '{"project_id":"string(3)","state":"string(8)"}; args.project_id <- list_projects '
        "at step 2 result.items[1].id  [offender]")
    assert doc["group"]["signature"] == "e3cd8e366278883f" and doc["group"]["count"] == 2
    assert doc["text"].splitlines()[0] == f"error archive-owned-only: {doc['message']}"
    assert doc["steps_left_out"] == 0 and doc["minimized"] is None


def test_show_finding_by_signature_or_prefix_and_a_step_budget(ctx):
    by_sig = call(ctx, "show_finding", {"finding": "3a099b3e98e81f00"}).doc
    assert by_sig["rule"] == "approval-before-archive" and by_sig["seq"] in (8, 9)
    assert call(ctx, "show_finding", {"finding": "c2b66"}).doc["seq"] == 2
    one = call(ctx, "show_finding", {"finding": "e3cd8e36", "max_steps": 1}).doc
    assert [s["role"] for s in one["steps"]] == ["witness", "offender"]  # witnesses stay
    assert one["steps_left_out"] == 1


def test_check_the_store_or_a_recording(ctx):
    doc = call(ctx, "check", {"rules": "rules.yaml", "record": False}).doc
    assert (doc["source"], doc["recorded"], doc["errors"], doc["warnings"]) == (
        "store", False, 4, 1)
    assert sorted((f["rule"], f["seq"], f["signature"]) for f in doc["findings"]) == FINDINGS
    rec = call(ctx, "check", {"rules": "rules.yaml", "recording": "incident.otlp.json",
                              "engine": "python"}).doc
    assert (rec["source"], rec["recorded"], rec["traces_checked"]) == ("recording", False, 1)
    assert [f["message"] for f in rec["findings"]] == [f["message"] for f in doc["findings"]]
    assert call(ctx, "list_findings").doc["total"] == 5  # neither was recorded


def test_invariants_judge_the_recorded_http_traffic(ctx):
    doc = call(ctx, "invariants", {"openapi": "openapi.yaml", "record": False}).doc
    assert (doc["exchanges"], doc["judged"], doc["errors"]) == (4, 4, 1)
    (f,) = doc["findings"]
    assert (f["rule"], f["seq"], f["operation"]) == (
        "status_declared", 12, "POST /v1/projects/{id}/archive")
    only = call(ctx, "invariants", {"openapi": "openapi.yaml", "only": ["pagination"],
                                    "record": False}).doc
    assert only["rules"] == ["pagination"] and only["findings"] == []


def test_minimize_offline_and_show_finding_names_the_result(tmp_path):
    store = make_project(tmp_path)
    ctx = ToolContext(store, tmp_path)
    doc = call(ctx, "minimize", {"trace_id": TRACE[:8], "rules": "rules.yaml",
                                 "rule": "approval-before-archive"}).doc
    assert (doc["kept_steps"], doc["one_minimal"], doc["stored"]) == ([0, 2, 8], True, True)
    again = call(ctx, "minimize", {"trace_id": TRACE, "rules": "rules.yaml",
                                   "rule": "approval-before-archive"}).doc
    assert again["trace_id"] == doc["trace_id"] and again["stored"] is False
    shown = call(ctx, "show_finding", {"finding": "3a099b3e98e81f00"}).doc
    assert shown["minimized"] == {"trace_id": doc["trace_id"], "events": 3}
    inv = call(ctx, "minimize", {"trace_id": TRACE, "openapi": "openapi.yaml",
                                 "rule": "status_declared", "save": False}).doc
    assert inv["stored"] is None and inv["kept_events"] < inv["original_events"] == 14


def test_fixture_status_is_verify(tmp_path, capsys):
    from workbench.cli import main
    store = make_project(tmp_path)
    fixtures = tmp_path / "fixtures"
    assert main(["promote", TRACE, "--rules", str(tmp_path / "rules.yaml"), "--name",
                 "archive", "--fixtures", str(fixtures), "--store", str(store)]) == 0
    capsys.readouterr()
    ctx = ToolContext(store, tmp_path)
    doc = call(ctx, "fixture_status", {"fixtures": "fixtures"}).doc
    assert (doc["fixtures"], doc["problems"], doc["ok"], doc["fixtures_dir"]) == (
        1, [], True, "fixtures")
    trace = next(fixtures.rglob("trace.parquet"))
    trace.write_bytes(trace.read_bytes()[:-9] + b"tampered!")
    bad = call(ctx, "fixture_status", {"fixtures": "fixtures"}).doc
    assert not bad["ok"] and bad["problems"][0]["fixture"].startswith("archive")
    assert error(ctx, "fixture_status", {}) == "FIXTURES_NOT_FOUND"


def test_ingest_is_redacted_and_confined(tmp_path):
    store = make_project(tmp_path, check=False)
    ctx = ToolContext(store, tmp_path)
    doc = call(ctx, "ingest", {"path": "secret.jsonl"}).doc
    assert [(t["trace_id"], t["events"]) for t in doc["traces"]] == [("with-a-secret", 1)]
    assert doc["redacted"] is True
    stored = b"".join(p.read_bytes() for p in store.rglob("*.parquet"))
    assert GHP.encode() not in stored
    assert call(ctx, "ingest", {"path": "secret.jsonl"}).doc["skipped"]
    assert error(ctx, "ingest", {"path": "."}) == "NOT_A_FILE"
    assert error(ctx, "ingest", {"path": "store"}) == "NOT_A_FILE"
    assert error(ctx, "ingest", {"path": "secret.jsonl", "redact": False}) == "BAD_ARGUMENTS"


def test_ingest_of_a_tool_definition_or_a_broken_file_is_a_tool_error(tmp_path):
    store = make_project(tmp_path, check=False)
    ctx = ToolContext(store, tmp_path)
    (tmp_path / "tool.json").write_text('{"name": "echo", "inputSchema": {"type": "object"}}')
    assert error(ctx, "ingest", {"path": "tool.json"}) == "TOOL_DEFINITION"
    (tmp_path / "cut.json").write_text('{"resourceSpans": [{"scopeSpans": [')
    assert error(ctx, "ingest", {"path": "cut.json"}) == "INVALID_JSON"
    doc = call(ctx, "ingest", {"path": "secret.jsonl"}).doc
    assert (doc["refused"], doc["merged"]) == ([], [])


@pytest.mark.parametrize(("name", "args", "code"), [
    ("show_finding", {"finding": "0000nothing"}, "FINDING_NOT_FOUND"),
    ("show_finding", {}, "BAD_ARGUMENTS"),
    ("show_finding", {"finding": 7}, "BAD_ARGUMENTS"),
    ("list_findings", {"limit": "ten"}, "BAD_ARGUMENTS"),
    ("list_findings", {"limit": 0}, "BAD_ARGUMENTS"),
    ("list_groups", {"offset": -1}, "BAD_ARGUMENTS"),
    ("list_findings", {"colour": "red"}, "BAD_ARGUMENTS"),
    ("list_findings", {"trace_id": "ffff"}, "TRACE_NOT_FOUND"),
    ("list_findings", {"severity": "fatal"}, "BAD_ARGUMENTS"),
    ("check", {"rules": "broken.yaml"}, "RULES_YAML"),
    ("check", {"rules": "missing.yaml"}, "FILE_NOT_FOUND"),
    ("check", {"rules": "/etc/passwd"}, "REF_OUTSIDE"),
    ("check", {"rules": "../rules.yaml"}, "REF_OUTSIDE"),
    ("check", {"rules": "file:///etc/passwd"}, "REF_OUTSIDE"),
    ("check", {"rules": "rules.yaml", "recording": "../x.json"}, "REF_OUTSIDE"),
    ("check", {"rules": "rules.yaml", "recording": "incident.otlp.json",
               "trace_ids": [TRACE]}, "USAGE"),
    ("check", {"rules": "rules.yaml", "recording": "rules.yaml"}, "UNKNOWN_FORMAT"),
    ("check", {"rules": "rules.yaml", "recording": "."}, "NOT_A_FILE"),
    ("check", {"rules": "rules.yaml", "recording": "store"}, "NOT_A_FILE"),
    ("check", {"rules": "rules.yaml\x00"}, "BAD_ARGUMENTS"),
    ("check", {"rules": "."}, "NOT_A_FILE"),
    ("invariants", {"openapi": "."}, "NOT_A_FILE"),
    ("fixture_status", {"fixtures": "rules.yaml"}, "NOT_A_DIRECTORY"),
    ("check", {"rules": "rules.yaml", "engine": "spark"}, "BAD_ARGUMENTS"),
    ("invariants", {"openapi": "rules.yaml"}, "OPENAPI_INVALID"),
    ("invariants", {"openapi": "openapi.yaml", "only": ["nonsense"]}, "BAD_ARGUMENTS"),
    ("replay", {"finding": "0000nothing", "target": "http://127.0.0.1:9"},
     "FINDING_NOT_FOUND"),
    ("replay", {"finding": FINDINGS[0][2], "target": "ftp://127.0.0.1/"},
     "REPLAY_TARGET_INVALID"),
    ("replay", {"finding": FINDINGS[0][2], "target": "http://127.0.0.1:9",
                "rules": "rules.yaml", "invariants": "openapi.yaml"}, "USAGE"),
    ("replay", {"finding": FINDINGS[0][2], "target": "http://127.0.0.1:9",
                "rules": "../rules.yaml"}, "REF_OUTSIDE"),
    ("replay", {"finding": FINDINGS[0][2], "target": "http://127.0.0.1:9",
                "auth_env": ["WB_TEST_NEVER_SET"]}, "AUTH_ENV_UNSET"),
    ("replay", {"finding": FINDINGS[0][2], "target": "http://127.0.0.1:9"},
     "REPLAY_NEEDS_ORACLE"),
    ("replay", {"finding": FINDINGS[0][2], "target": "http://127.0.0.1:9",
                "oracle_cmd": "python run.py {trace}"}, "BAD_ARGUMENTS"),
    ("replay", {"finding": FINDINGS[0][2], "target": "http://127.0.0.1:9",
                "attempts": 0}, "BAD_ARGUMENTS"),
    ("minimize", {"trace_id": TRACE, "rule": "approval-before-archive"}, "USAGE"),
    ("minimize", {"trace_id": TRACE, "rules": "rules.yaml", "rule": "nope"}, "UNKNOWN_RULE"),
    ("minimize", {"trace_id": TRACE, "openapi": "openapi.yaml", "rule": "nope"},
     "UNKNOWN_INVARIANT"),
    ("minimize", {"trace_id": TRACE, "rules": "rules.yaml", "rule": "approval-before-archive",
                  "signature": "ffff"}, "NO_FINDING"),
    ("minimize", {"trace_id": TRACE, "rules": "rules.yaml", "rule": "approval-before-archive",
                  "max_calls": -1}, "BAD_ARGUMENTS"),
    ("fixture_status", {"fixtures": "/etc"}, "REF_OUTSIDE"),
    ("no_such_tool", {}, "UNKNOWN_TOOL"),
])
def test_bad_input_is_a_tool_error_with_our_code(ctx, name, args, code):
    assert error(ctx, name, args) == code


def test_a_link_out_of_the_folder_is_refused(ctx, project, tmp_path):
    root, _ = project
    outside = tmp_path / "rules.yaml"
    outside.write_text((root / "rules.yaml").read_text())
    link = root / "linked.yaml"
    if not link.exists():
        os.symlink(outside, link)
    assert error(ctx, "check", {"rules": "linked.yaml"}) == "REF_OUTSIDE"


def test_arguments_that_are_not_an_object(ctx):
    assert error(ctx, "list_findings", ["rule"]) == "BAD_ARGUMENTS"
    assert not call(ctx, "list_groups", None).is_error  # no arguments: the defaults


def test_an_error_message_quoting_a_secret_is_masked(ctx):
    r = call(ctx, "show_finding", {"finding": GHP})
    assert r.is_error and GHP not in r.text and GHP not in json.dumps(r.doc)
    assert "«" in r.doc["error"]["message"]


def test_a_bug_in_a_tool_is_an_internal_tool_error_not_a_crash(ctx):
    def broken(ctx, args):
        raise RuntimeError("boom " + GHP)
    tools = {"broken": Tool("broken", "raises", {"type": "object"}, {"type": "object"},
                            broken)}
    r = call_tool(tools, ctx, "broken", {})
    assert r.is_error and r.doc["error"]["code"] == "INTERNAL"
    assert "RuntimeError: boom" in r.text and GHP not in r.text
    assert not call(ctx, "list_groups").is_error


def test_a_prefix_naming_several_is_ambiguous(tmp_path, capsys):
    from workbench.cli import main
    store = make_project(tmp_path)
    for _ in range(3):  # 20 finding ids and 3 signatures: two share a first digit
        assert main(["check", str(tmp_path / "rules.yaml"), "--store", str(store)]) == 1
    capsys.readouterr()
    ctx = ToolContext(store, tmp_path)
    listed = call(ctx, "list_findings").doc["findings"]
    assert len(listed) == 20
    names = [f"finding {f['finding_id']}" for f in listed] + [f"group {s}" for s in
                                                     {f["signature"] for f in listed}]
    prefix = next(c for c in "0123456789abcdef"
                  if sum(n.split()[1].startswith(c) for n in names) > 1)
    r = call(ctx, "show_finding", {"finding": prefix})
    assert r.doc["error"]["code"] == "AMBIGUOUS_FINDING"
    assert r.doc["error"]["message"].startswith(f"'{prefix}' names several: ")
    latest = call(ctx, "show_finding", {"finding": "3a099b3e98e81f00"}).doc
    assert latest["checked_at"] == max(f["checked_at"] for f in listed)


def test_checking_a_recording_creates_no_store(project, tmp_path):
    root, _ = project
    ctx = ToolContext(tmp_path / "no-store", root)
    doc = call(ctx, "check", {"rules": "rules.yaml", "recording": "incident.otlp.json"}).doc
    assert doc["errors"] == 4 and not (tmp_path / "no-store").exists()


def test_an_invariant_finding_shows_the_call_that_sent_the_request(tmp_path):
    store = make_project(tmp_path, check=False)
    ctx = ToolContext(store, tmp_path)
    assert call(ctx, "invariants", {"openapi": "openapi.yaml"}).doc["errors"] == 1
    (group,) = call(ctx, "list_groups").doc["groups"]
    doc = call(ctx, "show_finding", {"finding": group["signature"]}).doc
    assert doc["rule"] == "status_declared" and doc["actual"]["steps"][0]["status"] == 409
    assert [(s["seq"], s["kind"], s["role"]) for s in doc["steps"]] == [
        (0, "agent", "leads_to"), (2, "tool_call", "leads_to"), (9, "tool_call", "leads_to"),
        (12, "http", "offender")]
    assert doc["steps"][2]["text"].startswith(
        'archive_project at step 9 (tool_call, error): args {"project_id":"string(3)"} '
        "error {")


def test_two_findings_of_one_signature_are_minimized_and_shown_each_with_its_own(tmp_path):
    store = make_project(tmp_path)
    ctx = ToolContext(store, tmp_path)
    ids = {f["seq"]: f["finding_id"] for f in call(ctx, "list_findings", {
        "rule": "archive-owned-only"}).doc["findings"]}
    docs = {n: call(ctx, "minimize", {"trace_id": TRACE, "rules": "rules.yaml",
                                      "rule": "archive-owned-only", "finding": n}).doc
            for n in (2, 1)}
    assert docs[1]["stored"] is docs[2]["stored"] is True
    assert (docs[1]["kept_steps"], docs[2]["kept_steps"]) == ([0, 2, 8], [0, 2, 9])
    for n, seq in ((1, 8), (2, 9)):
        shown = call(ctx, "show_finding", {"finding": ids[seq]}).doc
        assert shown["minimized"] == {"trace_id": docs[n]["trace_id"], "events": 3}
