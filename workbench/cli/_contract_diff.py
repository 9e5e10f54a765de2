"""``workbench contract diff OLD NEW``: the agent-aware gate between two sets of tools."""

from __future__ import annotations

import argparse
from typing import Any

from ..contracts import (
    ContractDiff,
    Traffic,
    diff_sarif,
    diff_tools,
    judge_recorded,
    load_consumer,
    read_tools,
)
from ..model import UsageError, dumps
from ..store import Store, resolve_store_path
from ._main import common, emit
from ._output import report_path, write_report

RAW = argparse.RawDescriptionHelpFormatter
FAIL_ON = ("error", "warn")


def register_action(actions: Any) -> None:
    """Add ``diff`` to the ``contract`` command's actions."""
    p = actions.add_parser(
        "diff", help="what changed between two sets of tools, judged for agents",
        description="Compare the tools in OLD with those in NEW (descriptor files, manifests, "
        "folders, or any file `contract import` reads) and judge each change by what it can "
        "do to an agent: every change has a kind, a path (args.… what the agent sends, "
        "result.… what it reads), a direction and a severity. With --consumer, what a "
        "workflow depends on is raised to error and the rest of the tools it calls lowered "
        "to info; a destructive tool fails closed. With --recorded, each change is also "
        "judged against the store's recorded traffic, and a tool whose results flowed into "
        "a destructive or external-send call is gated as that call is. Exit 1 when a "
        "change reaches --fail-on.",
        epilog="examples:\n  workbench contract diff tools-v1/ tools-v2/\n"
               "  workbench contract diff old.json new.json --consumer triage.consumer.yaml "
               "--json\n"
               "  workbench contract diff old/ new/ --fail-on warn --sarif contract.sarif\n"
               "  workbench contract diff old/ new/ --recorded --json",
        formatter_class=RAW)
    p.add_argument("old", metavar="OLD", help="the released tools: a file or a folder")
    p.add_argument("new", metavar="NEW", help="the candidate tools: a file or a folder")
    p.add_argument("--consumer", action="append", default=[], metavar="F",
                   help="a consumer contract (YAML) read against OLD (repeat)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="error",
                   help="exit 1 when a change is at this severity or above (default: error)")
    p.add_argument("--sarif", metavar="F", help="also write SARIF 2.1.0 here")
    p.add_argument("--recorded", action="store_true",
                   help="also judge each change against the store's recorded traffic: "
                        "recorded calls NEW refuses, result fields that flowed onward, "
                        "values branched on, and reach into destructive or external-send "
                        "calls")
    p.add_argument("--trace", action="append", default=[], metavar="ID",
                   help="with --recorded: only this trace (repeatable)")
    common(p)
    p.set_defaults(func=run_diff)


def _text(result: ContractDiff) -> str:
    lines = []
    for c in result.changes:
        who = f"  [consumers: {', '.join(c.consumers)}]" if c.consumers else ""
        lines.append(f"{c.severity:<5}  {c.kind:<28} {c.tool}  {c.path}  ({c.direction})\n"
                     f"       {c.message}{who}")
    n = result.counts()
    lines.append(f"{n['error']} error(s), {n['warn']} warning(s), {n['info']} info; "
                 f"{result.tools_old} tool(s) before, {result.tools_new} after"
                 + (f"; consumers: {', '.join(result.consumers)}" if result.consumers else ""))
    rec = result.recorded
    if rec is not None:
        lines.append(f"recorded: {rec['calls']} tool call(s) in {rec['traces']} trace(s); "
                     + ("the change touches nothing recorded" if rec["touches_nothing"] else
                        f"{rec['changes_touching']} change(s) touch recorded traffic"))
    return "\n".join(lines)


def run_diff(args: argparse.Namespace) -> int:
    out = report_path("--sarif", args.sarif)
    if args.trace and not args.recorded:
        raise UsageError("--trace names the recorded traffic: give --recorded too",
                         hint="workbench contract diff OLD NEW --recorded --trace ID")
    old, new = read_tools([args.old]), read_tools([args.new])
    result = diff_tools(old, new, [load_consumer(p, old) for p in args.consumer])
    if args.recorded:
        traffic = Traffic.load(Store(resolve_store_path(args.store)), args.trace or None)
        result = judge_recorded(result, old, new, traffic)
    write_report(out, dumps(diff_sarif(result)).encode())
    emit(args, {**result.to_dict(), "fail_on": args.fail_on}, lambda: _text(result))
    return 1 if result.reaches(args.fail_on) else 0
