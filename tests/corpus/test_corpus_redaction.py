"""Ingest with its defaults persists nothing the detectors flag, on every corpus folder.

Each folder is ingested twice into fresh stores: with ``redact=False``, the export of every
trace is scanned, and what is found is the known answer below (established by reading the
files: the Tempo export carries client IPs and user emails, the HAR captures cookies, an
Authorization header and server IPs, the VCR cassettes an API key header and cookies, the
tau-bench users have emails, the MCP spec examples name people's addresses, the Claude
Agent SDK transcripts carry thinking-block signatures under a secret-named key). With the
defaults (redaction on) the same scan of the export finds nothing, and the export still
holds one line per event.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.corpus.test_every_file import FORMATS
from workbench.fixtures import export_trace
from workbench.ingest import ingest
from workbench.redact import scan_files
from workbench.store import Store

#: folder -> detector -> hits in the export of the unredacted store (folders not listed: none)
UNREDACTED: dict[str, dict[str, int]] = {
    "agentevals-kagent-tempo": {"ipv4": 38, "email": 34},
    # "Hello, Alice", "Hello Claude" in prompts and tool results
    "claude-code-log": {"person-name": 9},
    # "The user name is Bob", "bye my dear Bob"
    "langfuse-framework-traces": {"person-name": 5},
    "mcp-spec-examples": {"email": 6},
    "mitmproxy-har": {"ipv4": 11, "secret-field": 23, "cookie": 21},
    "openinference-claude-agent-sdk": {"secret-field": 2},
    "otel-python-contrib-openai-v2": {"secret-field": 7, "cookie": 3},
    # book authors in contract examples ("author": "Margaret Atwood")
    "pact-python": {"person-name": 4},
    # the airline and retail users: passengers' names, dates of birth, addresses
    "tau-bench": {"email": 14, "person-name": 325, "birth-date": 150, "postal-address": 28},
}


def _export_and_scan(folder: Path, tmp: Path, *, redact: bool) -> tuple[Counter[str], int, int]:
    store = Store(tmp / "store")
    result = ingest([folder], store, redact=redact)
    out = tmp / "export"
    out.mkdir()
    for i, t in enumerate(result.traces):
        with open(out / f"{i:04d}.jsonl", "wb") as f:
            export_trace(store, t.trace_id, f)
    lines = sum(len(p.read_bytes().splitlines()) for p in out.iterdir())
    hits = Counter(h.detector for h in scan_files([out]).hits)
    return hits, lines, result.events


@pytest.mark.parametrize("folder", sorted(FORMATS))
def test_defaults_leave_nothing_to_find(corpus: Path, tmp_path: Path, folder: str) -> None:
    raw, raw_lines, raw_events = _export_and_scan(corpus / folder, tmp_path / "raw",
                                                  redact=False)
    assert dict(raw) == UNREDACTED.get(folder, {})
    clean, lines, events = _export_and_scan(corpus / folder, tmp_path / "redacted",
                                            redact=True)
    assert dict(clean) == {}
    assert (events, lines) == (raw_events, raw_lines)
