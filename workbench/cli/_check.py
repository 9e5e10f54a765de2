"""``workbench check`` and ``workbench findings``."""

from __future__ import annotations

import argparse
from typing import Any

from ..model import UsageError, dumps
from ..rules import (
    ENGINES,
    CheckResult,
    ReportRule,
    SparkEngine,
    check,
    finding_json,
    junit,
    junit_findings,
    junit_rates,
    load_rules,
    rate_report,
    sarif,
    sarif_findings,
    sarif_rates,
)
from ..store import Store, resolve_store_path, to_rows
from ._main import common, emit, summary
from ._output import report_path, write_report
from ._render import render_table
from ._types import rate_type

RAW = argparse.RawDescriptionHelpFormatter


def register(sub: Any) -> None:
    p = sub.add_parser("check", help=summary("check"),
                       description="Run a rules file over the stored traces (all, or those "
                       "named with --trace) and record the findings. Exit 1 when an "
                       "`error` rule is violated.",
                       epilog="examples:\n  workbench check rules.yaml\n"
                              "  workbench check rules.yaml --trace 4bf92f35 --json\n"
                              "  workbench check rules.yaml --sarif out.sarif --junit out.xml\n"
                              "  workbench check rules.yaml --by scenario --max-rate 0.05\n"
                              "  workbench check rules.yaml --compare 1.4.2..1.5.0",
                       formatter_class=RAW)
    p.add_argument("rules", metavar="RULES.yaml")
    p.add_argument("--trace", action="append", metavar="ID", help="only this trace (repeat)")
    p.add_argument("--engine", choices=ENGINES, default="duckdb",
                   help="duckdb (store-wide SQL, default), python (per trace) or spark "
                   "(the store's files on Apache Spark; the [spark] extra and Java 17)")
    p.add_argument("--spark-master", metavar="URL",
                   help="with --engine spark: the master (default local[*]; spark://HOST:PORT, "
                   "yarn, k8s://URL)")
    p.add_argument("--spark-files", metavar="URI",
                   help="with --engine spark: where the executors read the store's files "
                   "(s3://BUCKET/STORE, gs://..., file:///mnt/store: the store's layout "
                   "under it); the driver reads the commit records from --store")
    p.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 here")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML here")
    p.add_argument("--no-record", action="store_true",
                   help="do not record the findings in the store")
    p.add_argument("--invariants", metavar="OPENAPI",
                   help="also judge the recorded HTTP traffic by the contract invariants of "
                        "this OpenAPI document (see `workbench invariants`)")
    _rate_options(p)
    from ._invariants import add_options
    add_options(p)
    common(p)
    p.set_defaults(func=run_check)

    p = sub.add_parser("findings", help=summary("findings"),
                       description="List the findings recorded by `workbench check`, or "
                       "with --group one line per signature: its environment, status (open, flaky, "
                       "fixed), last replay and where it ran.",
                       epilog="examples:\n  workbench findings --group\n"
                              "  workbench findings --rule approval-before-archive --json",
                       formatter_class=RAW)
    p.add_argument("--group", action="store_true", help="group by signature")
    p.add_argument("--rule", help="only this rule")
    p.add_argument("--trace", help="only this trace")
    common(p)
    p.set_defaults(func=run_findings)


def _rate_options(p: Any) -> None:
    g = p.add_argument_group("rates over runs (docs/statistics.md)")
    g.add_argument("--by", metavar="scenario[,build]",
                   help="per rule and scenario (and build): violations k of n runs, the "
                        "rate with its 95%% Clopper-Pearson interval and PASS / FAIL / "
                        "INCONCLUSIVE against --max-rate")
    g.add_argument("--compare", metavar="BASE..CANDIDATE",
                   help="per rule and scenario: both builds' rates, the difference with "
                        "its interval, Boschloo's exact p-value and REGRESSED / IMPROVED / "
                        "NO CHANGE / INCONCLUSIVE")
    g.add_argument("--max-rate", type=rate_type, default=0.05, metavar="RATE",
                   help="the violation rate a rule may have (default 0.05)")
    g.add_argument("--alpha", type=rate_type, default=0.05, metavar="P",
                   help="with --compare: the exact test's level (default 0.05)")
    g.add_argument("--margin", type=rate_type, default=0.10, metavar="RATE",
                   help="with --compare: NO CHANGE when the difference's interval lies "
                        "within +- this (default 0.10)")
    g.add_argument("--fail-inconclusive", action="store_true",
                   help="an INCONCLUSIVE `error` rule fails the check too (exit 1)")


def _engine(args: argparse.Namespace) -> SparkEngine | None:
    """The Spark engine for ``--engine spark`` (with its master); the others by name."""
    if args.engine != "spark":
        return None
    return SparkEngine(args.spark_master, files_at=args.spark_files)


def run_check(args: argparse.Namespace) -> int:
    sarif_out, junit_out = report_path("--sarif", args.sarif), report_path("--junit", args.junit)
    if args.invariants is None and (args.only or args.fault_window):
        raise UsageError("--only and --fault-window choose invariants: give --invariants "
                         "OPENAPI too", hint="workbench check rules.yaml --invariants "
                                             "openapi.yaml --only pagination")
    for given, flag in ((args.spark_master, "--spark-master"),
                        (args.spark_files, "--spark-files")):
        if given and args.engine != "spark":
            raise UsageError(f"{flag} goes with --engine spark",
                             hint=f"add --engine spark, or leave out {flag}")
    if (args.by or args.compare) and args.invariants is not None:
        raise UsageError("--by and --compare judge rules over runs; --invariants goes "
                         "alone", hint="run `workbench check --invariants` separately")
    if args.by and args.compare:
        raise UsageError("--by and --compare are two reports: give one",
                         hint="--compare groups by scenario already")
    rules = load_rules(args.rules)
    if args.invariants is not None:
        return _with_invariants(args, rules, sarif_out, junit_out)
    store = Store(resolve_store_path(args.store))
    result = check(store, rules, trace_ids=args.trace, engine=args.engine,
                   record=not args.no_record, using=_engine(args))
    if args.by or args.compare:
        return _rates(args, store, result, sarif_out, junit_out)
    write_report(sarif_out, dumps(sarif(result)).encode())
    write_report(junit_out, junit(result))

    def text() -> str:
        lines = [f"{f.severity:<5}  {f.rule}  {f.trace_id[:12]}  {f.message}"
                 for f in result.findings]
        lines.append(f"{result.errors} error(s), {len(result.findings) - result.errors} "
                     f"warning(s) in {result.traces_checked} trace(s), {len(rules)} rule(s)")
        return "\n".join(lines)

    emit(args, result.to_dict(), text)
    return 1 if result.errors else 0


def _rates(args: argparse.Namespace, store: Store, result: CheckResult, sarif_out: Any,
           junit_out: Any) -> int:
    """``--by`` or ``--compare``: the verdicts over runs decide the exit status."""
    groups, rates = rate_report(store, result, by=args.by, compare=args.compare,
                                max_rate=args.max_rate, alpha=args.alpha,
                                margin=args.margin)
    unlabelled = rates["unlabelled"]
    write_report(sarif_out, dumps(sarif_rates(result, groups)).encode())
    write_report(junit_out, junit_rates(groups, args.fail_inconclusive))
    doc = result.to_dict()
    doc["rates"] = rates
    failed = [g for g in groups if g.fails or (args.fail_inconclusive and g.severity ==
                                              "error" and g.verdict == "INCONCLUSIVE")]

    def text() -> str:
        lines = [g.text() for g in groups]
        if unlabelled:
            lines.append(f"note: {unlabelled} trace(s) name no scenario and are left out "
                         "(ingest --scenario)")
        verdicts = [g.verdict for g in groups]
        lines.append(", ".join(f"{verdicts.count(v)} {v}" for v in dict.fromkeys(verdicts))
                     + f" over {result.traces_checked} trace(s), {len(result.rules)} "
                     "rule(s)" if groups else "no runs of a scenario among the traces "
                     "checked (ingest --scenario)")
        return "\n".join(lines)

    emit(args, doc, text)
    return 1 if failed else 0


def _with_invariants(args: argparse.Namespace, rules: Any, sarif_out: Any,
                     junit_out: Any) -> int:
    """Rules and invariants in one run: one run id, one commit of findings, one report."""
    from ..invariants import check_invariants, load_spec, record_findings, report_rules
    from ._invariants import fault_windows

    windows = fault_windows(args.fault_window)
    spec = load_spec(args.invariants)
    store = Store(resolve_store_path(args.store))
    result = check(store, rules, trace_ids=args.trace, engine=args.engine, record=False,
                   using=_engine(args))
    inv = check_invariants(store, spec, trace_ids=args.trace, only=args.only, windows=windows,
                           record=False, require_http=False)
    if not args.no_record:
        record_findings(store, [f.to_row(result.run_id, result.checked_at, rules.source)
                                for f in result.findings]
                        + [f.to_row(result.run_id, result.checked_at, args.invariants)
                           for f in inv.findings])
    both = CheckResult(result.findings + inv.findings, result.traces_checked, rules,
                       result.engine, result.run_id, result.checked_at,
                       result.seconds + inv.seconds)
    report = [ReportRule(r.id, r.description or r.id, r.severity, r.kind, r.line)
              for r in rules] + report_rules(inv.invariants)
    write_report(sarif_out, dumps(sarif_findings(
        report, both.findings, source=rules.source, automation_id=f"workbench-check/"
        f"{both.run_id}", properties={"engine": both.engine,
                                      "traces_checked": both.traces_checked})).encode())
    write_report(junit_out, junit_findings(report, both.findings, both.traces_checked))
    doc = both.to_dict()
    doc["rules"] += inv.invariants
    doc["invariants"] = {k: v for k, v in inv.to_dict().items()
                         if k in ("exchanges", "judged", "undocumented", "not_judged")}

    def text() -> str:
        lines = [f"{f.severity:<5}  {f.rule}  {f.trace_id[:12]}  {f.message}"
                 for f in both.findings]
        lines.extend(f"note   not judged  {name}: {why} ({n} exchange(s))"
                     for (name, why), n in sorted(inv.not_judged.items()))
        lines.append(f"{both.errors} error(s), {len(both.findings) - both.errors} warning(s) "
                     f"in {both.traces_checked} trace(s), {len(rules)} rule(s) and "
                     f"{len(inv.invariants)} invariant(s) over {inv.judged} HTTP exchange(s)")
        return "\n".join(lines)

    emit(args, doc, text)
    return 1 if both.errors else 0


def run_findings(args: argparse.Namespace) -> int:
    store = Store(resolve_store_path(args.store))
    where, params = [], []
    if args.rule:
        where.append("rule = ?")
        params.append(args.rule)
    if args.trace:
        where.append("trace_id = ?")
        params.append(store.resolve_trace_id(args.trace))
    cond = (" WHERE " + " AND ".join(where)) if where else ""
    if args.group:
        if args.trace:
            cond = cond.replace("trace_id = ?", "signature IN (SELECT signature FROM findings "
                                "WHERE trace_id = ?)")
        table = store.sql(f"SELECT * FROM finding_groups{cond} ORDER BY last_seen DESC, "
                          "signature", params)
        rows = [finding_json(r) for r in to_rows(table)]
        emit(args, {"groups": rows}, lambda: "\n".join([render_table(
            ["signature", "rule", "count", "runs", "traces", "env", "status", "last replay",
             "where", "example"],
            [[r["signature"], r["rule"], r["count"], r["runs"], r["traces"], r["env"],
              r["status"], _last_replay(r), _where(r), r["example"]] for r in rows]),
            *_notes(rows)]) if rows else "no findings recorded")
        return 0
    table = store.sql(f"SELECT * FROM findings{cond} ORDER BY checked_at DESC, rule, "
                      "trace_id, seq", params)
    rows = [finding_json(r) for r in to_rows(table)]
    emit(args, {"findings": rows}, lambda: render_table(
        ["finding", "checked_at", "severity", "rule", "trace_id", "seq", "message"],
        [[r["finding_id"], r["checked_at"], r["severity"], r["rule"], r["trace_id"], r["seq"],
          r["message"]] for r in rows]) if rows else "no findings recorded")
    return 0


def _last_replay(row: dict[str, Any]) -> str:
    if not row.get("last_replay"):
        return "-"
    return f"{row['last_replay']} {str(row['last_replay_at'])[:19].replace('T', ' ')}"


def _notes(rows: list[dict[str, Any]]) -> list[str]:
    """Why a group's last replay observed nothing (docs/replay.md): the step that did not
    land and the likely cause, or the error."""
    return [f"{r['signature']}: last replay {r['last_replay']}: {r['last_replay_note']}"
            for r in rows if r.get("last_replay_note")]


def _where(row: dict[str, Any]) -> str:
    if not row.get("last_replay"):
        return "-"
    return f"{row['last_replay_env']} {row['last_replay_target']}"


