"""MCP mode: a recorded MCP session served as an MCP server, over stdio or streamable
HTTP on 127.0.0.1, with the official ``mcp`` SDK (the ``serve`` extra).

``initialize`` answers with the recorded server's name and version, ``tools/list`` with
the recorded tools, and ``tools/call`` with the recorded result of the same tool called
with the same arguments — else the next recorded call of that tool, in order, the last
one repeating. A tool never called in the recording answers an error result naming the
tools that were.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import dumps, loads
from ._errors import ListenError, RecordingError
from ._exchange import read_recording

__all__ = ["McpRecording", "load_mcp", "serve_mcp"]


@dataclass
class McpRecording:
    name: str = "recorded-server"
    version: str = ""
    tools: list[dict[str, Any]] = field(default_factory=list)
    calls: dict[str, list[tuple[Any, Any, bool]]] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)

    def answer(self, tool: str, arguments: Any) -> tuple[Any, bool]:
        """The recorded result of ``tool`` and whether it was an error."""
        calls = self.calls.get(tool)
        if not calls:
            known = ", ".join(sorted(self.calls)) or "none"
            return {"content": [{"type": "text", "text": f"no recorded call of {tool} "
                                 f"(recorded: {known})"}]}, True
        for args, result, err in calls:
            if args == (arguments or {}):
                return result, err
        i = min(self.used.get(tool, 0), len(calls) - 1)
        self.used[tool] = i + 1
        return calls[i][1], calls[i][2]


def load_mcp(paths: list[str | os.PathLike[str]]) -> McpRecording:
    rec = McpRecording()
    for p in paths:
        for trace in read_recording(p):
            versions = _json(trace.meta.get("versions"))
            server = versions.get("mcp.server") if isinstance(versions, dict) else None
            if isinstance(server, dict):
                rec.name = str(server.get("name") or rec.name)
                rec.version = str(server.get("version") or "")
            for tool in _json(trace.meta.get("tools")) or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str) and \
                        tool not in rec.tools:
                    rec.tools.append(tool)
            for e in trace.events:
                if e.kind == "tool_call" and e.result is not None:
                    rec.calls.setdefault(e.name, []).append(
                        (e.args if e.args is not None else {}, e.result, e.status == "error"))
    if not rec.tools and not rec.calls:
        raise RecordingError("no MCP tools or tool calls in " + ", ".join(map(str, paths)),
                             code="NO_EXCHANGES",
                             hint="serve an MCP session recording (docs/formats.md)")
    return rec


def _json(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return loads(v)
        except ValueError:
            return None
    return v


def _result(result: Any, is_error: bool) -> Any:
    from mcp import types
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        doc = dict(result)
        if is_error:
            doc["isError"] = True
        return types.CallToolResult.model_validate(doc)
    text = result if isinstance(result, str) else dumps(result)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=result if isinstance(result, dict) else None, is_error=is_error)


def _server(rec: McpRecording) -> Any:
    from mcp import types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> Any:
        tools = []
        for t in rec.tools:
            doc = dict(t)
            doc.setdefault("inputSchema", {"type": "object"})
            tools.append(types.Tool.model_validate(doc))
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        result, err = rec.answer(params.name, params.arguments)
        return _result(result, err)

    return Server(rec.name, version=rec.version, on_list_tools=list_tools,
                  on_call_tool=call_tool)


def serve_mcp(paths: list[str | os.PathLike[str]], *, mode: str, host: str, port: int,
              ready: Callable[[dict[str, Any]], None]) -> int:
    """Serve until stdin closes (stdio) or SIGINT/SIGTERM (http); exit status."""
    from ._server import bind, check_host
    try:
        import anyio
        import mcp  # noqa: F401
    except ImportError:
        raise ListenError("the MCP mode needs the `serve` extra (the mcp SDK)",
                          code="MCP_UNAVAILABLE",
                          hint="pip install 'trace-workbench[serve]'") from None
    host = check_host(host)
    rec = load_mcp(paths)
    server = _server(rec)
    if mode == "stdio":
        from mcp.server.stdio import stdio_server

        async def run_stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())
        anyio.run(run_stdio)
        return 0
    import uvicorn
    sock = bind(host, port)
    url = f"http://{host}:{sock.getsockname()[1]}/mcp"
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    userver = uvicorn.Server(config)
    ready({"url": url, "scenario": ", ".join(map(str, paths)), "recording_to": None,
           "tools": len(rec.tools)})
    userver.run(sockets=[sock])
    return 0
