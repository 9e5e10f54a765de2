"""``workbench mcp``: the tool table served over stdio with the official ``mcp`` SDK
(the ``serve`` extra), the low-level server, so the schemas served are the table's own.

A call runs in a worker thread (the tools are synchronous and may take seconds: a
minimization, a check), one at a time, so the server still answers pings meanwhile.
"""

from __future__ import annotations

from typing import Any

from ..model import WorkbenchError
from ._tool import Tool, ToolContext, call_tool

__all__ = ["McpUnavailableError", "serve_stdio"]

INSTRUCTIONS = (
    "Trace Workbench: findings recorded from agent tool traces. The loop: check (or "
    "invariants) a trace, list_groups / list_findings, show_finding for its steps, "
    "minimize the trace, fix, check again. Paths are relative to the server's working "
    "directory; errors carry a code (error[CODE]) and a hint.")


class McpUnavailableError(WorkbenchError, ImportError):
    code = "MCP_UNAVAILABLE"
    default_hint = "pip install 'trace-workbench[serve]'"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("trace-workbench")
    except PackageNotFoundError:
        return ""


def server(tools: dict[str, Tool], context: ToolContext) -> Any:
    """The SDK's low-level server answering ``tools/list`` and ``tools/call``."""
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server

    listing = types.ListToolsResult(tools=[types.Tool.model_validate(t.listing())
                                           for t in tools.values()])

    async def list_tools(ctx: Any, params: Any) -> Any:
        return listing

    async def call(ctx: Any, params: Any) -> Any:
        result = await anyio.to_thread.run_sync(call_tool, tools, context, params.name,
                                                params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text)],
                                    structured_content=result.doc, is_error=result.is_error)

    return Server("workbench", version=_version(), instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call)


def serve_stdio(tools: dict[str, Tool], context: ToolContext) -> int:
    """Serve until the client closes stdin; the exit status."""
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError:
        raise McpUnavailableError("workbench mcp needs the `serve` extra (the mcp SDK)") \
            from None
    srv = server(tools, context)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await srv.run(read, write, srv.create_initialization_options())
    anyio.run(run)
    return 0
