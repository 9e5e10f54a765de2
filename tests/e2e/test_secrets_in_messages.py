"""Every message that quotes input quotes it redacted: malformed inputs with a planted
secret in the quoted part (a kind, a status, an id, a file name, a rules file), each
run through the CLI with and without ``--json``; the refusal keeps its code and words,
the secret becomes ``«detector»``, and ordinary quoted values stay as they were."""

import json

import pytest

from tests.support import run, snapshot

GHP = "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"
AKIA = "AKIAITOSTEYPZ4KNPFTC"
EMAIL = "dana.whitfield@example.org"
HEAD = {"format": "workbench-events", "version": 1}


def ev(**kw):
    base = {"trace_id": "t1", "event_id": "e1", "parent_id": None, "kind": "tool_call",
            "name": "get", "start_ns": 1, "end_ns": 2, "status": "ok", "args": {},
            "result": None}
    return {**base, **kw}


def jsonl(*events):
    return "".join(json.dumps(e) + "\n" for e in (HEAD, *events))


# (case, file name, content, code, words the message keeps)
CASES = [
    ("kind", "a.jsonl", jsonl(ev(kind=GHP)), "INVALID_TRACE", "unknown kind"),
    ("status", "a.jsonl", jsonl(ev(status=f"fail-{AKIA}")), "INVALID_TRACE", "unknown status"),
    ("time", "a.jsonl", jsonl(ev(event_id=f"e-{GHP}", start_ns=2**70)), "INVALID_TRACE",
     "outside the int64"),
    ("duplicate", "a.jsonl", jsonl(ev(event_id=f"dup-{GHP}"), ev(event_id=f"dup-{GHP}")),
     "DUPLICATE_EVENT_ID", "appears 2 times"),
    ("file-name", f"run-{GHP}.jsonl", '{"format": "workbench-events", "version": 1}\n{"x"',
     "INVALID_JSON", ".jsonl"),
    ("email-id", "a.jsonl", jsonl(ev(trace_id=EMAIL, kind="bogus")), "INVALID_TRACE",
     "unknown kind 'bogus'"),
]


@pytest.mark.parametrize("redact", [[], ["--no-redact"]], ids=["redact", "no-redact"])
@pytest.mark.parametrize("case, name, content, code, words", CASES, ids=[c[0] for c in CASES])
def test_an_ingest_refusal_quotes_its_input_redacted(capsys, tmp_path, redact, case, name,
                                                     content, code, words):
    path = tmp_path / name
    path.write_text(content)
    store = tmp_path / "store"
    code_, out, err = run(capsys, "ingest", path, "--store", store, *redact)
    assert code_ == 2 and out == ""
    assert err.startswith(f"error[{code}]: ") and words in err, err
    assert "hint:" in err
    assert [s for s in (GHP, AKIA, EMAIL) if s in err] == []
    # those two messages quote no id (the time's names the line instead)
    assert ("«" in err) == (case not in ("email-id", "time"))
    code_, out, err = run(capsys, "ingest", path, "--store", store, "--json", *redact)
    doc = json.loads(out)
    assert code_ == 2 and doc["error"]["code"] == code
    assert [s for s in (GHP, AKIA, EMAIL) if s in out + err] == []


def test_ordinary_quoted_values_are_kept(capsys, tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(jsonl(ev(kind="tool_cal")))
    code, _, err = run(capsys, "ingest", path, "--store", tmp_path / "s")
    assert code == 2
    assert "line 2: unknown kind 'tool_cal'" in err and "«" not in err


def test_trace_exists_quotes_the_id_redacted(capsys, tmp_path):
    store = tmp_path / "s"
    for n in (1, 2):
        (tmp_path / f"{n}.jsonl").write_text(jsonl(ev(trace_id=f"t-{GHP}", name=f"n{n}")))
    assert run(capsys, "ingest", tmp_path / "1.jsonl", "--store", store, "--no-redact")[0] == 0
    before = snapshot(store)
    code, _, err = run(capsys, "ingest", tmp_path / "2.jsonl", "--store", store,
                         "--no-redact")
    assert code == 2 and err.startswith("error[TRACE_EXISTS]: ")
    assert GHP not in err and "t-«github-pat»" in err
    assert snapshot(store) == before


def test_a_missing_file_named_with_a_secret(capsys, tmp_path):
    code, _, err = run(capsys, "ingest", tmp_path / f"{GHP}.jsonl", "--store", tmp_path / "s")
    assert code == 2 and GHP not in err and "«github-pat».jsonl" in err


def test_diff_of_two_files_prints_what_the_store_would_hold(capsys, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(jsonl(ev(name=f"get_{GHP}", args={"to": EMAIL})))
    b.write_text(jsonl(ev(name=f"get_{GHP}", args={"to": EMAIL}, status="error")))
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, "diff", a, b, "--store", tmp_path / "none", *extra)
        assert code == 1, err
        assert GHP not in out + err and EMAIL not in out + err
        assert "get_«secret:github-pat:" in out  # one key for both files: equal tokens
    assert not (tmp_path / "none").exists()  # a diff of files writes no store
