"""A hostile replay target: whatever a service answers, a replay attempt ends in an
observed answer or an ``error`` outcome with its code — never an internal error, a hang
past ``--timeout`` or unbounded memory. The target here is a raw socket server on
127.0.0.1 that answers each connection with the bytes a case gives."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from workbench.invariants import Exchange
from workbench.model import LIMITS, Limit
from workbench.replay import parse_target
from workbench.replay._send import play, steps_of


@contextmanager
def answering(data: bytes) -> Iterator[str]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(data)
                except OSError:
                    pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        stop.set()
        t.join(timeout=5)
        srv.close()


STEP = [Exchange("t", "e0", 0, "GET", "/orders", {}, {}, None, False, 200, {}, None, False)]


def _http(body: bytes, ctype: str = "application/json") -> bytes:
    return (b"HTTP/1.1 200 OK\r\ncontent-type: " + ctype.encode() + b"\r\ncontent-length: "
            + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)


@pytest.mark.parametrize(("data", "code"), [
    (b"garbage that is not HTTP\r\n\r\n", "REPLAY_UNREACHABLE"),
    (b"", "REPLAY_UNREACHABLE"),                                   # closed at once
    (b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort", "REPLAY_UNREACHABLE"),
    (_http(b"x" * 5000), "LIMIT_EXCEEDED"),
])
def test_a_hostile_answer_is_an_error_outcome(monkeypatch, data, code):
    monkeypatch.setitem(LIMITS, "answer_bytes", Limit("answer_bytes", 4096, "bytes", "x"))
    with answering(data) as url:
        got = play(steps_of((), STEP), parse_target(url), {}, "t", timeout=5)
    assert got.error_code == code and got.exchanges == []


@pytest.mark.parametrize("body", [b"[" * 5000 + b"]" * 5000, b"{not json", b"\xff\xfe\x00",
                                  b'{"id": ' + b"9" * 5000 + b"}"])
def test_an_answer_that_is_not_usable_json_is_kept_as_text(body):
    with answering(_http(body)) as url:
        got = play(steps_of((), STEP), parse_target(url), {}, "t", timeout=5)
    assert got.error_code is None and got.exchanges[0].status == 200
    assert isinstance(got.exchanges[0].resp_body, str)
