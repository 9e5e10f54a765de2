"""MCP mode answers a real MCP client (the official SDK's) from a recorded session,
over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from mcp.client.session import ClientSession  # the `serve` extra, which `test` brings
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


@pytest.fixture
def session_file(corpus):
    return corpus / "mcp-recorder" / "mock_session.json"


async def _drive(read, write):
    async with ClientSession(read, write) as s:
        init = await s.initialize()
        tools = await s.list_tools()
        same = await s.call_tool("add", {"a": 2, "b": 3})
        unknown = await s.call_tool("no_such_tool", {})
        return init, tools, same, unknown


def _check(init, tools, same, unknown):
    assert init.server_info.name == "Test Calculator"
    assert "add" in [t.name for t in tools.tools]
    assert not same.is_error
    assert "5" in json.dumps(same.model_dump(mode="json"))
    assert unknown.is_error and "no recorded call of no_such_tool" in unknown.content[0].text


def test_an_mcp_client_over_stdio_gets_the_recorded_answers(session_file):
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "workbench", "serve", str(session_file), "--mcp", "stdio"])

    async def go():
        async with stdio_client(params) as (read, write):
            return await _drive(read, write)
    _check(*anyio.run(go))


def test_an_mcp_client_over_streamable_http_gets_the_recorded_answers(session_file):
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", str(session_file),
                             "--mcp", "http", "--port", "0", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        doc = json.loads(proc.stdout.readline())
        assert doc["url"].startswith("http://127.0.0.1:") and doc["url"].endswith("/mcp")

        async def go():
            async with streamable_http_client(doc["url"]) as streams:
                return await _drive(streams[0], streams[1])
        _check(*anyio.run(go))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
