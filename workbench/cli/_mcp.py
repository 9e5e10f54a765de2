"""``workbench mcp``: an MCP server over stdio for agents (docs/mcp.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..store import resolve_store_path
from ._main import summary

EXAMPLE = """example (an agent host's configuration):
  {"mcpServers": {"workbench": {"command": "workbench",
                                "args": ["mcp", "--store", "traces/store",
                                         "--allow-target", "http://127.0.0.1:8080",
                                         "--allow-auth-env", "STAGING_TOKEN"]}}}

Tools: list_findings, list_groups, show_finding, check, invariants, minimize, replay,
fixture_status, ingest. Paths an agent names stay inside the working directory;
replay sends only to --allow-target URLs and only the --allow-auth-env variables.
"""


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help=summary("mcp"),
                       description="Serve the store's findings and the workbench's checks "
                       "to an agent as MCP tools over stdio (JSON-RPC on stdin/stdout) "
                       "until stdin closes. Needs the `serve` extra (the mcp SDK).",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", metavar="DIR",
                   help="the store (default: $WORKBENCH_STORE or ./traces/store)")
    p.add_argument("--allow-target", action="append", default=[], metavar="URL",
                   help="a base URL the replay tool may send to: same scheme, host and "
                        "port, the path at or below it (repeat; default: none, so replay "
                        "sends nothing)")
    p.add_argument("--allow-auth-env", action="append", default=[], metavar="VAR",
                   help="an environment variable the replay tool may send as a "
                        "credential (repeat; default: none)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..mcp_server import TOOLS, ToolContext, serve_stdio
    from ..model import StoreError, UsageError
    from ..replay import parse_target

    store = resolve_store_path(args.store).absolute()
    if store.exists() and not store.is_dir():
        raise StoreError(f"store path {store} is a file, not a directory",
                         hint="pass a directory with --store", code="STORE_NOT_A_DIRECTORY")
    for url in args.allow_target:
        parse_target(url)  # an http(s) base URL without credentials, query or fragment
    for var in args.allow_auth_env:
        if not var.isidentifier():
            raise UsageError(f"--allow-auth-env {var!r} is not a variable name",
                             hint="name the variable alone, e.g. --allow-auth-env "
                                  "API_TOKEN")
    context = ToolContext(store, Path.cwd(), allow_auth_env=frozenset(args.allow_auth_env),
                          allow_targets=tuple(args.allow_target))
    return serve_stdio(TOOLS, context)
