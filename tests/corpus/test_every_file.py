"""Every trace file of the corpus ingests, with its format detected from the content.

Each folder is ingested whole, as a user would (`workbench ingest FOLDER`), into a fresh
store; every file must then be read by the adapter named here. Files that are not traces
(the folders' SOURCE.md, an upstream README, the Vercel capture manifest, which lists
attribute *names*) must be skipped as "not a trace file", never read as a trace; files
that hold tool definitions (the MCP spec's lone `Tool` objects and `tools/list` results)
are skipped as such.
The counts of each folder's events are checked in the per-format corpus tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.ingest import ingest
from workbench.store import Store

#: folder -> {file name or "*": format}; a name not listed takes the "*" entry
FORMATS: dict[str, dict[str, str]] = {
    "agentevals-kagent-tempo": {"*": "otlp"},
    "assay-otlp-mcp": {"*": "otlp", "mcp_edge_case_session.json": "mcp"},
    "claude-code-log": {"*": "claude-code"},
    "inspect-ai": {"*": "inspect"},
    "langfuse-framework-traces": {"*": "langfuse"},
    "mcp-cassette-js": {"*": "mcp"},
    "mcp-cassette-py": {"*": "mcp"},
    "mcp-recorder": {"*": "mcp"},
    "mcp-spec-examples": {"*": "mcp"},
    "mitmproxy-har": {"*": "har"},
    "openhands": {"*": "openhands"},
    "openinference-claude-agent-sdk": {"*": "claude-code"},
    "openinference-otel-spans": {"*": "otel-json"},
    "opentelemetry-proto-examples": {"*": "otlp"},
    "otel-python-contrib-openai-v2": {"*": "vcr"},
    "pact-python": {"*": "pact"},
    "swe-agent": {"*": "swe-agent"},
    "tau-bench": {"*": "tau-bench"},
}

NOT_TRACES = {"SOURCE.md", "UPSTREAM_README.md", "vercel-ai-sdk-v6.capture-results.json"}

#: the spec examples that are tool definitions: six lone tool objects, a tools/list
#: result and the JSON-RPC response carrying one (each opened and read by hand)
TOOL_DEFINITIONS = {f"mcp-spec-examples/examples/{name}" for name in (
    "Tool/tool-with-array-output-schema.json", "Tool/tool-with-composition-input-schema.json",
    "Tool/with-default-2020-12-input-schema.json",
    "Tool/with-explicit-draft-07-input-schema.json", "Tool/with-no-parameters.json",
    "Tool/with-output-schema-for-structured-content.json",
    "ListToolsResult/tools-list-with-cursor-and-ttl.json",
    "ListToolsResultResponse/list-tools-result-response.json")}


def test_every_folder_is_listed(corpus: Path) -> None:
    folders = {p.name for p in corpus.iterdir() if p.is_dir()} - {"secrets"}
    assert folders == set(FORMATS)


@pytest.mark.parametrize("folder", sorted(FORMATS))
def test_folder_ingests_with_formats_detected(corpus: Path, tmp_path: Path, folder: str) -> None:
    root = corpus / folder
    result = ingest([root], Store(tmp_path / "store"))
    formats = {Path(t.source).resolve(): t.format for t in result.traces}
    skipped = {Path(s["path"]).resolve(): s["reason"] for s in result.skipped}
    expected = FORMATS[folder]
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        key = f.resolve()
        if f.name in NOT_TRACES:
            assert skipped.get(key) == "not a trace file", f
            continue
        if f.relative_to(corpus).as_posix() in TOOL_DEFINITIONS:
            assert skipped.get(key) == "a tool definition: use `workbench contract import`", f
            continue
        if skipped.get(key) == "same content as another file":
            continue
        assert formats.get(key) == expected.get(f.name, expected["*"]), (f, skipped.get(key))
    assert result.events > 0
