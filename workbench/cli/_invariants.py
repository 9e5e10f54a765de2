"""``workbench invariants OPENAPI``: recorded HTTP traffic judged by the eight contract
invariants, recorded as findings like ``check``'s."""

from __future__ import annotations

import argparse
import datetime as dt
from typing import Any

from ..invariants import INVARIANTS, InvariantCheck, check_invariants, load_spec, report_rules
from ..model import UsageError, dumps
from ..rules import junit_findings, sarif_findings
from ..store import Store, resolve_store_path
from ._main import common, emit, summary
from ._output import report_path, write_report

RAW = argparse.RawDescriptionHelpFormatter


def register(sub: Any) -> None:
    p = sub.add_parser(
        "invariants", help=summary("invariants"),
        description="Judge the store's recorded HTTP traffic (HAR, VCR, Pact, OTel HTTP "
        "spans, the contract server's recordings) against an OpenAPI 3.0/3.1 document: "
        + "; ".join(f"{k}: {v}" for k, v in INVARIANTS.items()) + ". Requests to paths "
        "the document does not describe are listed once, not judged. Findings are recorded "
        "like `check`'s (`workbench findings`). Exit 1 when one is found.",
        epilog="examples:\n  workbench invariants openapi.yaml\n"
               "  workbench invariants openapi.yaml --trace 4bf92f35 --only idempotent_retry\n"
               "  workbench invariants openapi.yaml --fault-window "
               "2024-05-01T10:00:00Z/2024-05-01T10:05:00Z --sarif inv.sarif --junit inv.xml",
        formatter_class=RAW)
    p.add_argument("openapi", metavar="OPENAPI", help="an OpenAPI 3.0 or 3.1 document")
    add_options(p)
    p.add_argument("--trace", action="append", metavar="ID", help="only this trace (repeat)")
    p.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 here")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML here")
    p.add_argument("--no-record", action="store_true",
                   help="do not record the findings in the store")
    common(p)
    p.set_defaults(func=run)


def add_options(p: Any) -> None:
    """``--only`` and ``--fault-window`` (shared with ``check --invariants``)."""
    p.add_argument("--only", action="append", metavar="NAME", choices=list(INVARIANTS),
                   help="only this invariant (repeat)")
    p.add_argument("--fault-window", action="append", default=[], metavar="START/END",
                   help="a time span (ISO 8601, UTC when no offset) whose 5xx answers are "
                        "expected (repeat)")


def _instant(text: str, option: str) -> int:
    try:
        t = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{option} {text!r} is not an ISO 8601 time",
                         hint="e.g. 2024-05-01T10:00:00Z/2024-05-01T10:05:00Z") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return int(t.timestamp() * 1_000_000) * 1000


def fault_windows(values: list[str]) -> list[tuple[int, int]]:
    out = []
    for v in values:
        start, sep, end = v.partition("/")
        if not sep:
            raise UsageError(f"--fault-window {v!r}: START/END expected",
                             hint="e.g. 2024-05-01T10:00:00Z/2024-05-01T10:05:00Z")
        a, b = _instant(start, "--fault-window"), _instant(end, "--fault-window")
        if b < a:
            raise UsageError(f"--fault-window {v!r} ends before it starts")
        out.append((a, b))
    return out


def text(result: InvariantCheck) -> str:
    lines = [f"{f.severity:<5}  {f.rule}  {f.trace_id[:12]}  {f.message}"
             for f in result.findings]
    for req, n in sorted(result.undocumented.items()):
        lines.append(f"note   undocumented  {req} ({n} request(s), not judged)")
    for (name, why), n in sorted(result.not_judged.items()):
        lines.append(f"note   not judged  {name}: {why} ({n} exchange(s))")
    lines.append(f"{result.errors} finding(s) in {result.judged} of {result.exchanges} HTTP "
                 f"exchange(s) of {result.traces_checked} trace(s), "
                 f"{len(result.invariants)} invariant(s)")
    return "\n".join(lines)


def reports(args: argparse.Namespace, result: InvariantCheck) -> None:
    rules = report_rules(result.invariants)
    write_report(report_path("--sarif", args.sarif), dumps(sarif_findings(
        rules, result.findings, automation_id=f"workbench-invariants/{result.run_id}",
        properties={"traces_checked": result.traces_checked,
                    "exchanges": result.exchanges})).encode())
    write_report(report_path("--junit", args.junit), junit_findings(
        rules, result.findings, result.traces_checked, "workbench invariants"))


def run(args: argparse.Namespace) -> int:
    report_path("--sarif", args.sarif)
    report_path("--junit", args.junit)
    windows = fault_windows(args.fault_window)
    spec = load_spec(args.openapi)
    store = Store(resolve_store_path(args.store))
    result = check_invariants(store, spec, trace_ids=args.trace, only=args.only,
                              windows=windows, record=not args.no_record, source=args.openapi)
    reports(args, result)
    emit(args, result.to_dict(), lambda: text(result))
    return 1 if result.errors else 0
