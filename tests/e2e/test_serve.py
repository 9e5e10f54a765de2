"""The contract server as users run it: a real process on 127.0.0.1, real HTTP, the
recording committed to a real store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.serve_support import call, scenario
from tests.support import EXAMPLES
from workbench.pytest_plugin import start_server
from workbench.store import Store

HAR_V1 = EXAMPLES / "ops-agent" / "exchanges" / "projects-list-v1.har"
PACT = {"consumer": {"name": "ops-agent"}, "provider": {"name": "ops-api"},
        "interactions": [{"description": "a project", "request": {
            "method": "GET", "path": "/v1/projects/p-1", "query": "fields=owner"},
            "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                         "body": {"id": "p-1", "owner": "team-a"}}}],
        "metadata": {"pactSpecification": {"version": "2.0.0"}}}
VCR = """interactions:
- request:
    method: POST
    uri: https://api.example.test/v1/jobs?dry_run=false
    body: '{"kind": "reindex"}'
    headers: {Content-Type: [application/json]}
  response:
    status: {code: 202, message: Accepted}
    headers: {Content-Type: [application/json]}
    body: {string: '{"job_id": "j-9", "state": "queued"}'}
version: 1
"""


def test_a_har_answers_what_it_recorded_and_a_501_names_the_closest_exchange(
        contract_server):
    server = contract_server(HAR_V1)
    status, headers, body = call(server.url, "GET", "/v1/projects?owner=team-a")
    assert status == 200 and headers["content-type"] == "application/json"
    assert [p["id"] for p in body["items"]] == ["p-101", "p-102", "p-103"]
    status, _, body = call(server.url, "GET", "/v1/projects?owner=team-b&limit=5")
    assert status == 501
    err = body["error"]
    assert err["code"] == "no_matching_exchange"
    assert err["closest"]["exchange"] == "projects-list-v1"
    assert err["closest"]["differences"] == [
        {"field": "query.limit", "recorded": None, "received": "5"},
        {"field": "query.owner", "recorded": "team-a", "received": "team-b"}]
    assert call(server.url, "DELETE", "/v1/projects")[0] == 501
    reqs = server.requests()
    assert [(r["status"], r["exchange"]) for r in reqs] == [
        (200, "projects-list-v1"), (501, None), (501, None)]


def test_vcr_pact_and_our_jsonl_are_served_together(contract_server, tmp_path):
    (tmp_path / "api.pact.json").write_text(json.dumps(PACT))
    (tmp_path / "jobs.yaml").write_text(VCR)
    (tmp_path / "ours.jsonl").write_text(json.dumps({
        "trace_id": "t1", "event_id": "e1", "kind": "http", "name": "GET /v1/ping",
        "args": {"method": "GET", "path": "/v1/ping", "query": {}},
        "result": {"status": 204, "headers": {}}}) + "\n")
    server = contract_server(tmp_path / "api.pact.json", tmp_path / "jobs.yaml",
                             tmp_path / "ours.jsonl")
    assert call(server.url, "GET", "/v1/projects/p-1?fields=owner")[2] == {
        "id": "p-1", "owner": "team-a"}
    status, _, body = call(server.url, "POST", "/v1/jobs?dry_run=false", {"kind": "reindex"})
    assert (status, body) == (202, {"job_id": "j-9", "state": "queued"})
    assert call(server.url, "GET", "/v1/ping")[:1] == (204,)
    assert server.scenario == "api.pact.json + jobs.yaml + ours.jsonl"


def test_repeated_calls_get_the_recorded_answers_in_order(contract_server, tmp_path):
    page = {"version": 1, "match": {"query": False}, "exchanges": [
        {"id": f"page-{i}", "request": {"path": "/v1/items"},
         "response": {"body": {"items": [i], "next_cursor": None if i == 3 else str(i)}}}
        for i in (1, 2, 3)]}
    server = contract_server(scenario(tmp_path, json.dumps(page)))
    got = [call(server.url, "GET", f"/v1/items?cursor={c}")[2]["items"]
           for c in ("", "1", "2", "2")]
    assert got == [[1], [2], [3], [3]]  # in order; the last one repeats
    assert [r["exchange"] for r in server.requests()] == ["page-1", "page-2", "page-3",
                                                          "page-3"]


def test_headers_and_body_shape_match_as_the_scenario_says(contract_server, tmp_path):
    text = {"version": 1, "exchanges": [
        {"id": "eu", "request": {"method": "POST", "path": "/v1/charges",
                                 "headers": {"X-Region": "eu"}, "body": {"amount": 1}},
         "response": {"status": 201, "body": {"region": "eu"}},
         "match": {"headers": ["x-region"], "body": "shape"}},
        {"id": "exact", "request": {"method": "PUT", "path": "/v1/limit",
                                    "body": {"max": 5}},
         "response": {"body": {"ok": True}}, "match": {"body": "exact"}}]}
    server = contract_server(scenario(tmp_path, json.dumps(text)))
    hdr = {"X-Region": "eu"}
    assert call(server.url, "POST", "/v1/charges", {"amount": 99}, hdr)[0] == 201
    assert call(server.url, "POST", "/v1/charges", {"amount": "99"}, hdr)[0] == 501
    assert call(server.url, "POST", "/v1/charges", {"amount": 1}, {"X-Region": "us"})[0] == 501
    assert call(server.url, "PUT", "/v1/limit", {"max": 5})[0] == 200
    status, _, body = call(server.url, "PUT", "/v1/limit", {"max": 6})
    assert status == 501
    assert body["error"]["closest"]["differences"] == [
        {"field": "body", "recorded": {"max": 5}, "received": {"max": 6}}]


def test_the_recording_is_committed_redacted_as_one_trace_and_judged_by_rules(
        contract_server, tmp_path):
    server = contract_server(EXAMPLES / "ops-agent" / "scenario-v1.yaml")
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    call(server.url, "GET", "/v1/projects?owner=team-a",
         headers={"Authorization": f"Bearer {secret}"})
    call(server.url, "POST", "/v1/charges", {"invoice_id": "inv-1", "amount_cents": 5},
         headers={"Note": f"token {secret}"})  # no Idempotency-Key
    assert secret not in server.journal.read_text()  # redacted before it is written
    result = server.check(EXAMPLES / "ops-agent" / "rules.yaml")
    assert [f.rule for f in result.findings] == ["charge-has-idempotency-key"]
    store = Store(server.store)
    trace = store.trace(server.trace_id)
    assert [(e.kind, e.name, e.status) for e in trace.events] == [
        ("http", "GET /v1/projects", "ok"), ("http", "POST /v1/charges", "ok")]
    assert not server.journal.exists()  # committed, then dropped
    dump = json.dumps([e.args for e in trace.events], ensure_ascii=False)
    assert secret not in dump and "«secret:" in dump
    assert trace.events[1].args["body"] == {"invoice_id": "inv-1", "amount_cents": 5}


def test_sigint_and_sigterm_both_stop_cleanly_and_commit(tmp_path):
    for sig in (signal.SIGINT, signal.SIGTERM):
        store = tmp_path / f"store-{sig}"
        server = start_server([HAR_V1], store=store)
        call(server.url, "GET", "/v1/projects?owner=team-a")
        server.proc.send_signal(sig)
        assert server.stop() == 0
        assert "1 request(s) recorded" in server.stderr
        assert len(Store(store).trace(server.trace_id).events) == 1


def test_a_crashed_run_loses_nothing_answered_the_next_run_commits_it(tmp_path):
    store = tmp_path / "store"
    first = start_server([HAR_V1], store=store)
    for _ in range(3):
        call(first.url, "GET", "/v1/projects?owner=team-a")
    first.kill()  # SIGKILL: no commit
    assert first.journal.exists() and first.trace_id not in Store(store).trace_ids()
    second = start_server([HAR_V1], store=store)
    assert len(Store(store).trace(first.trace_id).events) == 3
    assert not first.journal.exists()
    second.stop()


def test_the_canary_check_catches_a_leak_outside_the_credential_headers(
        contract_server):
    server = contract_server(HAR_V1)
    call(server.url, "GET", "/v1/projects?owner=team-a",
         headers={"Authorization": f"Bearer {server.canary}"})
    server.assert_no_canary("a prompt without it", {"tool_result": "clean"})
    with pytest.raises(AssertionError, match="text 1"):
        server.assert_no_canary("fine", f"error: bad key {server.canary}")
    call(server.url, "GET", f"/v1/projects?owner=team-a&key={server.canary}")
    with pytest.raises(AssertionError, match="recorded request GET /v1/projects"):
        server.assert_no_canary()
    server.stop()
    with pytest.raises(AssertionError, match="recorded request"):
        server.assert_no_canary()  # in the committed trace too
    server.canary = "never-sent"  # so that the fixture's own check at teardown passes


def test_the_server_process_listens_on_loopback_only(tmp_path):
    server = start_server([HAR_V1], store=tmp_path / "s")
    try:
        assert server.url.startswith("http://127.0.0.1:")
        port = int(server.url.rsplit(":", 1)[1])
        out = subprocess.run([sys.executable, "-c", (
            "import socket,sys\n"
            "s=socket.socket(); s.settimeout(5)\n"
            "ips=[a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, "
            "socket.AF_INET)]\n"
            "ext=[ip for ip in ips if not ip.startswith('127.')]\n"
            "if not ext: print('none'); sys.exit()\n"
            f"print(s.connect_ex((ext[0], {port})))")], capture_output=True, text=True,
            env={**os.environ})
        assert out.stdout.strip() in ("none",) or out.stdout.strip() != "0"
    finally:
        server.stop()
