"""Adapter ``har``: HAR 1.2 files, from hand-written entries with known answers."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats._pairing import derived_id
from workbench.formats.http._har import HAR
from workbench.model import InputError, InvalidJSONError, InvalidTraceError


def pairs(d: dict[str, Any] | list[tuple[str, str]]) -> list[dict[str, str]]:
    items = d.items() if isinstance(d, dict) else d
    return [{"name": k, "value": v} for k, v in items]


def entry(method: str = "GET", url: str = "https://api.test/v1/orders",
          status: int | None = 200, text: str | None = None, mime: str = "application/json",
          started: str = "2025-03-01T10:00:00.000Z", time: float = 250.0,
          **extra: Any) -> dict[str, Any]:
    e: dict[str, Any] = {
        "startedDateTime": started, "time": time,
        "request": {"method": method, "url": url, "httpVersion": "HTTP/1.1",
                    "headers": pairs({"Accept": "application/json"}), "queryString": [],
                    "cookies": [], "headersSize": -1, "bodySize": 0},
        "timings": {"send": 1, "wait": 200, "receive": 49},
    }
    if status is not None:
        content: dict[str, Any] = {"size": len(text or ""), "mimeType": mime}
        if text is not None:
            content["text"] = text
        e["response"] = {"status": status, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": pairs({"Content-Type": mime}), "cookies": [],
                         "content": content, "redirectURL": "", "headersSize": -1,
                         "bodySize": -1}
    e.update(extra)
    return e


def har(*entries: dict[str, Any], **log: Any) -> dict[str, Any]:
    doc = {"version": "1.2", "creator": {"name": "handmade", "version": "0.1"}, "pages": [],
           "entries": list(entries)}
    doc.update(log)
    return {"log": doc}


def write(tmp_path: Path, doc: Any) -> SourceFile:
    return source(tmp_path / "t.har", json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(HAR.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def test_sniff_scores(tmp_path: Path) -> None:
    assert HAR.sniff(write(tmp_path, har(entry()))) == 95
    assert HAR.sniff(source(tmp_path / "a.json", '{"log": {"entries": []}}')) == 70
    assert HAR.sniff(source(tmp_path / "b.json", '{"entries": [], "creator": {}}')) == 0
    assert HAR.sniff(source(tmp_path / "c.json", '{"log": "started", "level": 3}')) == 0


def test_an_entry_becomes_one_http_event(tmp_path: Path) -> None:
    e = entry(url="https://api.test/v1/orders?limit=5&tag=a&tag=b",
              text='{"items": [{"id": "o1"}]}')
    e["request"]["headers"] += pairs([("X-Trace", "1"), ("x-trace", "2")])
    src = write(tmp_path, har(e))
    [ev], [info] = read(src)
    tid = derived_id(src.sha256, "har")
    assert (ev.trace_id, ev.event_id, ev.parent_id, ev.kind) == (tid, "entry-0", None, "http")
    assert ev.name == "GET /v1/orders"
    assert ev.args == {"method": "GET", "url": "https://api.test/v1/orders?limit=5&tag=a&tag=b",
                       "path": "/v1/orders", "query": {"limit": "5", "tag": ["a", "b"]},
                       "headers": {"accept": "application/json", "x-trace": ["1", "2"]}}
    assert ev.result == {"status": 200, "headers": {"content-type": "application/json"},
                         "body": {"items": [{"id": "o1"}]}}
    assert (ev.status, ev.error) == ("ok", None)
    assert ev.start_ns == 1740823200_000_000_000
    assert ev.end_ns == ev.start_ns + 250_000_000
    assert ev.attrs["har.timings"] == {"send": 1, "wait": 200, "receive": 49}
    assert ev.attrs["har.request.httpVersion"] == "HTTP/1.1"
    assert "har.request.headersSize" not in ev.attrs  # -1: not available
    assert (info.trace_id, info.versions) == (tid, {"har": "1.2", "creator": "handmade 0.1"})


def test_query_string_list_wins_over_the_url(tmp_path: Path) -> None:
    e = entry(url="https://api.test/search?q=a%20b")
    e["request"]["queryString"] = pairs({"q": "a b"})
    [ev], _ = read(write(tmp_path, har(e)))
    assert ev.args["query"] == {"q": "a b"}


def test_post_data_text_json_and_params(tmp_path: Path) -> None:
    a = entry("POST", "https://api.test/v1/orders")
    a["request"]["postData"] = {"mimeType": "application/json", "text": '{"qty": 2}'}
    b = entry("POST", "https://api.test/form")
    b["request"]["postData"] = {"mimeType": "application/x-www-form-urlencoded",
                                "params": pairs([("k", "1"), ("k", "2"), ("j", "x")])}
    c = entry("POST", "https://api.test/plain")
    c["request"]["postData"] = {"mimeType": "text/plain", "text": "[1, 2]"}
    d = entry("POST", "https://api.test/empty")
    d["request"]["postData"] = {"mimeType": "", "text": "", "params": []}
    evs, _ = read(write(tmp_path, har(a, b, c, d)))
    assert evs[0].args["body"] == {"qty": 2}
    assert evs[1].args["body"] == {"k": ["1", "2"], "j": "x"}
    assert evs[2].args["body"] == [1, 2]  # JSON by content, whatever the type says
    assert "body" not in evs[3].args


def test_base64_content_is_decoded_and_binary_is_a_placeholder(tmp_path: Path) -> None:
    js = entry(text=base64.b64encode(b'{"ok": true}').decode())
    js["response"]["content"]["encoding"] = "base64"
    png = entry(url="https://cdn.test/logo.png", mime="image/png",
                text=base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe").decode())
    png["response"]["content"]["encoding"] = "base64"
    evs, _ = read(write(tmp_path, har(js, png)))
    assert evs[0].result["body"] == {"ok": True}
    assert "workbench.flags" not in evs[0].attrs
    assert evs[1].result["body"] == "«binary: 12 bytes, image/png»"
    assert evs[1].attrs["workbench.flags"] == ["binary_body"]
    assert evs[1].status == "ok"


def test_event_stream_body_is_parsed_and_stitched(tmp_path: Path) -> None:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m-1"}
    lines = [
        {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}]},
        {**chunk, "choices": [{"index": 0, "delta": {"content": " there"},
                               "finish_reason": "stop"}]},
    ]
    text = "".join(f"data: {json.dumps(x)}\n\n" for x in lines) + "data: [DONE]\n\n"
    [ev], _ = read(write(tmp_path, har(entry("POST", text=text,
                                             mime="text/event-stream; charset=utf-8"))))
    body = ev.result["body"]
    assert [x["data"] for x in body["events"]] == [*lines, "[DONE]"]
    assert body["stitched"]["choices"] == [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant",
                                                        "content": "Hi there"}}]


def test_error_status_and_reason(tmp_path: Path) -> None:
    e = entry(status=404, text='{"error": {"message": "no such order"}}')
    f = entry(status=503, text="busy")
    f["response"]["statusText"] = "Try Later"
    evs, _ = read(write(tmp_path, har(e, f)))
    assert evs[0].status == "error"
    assert evs[0].error == {"code": "HTTP_404", "message": "Not Found",
                            "details": {"error": {"message": "no such order"}}}
    assert evs[1].error == {"code": "HTTP_503", "message": "Try Later"}


def test_entries_without_a_response_are_kept_and_flagged(tmp_path: Path) -> None:
    gone = entry(status=None)
    zero = entry(status=0)
    zero["response"]["_error"] = None
    failed = entry(status=0)
    failed["response"]["_error"] = "connection refused"
    evs, _ = read(write(tmp_path, har(gone, zero, failed)))
    assert [e.status for e in evs] == ["unset", "unset", "error"]
    assert all(e.attrs["workbench.flags"] == ["unanswered"] for e in evs)
    assert all(e.result is None for e in evs)
    assert evs[2].error == {"code": "NO_RESPONSE", "message": "connection refused"}
    assert evs[0].error is None and evs[1].error is None


def test_recording_order_and_pages(tmp_path: Path) -> None:
    late = entry(url="https://a.test/late", started="2025-03-01T10:00:05Z", pageref="p1")
    early = entry(url="https://a.test/early", started="2025-03-01T10:00:01Z", pageref="p1")
    page = {"id": "p1", "title": "home", "startedDateTime": "2025-03-01T10:00:00Z"}
    evs, [info] = read(write(tmp_path, har(late, early, pages=[page])))
    assert [e.event_id for e in evs] == ["entry-0", "entry-1"]
    assert [e.name for e in evs] == ["GET /late", "GET /early"]
    assert evs[0].attrs["har.pageref"] == "p1"
    assert info.attrs["har.pages"] == [page]


def test_odd_optional_fields_are_tolerated(tmp_path: Path) -> None:
    e = entry(started="yesterday", time="slow")  # type: ignore[arg-type]
    e["request"]["headers"] = "not a list"
    e["response"]["content"] = "nope"
    [ev], _ = read(write(tmp_path, har(e)))
    assert (ev.start_ns, ev.end_ns) == (None, None)
    assert ev.args["headers"] == {}
    assert "body" not in ev.result


def test_same_file_same_ids(tmp_path: Path) -> None:
    a, _ = read(write(tmp_path, har(entry(), entry())))
    b, _ = read(write(tmp_path, har(entry(), entry())))
    assert [(e.trace_id, e.event_id) for e in a] == [(e.trace_id, e.event_id) for e in b]
    assert len({e.event_id for e in a}) == 2


@pytest.mark.parametrize(("doc", "message"), [
    ({"log": {"version": "1.2"}}, "no log.entries"),
    ({"log": {"entries": {}}}, "no log.entries"),
    ([{"log": {"entries": []}}], "no log.entries"),
    ({"log": {"entries": []}}, "no entries"),
    (har({"request": {"method": "GET"}}), "entry 0 has no request"),
    (har(entry(), "not an entry"), "entry 1 has no request"),
])
def test_wrong_shapes_are_invalid_trace(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(InvalidTraceError, match=message) as exc:
        list(HAR.read(write(tmp_path, doc)))
    assert exc.value.code == "INVALID_TRACE"


def test_truncated_json_names_the_line(tmp_path: Path) -> None:
    text = json.dumps(har(entry()), indent=2)
    with pytest.raises(InvalidJSONError) as exc:
        list(HAR.read(source(tmp_path / "t.har", text[: len(text) // 2])))
    assert exc.value.code == "INVALID_JSON"
    assert "line" in exc.value.message


def test_nothing_is_yielded_before_a_bad_entry(tmp_path: Path) -> None:
    src = write(tmp_path, har(entry(), entry(), {"request": {}}))
    got: list[Any] = []
    with pytest.raises(InputError):
        got.extend(HAR.read(src))
    assert got == []
