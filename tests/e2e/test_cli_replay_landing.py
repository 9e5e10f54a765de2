"""A replay is evidence only where its steps landed (docs/replay.md, "Did the steps
land?"): against real servers on 127.0.0.1 — the orders service with its double-create
bug still switched on, reached one path segment off; a port nobody listens on; a
``workbench serve`` contract server that answers 501 to what it holds no exchange for —
no attempt is ``clean`` and the group never becomes ``fixed``. Each attempt names the
first step that did not land and the likely cause."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.test_cli_replay import KEY_VAR, _found, _group
from tests.support import run
from tests.unit.invariants.service import DOC, TOKEN, running
from workbench.store import Store


@pytest.fixture
def api(tmp_path: Path) -> Path:
    p = tmp_path / "openapi.yaml"
    p.write_text(yaml.safe_dump(DOC))
    return p


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_VAR, TOKEN)
    return KEY_VAR


def _replay(capsys: pytest.CaptureFixture[str], store: Path, sig: str, target: str,
            token: str, *more: str) -> tuple[int, Any, str]:
    rc, out, err = run(capsys, "replay", sig, "--target", target, "--auth-env", token,
                       "--store", store, "--json", *more)
    return rc, json.loads(out), err


def _rows(store: Path) -> list[dict[str, Any]]:
    return Store(store).sql("SELECT outcome, reproduced, diverged_step, error_code, "
                            "error_message FROM replays ORDER BY started_at, attempt"
                            ).to_pylist()


def test_a_target_one_segment_off_never_closes_the_group(capsys, tmp_path, api, token):
    with running({"double_create"}) as (url, _):  # the bug is still there
        store, sig = _found(capsys, tmp_path, url, api)
        rc, doc, err = _replay(capsys, store, sig, url + "/v1", token)
        want = ("POST /v1/orders answered 404 where the recording had 201: is --target's "
                "base path right?")
        assert rc == 2 and err.startswith(f"error[REPLAY_DIVERGED]: step 1: {want}")
        assert doc["reproduced"] is None and doc["status"] == "open"
        assert doc["error"]["code"] == "REPLAY_DIVERGED"
        assert [r["outcome"] for r in doc["runs"]] == ["diverged"] * 3
        d = doc["runs"][0]["divergence"]
        assert (d["step"], d["method"], d["path"], d["recorded"], d["answered"],
                d["message"]) == (1, "POST", "/v1/orders", 201, 404, want)
        assert _rows(store) == [{"outcome": "diverged", "reproduced": None,
                                 "diverged_step": 1, "error_code": "REPLAY_DIVERGED",
                                 "error_message": f"step 1: {want}"}] * 3
        # three more: still nothing observed, still open
        assert _replay(capsys, store, sig, url + "/v1", token)[1]["status"] == "open"
        group = _group(capsys, store, sig)
        assert (group["status"], group["last_replay"], group["last_replay_note"]) == (
            "open", "diverged", f"step 1: {want}")
        # the text says the same
        rc, out, err = run(capsys, "replay", sig, "--target", url + "/v1", "--auth-env",
                           token, "--attempts", "1", "--store", store)
        assert rc == 2
        assert f"attempt 1: diverged   4/4 steps  at step 1: {want}" in out
        assert out.rstrip().endswith(f"no attempt landed; group {sig} is open")
        # at the right URL it still reproduces: the finding was never fixed
        rc, doc, _ = _replay(capsys, store, sig, url, token)
        assert rc == 1 and [r["outcome"] for r in doc["runs"]] == ["reproduced"] * 3
        assert all(r["divergence"] is None for r in doc["runs"])


def test_nobody_listening_is_an_error_that_says_so(capsys, tmp_path, api, token):
    with running({"double_create"}) as (url, _):
        store, sig = _found(capsys, tmp_path, url, api)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    rc, doc, err = _replay(capsys, store, sig, f"http://127.0.0.1:{port}", token)
    assert rc == 2 and err.startswith("error[REPLAY_UNREACHABLE]: ")
    assert f"nothing listens on 127.0.0.1:{port}" in err
    run0 = doc["runs"][0]
    assert run0["outcome"] == "error" and run0["divergence"]["step"] == 1
    assert run0["divergence"]["answered"] is None
    assert [(r["outcome"], r["diverged_step"], r["error_code"]) for r in _rows(store)] == [
        ("error", 1, "REPLAY_UNREACHABLE")]
    assert _group(capsys, store, sig)["status"] == "open"


def test_a_contract_server_answering_501_is_not_a_clean_replay(
        capsys, tmp_path, api, token, contract_server):
    with running({"double_create"}) as (url, _):
        store, sig = _found(capsys, tmp_path, url, api)
    # the recording itself, served: at its own base it answers as recorded (once: its
    # answers to one key are used up by the first attempt) ...
    server = contract_server(tmp_path / "run.har")
    rc, doc, _ = _replay(capsys, store, sig, server.url, token, "--attempts", "1")
    assert rc == 1 and [r["outcome"] for r in doc["runs"]] == ["reproduced"]
    # ... one segment off, every request is unmatched (501)
    for _ in range(2):
        rc, doc, err = _replay(capsys, store, sig, server.url + "/v1", token)
        assert rc == 2 and err.startswith("error[REPLAY_DIVERGED]: step 1: POST /v1/orders "
                                          "answered 501 where the recording had 201")
        assert [r["outcome"] for r in doc["runs"]] == ["diverged"] * 3
        d = doc["runs"][0]["divergence"]
        assert (d["recorded"], d["answered"]) == (201, 501)
        assert "the contract server holds no recorded exchange for it" in d["message"]
        assert d["message"].endswith("is --target's base path right?")
    assert doc["status"] == "open" and _group(capsys, store, sig)["status"] == "open"
