"""``workbench diff`` (two traces) and ``workbench shadow`` (two builds on fixtures)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..diff import (
    Canon,
    diff_traces,
    load_canon,
    render_diff,
    render_html,
    render_shadow,
    render_shadow_builds,
    render_shadow_runs,
    shadow,
    shadow_builds,
    shadow_runs,
)
from ..ingest import read_trace
from ..model import InputError, NotFoundError, StoreError, Trace, UsageError
from ..rules import load_rules
from ..store import Store, resolve_store_path
from ._main import common, emit, summary
from ._output import report_path, write_report
from ._types import integer, rate_type, seconds

RAW = argparse.RawDescriptionHelpFormatter
DEFAULT_OUT = "shadow-out"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "diff", help=summary("diff"),
        description="Align the events of two traces (by kind and name, anchored on rare "
        "events) and report added, removed, changed (path, old, new) and reordered events. "
        "A and B are trace ids (or unique prefixes) in the store, or trace files of any "
        "format `ingest` reads. Exit 1 when they differ.",
        epilog="examples:\n  workbench diff golden.jsonl new.jsonl --canon canon.yaml\n"
               "  workbench diff 4bf92f35 9c1e0b7a --rules rules.yaml --html diff.html\n"
               "  workbench diff a.otlp.json b.otlp.json --json",
        formatter_class=RAW)
    p.add_argument("a", metavar="A", help="the golden trace: an id, a prefix or a file")
    p.add_argument("b", metavar="B", help="the new trace: an id, a prefix or a file")
    p.add_argument("--canon", metavar="F", help="canon file: paths to drop and to symbolize")
    p.add_argument("--rules", metavar="F",
                   help="rules file: judge each reordering (breaks a rule, or allowed)")
    p.add_argument("--html", metavar="F", help="also write a side-by-side HTML page here")
    common(p)
    p.set_defaults(func=run_diff)

    p = sub.add_parser(
        "shadow", help=summary("shadow"),
        description="Run both builds on every file under FIXTURES_DIR ({fixture} in a "
        "command is the file's path), canonicalize their JSON output, compare sha256 "
        "digests and report each changed fixture with the changed paths. Mismatches "
        "leave NAME.old and NAME.new under --out. Exit 1 on any mismatch or failed build.",
        epilog="examples:\n"
               "  workbench shadow --old 'app-1.4 run {fixture}' --new 'app run {fixture}' "
               "fixtures/\n"
               "  workbench shadow --old 'old/bin/app {fixture}' --new 'app {fixture}' "
               "fixtures/ --canon canon.yaml --out shadow-out --json",
        formatter_class=RAW)
    p.add_argument("fixtures", metavar="FIXTURES_DIR", nargs="?")
    p.add_argument("--old", metavar="CMD", help="the released build's command")
    p.add_argument("--new", metavar="CMD", help="the candidate build's command")
    p.add_argument("--canon", metavar="F", help="canon file: paths to drop and to symbolize")
    p.add_argument("--out", metavar="DIR",
                   help=f"where NAME.old / NAME.new go (default: ./{DEFAULT_OUT})")
    p.add_argument("--glob", metavar="PATTERN", help="only fixtures matching, e.g. '*.json'")
    p.add_argument("--timeout", type=seconds(), default=120.0, metavar="S",
                   help="seconds one build may take on one fixture (default 120)")
    p.add_argument("--jobs", type=integer(1, 64), metavar="N",
                   help="fixtures run at once (default: cores, up to 4)")
    g = p.add_argument_group("runs per build (docs/statistics.md)")
    g.add_argument("--runs", type=integer(2, 1000), metavar="N",
                   help="run each build N times per fixture (the old build once more "
                        "first, as the reference) and report per changed field how often "
                        "each build's runs changed it, the difference with its interval, "
                        "Boschloo's p-value and REGRESSED / IMPROVED / NO CHANGE / "
                        "INCONCLUSIVE")
    g.add_argument("--compare", metavar="BASE..CANDIDATE",
                   help="instead of running builds: the stored runs of each scenario by "
                        "two builds (ingest --scenario --build), each diffed against the "
                        "base build's first run, compared field by field as --runs does")
    g.add_argument("--scenario", metavar="NAME", help="with --compare: only this scenario")
    g.add_argument("--reference", metavar="TRACE",
                   help="with --compare: diff every run against this trace (an id or "
                        "prefix: a golden run) instead of the base build's first run")
    g.add_argument("--alpha", type=rate_type, metavar="P",
                   help="with --runs or --compare: the exact test's level (default 0.05)")
    g.add_argument("--margin", type=rate_type, metavar="RATE",
                   help="with --runs or --compare: NO CHANGE when the difference's "
                        "interval lies within +- this (default 0.10)")
    g.add_argument("--fail-inconclusive", action="store_true",
                   help="with --runs or --compare: an INCONCLUSIVE field fails too (exit 1)")
    common(p)
    p.set_defaults(func=run_shadow)


def _canon(path: str | None) -> Canon:
    return load_canon(path) if path else Canon()


def _file_key(args: argparse.Namespace) -> bytes:
    """The key trace files are redacted under: the store's where there is one (a file
    then compares with a stored trace token for token), else one made for this run."""
    store = Store(resolve_store_path(args.store))
    if store.exists:
        try:
            return store.redaction_key()
        except StoreError:  # a store this user cannot write a key into
            pass
    return os.urandom(32)


def _operand(text: str, which: str, args: argparse.Namespace, key: bytes) -> Trace:
    """A trace file (redacted under ``key``, as ingest would), or a trace id (prefix) in
    the store."""
    p = Path(text)
    if p.is_file():
        traces = read_trace(p, key=key)
        if len(traces) != 1:
            raise InputError(f"{which}: {p} holds {len(traces)} traces", code="MULTIPLE_TRACES",
                             hint="ingest the file and name one trace id: "
                                  + ", ".join(t.trace_id for t in traces[:5]))
        return traces[0]
    if p.is_dir():
        raise InputError(f"{which}: {p} is a folder", code="NOT_A_FILE",
                         hint="give one trace file or a trace id")
    store = Store(resolve_store_path(args.store))
    if not store.exists:
        raise NotFoundError(f"{which}: no file {text!r}, and no store at {store.root} to find "
                            "a trace id in", code="TRACE_NOT_FOUND",
                            hint="A and B are trace files, or trace ids in --store")
    return store.trace(store.resolve_trace_id(text))


def run_diff(args: argparse.Namespace) -> int:
    html_out = report_path("--html", args.html)
    canon = _canon(args.canon)
    rules = load_rules(args.rules) if args.rules else None
    files = Path(args.a).is_file() or Path(args.b).is_file()
    key = _file_key(args) if files else b""
    a, b = _operand(args.a, "A", args, key), _operand(args.b, "B", args, key)
    result = diff_traces(a, b, canon, rules)
    if args.html:
        write_report(html_out, render_html(result, a, b).encode("utf-8"))
    emit(args, result.to_dict(), lambda: render_diff(result))
    return 0 if result.same else 1


def run_shadow(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.compare is not None:
        return _shadow_builds(args)
    if args.store is not None:
        raise UsageError("shadow takes no --store without --compare: it runs the builds "
                         "on the fixtures", hint="leave out --store, or compare stored runs: "
                                                 "shadow --compare BASE..CANDIDATE")
    if args.scenario is not None or args.reference is not None:
        raise UsageError("--scenario and --reference go with --compare BASE..CANDIDATE",
                         hint="a fixture is the scenario of a shadow run of two commands")
    missing = [o for o, v in (("--old", args.old), ("--new", args.new),
                              ("FIXTURES_DIR", args.fixtures)) if v is None]
    if missing:
        raise UsageError(f"shadow needs {missing[0]}",
                         hint="shadow --old CMD --new CMD FIXTURES_DIR, or shadow --compare "
                              "BASE..CANDIDATE over stored runs")
    if args.runs is not None:
        return _shadow_runs(args)
    given = [o for o, v in (("--alpha", args.alpha), ("--margin", args.margin),
                            ("--fail-inconclusive", args.fail_inconclusive or None))
             if v is not None]
    if given:
        raise UsageError(f"{given[0]} goes with --runs N or --compare BASE..CANDIDATE",
                         hint="e.g. --runs 20 --alpha 0.01; one run per build has no rates")
    result = shadow(args.old, args.new, args.fixtures, canon=_canon(args.canon),
                    out=args.out or DEFAULT_OUT, glob=args.glob, timeout=args.timeout,
                    jobs=args.jobs)
    emit(args, result.to_dict(), lambda: render_shadow(result))
    return 1 if result.mismatches else 0


def _shadow_runs(args: argparse.Namespace) -> int:
    result = shadow_runs(args.old, args.new, args.fixtures, runs=args.runs,
                         canon=_canon(args.canon), out=args.out or DEFAULT_OUT,
                         glob=args.glob,
                         timeout=args.timeout, jobs=args.jobs,
                         alpha=0.05 if args.alpha is None else args.alpha,
                         margin=0.10 if args.margin is None else args.margin)
    emit(args, result.to_dict(), lambda: render_shadow_runs(result))
    return 1 if result.failing(args.fail_inconclusive) else 0


def _shadow_builds(args: argparse.Namespace) -> int:
    """``shadow --compare``: stored runs, so no command, fixture or run option."""
    given = [o for o, v in (("--old", args.old), ("--new", args.new),
                            ("FIXTURES_DIR", args.fixtures), ("--runs", args.runs),
                            ("--out", args.out), ("--glob", args.glob),
                            ("--jobs", args.jobs)) if v is not None]
    if given:
        raise UsageError(f"{given[0]} runs builds; --compare reads stored runs",
                         hint="shadow --compare BASE..CANDIDATE [--scenario S] [--canon F], "
                              "or shadow --old CMD --new CMD FIXTURES_DIR --runs N")
    store = Store(resolve_store_path(args.store))
    if not store.exists:
        raise NotFoundError(f"no store at {store.root}", code="STORE_NOT_FOUND",
                            hint="ingest the runs with --scenario and --build first")
    result = shadow_builds(store, args.compare, canon=_canon(args.canon),
                           scenario=args.scenario, reference=args.reference,
                           alpha=0.05 if args.alpha is None else args.alpha,
                           margin=0.10 if args.margin is None else args.margin)
    emit(args, result.to_dict(), lambda: render_shadow_builds(result))
    return 1 if result.failing(args.fail_inconclusive) else 0
