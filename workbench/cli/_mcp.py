"""``workbench mcp``: an MCP server over stdio for agents (docs/mcp.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..store import resolve_store_path
from ._main import summary

EXAMPLE = """example (an agent host's configuration):
  {"mcpServers": {"workbench": {"command": "workbench",
                                "args": ["mcp", "--store", "traces/store"]}}}

Tools: list_findings, list_groups, show_finding, check, invariants, minimize,
fixture_status, ingest. Paths an agent names stay inside the working directory.
"""


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help=summary("mcp"),
                       description="Serve the store's findings and the workbench's checks "
                       "to an agent as MCP tools over stdio (JSON-RPC on stdin/stdout) "
                       "until stdin closes. Needs the `serve` extra (the mcp SDK).",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", metavar="DIR",
                   help="the store (default: $WORKBENCH_STORE or ./traces/store)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..mcp_server import TOOLS, ToolContext, serve_stdio
    from ..model import StoreError

    store = resolve_store_path(args.store).absolute()
    if store.exists() and not store.is_dir():
        raise StoreError(f"store path {store} is a file, not a directory",
                         hint="pass a directory with --store", code="STORE_NOT_A_DIRECTORY")
    return serve_stdio(TOOLS, ToolContext(store, Path.cwd()))
