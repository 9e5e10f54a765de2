"""`workbench diff` and `workbench shadow` end to end: files and store ids, JSON keys,
the HTML page, exit codes, and every bad input refused with its code."""

import json
import shlex
import sys

import pytest

from tests.support import EXAMPLES, run

PY = shlex.quote(sys.executable)


def jsonl(path, trace_id, events):
    lines = [{"trace_id": trace_id, "event_id": f"{trace_id}-{i}", "kind": "tool_call",
              "name": name, "status": "ok", "args": args, "result": result}
             for i, (name, args, result) in enumerate(events)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


GOLDEN = [("list_projects", {"owner_id": "team-a"}, {"items": [{"id": "p17"}, {"id": "p18"}]}),
          ("request_approval", {"project_id": "p17"}, {"approved": True}),
          ("archive_project", {"project_id": "p17"}, {"state": "archived", "at": "10:00"})]
NEW = [("list_projects", {"owner": "team-a"}, {"items": [{"id": "q1"}, {"id": "q2"}]}),
       ("request_approval", {"project_id": "q1"}, {"approved": True}),
       ("get_project", {"project_id": "q1"}, {"id": "q1"}),
       ("archive_project", {"project_id": "q2"}, {"state": "archived", "at": "11:00"})]
CANON = "version: 1\ndrop: [result.at]\nsymbolize: ['*.id', '*_id']\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "canon.yaml").write_text(CANON)
    return (jsonl(tmp_path / "golden.jsonl", "golden", GOLDEN),
            jsonl(tmp_path / "new.jsonl", "candidate", NEW), tmp_path / "canon.yaml")


def test_diff_two_files(capsys, files, tmp_path):
    a, b, canon = files
    html = tmp_path / "diff.html"
    code, out, err = run(capsys, "diff", a, b, "--canon", canon, "--html", html, "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["same"] is False and doc["a"] == "golden" and doc["b"] == "candidate"
    assert [e["name"] for e in doc["added"]] == ["get_project"] and doc["removed"] == []
    assert [(c["a"]["seq"], c["b"]["seq"], c["paths"]) for c in doc["changed"]] == [
        (0, 0, [{"path": "args.owner", "old": None, "new": "team-a", "change": "added"},
                {"path": "args.owner_id", "old": "team-a", "new": None,
                 "change": "removed"}]),
        # p17 was approved and archived; now q1 is approved but q2 archived
        (2, 3, [{"path": "args.project_id", "old": "p17", "new": "q2", "change": "changed"}])]
    assert doc["reordered"] == []
    page = html.read_text()
    assert page.startswith("<!doctype html>") and "<ins>&quot;q2&quot;</ins>" in page
    assert "http" not in page.replace("http-equiv", "")  # self-contained: nothing fetched

    code, out, _ = run(capsys, "diff", a, b, "--canon", canon)
    assert code == 1
    assert 'args.project_id: "p17" → "q2"' in out and "+ step 2  tool_call get_project" in out

    code, out, _ = run(capsys, "diff", a, a, "--json")
    assert code == 0 and json.loads(out)["same"] is True


def test_diff_stored_traces_by_prefix_with_rules(capsys, files, tmp_path):
    a, b, _ = files
    store = tmp_path / "store"
    assert run(capsys, "ingest", a, b, "--store", store)[0] == 0
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nrules:\n  approval-first:\n    before: {first: {tool: "
                     "request_approval}, then: {tool: archive_project}, same: "
                     "[args.project_id]}\n")
    code, out, err = run(capsys, "diff", "gold", "cand", "--store", store, "--rules", rules,
                         "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert [f["rule"] for f in doc["findings"]["new"]] == ["approval-first"]


def test_diff_an_ingestable_file_of_another_format(capsys, tmp_path):
    example = EXAMPLES / "archive-incident.otlp.json"
    code, out, _ = run(capsys, "diff", example, example, "--json")
    assert code == 0 and json.loads(out)["aligned"] == 14


def test_diff_bad_inputs(capsys, files, tmp_path):
    a, b, _ = files
    two = tmp_path / "two.jsonl"
    two.write_text(a.read_text() + b.read_text())
    broken = tmp_path / "broken.jsonl"
    broken.write_text(a.read_text().splitlines()[0] + '\n{"trace_id": "x", "event_id": \n')
    bad_canon = tmp_path / "bad-canon.yaml"
    bad_canon.write_text("version: 1\ndrop: [ok, 'a..b']\n")
    bad_rules = tmp_path / "bad-rules.yaml"
    bad_rules.write_text("version: 1\nrules:\n  r:\n    nope: {}\n")
    cases = [
        (["diff", a, tmp_path / "missing.jsonl", "--store", tmp_path / "nostore"],
         "TRACE_NOT_FOUND"),
        (["diff", a, two], "MULTIPLE_TRACES"),
        (["diff", a, broken], "INVALID_JSON"),
        (["diff", a, tmp_path], "NOT_A_FILE"),
        (["diff", a, b, "--canon", bad_canon], "CANON_INVALID"),
        (["diff", a, b, "--canon", tmp_path / "nope.yaml"], "FILE_NOT_FOUND"),
        (["diff", a, b, "--rules", bad_rules], "RULES_INVALID"),
        (["diff", a, b, "--html", tmp_path / "no" / "such" / "dir.html"], "FILE_NOT_FOUND"),
        (["diff", a], "USAGE"),
    ]
    for argv, expected in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2, (argv, err)
        assert err.startswith(f"error[{expected}]: "), (argv, err)
        assert "hint:" in err and "Traceback" not in err and out == ""
        code, out, _ = run(capsys, *argv, "--json")
        assert code == 2 and json.loads(out)["error"]["code"] == expected
    assert not (tmp_path / "no").exists()


BUILD = """
import json, sys, time
from decimal import Decimal
order = json.load(open(sys.argv[1]))
total = sum(%s(x) for x in order["lines"])
print('{"order": "%%s", "total": %%s, "generated_at": %%r}' %% (order["id"], total, time.time()))
"""


@pytest.fixture
def shadow_setup(tmp_path):
    fx = tmp_path / "fixtures"
    fx.mkdir()
    for name, lines in {"cheap": ["1.25", "2"], "split": ["0.1", "0.2"], "big": ["99.5"]}.items():
        (fx / f"{name}.json").write_text(json.dumps({"id": name, "lines": lines}))
    (tmp_path / "old.py").write_text(BUILD % "Decimal")
    (tmp_path / "new.py").write_text(BUILD % "float")
    (tmp_path / "canon.yaml").write_text("version: 1\ndrop: [generated_at]\n")
    return (fx, f"{PY} {tmp_path / 'old.py'} {{fixture}}",
            f"{PY} {tmp_path / 'new.py'} {{fixture}}", tmp_path / "canon.yaml")


def test_shadow_names_the_fixture_and_the_field(capsys, shadow_setup, tmp_path):
    fx, old, new, canon = shadow_setup
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "shadow", "--old", old, "--new", new, fx, "--canon", canon,
                         "--out", out_dir, "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["fixtures"] == 3 and doc["same"] == 2
    assert [(m["fixture"], m["status"], m["paths"]) for m in doc["mismatches"]] == [
        ("split.json", "changed",
         [{"path": "total", "old": 0.3, "new": 0.30000000000000004, "change": "changed"}])]
    assert sorted(p.name for p in out_dir.iterdir()) == ["split.json.new", "split.json.old"]

    code, out, _ = run(capsys, "shadow", "--old", old, "--new", new, fx, "--canon", canon,
                       "--out", out_dir)
    assert code == 1
    assert "changed  split.json\n    total: 0.3 → 0.30000000000000004" in out

    code, out, _ = run(capsys, "shadow", "--old", old, "--new", old, fx, "--canon", canon,
                       "--out", out_dir)
    assert code == 0 and out.startswith("shadow: 3 fixture(s), 3 same, 0 changed, 0 failed")


def test_shadow_bad_inputs(capsys, shadow_setup, tmp_path):
    fx, old, new, _ = shadow_setup
    (tmp_path / "empty").mkdir()
    out_dir = tmp_path / "out"
    cases = [
        (["--old", "python3 x.py", "--new", new, fx], "USAGE"),
        (["--old", "no-such-build-xyz {fixture}", "--new", new, fx], "COMMAND_NOT_FOUND"),
        (["--old", old, "--new", new, tmp_path / "missing"], "FILE_NOT_FOUND"),
        (["--old", old, "--new", new, fx / "cheap.json"], "NOT_A_DIRECTORY"),
        (["--old", old, "--new", new, tmp_path / "empty"], "NO_FIXTURES"),
        (["--old", old, "--new", new, fx, "--out", fx / "res"], "OUT_INSIDE_FIXTURES"),
        (["--old", old, "--new", new, fx, "--canon", fx / "cheap.json"], "CANON_INVALID"),
        (["--old", old, "--new", new, fx, "--timeout", "0"], "USAGE"),
        (["--old", old, "--new", new, fx, "--jobs", "0"], "USAGE"),
        (["--new", new, fx], "USAGE"),
    ]
    for argv, expected in cases:
        extra = [] if "--out" in argv else ["--out", out_dir]
        code, out, err = run(capsys, "shadow", *argv, *extra, "--json")
        assert code == 2, (argv, err)
        assert f"error[{expected}]: " in err and "hint:" in err and "Traceback" not in err
        assert json.loads(out)["error"]["code"] == expected
        assert not out_dir.exists() and not (fx / "res").exists()
