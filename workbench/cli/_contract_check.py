"""``workbench contract check DESCRIPTORS``: the store's recorded tool calls held to
their descriptors (and to consumer contracts), recorded as findings like ``check``'s."""

from __future__ import annotations

import argparse
from typing import Any

from ..contracts import CONTRACT_RULES, ContractCheck, check_contracts, load_consumer, read_tools
from ..model import dumps
from ..rules import ReportRule, junit_findings, sarif_findings
from ..store import Store, resolve_store_path
from ._main import common, emit
from ._output import report_path, write_report

RAW = argparse.RawDescriptionHelpFormatter


def register_action(actions: Any) -> None:
    """Add ``check`` to the ``contract`` command's actions."""
    p = actions.add_parser(
        "check", help="recorded tool calls held to their descriptors",
        description="Hold every recorded tool call (all traces, or those named with "
        "--trace) to the descriptor of the same name: an unknown tool, arguments that break "
        "the input schema or that it does not declare, results that break the output "
        "schema, an error outside the envelope, a write without its required idempotency "
        "key, a call to a deprecated tool; with --consumer, a field the workflow reads that "
        "no recorded result carries. Findings are recorded like `check`'s (`workbench "
        "findings`). Exit 1 when an error-level finding is found.",
        epilog="examples:\n  workbench contract check contracts/ --trace 4bf92f35\n"
               "  workbench contract check tools.mcp.json --consumer ops.consumer.yaml --json\n"
               "  workbench contract check contracts/ --sarif contract.sarif --junit contract.xml",
        formatter_class=RAW)
    p.add_argument("descriptors", nargs="+", metavar="DESCRIPTORS",
                   help="descriptor files or folders, or any file `contract import` reads")
    p.add_argument("--trace", action="append", metavar="ID", help="only this trace (repeat)")
    p.add_argument("--consumer", action="append", default=[], metavar="F",
                   help="a consumer contract (YAML) whose reads are checked (repeat)")
    p.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 here")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML here")
    p.add_argument("--no-record", action="store_true",
                   help="do not record the findings in the store")
    common(p)
    p.set_defaults(func=run_check)


def _report_rules() -> list[ReportRule]:
    return [ReportRule(rid, text, severity, "contract") for rid, (severity, text)
            in CONTRACT_RULES.items()]


def _text(result: ContractCheck) -> str:
    lines = [f"{f.severity:<5}  {f.rule}  {f.trace_id[:12]}  {f.message}"
             for f in result.findings]
    lines.append(f"{result.errors} error(s), {len(result.findings) - result.errors} "
                 f"warning(s) in {result.calls_checked} tool call(s) of "
                 f"{result.traces_checked} trace(s), {len(result.tools)} tool(s) described")
    return "\n".join(lines)


def run_check(args: argparse.Namespace) -> int:
    sarif_out, junit_out = report_path("--sarif", args.sarif), report_path("--junit", args.junit)
    tools = read_tools(args.descriptors)
    consumers = [load_consumer(f, tools) for f in args.consumer]
    store = Store(resolve_store_path(args.store))
    result = check_contracts(store, tools, trace_ids=args.trace, consumers=consumers,
                             record=not args.no_record, source=" ".join(args.descriptors))
    write_report(sarif_out, dumps(sarif_findings(
        _report_rules(), result.findings, automation_id=f"workbench-contract-check/"
        f"{result.run_id}", properties={"traces_checked": result.traces_checked,
                                        "calls_checked": result.calls_checked})).encode())
    write_report(junit_out, junit_findings(_report_rules(), result.findings,
                                           result.traces_checked, "workbench contract check"))
    emit(args, result.to_dict(), lambda: _text(result))
    return 1 if result.errors else 0
