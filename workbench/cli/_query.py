"""``workbench traces``, ``show`` and ``sql``: read the store."""

from __future__ import annotations

import argparse
import csv
import io
from typing import Any

import pyarrow as pa

from ..model import dumps, loads
from ..store import Store, resolve_store_path, to_rows
from ._main import common, emit, summary
from ._render import render_table, render_timeline
from ._types import integer, multiline_text


def register(sub: Any) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("traces", help=summary("traces"),
                       description="List the traces in the store, newest first.",
                       epilog="example:\n  workbench traces --json", formatter_class=raw)
    common(p)
    p.set_defaults(func=run_traces)

    p = sub.add_parser("show", help=summary("show"),
                       description="Print one trace as a timeline: indentation by parent, "
                       "offsets, durations, status, tool names with argument summaries and "
                       "where arguments came from; then its tool calls.",
                       epilog="examples:\n  workbench show 5b8efff7\n"
                              "  workbench show 5b8efff7 --kind tool_call --json",
                       formatter_class=raw)
    p.add_argument("trace", metavar="TRACE", help="a trace id or a unique prefix of one")
    p.add_argument("--kind", action="append", help="only events of this kind (repeatable)")
    p.add_argument("--limit", type=integer(0, 1_000_000_000), default=0, metavar="N",
                   help="print at most N events (default: all)")
    common(p)
    p.set_defaults(func=run_show)

    p = sub.add_parser("sql", help=summary("sql"),
                       description="Run SQL over the views events, traces and tool_calls.",
                       epilog="examples:\n"
                              "  workbench sql "
                              "\"select name, count(*) from tool_calls group by 1\"\n"
                              "  workbench sql \"select * from traces\" --format csv",
                       formatter_class=raw)
    p.add_argument("query", metavar="SQL", type=multiline_text)
    p.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="output format (default: table)")
    common(p)
    p.set_defaults(func=run_sql)


def _store(args: argparse.Namespace) -> Store:
    return Store(resolve_store_path(args.store))


def _plain(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, float | int | str | bool) or v is None:
        return v
    return str(v)


def run_traces(args: argparse.Namespace) -> int:
    table = _store(args).sql(
        "SELECT t.trace_id, t.source_format, t.events, "
        "  (SELECT count(*) FROM tool_calls c WHERE c.trace_id = t.trace_id) AS tool_calls, "
        "  (SELECT count(*) FROM events e WHERE e.trace_id = t.trace_id AND e.status = 'error')"
        "    AS errors, "
        "  t.start_ns, (t.end_ns - t.start_ns) / 1e9 AS seconds, t.source_path, t.ingested_at "
        "FROM traces t ORDER BY t.ingested_at DESC, t.trace_id")
    rows = [{k: _plain(v) for k, v in r.items()} for r in to_rows(table)]
    emit(args, {"traces": rows}, lambda: render_table(
        ["trace_id", "format", "events", "tools", "errors", "seconds", "source"],
        [[r["trace_id"], r["source_format"], r["events"], r["tool_calls"], r["errors"],
          "" if r["seconds"] is None else f"{r['seconds']:.3f}", r["source_path"]]
         for r in rows]) if rows else "the store holds no traces")
    return 0


def run_show(args: argparse.Namespace) -> int:
    store = _store(args)
    trace = store.trace(store.resolve_trace_id(args.trace))
    events = [e for e in trace if not args.kind or e.kind in args.kind]
    if args.limit and args.limit > 0:
        events = events[: args.limit]
    doc = {
        "trace": {k: _plain(loads(v) if k in ("tools", "versions", "redaction", "attrs")
                            and isinstance(v, str) else v) for k, v in trace.meta.items()},
        "events": [e.to_dict() for e in events],
    }
    emit(args, doc, lambda: render_timeline(trace, events))
    return 0


def run_sql(args: argparse.Namespace) -> int:
    table = _store(args).sql(args.query)
    rows = [{k: _plain(v) for k, v in r.items()} for r in to_rows(table)]
    if args.json:
        emit(args, {"columns": table.column_names, "rows": rows}, str)
    elif args.format == "json":
        print(dumps(rows))  # a plain array of row objects
    elif args.format == "csv":
        print(_csv(table, rows), end="")
    else:
        print(render_table(table.column_names, [[r[c] for c in table.column_names]
                                                for r in rows]))
    return 0


def _csv(table: pa.Table, rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(table.column_names)
    for r in rows:
        w.writerow(["" if r[c] is None else r[c] for c in table.column_names])
    return buf.getvalue()
