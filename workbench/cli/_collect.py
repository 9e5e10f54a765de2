"""``workbench collect``: the OTLP receiver (docs/collect.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..store import Store, resolve_store_path
from ._main import common, summary
from ._types import PORT, integer, seconds

__all__ = ["register", "run"]

EPILOG = """examples:
  workbench collect                          # http://127.0.0.1:4318/v1/traces
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 python my_agent.py
  workbench collect --port 0 --json --env staging --idle 5

It prints where it listens once it does (with --json: {url, endpoint, store, env, idle,
recovered} on one line), commits each trace once it has received nothing for --idle
seconds, and at SIGINT or SIGTERM commits the rest and prints a summary (with --json:
{requests, spans, refused_spans, refused_requests, traces, spans_committed, ...}).
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "collect", help=summary("collect"),
        description="Receive OpenTelemetry traces over OTLP/HTTP (protobuf or JSON, gzip) "
        "on 127.0.0.1 and store them: spans are redacted before anything is written, "
        "journaled, and each trace is committed when it falls idle and at "
        "shutdown. A journal a killed collector left is committed at the next start.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=PORT, default=4318,
                   help="the port (default 4318, OTLP/HTTP's; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="a loopback address (default 127.0.0.1); any other is refused")
    p.add_argument("--env", default="default", metavar="NAME",
                   help="the environment the traces come from (kept in `traces`; default: "
                        "default)")
    p.add_argument("--idle", type=seconds(), default=30.0, metavar="S",
                   help="commit a trace once it has received no span for this long "
                        "(default 30); a span arriving later for it is refused")
    p.add_argument("--max-traces", type=integer(1, 100_000), default=10_000, metavar="N",
                   help="open traces at most; past it the least recently active are "
                        "committed early (default 10000)")
    p.add_argument("--max-body", type=integer(0, 1 << 30), default=10 << 20, metavar="BYTES",
                   help="larger request bodies, or gzip bodies inflating past it, get a "
                        "413 (default 10 MiB)")
    p.add_argument("--request-timeout", type=seconds(maximum=3600), default=30.0, metavar="S",
                   help="a request (head and body) must arrive within this (default 30)")
    p.add_argument("--client-rate", type=integer(1, 1 << 40), default=32 << 20,
                   metavar="BYTES",
                   help="bytes a second one client may send; past it a 429 with "
                        "Retry-After (default 32 MiB)")
    common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..collect import Settings, collect
    from ..model import dumps
    from ..serve import Limits

    settings = Settings(host=args.host, port=args.port, env=args.env, idle=args.idle,
                        max_traces=args.max_traces, client_rate=args.client_rate,
                        limits=Limits(max_body=args.max_body,
                                      request_timeout=args.request_timeout))
    store = Store(resolve_store_path(args.store))
    result = collect(store, settings, ready=lambda doc: _announce(args, doc),
                     note=_note)
    if args.json:
        sys.stdout.write(dumps(result.to_dict()) + "\n")
    else:
        refused = sum(result.refused_requests.values())
        sys.stdout.write(f"stopped: {result.spans} span(s) in {len(result.traces)} trace(s) "
                         f"committed to {result.store}"
                         + (f"; {result.refused_spans} span(s) refused" if
                            result.refused_spans else "")
                         + (f"; {refused} request(s) refused" if refused else "") + "\n")
    sys.stdout.flush()
    return 0


def _note(text: str) -> None:
    sys.stderr.write(f"note: {text}\n")


def _announce(args: argparse.Namespace, doc: dict[str, Any]) -> None:
    from ..model import dumps
    if args.json:
        sys.stdout.write(dumps(doc) + "\n")
    else:
        if doc["recovered"]:
            sys.stdout.write(f"committed {len(doc['recovered'])} trace(s) a stopped "
                             "collector left\n")
        sys.stdout.write(f"collecting OTLP traces on {doc['endpoint']} into {doc['store']} "
                         f"(env {doc['env']}, committed after {doc['idle']:g} s idle); "
                         "stop with Ctrl-C\n")
    sys.stdout.flush()
