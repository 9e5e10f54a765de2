"""Model Context Protocol JSON-RPC traffic: session recordings, logs and messages."""

from ._read import MCP

__all__ = ["MCP"]
