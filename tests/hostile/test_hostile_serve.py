"""A hostile client of ``workbench serve`` (docs/serve.md, docs/security.md):

* requests carrying credentials without a vendor's shape — an ``Authorization`` header, a
  cookie, an ``x-api-key``, query parameters named ``access_token`` and ``session``, a
  ``password`` field — and a vendor-shaped token in the path, matched and unmatched:
  the 501 for an unmatched one lists what it received; none of it reaches a byte under
  the store, while serving, after a ``kill -9`` (the journal left behind, searched as is)
  and once the next ``serve`` committed the orphan;
* JSON bodies past the parser's limits (a 9 KB integer, 20,000-deep nesting): an answer
  (413 with a JSON error naming the limit), the refusal recorded, no traceback;
* a 70 KB request head: 431.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import quote

import pytest

from tests.hostile.on_disk import secrets_on_disk
from tests.serve_support import call, raw_socket, read_all
from tests.support import EXAMPLES, run
from workbench.pytest_plugin import start_server
from workbench.store import Store

HAR = EXAMPLES / "ops-agent" / "exchanges" / "projects-list-v1.har"
GOOD = "/v1/projects?owner=team-a"
PAT = "ghp_" + "Zq8RmT2vXw4yB6nC0dF3" + "hJ5kL7pQ9sU1aB2c"  # vendor-shaped, in a path
SECRETS = {
    "bearer": "k7-Unshaped-Bearer-Cred-91",
    "cookie": "c00kie-Unshaped-Sess-77",
    "api_key": "ak-Unshaped-Header-Key-55",
    "access_token": "at-Unshaped-Query-Token-33",
    "session": "sess-Unshaped-Query-22",
    "password": "pw-Unshaped-Body-Field-11",
}


def _spellings() -> list[str]:
    out = [PAT]
    for s in SECRETS.values():
        out += [s, quote(s, safe="")]
    return out


def _hostile_calls(url: str) -> list[int]:
    headers = {"Authorization": f"Bearer {SECRETS['bearer']}",
               "Cookie": f"sid={SECRETS['cookie']}; theme=dark",
               "X-Api-Key": SECRETS["api_key"]}
    query = f"access_token={SECRETS['access_token']}&session={SECRETS['session']}"
    got = [call(url, "GET", f"/nomatch/{PAT}?{query}", headers=headers)[0],
           call(url, "GET", f"{GOOD}&{query}", headers=headers)[0],
           call(url, "POST", f"/v1/projects?{query}", headers=headers,
                body={"user": "ops", "password": SECRETS["password"]})[0]]
    return got


def test_request_credentials_never_reach_the_disk_even_after_a_kill(tmp_path):
    store = tmp_path / "store"
    server = start_server([HAR], store=store)
    try:
        status, _, body = call(server.url, "GET", f"/nomatch/{PAT}?access_token="
                               f"{SECRETS['access_token']}&session={SECRETS['session']}")
        # the client is told what it sent (its own values), the store never is
        assert status == 501 and SECRETS["access_token"] in str(body)
        assert _hostile_calls(server.url) == [501, 501, 501]  # extra parameters: unmatched
        assert server.requests()  # in the journal already
        assert secrets_on_disk(store, _spellings()) == []
    finally:
        server.kill()  # SIGKILL: the journal stays as it was written
    assert list(store.rglob("*.jsonl")) or list(store.rglob("*journal*"))
    assert secrets_on_disk(store, _spellings()) == []
    # the next serve commits the orphan journal: still nothing
    again = start_server([HAR], store=store)
    try:
        assert call(again.url, "GET", GOOD)[0] == 200
    finally:
        assert again.stop() == 0
    assert secrets_on_disk(store, _spellings()) == []
    st = Store(store)
    assert len(st.trace_ids()) == 2
    events = [e for t in st.trace_ids() for e in st.trace(t).events]
    names = [e.name for e in events]
    assert any(n.startswith("GET /nomatch/«secret:github-pat:") for n in names), names
    # the credentials' tokens where they stood: the 501's differences keep their place
    unmatched = [e for e in events if e.result and e.result.get("status") == 501]
    assert unmatched and all("«secret:" in str(e.result["body"]) for e in unmatched)


def _peak_rss(pid: int) -> int:
    """The process's peak resident memory in bytes (``VmHWM``)."""
    with open(f"/proc/{pid}/status") as f:
        line = next(x for x in f if x.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


def test_kills_in_the_middle_of_hostile_traffic_leave_nothing_unredacted(tmp_path):
    store = tmp_path / "store"
    for _ in range(3):
        server = start_server([HAR], store=store)
        stop = threading.Event()

        def traffic(url: str = server.url, stop: threading.Event = stop) -> None:
            while not stop.is_set():
                try:
                    _hostile_calls(url)
                except OSError:
                    return

        t = threading.Thread(target=traffic, daemon=True)
        t.start()
        while len(server.requests()) < 4:  # some requests journalled, more in flight
            time.sleep(0.01)
        server.kill()
        stop.set()
        t.join(timeout=60)
        assert secrets_on_disk(store, _spellings()) == []
    last = start_server([HAR], store=store)  # each start commits the orphans before it
    assert last.stop() == 0  # it received nothing: no trace of its own
    assert secrets_on_disk(store, _spellings()) == []
    assert len(Store(store).trace_ids()) == 3


def _raw(url: str, data: bytes) -> bytes:
    with raw_socket(url) as s:
        s.sendall(data)
        return read_all(s)


@pytest.mark.parametrize("body, limit", [
    (b'{"n": ' + b"9" * 9000 + b"}", "integer"),
    (b"[" * 20000 + b"]" * 20000, "nest"),
    (b"[" * 1000 + b"]" * 1000, "request_json_depth"),  # parses, but too deep to redact
    (b'{"a":' * 300 + b"1" + b"}" * 300, "request_json_depth"),
])
def test_a_json_body_past_a_limit_is_answered_and_recorded(contract_server, body, limit):
    server = contract_server(HAR)
    head = (f"POST /v1/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    before = _peak_rss(server.proc.pid)
    answer = _raw(server.url, head + body)
    # bounded memory: the refusal costs the server no more than a few MB at its peak
    assert _peak_rss(server.proc.pid) - before < 64 << 20
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b'"code":"json_limit"' in answer.replace(b" ", b"") and limit.encode() in answer
    assert call(server.url, "GET", GOOD)[0] == 200  # still serving
    assert server.stop() == 0
    assert "Traceback" not in server.stderr
    got = server.requests()
    assert [(r["method"], r["path"], r["status"]) for r in got] == [
        ("POST", "/v1/projects", 413), ("GET", "/v1/projects", 200)]
    assert "json_limit" in str(got[0]["response"])


def test_a_request_head_past_the_limit_gets_a_431(contract_server):
    server = contract_server(HAR)
    # 70 KB of headers in lines h11 accepts one by one
    lines = "".join(f"X-Pad-{i}: {'a' * 1000}\r\n" for i in range(70))
    answer = _raw(server.url, f"GET {GOOD} HTTP/1.1\r\nHost: x\r\n{lines}\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
    assert call(server.url, "GET", GOOD)[0] == 200
    assert server.sequence() == ["GET /v1/projects"]


@pytest.mark.parametrize("option, value", [
    ("--request-timeout", "nan"), ("--request-timeout", "inf"), ("--request-timeout", "-inf"),
    ("--request-timeout", "1e308"), ("--request-timeout", "0"), ("--request-timeout", "-1"),
    ("--max-body", "-1"), ("--max-body", str(1 << 40)), ("--max-body", "9" * 400),
    ("--port", "-1"), ("--port", "70000"), ("--port", "9" * 400),
])
def test_an_option_out_of_range_starts_nothing(capsys, tmp_path, option, value):
    store = tmp_path / "store"
    code, out, err = run(capsys, "serve", HAR, "--store", store, "--port", "0", option, value)
    assert code == 2 and "error[USAGE]" in err and "hint:" in err and out == ""
    assert not store.exists()  # nothing written, no socket left listening
