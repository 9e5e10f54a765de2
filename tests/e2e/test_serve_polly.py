"""``workbench serve`` of a Polly.js recording whose bodies are gzip kept as hex chunks:
the answer is the decoded body, and no header claims it is compressed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.serve_support import call

RECORDING = (Path(__file__).resolve().parents[1] / "corpus" / "pollyjs-binary-har"
             / "github-getUser.har")


def test_a_polly_recording_answers_its_decoded_body(contract_server) -> None:
    server = contract_server(RECORDING)
    status, headers, body = call(server.url, "GET", "/users/netflix")
    assert status == 200
    assert isinstance(body, dict) and body["login"] == "Netflix" and body["id"] == 913567
    assert "content-encoding" not in headers
    assert headers["content-type"].startswith("application/json")
    recorded = json.loads(RECORDING.read_text())["log"]["entries"][0]["response"]
    assert recorded["content"]["_isBinary"] is True  # the file itself holds hex chunks
