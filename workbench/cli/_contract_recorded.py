"""``workbench contract infer|usage``: what recorded traffic says about the tools: the
consumer contract it implies, and how often each tool, argument and result field is
used."""

from __future__ import annotations

import argparse
import datetime as dt
from typing import Any

from ..contracts import (
    InferredConsumer,
    Traffic,
    Usage,
    contract_usage,
    infer_consumer,
    read_tools,
)
from ..model import UsageError
from ..store import Store, resolve_store_path
from ._main import common, emit
from ._output import report_path, write_report

RAW = argparse.RawDescriptionHelpFormatter


def register_action(actions: Any) -> None:
    """Add ``infer`` and ``usage`` to the ``contract`` command's actions."""
    p = actions.add_parser(
        "infer", help="a consumer contract inferred from recorded traffic",
        description="Write the consumer contract the store's recorded tool calls imply "
        "(docs/contracts.md, Consumer contracts): the tools called, the argument paths "
        "sent, the result paths whose values flowed into later calls (reads), the result "
        "values after which the next call differs (branches_on), the error codes followed "
        "by the same call again (retries_on) and cursor flows (paginates). Each "
        "declaration carries its count and first evidence (trace, step) as a comment, so "
        "a person can prune it; --json lists them all.",
        epilog="examples:\n  workbench contract infer --consumer ops-agent --out "
               "ops-agent.consumer.yaml\n  workbench contract infer --trace 4bf92f35 --json",
        formatter_class=RAW)
    p.add_argument("--trace", action="append", default=[], metavar="ID",
                   help="only this trace (repeatable; default: every trace)")
    p.add_argument("--consumer", default="recorded", metavar="NAME",
                   help="the consumer's name in the contract (default: recorded)")
    p.add_argument("--out", metavar="FILE", help="write the contract here instead of stdout")
    common(p)
    p.set_defaults(func=run_infer)
    u = actions.add_parser(
        "usage", help="how recorded traffic uses each tool, argument and result field",
        description="Per tool, argument and result field: how often recorded calls used "
        "it, in how many traces and when last. With DESCRIPTORS: what no recorded "
        "workflow uses (a tool never called, an argument never sent: safe to deprecate; "
        "a result field never returned, or returned but never flowing into a later call), "
        "and which traces still call a deprecated tool. --since TIME: what was last used "
        "before TIME counts as no longer used.",
        epilog="examples:\n  workbench contract usage\n  workbench contract usage "
               "contracts/ --json",
        formatter_class=RAW)
    u.add_argument("descriptors", nargs="*", metavar="DESCRIPTORS",
                   help="descriptor files or folders to hold the usage against")
    u.add_argument("--trace", action="append", default=[], metavar="ID",
                   help="only this trace (repeatable; default: every trace)")
    u.add_argument("--since", metavar="TIME",
                   help="with DESCRIPTORS: what no call used at or after TIME (ISO 8601, "
                        "e.g. 2026-01-01) counts as no longer used")
    common(u)
    u.set_defaults(func=run_usage)


def _traffic(args: argparse.Namespace) -> Traffic:
    store = Store(resolve_store_path(args.store))
    traffic = Traffic.load(store, args.trace or None)
    if not traffic.calls:
        raise UsageError("the store holds no recorded tool call"
                         + (" in the traces named" if args.trace else ""),
                         hint="ingest traces first (`workbench ingest FILE`), or name "
                              "traces that hold tool calls")
    return traffic


def _infer_text(result: InferredConsumer, out: str | None) -> str:
    if out is None:
        return result.to_yaml()
    reads = sum(len(t.reads) for t in result.tools.values())
    return (f"wrote {out}: consumer {result.consumer}, {len(result.tools)} tool(s), {reads} "
            f"read(s), from {result.calls} call(s) in {result.traces} trace(s)")


def run_infer(args: argparse.Namespace) -> int:
    out = report_path("--out", args.out)
    result = infer_consumer(_traffic(args), args.consumer)
    write_report(out, result.to_yaml().encode())
    emit(args, {**result.to_dict(), "out": args.out}, lambda: _infer_text(result, args.out))
    return 0


def _usage_text(result: Usage) -> str:
    lines = []
    for t in result.tools.values():
        c = t.calls
        lines.append(f"{t.tool}: {c.count} call(s) in {len(c.traces)} trace(s), last "
                     f"{_last(c)}")
        for what, table in (("arg", t.args), ("result", t.results), ("error", t.errors)):
            for path, u in sorted(table.items()):
                read = f", read onward {u.read}x" if what == "result" and u.read else ""
                lines.append(f"  {what:<6} {path}  {u.count}x in {len(u.traces)} trace(s), "
                             f"last {_last(u)}{read}")
    if result.described:
        lines.append("not used by any recorded workflow:" if result.unused else
                     "every described tool, argument and result field is used")
        lines += [f"  {u['tool']}  {u['what']}  {u['path'] or ''}  ({u['why']})"
                  for u in result.unused]
        for d in result.deprecated:
            lines.append(f"deprecated {d['tool']} still called: {d['count']} call(s) in "
                         f"{d['traces']} trace(s), last {d['last_seen'] or '?'}: "
                         + ", ".join(x[:12] for x in d["callers"]))
    lines.append(f"{result.calls} tool call(s) in {result.traces} trace(s), "
                 f"{len(result.tools)} tool(s)")
    return "\n".join(lines)


def _last(use: Any) -> str:
    d = use.to_dict("")
    when, w = d["last_seen"] or "(no time)", d["last"]
    return f"{when} (trace {w['trace'][:12]} step {w['step']})" if w else when


def _since(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--since {text!r} is not an ISO 8601 date or time",
                         hint="e.g. --since 2026-01-01 or --since 2026-01-01T12:00:00Z"
                         ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return int(when.timestamp() * 1_000_000_000)


def run_usage(args: argparse.Namespace) -> int:
    since = _since(args.since)
    tools = read_tools(args.descriptors) if args.descriptors else None
    result = contract_usage(_traffic(args), tools, since)
    emit(args, result.to_dict(), lambda: _usage_text(result))
    return 0
