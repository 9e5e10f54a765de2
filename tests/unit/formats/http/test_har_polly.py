"""Polly.js HAR bodies kept as chunks: ``_isBinary`` hex (Polly up to 5), ``encoding:
hex``, and base64 chunk arrays (Polly 6), inflated per ``content-encoding``."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent
from workbench.formats.http._har import HAR

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "pollyjs-binary-har"
BODY = {"login": "Netflix", "id": 913567}


def har(content: dict[str, Any], encoding: str | None = "gzip",
        post: dict[str, Any] | None = None) -> str:
    headers = [{"name": "content-type", "value": "application/json; charset=utf-8"}]
    if encoding:
        headers.append({"name": "content-encoding", "value": encoding})
    request: dict[str, Any] = {"method": "POST" if post else "GET",
                               "url": "https://api.github.com/users/netflix",
                               "headers": headers if post else []}
    if post:
        request["postData"] = post
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "Polly.JS"},
                               "entries": [{"request": request, "response": {
                                   "status": 200, "headers": headers,
                                   "content": {"mimeType": "application/json", **content}}}]}})


def chunks(raw: bytes, n: int = 3) -> list[bytes]:
    step = max(1, len(raw) // n)
    return [raw[i:i + step] for i in range(0, len(raw), step)]


def body_of(tmp_path: Path, text: str) -> RawEvent:
    (ev,) = [e for e in HAR.read(source(tmp_path / "recording.har", text))
             if isinstance(e, RawEvent)]
    return ev


GZ = gzip.compress(json.dumps(BODY).encode())


@pytest.mark.parametrize("content", [
    {"_isBinary": True, "text": json.dumps([c.hex() for c in chunks(GZ)])},
    {"encoding": "hex", "text": json.dumps([c.hex() for c in chunks(GZ)])},
    {"encoding": "base64",
     "text": json.dumps([base64.b64encode(c).decode() for c in chunks(GZ)])},
], ids=["isBinary-hex", "encoding-hex", "base64-chunks"])
def test_chunked_gzip_bodies_are_the_json_they_hold(tmp_path: Path,
                                                     content: dict[str, Any]) -> None:
    ev = body_of(tmp_path, har(content))
    assert ev.result["body"] == BODY
    assert "binary_body" not in ev.attrs.get("workbench.flags", [])


def test_deflate_and_plain_chunks_too(tmp_path: Path) -> None:
    raw = zlib.compress(b'{"a": 1}')
    assert body_of(tmp_path, har({"_isBinary": True, "text": json.dumps([raw.hex()])},
                                 encoding="deflate")).result["body"] == {"a": 1}
    plain = b'{"a": 2}'
    assert body_of(tmp_path, har({"_isBinary": True, "text": json.dumps([plain.hex()])},
                                 encoding=None)).result["body"] == {"a": 2}


def test_a_request_body_in_chunks_is_decoded_as_well(tmp_path: Path) -> None:
    post = {"mimeType": "application/json", "_isBinary": True,
            "text": json.dumps([c.hex() for c in chunks(GZ)])}
    ev = body_of(tmp_path, har({"text": "{}"}, post=post))
    assert ev.args["body"] == BODY


def test_bytes_that_are_not_text_stay_a_placeholder(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    ev = body_of(tmp_path, har({"_isBinary": True, "text": json.dumps([png.hex()])},
                               encoding=None))
    assert ev.result["body"] == f"«binary: {len(png)} bytes, application/json»"
    assert "binary_body" in ev.attrs["workbench.flags"]


def test_chunks_that_do_not_decode_are_kept_as_text(tmp_path: Path) -> None:
    ev = body_of(tmp_path, har({"_isBinary": True, "text": '["zz-not-hex"]'}, encoding=None))
    assert ev.result["body"] == ["zz-not-hex"]


def test_real_recordings_give_the_github_answers(tmp_path: Path) -> None:
    got = {}
    for name in ("github-getUser.har", "github-getRepo.har", "github-getUser-org-name.har"):
        ev = body_of(tmp_path, (CORPUS / name).read_text())
        got[name] = ev.result["body"]
    assert got["github-getUser.har"]["login"] == "Netflix"
    assert got["github-getRepo.har"]["full_name"] == "facebook/jest"
    assert got["github-getUser-org-name.har"]["login"] == "facebook"


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=20)),
                       max_size=6),
       st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=6),
       st.sampled_from(["hex", "base64"]), st.booleans())
def test_any_chunking_of_any_json_body_reads_back(tmp_path: Path, body: dict[str, Any],
                                                  cuts: list[int], style: str,
                                                  gzipped: bool) -> None:
    raw = json.dumps(body).encode()
    raw = gzip.compress(raw) if gzipped else raw
    parts, at = [], 0
    for n in cuts:
        parts.append(raw[at:at + n])
        at += n
    parts.append(raw[at:])
    if style == "hex":
        content = {"_isBinary": True, "text": json.dumps([p.hex() for p in parts])}
    else:
        content = {"encoding": "base64",
                   "text": json.dumps([base64.b64encode(p).decode() for p in parts])}
    ev = body_of(tmp_path, har(content, encoding="gzip" if gzipped else None))
    assert ev.result["body"] == body
