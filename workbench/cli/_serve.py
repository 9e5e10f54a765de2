"""``workbench serve``: the contract server (docs/serve.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..store import Store, resolve_store_path
from ._main import common, summary
from ._types import PORT, integer, seconds

__all__ = ["register", "run"]

EPILOG = """examples:
  workbench serve traces/examples/ops-agent/scenario-v1.yaml --port 8765
  workbench serve recording.har --port 0 --json          # a free port; prints the URL
  workbench serve scenario.yaml --failure "missing-field items[*].owner"
  workbench serve scenario.yaml --failure retry-then-ok --failure "status 503"
  workbench serve mcp-session.json --mcp stdio            # an MCP server from a recording

It prints {url, scenario, recording_to, trace_id} once it listens, serves until SIGINT or
SIGTERM, and then commits what it recorded as one trace of the store.
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve", help=summary("serve"),
        description="Answer HTTP requests on 127.0.0.1 from recorded exchanges (scenario "
        "files, HAR, VCR, Pact, our JSONL, fixture folders), inject provider failures, "
        "and record every request as an `http` event of one trace of the store.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sources", nargs="+", metavar="SCENARIO|RECORDING",
                   help="scenario files (.yaml) and recordings, served together")
    p.add_argument("--port", type=PORT, default=8765,
                   help="the port (default 8765; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="a loopback address (default 127.0.0.1); any other is refused")
    p.add_argument("--failure", action="append", default=[], metavar="MODE",
                   help="a failure mode for every exchange, with its arguments in one "
                        "argument (\"missing-field items[*].owner\"); repeatable")
    p.add_argument("--max-body", type=integer(0, 1 << 30), default=10 << 20, metavar="BYTES",
                   help="larger request bodies get a 413 (default 10 MiB)")
    p.add_argument("--request-timeout", type=seconds(maximum=3600), default=30.0, metavar="S",
                   help="a request (head and body) must arrive within this (default 30)")
    p.add_argument("--mcp", choices=("stdio", "http"),
                   help="serve a recorded MCP session as an MCP server (stdio, or "
                        "streamable HTTP at /mcp); needs the `serve` extra")
    common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..serve import Limits, serve

    limits = Limits(max_body=args.max_body, request_timeout=args.request_timeout)
    if args.mcp:
        from ..serve import serve_mcp
        return serve_mcp(args.sources, mode=args.mcp, host=args.host, port=args.port,
                         ready=lambda doc: _announce(args, doc))
    store = Store(resolve_store_path(args.store))
    result = serve(args.sources, store, host=args.host, port=args.port,
                   failures=args.failure,
                   limits=limits,
                   ready=lambda doc: _announce(args, doc))
    sys.stderr.write(f"stopped: {result.requests} request(s) recorded "
                     f"({result.unmatched} unmatched) as trace {result.trace_id}\n")
    return 0


def _announce(args: argparse.Namespace, doc: dict[str, Any]) -> None:
    from ..model import dumps
    if args.json:
        sys.stdout.write(dumps(doc) + "\n")
    else:
        sys.stdout.write(f"serving {doc['scenario']} on {doc['url']}, recording to "
                         f"{doc['recording_to']} (trace {doc.get('trace_id', '-')}); "
                         "stop with Ctrl-C\n")
    sys.stdout.flush()
