"""``workbench mcp``: the workbench's findings and checks served to agents as MCP tools
over stdio. A tool is one function with declared input and output schemas (``Tool``);
``TOOLS`` is the table the server lists. docs/mcp.md."""

from ._registry import TOOLS
from ._server import McpUnavailableError, serve_stdio
from ._tool import Tool, ToolArgumentsError, ToolContext, ToolResult, UnknownToolError, call_tool

__all__ = [
    "TOOLS",
    "McpUnavailableError",
    "Tool",
    "ToolArgumentsError",
    "ToolContext",
    "ToolResult",
    "UnknownToolError",
    "call_tool",
    "serve_stdio",
]
