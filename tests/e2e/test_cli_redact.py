"""``workbench redact apply`` and ``workbench redact scan`` as users run them."""

import json

import pytest

from tests.support import run, snapshot
from workbench.cli import main
from workbench.redact import TOKEN_RE

GHP = "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"
EMAIL = "dana.whitfield@example.org"
INCIDENT = {"log": {"version": "1.2", "entries": [{
    "startedDateTime": "2024-05-01T10:00:00Z", "time": 12,
    "request": {"method": "POST", "url": "https://api.example.com/v1/users",
                "headers": [{"name": "Authorization", "value": f"token {GHP}"},
                            {"name": "Content-Type", "value": "application/json"}],
                "postData": {"mimeType": "application/json",
                             "text": json.dumps({"email": EMAIL, "password": "hunter2"})}},
    "response": {"status": 201, "headers": [], "content": {"text": "{\"id\": \"u-17\"}"}}}]}}


@pytest.fixture
def incident(tmp_path):
    d = tmp_path / "incident"
    d.mkdir()
    (d / "capture.har").write_text(json.dumps(INCIDENT, indent=2))
    (d / "notes.txt").write_text(f"reported by {EMAIL}\n")
    return d


@pytest.fixture(autouse=True)
def no_env_store(monkeypatch, tmp_path):
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.chdir(tmp_path)  # the default store ./traces/store does not exist here


def files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_apply_then_scan_round_trip(capsys, tmp_path, incident):
    code, out, err = run(capsys, "redact", "scan", incident)
    assert code == 1, err
    lines = out.splitlines()
    assert f"{incident / 'capture.har'}:log.entries[0].request.headers[0].value: " in out
    assert any(line.startswith(f"{incident / 'notes.txt'}:line 1: ") for line in lines)
    assert GHP not in out and EMAIL not in out and "hunter2" not in out

    code, out, err = run(capsys, "redact", "apply", incident, "--out", tmp_path / "clean",
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["key"] == "one-time" and doc["out"] == str(tmp_path / "clean")
    assert {f["file"]: f["format"] for f in doc["files"]} == {
        str(incident / "capture.har"): "json", str(incident / "notes.txt"): "text"}
    assert doc["hits"]["email"] == 2 and doc["hits"]["secret-field"] == 1
    assert files(tmp_path / "clean") == ["capture.har", "notes.txt"]
    har = json.loads((tmp_path / "clean" / "capture.har").read_text())
    body = json.loads(har["log"]["entries"][0]["request"]["postData"]["text"])
    assert TOKEN_RE.fullmatch(body["email"]) and TOKEN_RE.fullmatch(body["password"])
    assert har["log"]["entries"][0]["response"] == INCIDENT["log"]["entries"][0]["response"]
    assert not (tmp_path / "traces").exists()  # no store was created on the way

    code, out, _ = run(capsys, "redact", "scan", tmp_path / "clean", "--json")
    assert code == 0 and json.loads(out) == {"files": 2, "hits": [], "skipped": [],
                                         "errors": []}
    code, out, _ = run(capsys, "redact", "scan", tmp_path / "clean")
    assert code == 0 and out == "clean: nothing found in 2 files\n"


def test_scan_json_lists_file_path_and_detector_only(capsys, incident):
    code, out, _ = run(capsys, "redact", "scan", incident / "capture.har", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["files"] == 1
    assert {h["path"] for h in doc["hits"]} == {
        "log.entries[0].request.headers[0].value", "log.entries[0].request.postData.text.email",
        "log.entries[0].request.postData.text.password"}
    assert all(set(h) == {"file", "path", "detector"} for h in doc["hits"])


def test_apply_uses_the_store_key_so_tokens_match_the_store(capsys, tmp_path, incident):
    store = tmp_path / "s"
    trace = tmp_path / "t.jsonl"
    trace.write_text(json.dumps({"trace_id": "t1", "event_id": "e1", "kind": "tool_call",
                                 "name": "notify", "args": {"to": EMAIL}}) + "\n")
    assert run(capsys, "ingest", trace, "--store", store)[0] == 0
    code, out, _ = run(capsys, "sql", "select args from events", "--store", store, "--json")
    stored = json.loads(json.loads(out)["rows"][0]["args"])["to"]
    assert TOKEN_RE.fullmatch(stored)

    code, out, err = run(capsys, "redact", "apply", incident / "notes.txt", "--out",
                         tmp_path / "clean", "--store", store, "--json")
    assert code == 0, err
    assert json.loads(out)["key"] == "store"
    assert (tmp_path / "clean" / "notes.txt").read_text() == f"reported by {stored}\n"


def test_text_output_of_apply(capsys, tmp_path, incident):
    code, out, _ = run(capsys, "redact", "apply", incident / "notes.txt", "--out", tmp_path / "o")
    assert code == 0
    assert out.splitlines() == [
        f"{incident / 'notes.txt'} -> {tmp_path / 'o' / 'notes.txt'} (text): 1 email",
        f"1 values redacted in 1 files -> {tmp_path / 'o'} (one-time key: no store, so tokens "
        "match within this run only)"]


# -- every bad input: exit 2, a stable code with a hint, nothing written ---------------------

def refused(capsys, tmp_path, code_expected, *argv):
    before = snapshot(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert err.startswith(f"error[{code_expected}]: "), err
    assert "hint:" in err and "Traceback" not in err and out == ""
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == code_expected
    assert snapshot(tmp_path) == before


def test_refusals(capsys, tmp_path, incident):
    out = tmp_path / "clean"
    (tmp_path / "bin.dat").write_bytes(b"\x89PNG\r\n\x1a\n\xff")
    (tmp_path / "afile").write_text("x")
    refused(capsys, tmp_path, "FILE_NOT_FOUND", "redact", "apply", tmp_path / "nope", "--out", out)
    refused(capsys, tmp_path, "INVALID_ENCODING", "redact", "apply", incident, tmp_path / "bin.dat",
            "--out", out)
    refused(capsys, tmp_path, "OUT_INSIDE_INPUT", "redact", "apply", incident, "--out",
            incident / "clean")
    refused(capsys, tmp_path, "OUT_OVERWRITES_INPUT", "redact", "apply", incident / "notes.txt",
            "--out", incident)
    refused(capsys, tmp_path, "OUT_NOT_A_DIRECTORY", "redact", "apply", incident, "--out",
            tmp_path / "afile")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("another file of the same name")
    refused(capsys, tmp_path, "OUT_CLASH", "redact", "apply", incident,
            tmp_path / "other" / "notes.txt", "--out", out)
    refused(capsys, tmp_path, "STORE_NOT_FOUND", "redact", "apply", incident, "--out", out,
            "--store", tmp_path / "no-store")
    refused(capsys, tmp_path, "USAGE", "redact", "apply", incident)
    refused(capsys, tmp_path, "USAGE", "redact")
    refused(capsys, tmp_path, "USAGE", "redact", "shred", incident)
    refused(capsys, tmp_path, "FILE_NOT_FOUND", "redact", "scan", tmp_path / "nope")
    refused(capsys, tmp_path, "INVALID_ENCODING", "redact", "scan", tmp_path / "bin.dat")


def test_workbench_store_env_names_a_store_too(capsys, tmp_path, incident, monkeypatch):
    monkeypatch.setenv("WORKBENCH_STORE", str(tmp_path / "missing"))
    refused(capsys, tmp_path, "STORE_NOT_FOUND", "redact", "apply", incident, "--out",
            tmp_path / "o")


def test_help_has_examples(capsys):
    for argv in (["redact", "--help"], ["redact", "apply", "--help"], ["redact", "scan", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out, _ = capsys.readouterr()
        assert "example" in out, argv
