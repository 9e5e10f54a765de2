"""Which documents are tool definitions (not traces), and which only look like them."""

import json
from pathlib import Path

import pytest

from workbench.formats import open_source, tool_definition

TOOL = {"name": "echo", "description": "d", "inputSchema": {"type": "object"}}


def told(tmp_path: Path, text: str, name: str = "f.json") -> str | None:
    path = tmp_path / name
    path.write_text(text)
    return tool_definition(open_source(path))


@pytest.mark.parametrize(("doc", "what"), [
    (TOOL, "an MCP tool"),
    ([TOOL, {**TOOL, "name": "two"}], "an MCP tool list"),
    ({"tools": [TOOL], "nextCursor": "c", "ttlMs": 5, "_meta": {"x": 1}},
     "a tools/list result"),
    ({"jsonrpc": "2.0", "id": 3, "result": {"tools": [TOOL]}}, "a tools/list response"),
    # a snapshot naming the server that listed the tools
    ({"server_info": {"name": "mcp-fetch", "version": "1.25.0"}, "tools": [TOOL]},
     "a tools/list result"),
    ({"serverInfo": {"name": "s"}, "capabilities": {"tools": {}}, "tools": [TOOL]},
     "a tools/list result"),
    ([{"type": "function", "name": "a", "parameters": {}}], "an OpenAI function tool list"),
    ([{"type": "function", "function": {"name": "a"}}, TOOL], "a tool definitions list"),
    ([{"functionDeclarations": [{"name": "a"}]}], "a Gemini tool list"),
    ({"version": 1, "tool": "a"}, "a tool descriptor"),
    ({"swagger": "2.0", "paths": {}}, "a Swagger document"),
])
def test_tool_definitions_are_told(tmp_path, doc, what):
    assert told(tmp_path, json.dumps(doc)) == what


def test_an_openapi_document_in_yaml_is_told(tmp_path):
    text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a: {}\n"
    assert told(tmp_path, text, "api.yaml") == "an OpenAPI document"


@pytest.mark.parametrize("doc", [
    # a session: requests and responses, a tools/list exchange among them
    [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
     {"jsonrpc": "2.0", "id": 1, "result": {"tools": [TOOL]}}],
    # a cassette of such a session
    {"interactions": [{"request": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                       "response": {"jsonrpc": "2.0", "id": 1,
                                    "result": {"tools": [TOOL]}}}]},
    # API request bodies: tools beside the conversation
    {"model": "m", "messages": [{"role": "user", "content": "hi"}],
     "tools": [{"type": "function", "function": {"name": "a", "parameters": {}}}]},
    {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
     "tools": [{"functionDeclarations": [{"name": "a"}]}]},
    # a tools/list request, not its result
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
    # a tool call that names a tool
    {"name": "echo", "arguments": {"text": "hi"}},
    # an OTLP document
    {"resourceSpans": []},
])
def test_what_only_looks_like_tool_definitions_is_not_one(tmp_path, doc):
    assert told(tmp_path, json.dumps(doc)) is None


def test_broken_or_large_documents_are_left_to_the_adapters(tmp_path):
    assert told(tmp_path, '{"name": "echo", "inputSchema": {') is None
    big = json.dumps([TOOL] * 80_000)  # over 4 MiB: only an API document is parsed
    assert len(big) > 4 << 20
    assert told(tmp_path, big) is None
