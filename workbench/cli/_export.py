"""``workbench export``: a stored trace or a fixture as JSONL, OTLP or ATIF, readable
without the workbench."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, Any

from ..fixtures import (
    DEFAULT_FIXTURES,
    EXPORT_FORMATS,
    FixtureNotFoundError,
    export_fixture,
    export_rows,
    load_fixture,
    resolve_fixture,
    trace_facts,
)
from ..model import UsageError
from ..store import Store, output_path, resolve_store_path
from ._main import common, emit, summary

EXAMPLE = """examples:
  workbench export 4bf92f35 > incident.jsonl
  workbench export 4bf92f35 --out incident.jsonl --json
  workbench export archive-incident/v2 --format otlp --out archive.otlp.json
  workbench export 4bf92f35 --format atif --out trajectory.json
  workbench export traces/fixtures/archive-incident/v1 > archive.jsonl
TARGET is a fixture when it is a fixture folder (or a file in one) or NAME[/vN] under
--fixtures (the latest version for a bare NAME); otherwise a trace id of the store.
"""


def register(sub: Any) -> None:
    p = sub.add_parser("export", help=summary("export"),
                       description="Write a stored trace or a fixture's events as "
                       "workbench JSONL (one event per line, JSON values parsed; `workbench "
                       "ingest` reads it back losslessly), as OTLP/JSON spans, or as an ATIF-v1.7 "
                       "trajectory (Harbor's Agent Trajectory Interchange Format).",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="TARGET",
                   help="a trace id (or unique prefix), a fixture folder, or NAME[/vN]")
    p.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl", help="output format")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--fixtures", metavar="DIR", default=str(DEFAULT_FIXTURES),
                   help=f"where NAME[/vN] is looked up (default: {DEFAULT_FIXTURES})")
    common(p)
    p.set_defaults(func=run)


def _writer(args: argparse.Namespace) -> tuple[str, str, Any]:
    """What TARGET is (``fixture`` or ``trace_id``), its name, and a function writing it
    to a binary stream."""
    try:
        ref = resolve_fixture(args.target, Path(args.fixtures))
    except FixtureNotFoundError:
        if "/" in args.target or Path(args.target).exists():
            raise  # a path or NAME/vN: the user meant a fixture
        ref = None
    if ref is not None:
        fixture = load_fixture(ref.path)
        return "fixture", fixture.id, lambda out: export_fixture(fixture, args.format, out)
    store = Store(resolve_store_path(args.store))
    trace_id = store.resolve_trace_id(args.target)

    def write(out: IO[bytes]) -> int:
        rows = store.sql("SELECT * FROM events WHERE trace_id = ? ORDER BY seq",
                         [trace_id]).to_pylist()
        return export_rows(rows, args.format, out, trace_id, trace_facts(store, trace_id))
    return "trace_id", trace_id, write


def run(args: argparse.Namespace) -> int:
    if args.out == "-":  # standard output, as without --out
        args.out = None
    if args.out is None and args.json:
        raise UsageError("--json needs --out: stdout carries the JSON document")
    out = None if args.out is None else output_path("--out", args.out)
    kind, what, write = _writer(args)
    if out is None:
        write(sys.stdout.buffer)
        sys.stdout.flush()
        return 0
    with out.open() as f:
        n = write(f)
    doc = {kind: what, "events": n, "out": args.out, "format": args.format}
    emit(args, doc, lambda: f"wrote {n} events of {what} to {args.out} ({args.format})")
    return 0
