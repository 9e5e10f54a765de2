"""RedactView without a browser: a file's redaction hit by hit (the detector named, the
secret marked before and never present after), the store's tokens, JSON nested in JSON,
JSONL and text, a clean file, and a trace before and after ingest's redaction."""

from __future__ import annotations

import json

import pytest

from workbench import Store
from workbench.ingest import ingest
from workbench.model import WorkbenchError
from workbench.notebook import RedactView
from workbench.redact import Redactor

KEY = bytes(range(32))
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ2c4E"   # 36 characters after the prefix
EMAIL = "ana.lima@example.org"


def _incident(path):
    doc = {"request": {"url": "https://api.example.org/v1/repos", "body": f"token {GITHUB}"},
           "user": {"name": "Ana", "contact": EMAIL},
           "attrs": json.dumps({"reporter": EMAIL, "count": 3}),
           "note": "nothing secret here"}
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_a_file_hit_by_hit(tmp_path):
    view = RedactView.file(_incident(tmp_path / "incident.json"), key=KEY)
    by_where = {c.where: c for c in view.changes}
    assert set(by_where) == {"request.body", "user.contact", "attrs⟨json⟩.reporter"}
    assert (by_where["request.body"].detector, by_where["request.body"].category) == (
        "github-pat", "secret")
    assert by_where["user.contact"].detector == "email"
    token = Redactor(KEY).token("email", EMAIL)
    assert by_where["user.contact"].token == token == by_where["attrs⟨json⟩.reporter"].token
    assert f"<span class=wb-hit>{EMAIL}</span>" in by_where["user.contact"].before
    assert f"<span class=wb-token>{token}</span>" in by_where["user.contact"].after
    for c in view.changes:                      # the secret is never in the "after"
        assert GITHUB not in c.after and EMAIL not in c.after
    assert view.hits == {"email": 2, "github-pat": 1} and view.total == 3
    assert "incident.json (json): 3 value(s) replaced (email 2, github-pat 1)" in \
        view.summary_text
    assert "request.body github-pat token" in view.table_text
    assert not (tmp_path / "incident.json.redacted").exists() and len(list(tmp_path.iterdir())) == 1


def test_the_store_key_gives_the_store_tokens(tmp_path):
    store = Store(tmp_path / "store")
    view = RedactView.file(_incident(tmp_path / "incident.json"), store=store)
    email = next(c for c in view.changes if c.detector == "email")
    assert email.token == Redactor(store.redaction_key()).token("email", EMAIL)


def test_jsonl_and_text_files(tmp_path):
    lines = tmp_path / "log.jsonl"
    lines.write_text(json.dumps({"msg": "ok"}) + "\n" + json.dumps({"who": EMAIL}) + "\n")
    view = RedactView.file(lines, key=KEY)
    assert [(c.where, c.detector) for c in view.changes] == [("line 2.who", "email")]
    text = tmp_path / "notes.txt"
    text.write_text(f"first line\nmail {EMAIL} about it\n")
    view = RedactView.file(text, key=KEY)
    assert [(c.where, c.detector) for c in view.changes] == [("line 2", "email")]
    assert view.changes[0].before.startswith("mail <span class=wb-hit>")


def test_a_clean_file_says_so(tmp_path):
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"project_id": "p17", "state": "archived"}))
    view = RedactView.file(clean, key=KEY)
    assert view.changes == [] and view.hits == {} and view.total == 0
    assert "nothing to redact" in view.summary_text and view.table.value == ""


def _secret_trace(path):
    rows = [{"format": "workbench-events", "version": 1},
            {"trace_id": "t-secret", "event_id": "e0", "parent_id": None, "seq": 0,
             "kind": "tool_call", "name": "send_mail", "start_ns": 1, "end_ns": 2,
             "status": "ok", "args": {"to": EMAIL, "auth": f"Bearer {GITHUB}"},
             "result": {"sent": True}, "attrs": {}}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_a_trace_ingested_without_redaction_shows_what_ingest_would_replace(tmp_path):
    store = Store(tmp_path / "store")
    ingest([_secret_trace(tmp_path / "t.jsonl")], store, redact=False)
    view = RedactView(store, "t-secret")
    assert sorted((c.where, c.detector) for c in view.changes) == [
        ("step 0 send_mail: args.auth", "github-pat"), ("step 0 send_mail: args.to", "email")]
    assert view.ingest == {"ingest": "off"}


def test_a_trace_redacted_at_ingest_has_nothing_left(tmp_path):
    store = Store(tmp_path / "store")
    ingest([_secret_trace(tmp_path / "t.jsonl")], store)
    view = RedactView(store, "t-secret")
    assert view.changes == [] and "nothing to redact" in view.summary_text
    assert view.ingest["ingest"] == "on" and view.ingest["hits"]["email"] == 1


def test_a_missing_file_is_refused_with_its_code(tmp_path):
    with pytest.raises(WorkbenchError) as e:
        RedactView.file(tmp_path / "missing.json", key=KEY)
    assert e.value.code == "FILE_NOT_FOUND"
