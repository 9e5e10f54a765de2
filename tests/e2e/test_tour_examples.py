"""The README tour's steps that need the bundled examples, run for real in a temporary copy
of ``traces/examples`` (the working directory, as a user's clone is): the projects service
of ``projects-api/service.py`` started as a process on 127.0.0.1 with its ``double-write``
bug, ``probe`` and ``invariants`` find it, ``minimize --target`` shrinks the recording,
``replay`` reproduces it; the service restarted without the bug, ``replay`` is clean and
the group ``fixed``. Then ``shadow`` names the changed field, ``diff`` the changed steps,
and ``redact apply`` leaves nothing ``redact scan`` finds. The ids are the README's: the
recording and everything derived from it are the same on every run.

The service is stopped in a ``finally`` whatever happens (``running``)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support import EXAMPLES, run

API = "traces/examples/projects-api"
RUN_TRACE = "c8adfb777a22debce34e9dd209edd45a"      # run.har, ingested
MINIMIZED = "171224028c1ac964a5875de7a27d866a"      # its minimized trace
GROUP = "c9db2fa852d98896"                           # the double write's signature
TOKEN = "Bearer tour-9Kq4Zr7Wm2"                     # the service's default, as the README sends it


@pytest.fixture
def tour(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> Path:
    """A folder holding a copy of the examples, made the working directory, with the
    example incident ingested into ./traces/store (as after `bash dev.sh demo`)."""
    shutil.copytree(EXAMPLES, tmp_path / "traces" / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.setenv("API_TOKEN", TOKEN)
    assert run(capsys, "ingest", "traces/examples/archive-incident.otlp.json")[0] == 0
    return tmp_path


@contextmanager
def running(*bugs: str) -> Iterator[str]:
    """``service.py --port 0`` with ``bugs`` on, as a process: its URL, read from the line
    it prints once it listens; stopped (and waited for) on the way out."""
    argv = [sys.executable, f"{API}/service.py", "--port", "0"]
    for bug in bugs:
        argv += ["--bug", bug]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert found, f"no URL in {line!r}; stderr: {proc.stderr.read() if proc.stderr else ''}"
        assert f"(bugs: {', '.join(sorted(bugs)) or 'none'})" in line
        yield found.group(0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _json(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, Any]:
    code, out, _ = run(capsys, *argv, "--json")
    return code, json.loads(out)


@pytest.mark.slow
def test_the_example_finding_is_found_shrunk_reproduced_and_closed(tour, capsys):
    openapi = f"{API}/openapi.yaml"
    with running("double-write") as url:
        code, doc = _json(capsys, "probe", openapi, "--target", url, "--writes", "--seed", "1",
                          "--auth-env", "API_TOKEN")
        assert code == 1
        assert [(f["rule"], f["signature"]) for f in doc["findings"]] == [
            ("idempotent_retry", GROUP)]
        code, doc = _json(capsys, "ingest", f"{API}/run.har", "--env", "prod")
        assert code == 0 and [t["trace_id"] for t in doc["traces"]] == [RUN_TRACE]
        code, doc = _json(capsys, "invariants", openapi, "--trace", RUN_TRACE[:8])
        assert code == 1
        assert [(f["rule"], f["signature"], f["message"]) for f in doc["findings"]] == [
            ("idempotent_retry", GROUP, "POST /v1/approvals retried with the same "
             "Idempotency-Key created a second resource (the id from step 3 differs from "
             "the id from step 2)")]
        code, doc = _json(capsys, "minimize", RUN_TRACE[:8], "--rule", "idempotent_retry",
                          "--invariants", openapi, "--target", url, "--auth-env", "API_TOKEN")
        # the listing the approval's project came from, the create and its retry
        assert code == 0 and doc["one_minimal"] and doc["kept_steps"] == [0, 2, 3]
        assert doc["trace_id"] == MINIMIZED and doc["signature"] == GROUP
        code, doc = _json(capsys, "replay", GROUP[:8], "--target", url, "--auth-env",
                          "API_TOKEN")
        assert code == 1 and doc["group"] == GROUP and doc["env"] == "prod"
        assert doc["source_trace"] == MINIMIZED
        assert [(r["outcome"], r["steps_run"]) for r in doc["runs"]] == [("reproduced", 3)] * 3
        assert doc["status"] == "open"
    with running() as url:  # the fix, deployed
        code, doc = _json(capsys, "replay", GROUP[:8], "--target", url, "--auth-env",
                          "API_TOKEN")
        assert code == 0 and [r["outcome"] for r in doc["runs"]] == ["clean"] * 3
        assert doc["status"] == "fixed"
    _, doc = _json(capsys, "findings", "--group")
    group = next(g for g in doc["groups"] if g["signature"] == GROUP)
    assert (group["status"], group["env"], group["last_replay"], group["traces"]) == (
        "fixed", "prod", "clean", 2)


def test_probe_finds_each_bug_of_the_service_and_nothing_when_none_is_on(tour, capsys):
    openapi = f"{API}/openapi.yaml"
    with running("double-write", "repeat-cursor", "ignore-auth") as url:
        code, doc = _json(capsys, "probe", openapi, "--target", url, "--writes", "--seed", "3",
                          "--auth-env", "API_TOKEN")
    assert code == 1
    assert sorted(f["rule"] for f in doc["findings"]) == [
        "idempotent_retry", "pagination", "refuses_unknown_caller"]
    with running() as url:
        code, doc = _json(capsys, "probe", openapi, "--target", url, "--writes", "--seed", "3",
                          "--auth-env", "API_TOKEN")
    assert code == 0 and doc["findings"] == [] and doc["requests"] > 30


def test_shadow_names_the_fixture_and_the_field_that_changed(tour, capsys):
    def build(name: str) -> str:
        return f"{shlex.quote(sys.executable)} traces/examples/shadow/{name} {{fixture}}"

    code, doc = _json(capsys, "shadow", "--old", build("app-1.4.py"), "--new", build("app.py"),
                      "traces/examples/shadow/fixtures/", "--canon",
                      "traces/examples/shadow/canon.yaml")
    assert code == 1 and (doc["fixtures"], doc["same"]) == (3, 2)
    assert [(m["fixture"], m["status"], m["paths"]) for m in doc["mismatches"]] == [
        ("orders/refund.json", "changed",
         [{"path": "total", "old": 0.3, "new": 0.30000000000000004, "change": "changed"}])]
    assert (tour / "shadow-out" / "orders" / "refund.json.new").is_file()
    # without the canon, every fixture differs: the receipts' times and random ids
    code, doc = _json(capsys, "shadow", "--old", build("app-1.4.py"), "--new", build("app.py"),
                      "traces/examples/shadow/fixtures/")
    assert code == 1 and doc["same"] == 0


def test_diff_shows_the_changed_argument_the_added_archive_and_the_broken_order(tour, capsys):
    code, doc = _json(capsys, "diff", "traces/examples/diff/golden.jsonl",
                      "traces/examples/diff/candidate.jsonl",
                      "--canon", "traces/examples/diff/canon.yaml",
                      "--rules", "traces/examples/archive-incident.rules.yaml",
                      "--html", "diff.html")
    assert code == 1
    changed = {c["a"]["name"]: [(p["path"], p["change"]) for p in c["paths"]]
               for c in doc["changed"]}
    assert changed == {
        "ops-agent": [('attrs["service.version"]', "changed")],
        "list_projects": [("args.owner", "added"), ("args.owner_id", "removed"),
                          ("result.items[1]", "added")]}
    assert [(r["a"]["name"], r["verdict"], r["rules"]) for r in doc["reordered"]] == [
        ("request_approval", "breaks", ["approval-before-archive"])]
    assert [(e["name"], e["seq"]) for e in doc["added"]] == [("archive_project", 6)]
    assert doc["removed"] == [] and doc["findings"]["gone"] == []
    assert sorted({f["rule"] for f in doc["findings"]["new"]}) == [
        "approval-before-archive", "archive-owned-only", "list-filters-by-owner-id"]
    assert (tour / "diff.html").read_text().startswith("<!doctype html>")


def test_redact_apply_leaves_nothing_scan_finds(tour, capsys):
    har = f"{API}/run.har"
    assert run(capsys, "redact", "scan", har)[0] == 1        # the raw recording holds them
    code, out, _ = run(capsys, "redact", "apply", har, "--out", "clean/")
    assert code == 0
    assert "6 bearer, 4 email, 4 person-name, 4 phone" in out
    code, out, _ = run(capsys, "redact", "scan", "clean/")
    assert (code, out.strip()) == (0, "clean: nothing found in 1 files")
    text = (tour / "clean" / "run.har").read_text()
    for planted in ("tour-9Kq4Zr7Wm2", "Marta Quillfeather", "ines.marrowby@", "+49 1522"):
        assert planted not in text
