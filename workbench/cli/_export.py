"""``workbench export``: a stored trace as our JSONL, readable without the workbench."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..ingest import export_trace
from ..store import Store, resolve_store_path
from ._main import common, emit


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write a stored trace as JSONL",
                       description="Write a stored trace as workbench JSONL (one event per "
                       "line, JSON values parsed); `workbench ingest` reads it back losslessly.",
                       epilog="examples:\n  workbench export 4bf92f35 > incident.jsonl\n"
                              "  workbench export 4bf92f35 --out incident.jsonl --json",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", metavar="TRACE", help="a trace id or a unique prefix of one")
    p.add_argument("--format", choices=["jsonl"], default="jsonl", help="output format")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = Store(resolve_store_path(args.store))
    trace_id = store.resolve_trace_id(args.trace)
    if args.out is None:
        if args.json:
            from ..model import UsageError
            raise UsageError("--json needs --out: stdout carries the JSON document")
        export_trace(store, trace_id, sys.stdout.buffer)
        sys.stdout.flush()
        return 0
    out = Path(args.out)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            n = export_trace(store, trace_id, f)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    emit(args, {"trace_id": trace_id, "events": n, "out": str(out)},
         lambda: f"wrote {n} events of {trace_id} to {out}")
    return 0
