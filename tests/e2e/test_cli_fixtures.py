"""`workbench promote`, `verify` and `export` of fixtures, as users and scripts run them:
the JSON keys, the exit codes, every refusal with its code and nothing written, and no
secret of the source trace in any fixture file."""

import json

import pyarrow.parquet as pq
import pytest

from tests.support import EXAMPLES, run, snapshot

CASE = EXAMPLES / "rules" / "unapproved-destructive"
RULES = CASE / "rules.yaml"
TRACE = "rules-unapproved-destructive-bad"
VERIFY_KEYS = {"fixtures", "problems"}


@pytest.fixture
def store(tmp_path, capsys):
    s = tmp_path / "store"
    assert run(capsys, "ingest", CASE, "--store", s)[0] == 0
    return s


@pytest.fixture
def fixtures(tmp_path):
    return tmp_path / "fixtures"


def promote(capsys, store, fixtures, *extra, trace=TRACE, rules=RULES, name="archive"):
    return run(capsys, "promote", trace, "--rules", rules, "--name", name, "--store", store,
               "--fixtures", fixtures, *extra)


def test_promote_then_verify(capsys, store, fixtures):
    code, out, err = promote(capsys, store, fixtures)
    assert code == 0, err
    assert out.startswith("promoted rules-unapproved-destructive-bad as archive/v1 (")
    assert ("    approval-before-archive at step 7 (archive_project): archive_project «id:"
            in out)
    assert "pinned in fixtures.lock" in out

    code, out, _ = promote(capsys, store, fixtures, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["written"] is False and doc["fixture"] == "archive/v1"
    assert {"fixture", "name", "version", "path", "written", "content_sha256", "rules",
            "expected_findings", "minimization", "policy", "source_trace_id"} <= set(doc)

    code, out, _ = run(capsys, "verify", "--fixtures", fixtures, "--json")
    doc = json.loads(out)
    assert code == 0 and set(doc) >= VERIFY_KEYS
    assert doc["fixtures"] == 1 and doc["problems"] == []
    code, out, _ = run(capsys, "verify", "--fixtures", fixtures)
    assert code == 0 and out.strip().endswith("no problems")


def test_verify_reports_a_tampered_fixture_with_exit_1(capsys, store, fixtures):
    promote(capsys, store, fixtures)
    path = fixtures / "archive" / "v1" / "trace.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[0]["status"] = "error"
    pq.write_table(table.from_pylist(rows, schema=table.schema), path)
    code, out, _ = run(capsys, "verify", "--fixtures", fixtures, "--json")
    doc = json.loads(out)
    assert code == 1
    assert [(p["fixture"], p["code"]) for p in doc["problems"]] == [
        ("archive/v1", "CONTENT_CHANGED")]
    assert "status" in doc["problems"][0]["message"]
    code, out, _ = run(capsys, "verify", "--fixtures", fixtures)
    assert code == 1 and out.startswith("archive/v1  CONTENT_CHANGED  content changed in place")


def test_minimize_and_a_second_version(capsys, store, fixtures):
    code, out, err = promote(capsys, store, fixtures, "--minimize", "approval-before-archive",
                             "--json")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["minimization"]["rule"] == "approval-before-archive"
    assert doc["events"] == doc["minimization"]["kept_events"] < doc["original_events"]

    code, out, err = promote(capsys, store, fixtures)
    assert code == 2 and err.startswith("error[NOTE_REQUIRED]: archive/v2 differs from v1 in ")
    code, out, err = promote(capsys, store, fixtures, "--note",
                             "events: the whole incident, not the minimized steps", "--json")
    doc = json.loads(out)
    assert code == 0, err
    assert (doc["fixture"], doc["previous"], doc["written"]) == ("archive/v2", "archive/v1", True)
    assert run(capsys, "verify", "--fixtures", fixtures)[0] == 0
    # v1's content again, after v2: v1, no note asked, nothing written
    before = snapshot(fixtures)
    code, out, err = promote(capsys, store, fixtures, "--minimize", "approval-before-archive")
    assert code == 0, err
    assert out.startswith("unchanged: archive/v1 already holds this content (sha256 ")
    assert "; the latest version is v2); nothing written" in out
    code, out, err = promote(capsys, store, fixtures, "--minimize", "approval-before-archive",
                             "--json")
    doc = json.loads(out)
    assert code == 0, err
    assert (doc["fixture"], doc["version"], doc["written"], doc["previous"]) == (
        "archive/v1", 1, False, "archive/v2")
    assert doc["path"].endswith("archive/v1") and doc["changed_fields"] == []
    assert snapshot(fixtures) == before


def test_two_findings_minimized_then_each_promoted_names_its_own_trace(capsys, tmp_path):
    """`minimize --finding 2`, then `--finding 1` of archive-owned-only (one signature)
    store two traces; `promote --finding N` names finding N's."""
    incident = EXAMPLES / "archive-incident.otlp.json"
    rules = EXAMPLES / "archive-incident.rules.yaml"
    store, fixtures = tmp_path / "store", tmp_path / "fixtures"
    assert run(capsys, "ingest", incident, "--store", store)[0] == 0
    stored = {}
    for n in (2, 1):
        code, out, err = run(capsys, "minimize", "4bf92f35", "--rules", rules, "--rule",
                             "archive-owned-only", "--finding", n, "--store", store, "--json")
        doc = json.loads(out)
        assert code == 0 and doc["stored"] is True, err
        stored[n] = (doc["trace_id"], doc["kept_steps"])
    assert stored[1][1] == [0, 2, 8] and stored[2][1] == [0, 2, 9]
    assert stored[1][0] != stored[2][0]
    for n in (1, 2):
        code, out, err = promote(capsys, store, fixtures, "--minimize", "archive-owned-only",
                                 "--finding", n, "--json", trace="4bf92f35", rules=rules,
                                 name=f"owned-{n}")
        assert code == 0, err
        assert json.loads(out)["trace_id"] == stored[n][0]


@pytest.mark.parametrize("args, code_", [
    (["--name", "Bad Name"], "FIXTURE_NAME"),
    (["--name", "../escape"], "FIXTURE_NAME"),
    (["--trace", "nope"], "TRACE_NOT_FOUND"),
    (["--rules", "missing.yaml"], "FILE_NOT_FOUND"),
    (["--rules", "bad-rules.yaml"], "RULES_INVALID"),
    (["--policy", "missing-policy.yaml"], "FILE_NOT_FOUND"),
    (["--policy", "bad-policy.yaml"], "POLICY_INVALID"),
    (["--policy", "hiding-policy.yaml"], "POLICY_HIDES_FINDING"),
    (["--minimize", "no-such-rule"], "UNKNOWN_RULE"),
    (["--finding", "1"], "USAGE"),
    (["--minimize", "approval-before-archive", "--finding", "9"], "NO_FINDING"),
    (["--trace", "rules-unapproved-destructive-good"], "CLEAN_TRACE"),
    (["--fixtures", "a-file/fixtures"], "FIXTURES_UNWRITABLE"),
    (["--note", "ask dana.whitfield@example.org"], "FIXTURE_NOT_CLEAN"),
])
def test_refusals_write_nothing(capsys, store, fixtures, tmp_path, args, code_):
    (tmp_path / "bad-rules.yaml").write_text("version: 1\nrules:\n  x:\n    absent: {}\n")
    (tmp_path / "bad-policy.yaml").write_text("version: 1\nkeep: [seq]\n")
    (tmp_path / "hiding-policy.yaml").write_text("version: 1\nkeep: [kind]\n")
    (tmp_path / "a-file").write_text("x")
    opts = {"--trace": TRACE, "--rules": str(RULES), "--name": "archive",
            "--fixtures": str(fixtures)}
    extra = []
    for k, v in zip(args[::2], args[1::2], strict=True):
        if k in opts:
            opts[k] = v if k in ("--trace", "--name") else str(tmp_path / v)
        else:
            extra += [k, v if k != "--policy" else str(tmp_path / v)]
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "promote", opts["--trace"], "--rules", opts["--rules"],
                         "--name", opts["--name"], "--fixtures", opts["--fixtures"],
                         "--store", store, *extra)
    assert code == 2, err
    assert err.startswith(f"error[{code_}]: ") and "hint:" in err and "Traceback" not in err
    assert out == ""
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("store/")} == {
        k: v for k, v in before.items() if not k.startswith("store/")}
    code, out, _ = run(capsys, "promote", opts["--trace"], "--rules", opts["--rules"],
                       "--name", opts["--name"], "--fixtures", opts["--fixtures"],
                       "--store", store, "--json", *extra)
    assert code == 2 and json.loads(out)["error"]["code"] == code_


def test_verify_without_a_folder_is_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "verify", "--fixtures", tmp_path / "none")
    assert code == 2 and err.startswith("error[FIXTURES_NOT_FOUND]")


def test_export_a_fixture_or_a_trace(capsys, store, fixtures, tmp_path):
    promote(capsys, store, fixtures)
    code, out, _ = run(capsys, "export", "archive/v1", "--fixtures", fixtures, "--format",
                       "otlp", "--out", tmp_path / "a.json", "--json")
    assert code == 0
    assert json.loads(out) == {"fixture": "archive/v1", "events": 9,
                               "out": str(tmp_path / "a.json"), "format": "otlp"}
    assert "resourceSpans" in json.loads((tmp_path / "a.json").read_text())
    code, _, _ = run(capsys, "export", fixtures / "archive", "--out", tmp_path / "a.jsonl")
    assert code == 0
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == {"format": "workbench-events", "version": 1}
    assert len(lines) == 10
    # a trace id still exports the stored trace, now also as OTLP
    code, out, _ = run(capsys, "export", TRACE, "--store", store, "--format", "otlp",
                       "--fixtures", fixtures)
    assert code == 0 and len(json.loads(out)["resourceSpans"][0]["scopeSpans"][0]["spans"]) == 9
    code, out, err = run(capsys, "export", "archive/v7", "--fixtures", fixtures, "--store", store)
    assert code == 2 and err.startswith("error[FIXTURE_NOT_FOUND]")
    code, out, err = run(capsys, "export", "nope", "--fixtures", fixtures, "--store", store)
    assert code == 2 and err.startswith("error[TRACE_NOT_FOUND]")


@pytest.mark.parametrize("cmd", ["promote", "verify", "export"])
def test_help_has_an_example(capsys, cmd):
    with pytest.raises(SystemExit):
        run(capsys, cmd, "--help")
    out = capsys.readouterr().out
    assert "example" in out and f"workbench {cmd}" in out


# -- no secret of the source trace reaches a fixture ------------------------------------

SECRETS = {
    "github": "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",
    "aws": "AKIAZ7KQ3M5N2PXRT4VW",
    "stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dcPqRsTu9v",
    "slack": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    "password": "Tr0ub4dor&3-horse",
    "dsn_password": "s3cr3t-Pa55word",
    "bearer": "8f14e45fceea167a5a36dedd4bea2543c9b0a1f3",
    "email": "dana.whitfield@example.org",
    "card": "4111 1111 1111 1111",
}


def secret_trace(path):
    s = SECRETS
    events = [
        {"event_id": "e0", "kind": "agent", "name": "support-agent",
         "args": [{"role": "user", "content": f"I am {s['email']}, my card {s['card']}"}],
         "result": {"text": "done"}},
        {"event_id": "e1", "parent_id": "e0", "kind": "tool_call", "name": "get_user",
         "args": {"email": s["email"], "password": s["password"]},
         "result": {"status": "suspended", "note": f"contact {s['email']}",
                    "config": json.dumps({"api_key": s["stripe"], "region": "eu"})}},
        {"event_id": "e2", "parent_id": "e0", "kind": "http",
         "name": f"GET /v1/users/{s['email']}",
         "args": {"method": "GET", "path": f"/v1/users/{s['email']}",
                  "headers": {"authorization": f"Bearer {s['bearer']}"}},
         "result": {"status": 200, "body": {"token": s["github"]}}},
        {"event_id": "e3", "parent_id": "e0", "kind": "tool_call", "name": "send_email",
         "args": {"email": s["email"], "body": f"aws {s['aws']} slack {s['slack']}",
                  "dsn": f"postgres://app:{s['dsn_password']}@db.internal:5432/main"},
         "result": {"status": "sent"}, "attrs": {"authorization": f"token {s['github']}"}},
    ]
    lines = [json.dumps({"format": "workbench-events", "version": 1})]
    for i, e in enumerate(events):
        e = {"trace_id": "leaky", "start_ns": 1000 * i, "end_ns": 1000 * i + 10,
             "status": "ok", "parent_id": None, **e}
        lines.append(json.dumps(e))
    path.write_text("\n".join(lines) + "\n")
    return path


LEAK_RULES = """version: 1
rules:
  no-mail-to-suspended:
    description: send_email never goes to a user that get_user reported suspended
    never:
      event: {tool: send_email}
      after: {tool: get_user, where: {result.status: suspended, result.note: {exists: true}}}
      same: [args.email]
  named-users:
    description: user lookups name the user
    every:
      event: {kind: http}
      where: {name: {matches: "^GET /v1/users/"}}
    severity: warn
"""


def test_no_secret_from_the_source_trace_is_in_any_fixture_file(capsys, tmp_path):
    store, fixtures = tmp_path / "store", tmp_path / "fixtures"
    trace = secret_trace(tmp_path / "leaky.jsonl")
    code, _, err = run(capsys, "ingest", trace, "--store", store, "--no-redact")
    assert code == 0, err
    # the store holds them verbatim (ingested without redaction) ...
    code, out, _ = run(capsys, "export", "leaky", "--store", store)
    assert SECRETS["github"] in out and SECRETS["email"] in out
    rules = tmp_path / "rules.yaml"
    rules.write_text(LEAK_RULES)
    code, out, err = run(capsys, "promote", "leaky", "--rules", rules, "--name", "leaky",
                         "--store", store, "--fixtures", fixtures, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [e["rule"] for e in doc["expected_findings"]] == ["no-mail-to-suspended"]
    # ... and no fixture file does: not in the bytes, not in the decoded Parquet
    files = sorted(p for p in fixtures.rglob("*") if p.is_file())
    assert [p.name for p in files] == ["fixtures.lock", "manifest.json", "rules.yaml",
                                       "trace.parquet"]
    texts = [p.read_bytes().decode("utf-8", "replace") for p in files]
    texts.append(json.dumps(pq.read_table(fixtures / "leaky" / "v1" / "trace.parquet")
                            .to_pylist(), ensure_ascii=False))
    code, out, _ = run(capsys, "export", "leaky/v1", "--fixtures", fixtures, "--format", "otlp")
    texts.append(out)
    for name, secret in SECRETS.items():
        for variant in {secret, secret.replace(" ", ""), json.dumps(secret)[1:-1]}:
            assert not any(variant in t for t in texts), f"{name} leaked into a fixture"
    # the kept paths are there, redacted: the rules still work on the fixture
    code, out, _ = run(capsys, "verify", "--fixtures", fixtures)
    assert code == 0


def test_the_repositorys_own_fixtures_verify(capsys):
    """Dogfood: traces/fixtures holds the bundled example incidents (docs/fixtures.md)."""
    code, out, _ = run(capsys, "verify", "--fixtures", EXAMPLES.parent / "fixtures", "--json")
    doc = json.loads(out)
    assert code == 0, doc["problems"]
    assert doc["checked"] == [f"{n}/v1" for n in (
        "added-enum", "archive-incident", "renamed-field", "repeating-cursor",
        "retry-without-key", "unapproved-destructive", "widening-default")]
