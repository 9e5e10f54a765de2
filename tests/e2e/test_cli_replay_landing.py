"""A replay is evidence only where its steps landed (docs/replay.md, "Did the steps
land?"): against real servers on 127.0.0.1 — the orders service with its double-create
bug still switched on, reached one path segment off; a port nobody listens on; a
``workbench serve`` contract server that answers 501 to what it holds no exchange for —
no attempt is ``clean`` and the group never becomes ``fixed``. Each attempt names the
first step that did not land and the likely cause."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli_replay import _found, _group, record
from tests.support import run
from tests.unit.invariants.service import running
from workbench.store import Store


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
        out = run(capsys, "findings", "--group", "--store", store)[1]
        assert out.rstrip().endswith(f"{sig}: last replay diverged: step 1: {want}")
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
    # the recording itself, served: at its own base it answers as recorded, which is
    # the recording speaking, not the service: neither reproduced nor clean ...
    server = contract_server(tmp_path / "run.har")
    rc, doc, err = _replay(capsys, store, sig, server.url, token)
    assert rc == 2 and [r["outcome"] for r in doc["runs"]] == ["diverged"] * 3
    assert err.startswith("error[REPLAY_DIVERGED]: step 1: POST /orders answered 201 where "
                          "the recording had 201 from a recording (a `workbench serve` "
                          "contract server), not from the service")
    assert _group(capsys, store, sig)["status"] == "open"
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


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``handler`` answering on 127.0.0.1; its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


@contextmanager
def gateway_without_its_service() -> Iterator[str]:
    """A loopback gateway whose service is down: 503 to everything."""
    class Down(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _down(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            data = b'{"message": "no healthy upstream"}'
            self.send_response(503)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _down

    with serving(Down) as url:
        yield url


def _server_error(capsys, tmp_path, url, api, har: Path) -> tuple[Path, str]:
    """The recording ingested in ``prod`` and judged: the signature of its 5xx finding
    (``clean_refusal``'s: the request sent is one the contract refuses)."""
    store = tmp_path / "store"
    assert run(capsys, "ingest", har, "--env", "prod", "--store", store, "--json")[0] == 0
    code, out, _ = run(capsys, "invariants", api, "--store", store, "--json")
    assert code == 1
    (sig,) = {f["signature"] for f in json.loads(out)["findings"]
              if f["rule"] == "clean_refusal"}
    return store, sig


WRONG_TYPE = ("POST", "/orders", {"sku": "A-1", "quantity": "2"}, None)


def test_a_gateway_5xx_is_not_the_service_reproducing_its_5xx(capsys, tmp_path, api,
                                                              token):
    with running({"500_on_type"}) as (url, svc):
        har = record(url, tmp_path / "run.har", [WRONG_TYPE])
        store, sig = _server_error(capsys, tmp_path, url, api, har)
        with gateway_without_its_service() as down:
            rc, doc, err = _replay(capsys, store, sig, down, token)
        # the 503 breaks clean_refusal too, on a step that never reached the service
        assert rc == 2 and err.startswith("error[REPLAY_DIVERGED]: step 1: POST /orders "
                                          "answered 503 where the recording had 500: the "
                                          "target answered for a service it could not reach")
        assert [(r["outcome"], r["signature"]) for r in doc["runs"]] == [("diverged", sig)] * 3
        # the service itself, bug on: 500 as recorded, reproduced
        rc, doc, _ = _replay(capsys, store, sig, url, token)
        assert rc == 1 and [r["outcome"] for r in doc["runs"]] == ["reproduced"] * 3
        # fixed: a 400 where the recording had 500 landed, and is clean
        svc.bugs.discard("500_on_type")
        rc, doc, _ = _replay(capsys, store, sig, url, token)
        assert rc == 0 and [r["outcome"] for r in doc["runs"]] == ["clean"] * 3
        assert [r["divergence"] for r in doc["runs"]] == [None] * 3
        assert doc["status"] == "fixed"


def test_a_break_on_steps_that_landed_reproduces_though_a_later_step_diverged(
        capsys, tmp_path, api, token):
    with running({"500_on_type"}) as (url, _):
        har = record(url, tmp_path / "run.har", [WRONG_TYPE, ("GET", "/orders/o1", None, None)])
        doc = json.loads(har.read_text())  # read where that order existed
        doc["log"]["entries"][1]["request"]["url"] = url + "/orders/o404"
        har.write_text(json.dumps(doc))
        store, sig = _server_error(capsys, tmp_path, url, api, har)
        rc, doc, _ = _replay(capsys, store, sig, url, token)
        assert rc == 1 and [r["outcome"] for r in doc["runs"]] == ["reproduced"] * 3
        want = ("GET /orders/o404 answered 404 where the recording had 200: is --target's "
                "base path right?")
        assert {r["divergence"]["message"] for r in doc["runs"]} == {want}
        assert [(r["outcome"], r["reproduced"], r["diverged_step"], r["error_code"])
                for r in _rows(store)] == [("reproduced", True, 2, None)] * 3
        rc, out, _ = run(capsys, "replay", sig, "--target", url, "--auth-env", token,
                         "--attempts", "1", "--store", store)
        assert rc == 1 and f"(step 2 did not land: {want}; the finding's steps did)" in out


POLLY = Path(__file__).parents[1] / "corpus" / "pollyjs-request-order" / "recording.har"
# a rule its author wrote without thinking of DELETE: the recording breaks it at step 5
POLLY_RULES = """version: 1
rules:
  read-after-write:
    description: a GET of a key finds what an earlier POST of that key stored
    never:
      event: {kind: http, where: {args.method: GET, result.status: 404}}
      after: {kind: http, where: {args.method: POST, result.status: 200}}
      same: [args.path]
"""


@contextmanager
def polly_db() -> Iterator[str]:
    """A loopback stand-in of Polly.JS's test server's ``/api/db/:id`` routes."""
    db: dict[str, bytes] = {}

    class Db(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, status: int, data: bytes = b"") -> None:
            self.send_response(status)
            if data:
                self.send_header("content-type", "application/json; charset=utf-8")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _key(self) -> str | None:
            head, _, key = self.path.partition("?")[0].rpartition("/")
            return key if head == "/api/db" and key else None

        def do_GET(self) -> None:
            key = self._key()
            self._answer(200, db[key]) if key in db else self._answer(404)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            key = self._key()
            if key is None:
                return self._answer(404)
            db[key] = body
            return self._answer(200, body)

        def do_DELETE(self) -> None:
            key = self._key()
            if key is None:
                return self._answer(404)
            db.pop(key, None)
            return self._answer(200)

    with serving(Db) as url:
        yield url


def test_a_real_polly_recording_replayed_one_segment_off(capsys, tmp_path,
                                                          contract_server):
    store, rules = tmp_path / "store", tmp_path / "db.rules.yaml"
    rules.write_text(POLLY_RULES)
    assert run(capsys, "ingest", POLLY, "--store", store)[0] == 0
    code, out, _ = run(capsys, "check", rules, "--store", store, "--json")
    (sig,) = {f["signature"] for f in json.loads(out)["findings"]}
    assert code == 1

    def replay(target: str) -> tuple[int, Any]:
        rc, out, _ = run(capsys, "replay", sig, "--target", target, "--rules", rules,
                         "--store", store, "--json")
        return rc, json.loads(out)

    with polly_db() as url:
        rc, doc = replay(url)  # the same service: every step lands, the break is back
        assert rc == 1 and [r["outcome"] for r in doc["runs"]] == ["reproduced"] * 3
        assert [r["divergence"] for r in doc["runs"]] == [None] * 3
        rc, doc = replay(url + "/v1")
    # the 404s of steps 1 and 5 are as recorded; the POST is the first that did not land
    assert rc == 2 and [r["outcome"] for r in doc["runs"]] == ["diverged"] * 3
    d = doc["runs"][0]["divergence"]
    assert (d["step"], d["method"], d["recorded"], d["answered"]) == (2, "POST", 200, 404)
    assert d["path"].startswith("/v1/api/db/-pollyjs_2160168770%2Fadapter-node-http")
    assert d["message"].endswith("answered 404 where the recording had 200: is --target's "
                                 "base path right?")
    # the recording served by the contract server: one segment off, all unmatched
    server = contract_server(POLLY)
    rc, doc = replay(server.url + "/v1")
    assert rc == 2 and [r["outcome"] for r in doc["runs"]] == ["diverged"] * 3
    d = doc["runs"][0]["divergence"]
    assert (d["step"], d["method"], d["recorded"], d["answered"]) == (1, "GET", 404, 501)
    assert "the contract server holds no recorded exchange for it; the closest, GET " \
        "/api/db/" in d["message"] and d["message"].endswith(
            "differs in path): is --target's base path right?")
    assert _group(capsys, store, sig)["status"] == "open"
