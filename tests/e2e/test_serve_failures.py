"""Every failure mode through real HTTP: one server whose scenario gives each exchange
its own failure, and one with a failure for every exchange from the command line."""

from __future__ import annotations

import json
import socket

import pytest

from tests.serve_support import LISTING, call, scenario

ROUTES = {
    "/missing": "missing-field items[*].owner",
    "/enum": "enum-member items[0].state archived-pending",
    "/empty": "empty-page-with-cursor",
    "/ctype": "content-type text/html",
    "/err200": "error-200",
    "/hang": "timeout-after-record",
    "/retry": "retry-then-ok",
    "/status": "status 503",
    "/plain": None,
}


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    folder = tmp_path_factory.mktemp("failures")
    exchanges = []
    for path, failure in ROUTES.items():
        ex = {"id": path.strip("/"), "request": {"method": "GET", "path": path},
              "response": {"status": 200, "body": LISTING}}
        if failure:
            ex["failures"] = [failure]
        exchanges.append(ex)
    return scenario(folder, json.dumps({"version": 1, "exchanges": exchanges}))


@pytest.fixture
def server(contract_server, failing):
    return contract_server(failing)


def test_each_failure_mode_changes_the_answer_as_documented(server):
    status, _, body = call(server.url, "GET", "/missing")
    assert status == 200 and [set(i) for i in body["items"]] == [{"id", "state"}] * 2
    status, _, body = call(server.url, "GET", "/enum")
    assert body["items"][0]["state"] == "archived-pending"
    assert body["items"][1]["state"] == "active"
    status, _, body = call(server.url, "GET", "/empty")
    assert body["items"] == [] and body["next_cursor"]
    status, headers, body = call(server.url, "GET", "/ctype")
    assert status == 200 and headers["content-type"] == "text/html"
    assert json.loads(json.dumps(body)) == LISTING  # the body as recorded
    status, _, body = call(server.url, "GET", "/err200")
    assert status == 200 and body["error"]["code"] == "internal_error"
    status, _, body = call(server.url, "GET", "/status")
    assert status == 503 and body["error"]["code"] == "http_503"
    status, _, body = call(server.url, "GET", "/plain")
    assert (status, body) == (200, LISTING)  # the recorded answer itself is untouched
    server.assert_sequence(["GET /missing", "GET /enum", "GET /empty", "GET /ctype",
                            "GET /err200", "GET /status", "GET /plain"])
    failures = [r["failure"] for r in server.requests()]
    assert failures == [ROUTES[p] for p in ("/missing", "/enum", "/empty", "/ctype",
                                            "/err200", "/status")] + [None]


def test_timeout_after_record_records_the_request_and_never_answers(server):
    with pytest.raises(TimeoutError):
        call(server.url, "GET", "/hang", timeout=1.0)
    with pytest.raises(TimeoutError):
        call(server.url, "GET", "/hang", timeout=1.0)  # every attempt
    assert call(server.url, "GET", "/plain")[0] == 200  # the others are still served
    reqs = server.requests()
    assert [(r["path"], r["status"], r["failure"]) for r in reqs] == [
        ("/hang", None, "timeout-after-record"), ("/hang", None, "timeout-after-record"),
        ("/plain", 200, None)]


def test_retry_then_ok_holds_the_first_attempt_and_answers_the_retry(server):
    with pytest.raises(TimeoutError):
        call(server.url, "GET", "/retry", timeout=1.0)
    for _ in range(2):  # the retry is answered, and so is every later call
        status, _, body = call(server.url, "GET", "/retry")
        assert (status, body) == (200, LISTING)
    assert [r["status"] for r in server.requests()] == [None, 200, 200]


def test_a_held_request_is_committed_as_unanswered(server):
    with pytest.raises((TimeoutError, socket.timeout)):
        call(server.url, "GET", "/hang", timeout=0.5)
    assert server.stop() == 0
    from workbench.store import Store
    events = Store(server.store).trace(server.trace_id).events
    assert [(e.name, e.status, e.result) for e in events] == [("GET /hang", "unset", None)]
    assert "unanswered" in events[0].flags


def test_a_failure_on_the_command_line_applies_to_every_exchange(contract_server, failing):
    server = contract_server(failing, failures=["status 429"])
    assert call(server.url, "GET", "/plain")[0] == 429
    status, _, body = call(server.url, "GET", "/enum")
    assert status == 429 and body["error"]["message"] == "Too Many Requests"
