"""``workbench contract diff OLD NEW``: the agent-aware gate between two sets of tools."""

from __future__ import annotations

import argparse
from typing import Any

from ..contracts import ContractDiff, diff_contracts, diff_sarif
from ..model import dumps
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
        "to info; a destructive tool fails closed. Exit 1 when a change reaches --fail-on.",
        epilog="examples:\n  workbench contract diff tools-v1/ tools-v2/\n"
               "  workbench contract diff old.json new.json --consumer triage.consumer.yaml "
               "--json\n"
               "  workbench contract diff old/ new/ --fail-on warn --sarif contract.sarif",
        formatter_class=RAW)
    p.add_argument("old", metavar="OLD", help="the released tools: a file or a folder")
    p.add_argument("new", metavar="NEW", help="the candidate tools: a file or a folder")
    p.add_argument("--consumer", action="append", default=[], metavar="F",
                   help="a consumer contract (YAML) read against OLD (repeat)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="error",
                   help="exit 1 when a change is at this severity or above (default: error)")
    p.add_argument("--sarif", metavar="F", help="also write SARIF 2.1.0 here")
    common(p, store=False)
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
    return "\n".join(lines)


def run_diff(args: argparse.Namespace) -> int:
    out = report_path("--sarif", args.sarif)
    result = diff_contracts(args.old, args.new, args.consumer)
    write_report(out, dumps(diff_sarif(result)).encode())
    emit(args, {**result.to_dict(), "fail_on": args.fail_on}, lambda: _text(result))
    return 1 if result.reaches(args.fail_on) else 0
