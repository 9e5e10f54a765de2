"""Garbage clients — bad HTTP, a 100 MB body, a slow-loris — get an error or are cut
off, and the server keeps serving the others meanwhile. Only whole requests are
recorded."""

from __future__ import annotations

import threading
import time

import pytest

from tests.serve_support import call, raw_socket, read_all
from tests.support import EXAMPLES

HAR = EXAMPLES / "ops-agent" / "exchanges" / "projects-list-v1.har"
GOOD = "/v1/projects?owner=team-a"


@pytest.fixture
def server(contract_server):
    return contract_server(HAR, options=["--max-body", str(1 << 20),
                                         "--request-timeout", "2"])


def test_bad_http_gets_a_400_and_the_connection_is_closed(server):
    for junk in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
                 b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(64) + b"\r\n\r\n",
                 b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"a" * (200 << 10) + b"\r\n\r\n"):
        s = raw_socket(server.url)
        try:
            s.sendall(junk)
            answer = read_all(s)
        finally:
            s.close()
        assert answer.startswith(b"HTTP/1.1 4"), answer[:80]
        assert call(server.url, "GET", GOOD)[0] == 200
    assert server.sequence() == ["GET /v1/projects"] * 4


def test_a_100_mb_body_is_refused_before_it_is_read(server):
    s = raw_socket(server.url)
    sent = 0
    try:
        s.sendall(b"POST /v1/charges HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n"
                  b"Content-Type: application/json\r\n\r\n")
        chunk = b"x" * (1 << 20)
        try:
            while sent < 100 << 20:
                s.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(s)
    finally:
        s.close()
    assert sent < 100 << 20  # cut off long before the end
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413"), answer[:80]
    assert call(server.url, "GET", GOOD)[0] == 200
    assert server.sequence() == ["GET /v1/projects"]


def test_a_chunked_body_past_the_limit_gets_a_413(server):
    s = raw_socket(server.url)
    try:
        s.sendall(b"POST /v1/charges HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        piece = b"y" * (256 << 10)
        try:
            for _ in range(8):
                s.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = read_all(s)
    finally:
        s.close()
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413"), answer[:80]
    assert server.sequence() == []


def test_a_slow_loris_is_cut_off_while_others_are_served(server):
    s = raw_socket(server.url)
    cut = threading.Event()
    answers: list[bytes] = []

    def dribble() -> None:
        try:
            s.sendall(b"GET /v1/projects?owner=team-a HTTP/1.1\r\nHost: x\r\n")
            for _ in range(60):  # a header byte every 0.2 s: 12 s if never cut
                s.sendall(b"X")
                time.sleep(0.2)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            cut.set()

    reader = threading.Thread(target=lambda: answers.append(read_all(s)))
    writer = threading.Thread(target=dribble)
    reader.start()
    writer.start()
    served = [call(server.url, "GET", GOOD)[0] for _ in range(5)]
    reader.join(60)
    writer.join(60)
    s.close()
    assert served == [200] * 5
    assert cut.is_set() and answers[0].startswith(b"HTTP/1.1 408"), answers
    assert server.sequence() == ["GET /v1/projects"] * 5
