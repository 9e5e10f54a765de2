"""A hostile client of ``workbench collect`` (docs/collect.md): bodies that are not OTLP,
truncated protobuf, wrong media types and codings, oversized bodies and gzip bombs, a
body dribbled slower than the request timeout, a flood from one client. Each gets the
OTLP/HTTP answer (400/408/413/415/429) while another client is served; nothing of a
refused body is stored, and the collector keeps running."""

from __future__ import annotations

import gzip
import json
import threading

import pytest

from tests.collect_support import (
    TRACE_A,
    otlp_json,
    otlp_protobuf,
    post,
    span,
    stored,
)
from tests.serve_support import raw_socket, read_all
from workbench.pytest_plugin import start_collector

pytest.importorskip("opentelemetry.proto")

GOOD = span(TRACE_A, "eee19b7ec3c1b174")
PROTO = otlp_protobuf(GOOD)
TRACES = ["%032x" % (i + 1) for i in range(64)]


def _one(i: int) -> bytes:
    return json.dumps(otlp_json(span(TRACES[i], "eee19b7ec3c1b174"))).encode()


def _status_message(raw: bytes, content_type: str) -> str:
    if content_type == "application/json":
        return str(json.loads(raw)["message"])
    return raw[raw.index(b"\x12") + 2:].decode("utf-8", "replace")


BAD = [  # body, media type, headers, status, what the answer's message says
    (b'{"spans": []}', "application/json", {}, 400, "resourceSpans"),
    (b"{not json", "application/json", {}, 400, "not JSON"),
    (b'{"resourceSpans": [1]}', "application/json", {}, 400, "not an object"),
    (b'{"resourceSpans": [{"scopeSpans": {}}]}', "application/json", {}, 400, "not a list"),
    (b"\xff\xfe garbage \x00\x01", "application/x-protobuf", {}, 400, "not an OTLP protobuf"),
    (PROTO[: len(PROTO) // 2], "application/x-protobuf", {}, 400, "not an OTLP protobuf"),
    (PROTO, "text/plain", {}, 415, "text/plain"),
    (PROTO, "", {}, 415, "(none)"),
    (PROTO, "application/x-protobuf", {"Content-Encoding": "br"}, 415, "br"),
    (b"\x1f\x8b\x08\x00 not gzip", "application/x-protobuf", {"Content-Encoding": "gzip"},
     400, "gzip"),
]


def test_a_body_that_is_not_otlp_is_refused_whole_and_nothing_is_stored(tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600"])
    for i, (body, content_type, headers, status, says) in enumerate(BAD):
        got, hdrs, raw = post(c.url, body, content_type, headers=headers)
        shown = content_type if content_type in ("application/json",
                                                 "application/x-protobuf") \
            else "application/json"
        assert (i, got, hdrs["content-type"]) == (i, status, shown)
        assert says in _status_message(raw, shown), i
    assert post(c.url, _one(0), "application/json")[0] == 200  # still serving
    summary = c.stop()
    assert summary["traces"] == [TRACES[0]]
    assert summary["refused_requests"] == {"400": 7, "415": 3}
    assert stored(store) == {TRACES[0]}


def test_oversized_bodies_and_gzip_bombs_get_413(tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600", "--max-body", "65536"])
    padded = span(TRACE_A, "eee19b7ec3c1b174", pad="x" * 70_000)
    assert post(c.url, json.dumps(otlp_json(padded)).encode(), "application/json")[0] == 413
    # 1 KiB of gzip that inflates to 10 MiB: refused once past the limit, never inflated
    bomb = gzip.compress(b" " * (10 << 20))
    assert len(bomb) < 65536
    s = raw_socket(c.url)
    s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(bomb) + bomb)
    answer = read_all(s)
    s.close()
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"inflates past 65536" in answer
    assert post(c.url, _one(1), "application/json")[0] == 200
    assert c.stop()["traces"] == [TRACES[1]]
    assert stored(store) == {TRACES[1]}


def test_a_body_dribbled_past_the_request_timeout_is_cut_off_while_others_are_served(
        tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600", "--request-timeout", "1"])
    body = _one(2)
    slow = raw_socket(c.url)
    slow.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
    assert post(c.url, _one(3), "application/json")[0] == 200  # served meanwhile
    answer = read_all(slow)  # the server answers and closes once the timeout is up
    slow.close()
    assert answer.startswith(b"HTTP/1.1 408")
    assert c.stop()["traces"] == [TRACES[3]]
    assert stored(store) == {TRACES[3]}


def test_a_flooding_client_gets_429_with_retry_after_while_another_is_served(tmp_path):
    store = tmp_path / "store"
    # 4 KiB bodies at most, 1 KiB a second per client: the flood's second body is over
    c = start_collector(store=store, options=["--idle", "3600", "--max-body", "4096",
                                              "--client-rate", "1024"])
    bodies = [json.dumps(otlp_json(span(TRACES[10 + i], "eee19b7ec3c1b174",
                                        pad="p" * 2500))).encode() for i in range(5)]
    flood = raw_socket(c.url)
    answers: list[bytes] = []
    for body in bodies:  # one keep-alive connection, requests back to back
        flood.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      b"application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        answers.append(_response(flood))
    flood.close()
    statuses = [a.split(b" ", 2)[1] for a in answers]
    assert statuses[0] == b"200" and statuses[1:] == [b"429"] * 4
    assert all(b"\r\nretry-after: " in a.lower() for a in answers[1:])
    # another client, on its own connection, is served
    other: list[int] = []
    t = threading.Thread(target=lambda: other.append(post(c.url, _one(4),
                                                          "application/json")[0]))
    t.start()
    t.join(60)
    assert other == [200]
    summary = c.stop()
    assert sorted(summary["traces"]) == sorted([TRACES[10], TRACES[4]])
    assert summary["refused_requests"] == {"429": 4}
    assert stored(store) == {TRACES[10], TRACES[4]}


def test_a_wrong_path_or_method_is_404_or_405(tmp_path):
    c = start_collector(store=tmp_path / "store", options=["--idle", "3600"])
    assert post(c.url, PROTO, "application/x-protobuf", path="/v1/metrics")[0] == 404
    s = raw_socket(c.url)
    s.sendall(b"GET /v1/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    answer = read_all(s)
    s.close()
    assert answer.startswith(b"HTTP/1.1 405") and b"\r\nallow: post" in answer.lower()
    assert c.stop()["traces"] == []


def _response(s) -> bytes:  # type: ignore[no-untyped-def]
    """One whole response (head and Content-Length body) from a keep-alive socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        rest += s.recv(65536)
    return head + b"\r\n\r\n" + rest
