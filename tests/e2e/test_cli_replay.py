"""`workbench replay` end to end, and the loop it exists for (docs/replay.md): a service
on 127.0.0.1 with a seeded double-create bug; a recorded run; `invariants` finds it;
`replay` reproduces it; the service is fixed; a replay in another environment does not
close it; three clean replays in its own environment do (`fixed`); a later recording
with the bug reopens it. Then every bad input: exit 2 with a code, and no replay row
that claims a result it did not observe."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support import run, snapshot
from tests.unit.invariants.service import TOKEN, running
from workbench.store import Store


def record_run(url: str, path: Path, key: str, token: str = TOKEN) -> Path:
    """What an agent's HTTP client recorded: a create retried after a dropped answer
    (same Idempotency-Key), a read of the id the create returned, a list — as HAR."""
    new = {"sku": "A-1", "quantity": 2}
    return record(url, path, [("POST", "/orders", new, {"Idempotency-Key": key}),
                              ("POST", "/orders", new, {"Idempotency-Key": key}),
                              ("GET", "/orders/{0[id]}", None, None),
                              ("GET", "/orders?limit=2", None, None)], token)


def record(url: str, path: Path, calls: list[tuple[str, str, Any, dict[str, str] | None]],
           token: str = TOKEN) -> Path:
    """The calls sent to ``url`` and written as a HAR at ``path``: (method, target, JSON
    body or None, more headers); ``{0[id]}`` in a target is the first answer's id."""
    entries: list[dict[str, Any]] = []
    parts = urlsplit(url)
    answers: list[Any] = []
    for method, target, body, headers in calls:
        target = target.format(*answers) if "{" in target else target
        hdrs = {"authorization": token, "accept": "application/json", **(headers or {})}
        data = None if body is None else json.dumps(body)
        if data is not None:
            hdrs["content-type"] = "application/json"
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        start = dt.datetime.now(dt.UTC)
        conn.request(method, target, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read().decode()
        conn.close()
        req: dict[str, Any] = {"method": method, "url": url + target, "httpVersion": "HTTP/1.1",
                               "headers": [{"name": k, "value": v} for k, v in hdrs.items()],
                               "queryString": [], "cookies": [], "headersSize": -1,
                               "bodySize": -1}
        if data is not None:
            req["postData"] = {"mimeType": "application/json", "text": data}
        entries.append({"startedDateTime": start.isoformat(), "time": 2, "request": req,
                        "response": {"status": resp.status, "statusText": "",
                                     "httpVersion": "HTTP/1.1", "cookies": [],
                                     "headers": [{"name": "content-type",
                                                  "value": "application/json"}],
                                     "content": {"size": len(raw), "text": raw,
                                                 "mimeType": "application/json"},
                                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
                        "cache": {}, "timings": {"send": 0, "wait": 2, "receive": 0}})
        answers.append(json.loads(raw))
    path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "agent"},
                                        "entries": entries}}))
    return path


def _json(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, Any]:
    code, out, _ = run(capsys, *argv, "--json")
    return code, json.loads(out)


def _group(capsys: pytest.CaptureFixture[str], store: Path, sig: str) -> dict[str, Any]:
    _, doc = _json(capsys, "findings", "--group", "--store", store)
    return next(g for g in doc["groups"] if g["signature"] == sig)


def _found(capsys, tmp_path, url, api, env="prod", name="run.har") -> tuple[Path, str]:
    """A recorded run ingested in ``env`` and judged: the store and the double create's
    signature."""
    store = tmp_path / "store"
    har = record_run(url, tmp_path / name, key=f"k-{name}")
    code, doc = _json(capsys, "ingest", har, "--env", env, "--store", store)
    assert code == 0
    code, doc = _json(capsys, "invariants", api, "--store", store)
    assert code == 1
    sigs = {f["signature"] for f in doc["findings"] if f["rule"] == "idempotent_retry"
            and "created a second resource" in f["message"]}
    assert len(sigs) == 1
    return store, sigs.pop()


def test_the_agent_loop(capsys, tmp_path, api, token):
    with running({"double_create"}) as (url, svc):
        store, sig = _found(capsys, tmp_path, url, api)
        assert _group(capsys, store, sig)["status"] == "open"
        assert _group(capsys, store, sig)["env"] == "prod"
        # shrink it against the live service: the create and its retry remain
        trace = _json(capsys, "findings", "--store", store)[1]["findings"][0]["trace_id"]
        code, mini = _json(capsys, "minimize", trace, "--invariants", api, "--rule",
                           "idempotent_retry", "--target", url, "--auth-env", token,
                           "--store", store)
        assert code == 0 and mini["one_minimal"] and mini["kept_steps"] == [0, 1]
        assert mini["signature"] == sig
        # the replay reproduces it, on the minimized trace
        code, doc = _json(capsys, "replay", sig[:8], "--target", url, "--auth-env", token,
                          "--store", store)
        assert code == 1
        assert doc["group"] == sig and doc["env"] == "prod" and doc["reproduced"] is True
        assert doc["source_trace"] == mini["trace_id"] and doc["attempts"] == 3
        assert [(r["reproduced"], r["steps_run"], r["signature"]) for r in doc["runs"]] == \
            [(True, 2, sig)] * 3
        assert doc["status"] == "open"
        # 3 of 3: the Clopper-Pearson interval [0.025^(1/3), 1]
        assert doc["reproduction"] == {"reproduced": 3, "observed": 3, "rate": 1.0,
                                       "low": 0.292402, "high": 1.0, "confidence": 0.95,
                                       "interval": "clopper-pearson"}
        # the service is fixed
        svc.bugs.discard("double_create")
        code, doc = _json(capsys, "replay", sig, "--target", url, "--auth-env", token,
                          "--env", "staging", "--store", store)
        assert code == 0 and doc["reproduced"] is False and doc["env"] == "staging"
        assert [r["outcome"] for r in doc["runs"]] == ["clean"] * 3
        assert doc["status"] == "open"  # clean elsewhere closes nothing
        code, doc = _json(capsys, "replay", sig, "--target", url, "--auth-env", token,
                          "--store", store)
        assert code == 0 and doc["status"] == "fixed"
        # three clean attempts stay the default reading; their rate says how little that
        # proves: 0 of 3, at most 70.8 %
        assert (doc["reproduction"]["reproduced"], doc["reproduction"]["observed"],
                doc["reproduction"]["high"]) == (0, 3, 0.707598)
        group = _group(capsys, store, sig)
        assert (group["status"], group["last_replay"], group["last_replay_env"],
                group["last_replay_target"], group["replays"]) == (
            "fixed", "clean", "prod", url, 9)
        code, out, _ = run(capsys, "findings", "--group", "--store", store)
        assert "fixed" in out and f"prod {url}" in out
        # re-checking the old recording does not reopen it ...
        assert _json(capsys, "invariants", api, "--store", store)[0] == 1
        assert _group(capsys, store, sig)["status"] == "fixed"
        # ... a later recording with the bug does
        svc.bugs.add("double_create")
        later = record_run(url, tmp_path / "later.har", key="k-later")
        assert _json(capsys, "ingest", later, "--env", "prod", "--store", store)[0] == 0
        assert _json(capsys, "invariants", api, "--store", store)[0] == 1
        assert _group(capsys, store, sig)["status"] == "open"
        rows = Store(store).sql("SELECT env, finding_env, outcome, reproduced, steps_run "
                                "FROM replays ORDER BY started_at, attempt").to_pylist()
        assert [(r["env"], r["outcome"], r["reproduced"]) for r in rows] == (
            [("prod", "reproduced", True)] * 3 + [("staging", "clean", False)] * 3
            + [("prod", "clean", False)] * 3)
        assert {r["finding_env"] for r in rows} == {"prod"}
        # each attempt is a trace in the target's environment, redacted like any
        envs = Store(store).sql("SELECT env, count(*) AS n FROM traces WHERE trace_id IN "
                                "(SELECT trace_id FROM replays) GROUP BY env "
                                "ORDER BY env").to_pylist()
        assert envs == [{"env": "prod", "n": 6}, {"env": "staging", "n": 3}]
        held = Store(store).sql("SELECT count(*) AS n FROM events WHERE args LIKE ?",
                                [f"%{TOKEN.split()[1]}%"]).to_pylist()[0]["n"]
        assert held == 0


def test_disagreeing_replays_make_a_group_flaky(capsys, tmp_path, api, token):
    with running({"double_create"}) as (url, svc):
        store, sig = _found(capsys, tmp_path, url, api, env="default")
        assert _json(capsys, "replay", sig, "--target", url, "--auth-env", token,
                     "--attempts", "1", "--store", store)[1]["status"] == "open"
        svc.bugs.discard("double_create")
        code, doc = _json(capsys, "replay", sig, "--target", url, "--auth-env", token,
                          "--attempts", "2", "--store", store)
        assert code == 0 and doc["status"] == "flaky"
        code, doc = _json(capsys, "replay", sig, "--target", url, "--auth-env", token,
                          "--attempts", "1", "--store", store)
        assert doc["status"] == "fixed"  # the last three agree now


@pytest.fixture
def found(capsys, tmp_path, api):
    with running({"double_create"}) as (url, svc):
        store, sig = _found(capsys, tmp_path, url, api)
        yield store, sig, url, svc


def _rows(store: Path) -> list[dict[str, Any]]:
    return Store(store).sql("SELECT outcome, reproduced, steps_run, error_code, "
                            "observed_signature FROM replays ORDER BY attempt").to_pylist()


@pytest.mark.parametrize(("argv", "code"), [
    (["replay", "0123456789abcdef", "--target", "http://127.0.0.1:9"], "FINDING_NOT_FOUND"),
    (["replay", "xyz", "--target", "http://127.0.0.1:9"], "FINDING_NOT_FOUND"),
    (["replay", "{sig}", "--target", "127.0.0.1:8080"], "REPLAY_TARGET_INVALID"),
    (["replay", "{sig}", "--target", "ftp://127.0.0.1/"], "REPLAY_TARGET_INVALID"),
    (["replay", "{sig}", "--target", "http://user:pw@127.0.0.1:9"], "REPLAY_TARGET_INVALID"),
    (["replay", "{sig}", "--target", "http://orders.example.com"], "REPLAY_TARGET_REFUSED"),
    (["replay", "{sig}", "--target", "{url}", "--auth-env", "WB_NOT_SET_ANYWHERE"],
     "AUTH_ENV_UNSET"),
    (["replay", "{sig}", "--target", "{url}", "--auth-env", "=X"], "AUTH_ENV_INVALID"),
    (["replay", "{sig}", "--target", "{url}", "--attempts", "0"], "USAGE"),
    (["replay", "{sig}", "--target", "{url}", "--env", "no such env"], "ENV_INVALID"),
    (["ingest", "run.har", "--env", "a/b"], "ENV_INVALID"),
    (["replay", "{sig}", "--target", "{url}", "--invariants", "missing.yaml"],
     "REPLAY_JUDGE_MISSING"),
    (["minimize", "{trace}", "--rules", "r.yaml", "--rule", "x", "--target", "{url}"],
     "USAGE"),
])
def test_bad_input_is_refused_and_nothing_is_written(capsys, found, argv, code):
    store, sig, url, _ = found
    trace = Store(store).sql("SELECT trace_id FROM findings").column(0)[0].as_py()
    before = snapshot(store)
    argv = [a.format(sig=sig, url=url, trace=trace) for a in argv]
    rc, out, err = run(capsys, *argv, "--store", store)
    assert rc == 2 and err.startswith(f"error[{code}]: ") and "hint:" in err
    assert "Traceback" not in err and out == ""
    assert snapshot(store) == before
    rc, out, _ = run(capsys, *argv, "--store", store, "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == code


def test_a_writing_replay_to_another_host_needs_allow_writes(capsys, found, token):
    store, sig, _, _ = found
    # allowed: the refusal is gone, and the unreachable host is what fails now
    rc, out, err = run(capsys, "replay", sig, "--target", "http://host.invalid:9",
                       "--allow-writes", "host.invalid", "--auth-env", token,
                       "--attempts", "1", "--timeout", "2", "--store", store, "--json")
    assert rc == 2 and "REPLAY_UNREACHABLE" in err
    assert json.loads(out)["runs"][0]["error"]["code"] == "REPLAY_UNREACHABLE"


def test_a_redacted_credential_without_a_variable_is_an_error_not_a_pass(capsys, found):
    store, sig, url, _ = found
    rc, out, err = run(capsys, "replay", sig, "--target", url, "--store", store, "--json")
    assert rc == 2 and err.startswith("error[CREDENTIAL_MISSING]: ")
    doc = json.loads(out)
    assert doc["reproduced"] is None and doc["status"] == "open"
    assert doc["error"]["code"] == "CREDENTIAL_MISSING"  # as in any exit 2's envelope
    assert _rows(store) == [{"outcome": "error", "reproduced": None, "steps_run": 0,
                             "error_code": "CREDENTIAL_MISSING", "observed_signature": None}]


def test_401_on_replay_is_an_error(capsys, found, monkeypatch):
    store, sig, url, _ = found
    monkeypatch.setenv("WB_WRONG_TOKEN", "Bearer wrong")
    rc, out, err = run(capsys, "replay", sig, "--target", url, "--auth-env", "WB_WRONG_TOKEN",
                       "--store", store, "--json")
    assert rc == 2 and "REPLAY_UNAUTHORIZED" in err
    rows = _rows(store)
    assert [(r["outcome"], r["reproduced"], r["error_code"]) for r in rows] == \
        [("error", None, "REPLAY_UNAUTHORIZED")] * 3
    assert json.loads(out)["status"] == "open"


def test_a_target_that_refuses_the_connection(capsys, found, token):
    store, sig, _, _ = found
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    rc, out, err = run(capsys, "replay", sig, "--target", f"http://127.0.0.1:{port}",
                       "--auth-env", token, "--store", store, "--json")
    assert rc == 2 and err.startswith("error[REPLAY_UNREACHABLE]: ")
    assert _rows(store) == [{"outcome": "error", "reproduced": None, "steps_run": 0,
                             "error_code": "REPLAY_UNREACHABLE", "observed_signature": None}]
    assert json.loads(out)["runs"][0]["trace_id"] is None


def test_a_target_that_does_not_answer_times_out(capsys, found, token):
    store, sig, _, _ = found
    with socket.socket() as s:  # accepts connections (the backlog) and never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        rc, _, err = run(capsys, "replay", sig, "--target",
                         f"http://127.0.0.1:{s.getsockname()[1]}", "--auth-env", token,
                         "--timeout", "0.5", "--store", store)
    assert rc == 2 and err.startswith("error[REPLAY_TIMEOUT]: ")
    assert [(r["outcome"], r["reproduced"]) for r in _rows(store)] == [("error", None)]


def test_tool_call_steps_need_an_oracle_command(capsys, tmp_path):
    from tests.support import EXAMPLES
    store = tmp_path / "store"
    assert run(capsys, "ingest", EXAMPLES / "archive-incident.otlp.json", "--store",
               store)[0] == 0
    rules = EXAMPLES / "archive-incident.rules.yaml"
    assert run(capsys, "check", rules, "--store", store)[0] == 1
    sig = _json(capsys, "findings", "--group", "--store", store)[1]["groups"][0]["signature"]
    before = snapshot(store)
    rc, _, err = run(capsys, "replay", sig, "--target", "http://127.0.0.1:9", "--store", store)
    assert rc == 2 and err.startswith("error[REPLAY_NEEDS_ORACLE]: ")
    assert snapshot(store) == before
    # with a command: exit 1 of the command is "reproduced", 0 "clean", else an error
    script = tmp_path / "run.py"
    script.write_text("import sys, pathlib\n"
                      "steps = pathlib.Path(sys.argv[1]).read_text().splitlines()\n"
                      "assert sys.argv[2] == 'http://127.0.0.1:9'\n"
                      "sys.exit(int(pathlib.Path(sys.argv[3]).read_text()))\n")
    verdict = tmp_path / "verdict"
    cmd = f"python {script} {{trace}} {{target}} {verdict}"
    for answer, outcome, status, rc_want in (("1", "reproduced", "open", 1),
                                            ("0", "clean", "fixed", 0),
                                            ("5", "error", "fixed", 2)):
        verdict.write_text(answer)
        rc, out, _ = run(capsys, "replay", sig, "--target", "http://127.0.0.1:9",
                         "--oracle-cmd", cmd, "--store", store, "--json")
        doc = json.loads(out)
        assert rc == rc_want and doc["mode"] == "oracle"
        assert [r["outcome"] for r in doc["runs"]] == [outcome] * 3
        assert doc["status"] == status


def test_minimize_against_a_live_target_refuses_what_it_cannot_replay(capsys, found, api,
                                                                       token):
    store, _, url, svc = found
    trace = Store(store).sql("SELECT trace_id FROM findings").column(0)[0].as_py()
    base = ["minimize", trace, "--invariants", api, "--rule", "idempotent_retry",
            "--store", store, "--no-save"]
    before = snapshot(store)
    rc, _, err = run(capsys, *base, "--target", "http://orders.example.com", "--auth-env",
                     token)
    assert rc == 2 and err.startswith("error[REPLAY_TARGET_REFUSED]: ")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rc, _, err = run(capsys, *base, "--target", f"http://127.0.0.1:{port}", "--auth-env",
                     token)
    assert rc == 2 and err.startswith("error[ORACLE_FAILED]: ")
    rc, _, err = run(capsys, *base, "--target", url)  # the recording carries a credential
    assert rc == 2 and err.startswith("error[ORACLE_FAILED]: ") and "authorization" in err
    svc.bugs.discard("double_create")  # fixed: the whole trace no longer fails there
    rc, _, err = run(capsys, *base, "--target", url, "--auth-env", token)
    assert rc == 2 and err.startswith("error[NOT_REPRODUCED]: ")
    assert snapshot(store) == before


def test_fixed_below_reads_the_group_by_its_reproduction_rate(capsys, tmp_path, api, token):
    with running({"double_create"}) as (url, svc):
        store, sig = _found(capsys, tmp_path, url, api)
        base = ("replay", sig, "--target", url, "--auth-env", token, "--store", store)
        # 3 of 3 reproduced: even the lower bound 29.2 % is over 20 %: open
        code, doc = _json(capsys, *base, "--fixed-below", "0.2")
        assert code == 1 and doc["status"] == "open" and doc["fixed_below"] == 0.2
        svc.bugs.discard("double_create")
        # 0 of 3: [0, 70.8 %] holds 50 %: flaky, where three clean attempts read fixed
        code, doc = _json(capsys, *base, "--fixed-below", "0.5")
        assert code == 0 and doc["status"] == "flaky"
        # 0 of 6: at most 1 - 0.025^(1/6) = 45.9 % < 50 %: fixed
        code, doc = _json(capsys, *base, "--fixed-below", "0.5", "--attempts", "6")
        assert doc["status"] == "fixed" and doc["reproduction"]["high"] == 0.459258
        rows = Store(store).sql("SELECT DISTINCT fixed_below, rate_high FROM replays "
                                "ORDER BY rate_high").to_pylist()
        assert rows == [{"fixed_below": 0.5, "rate_high": 0.459258},
                        {"fixed_below": 0.5, "rate_high": 0.707598},
                        {"fixed_below": 0.2, "rate_high": 1.0}]
        code, out, err = run(capsys, *base, "--fixed-below", "1")
        assert code == 2 and "error[RATE_INVALID]" in err and not out
