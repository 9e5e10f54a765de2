"""The helpers the HTTP recording adapters share (``_http``, ``_httpsse``)."""

from __future__ import annotations

import zlib

from workbench.formats.http._exchange import (
    Body,
    Request,
    Response,
    decode_body,
    http_event,
    multi_dict,
    split_url,
)
from workbench.formats.http._sse import parse_sse, stitch


def test_multi_dict_lower_cases_and_collects_repeats() -> None:
    got = multi_dict([("A", "1"), ("a", ["2", "3"]), ("B", None), ("C", True), ("D", 5)],
                     lower=True)
    assert got == {"a": ["1", "2", "3"], "b": "", "c": "true", "d": "5"}
    assert multi_dict([("Q", "x")]) == {"Q": "x"}
    assert multi_dict([("e", [])]) == {}


def test_split_url() -> None:
    assert split_url("https://h.test/a/b?x=1&x=2&y=&z") == ("/a/b", {"x": ["1", "2"], "y": "",
                                                                     "z": ""})
    assert split_url("https://h.test") == ("/", {})
    assert split_url("/relative?q=a+b") == ("/relative", {"q": "a b"})
    assert split_url("http://[::1/bad?x=1") == ("http://[::1/bad", {"x": "1"})


def test_decode_body_kinds() -> None:
    assert decode_body(None) == Body()
    assert decode_body("") == Body()
    assert decode_body('{"a": 1}', "text/plain") == Body({"a": 1}, True)
    assert decode_body("7", "application/json") == Body(7, True)
    assert decode_body("{oops", "application/json") == Body("{oops", True)
    assert decode_body({"already": "json"}) == Body({"already": "json"}, True)
    assert decode_body(zlib.compress(b"[1]"), "application/json", "deflate") == Body([1], True)
    assert decode_body(b"a\x00b", "text/plain") == Body("«binary: 3 bytes, text/plain»", True,
                                                        True)
    assert decode_body(b"abc", "image/gif").binary
    assert decode_body(b"abc", "", "br") == Body("«binary: 3 bytes, (br)»", True, True)
    assert decode_body(b"\xff") == Body("«binary: 1 bytes»", True, True)


def test_parse_sse_fields_comments_and_multiline_data() -> None:
    text = ": hello\r\nevent: tick\r\nid: 7\r\nretry: 50\r\ndata: a\r\ndata: b\r\n\r\n" \
           'data: {"x": 1}\n\nevent: end\n'
    assert parse_sse(text) == {"events": [
        {"event": "tick", "id": "7", "retry": 50, "data": "a\nb"},
        {"data": {"x": 1}},
        {"event": "end"}]}
    assert parse_sse("") == {"events": []}
    assert parse_sse('data: {"s": "a\u2028b"}\n\n') == {"events": [{"data": {"s": "a\u2028b"}}]}


def test_stitch_only_known_streams() -> None:
    assert stitch([{"type": "message_start"}, "[DONE]"]) is None
    assert stitch([]) is None
    assert stitch([{"type": "response.created", "response": {"id": "r"}}]) is None
    odd = [{"object": "chat.completion.chunk", "choices": [{"delta": "nope"}, 3]}]
    assert stitch(odd) == {"id": None, "object": "chat.completion", "created": None,
                           "model": None, "choices": [{"index": 0, "finish_reason": None,
                                                       "message": {"role": "assistant",
                                                                   "content": None}}]}


def test_http_event_statuses() -> None:
    req = Request(method="delete", url="https://h.test/x/1?force=true")
    ok = http_event("t", "e1", req, Response(status=204))
    assert (ok.name, ok.status, ok.error, ok.result) == (
        "DELETE /x/1", "ok", None, {"status": 204, "headers": {}})
    assert ok.args["query"] == {"force": "true"}
    odd = http_event("t", "e2", req, Response(status=599))
    assert odd.error == {"code": "HTTP_599", "message": "HTTP 599"}
    never = http_event("t", "e3", req, None)
    assert (never.status, never.attrs) == ("unset", {"workbench.flags": ["unanswered"]})
    refused = http_event("t", "e4", req, None, no_response="refused")
    assert (refused.status, refused.error) == ("error", {"code": "NO_RESPONSE",
                                                         "message": "refused"})
