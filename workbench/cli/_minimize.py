"""``workbench minimize``."""

from __future__ import annotations

import argparse
from typing import Any

from ..minimize import (
    VOTES,
    MinimizeProgress,
    MinimizeResult,
    command_oracle,
    minimize,
    pick_rule,
    save_result,
    write_result,
)
from ..model import UsageError
from ..rules import load_rules
from ..store import Store, output_path, resolve_store_path
from ._main import common, emit, summary
from ._render import ProgressLine
from ._types import integer, seconds

EXAMPLE = """examples:
  workbench minimize 4bf92f35 --rules rules.yaml --rule approval-before-archive
  workbench minimize 4bf92f35 --rules rules.yaml --rule approval-before-archive \\
      --oracle-cmd 'python replay.py {trace}' --repeat 3 --max-calls 200 --out min.jsonl
  workbench minimize 4bf92f35 --invariants openapi.yaml --rule idempotent_retry \
      --target http://127.0.0.1:8080 --auth-env API_TOKEN --repeat 2
exit status: 0 minimized and proven 1-minimal; 1 a result that is not proven 1-minimal
(budget spent, or the final re-test did not fail); 2 bad input (no such finding ...)
"""


def register(sub: Any) -> None:
    p = sub.add_parser("minimize", help=summary("minimize"),
                       description="Reduce a stored trace to a dependency-closed sub-trace "
                       "that still yields the rule's finding with the same signature (or "
                       "still makes --oracle-cmd exit 1), and store it as a new trace "
                       "linked to its source.",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", metavar="TRACE", help="a trace id or a unique prefix of one")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--rules", metavar="RULES.yaml", help="the rules file")
    source.add_argument("--invariants", metavar="OPENAPI",
                        help="an OpenAPI document: --rule names a contract invariant")
    p.add_argument("--rule", required=True, metavar="ID",
                   help="the rule (or invariant) whose finding to keep")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--finding", type=integer(1, 1_000_000), metavar="N",
                       help="the N-th finding of the rule in step order (default: 1)")
    which.add_argument("--signature", metavar="S",
                       help="the first finding whose signature starts with S")
    p.add_argument("--oracle-cmd", metavar="CMD",
                   help="judge candidates with CMD ({trace} becomes a JSONL file; exit 1 = "
                        "still fails, 0 = passes, other = unresolved)")
    p.add_argument("--oracle-timeout", type=seconds(), metavar="SECONDS",
                   help="per run of --oracle-cmd; a run that times out is unresolved")
    p.add_argument("--repeat", type=integer(1, 100), default=1, metavar="N",
                   help="run the oracle up to N times per candidate (flaky oracles)")
    p.add_argument("--vote", choices=VOTES, default="any",
                   help="any: a candidate fails if any run fails (default); majority: if "
                        "most runs do")
    p.add_argument("--max-calls", type=integer(1, 10_000_000), metavar="N",
                   help="oracle call budget")
    p.add_argument("--max-seconds", type=seconds(), metavar="S", help="time budget")
    p.add_argument("--target", metavar="URL",
                   help="with --invariants: judge each candidate by replaying its HTTP steps "
                        "against this service (a live oracle; each replay is one call, "
                        "default budget 200 calls and 120 s)")
    p.add_argument("--auth-env", action="append", default=[], metavar="[HEADER=]VAR",
                   help="with --target: a credential from an environment variable (VAR: "
                        "Authorization; HEADER=VAR another header; repeat)")
    p.add_argument("--allow-writes", action="append", default=[], metavar="HOST",
                   help="with --target: allow writing steps to this host (loopback always)")
    p.add_argument("--out", metavar="FILE", help="also write the minimized trace as JSONL")
    p.add_argument("--no-save", action="store_true",
                   help="do not store the minimized trace")
    common(p)
    p.set_defaults(func=run)


class _Progress(ProgressLine):
    """The search's progress: phase, oracle calls, the smallest failing candidate."""

    def __call__(self, p: MinimizeProgress) -> None:
        best = f"smallest failing {p.best:,} of {p.total:,} events" if p.best else "no failure yet"
        self.show(f"minimize: {p.phase:<7} {p.calls:,} oracle calls, {best}, {p.seconds:.1f}s")


def _check_args(args: argparse.Namespace) -> None:
    if args.out is not None:
        output_path("--out", args.out)


def _text(result: MinimizeResult, saved: bool | None, out: str | None) -> str:
    proof = ("1-minimal (verified)" if result.one_minimal else
             f"NOT proven 1-minimal ({result.stopped or 'final re-test passed'})")
    lines = [f"minimized {result.source.trace_id[:12]} from {len(result.source):,} to "
             f"{len(result.kept_event_ids)} events in {result.oracle_calls} oracle calls, "
             f"{proof}, {result.seconds:.2f}s",
             f"rule {result.rule}  signature {result.signature}"]
    steps = result.source_seqs
    for e in result.trace.events:
        lines.append(f"  step {steps[e.event_id]:>6}  {e.kind:<9} {e.name}")
    if saved is not None:
        verb = "stored as" if saved else "already stored as"
        lines.append(f"{verb} {result.trace_id} (derived from {result.source.trace_id})")
    if out:
        lines.append(f"wrote {out}")
    return "\n".join(lines)


def _minimize_invariant(args: argparse.Namespace, progress: _Progress) -> MinimizeResult:
    from ..invariants import load_spec, minimize_invariant, pick_invariants

    if args.oracle_cmd or (args.repeat != 1 and args.target is None):
        raise UsageError("--invariants minimizes offline, or live with --target: "
                         "--oracle-cmd is for rules, --repeat for --oracle-cmd or --target")
    pick_invariants([args.rule])
    spec = load_spec(args.invariants)
    store = Store(resolve_store_path(args.store))
    trace = store.trace(store.resolve_trace_id(args.trace))
    if args.target is not None:
        from ..replay import minimize_live
        return minimize_live(trace, spec, args.rule, args.target, finding=args.finding,
                             signature=args.signature, auth_env=args.auth_env,
                             allow_writes=args.allow_writes, repeat=args.repeat,
                             vote=args.vote, max_calls=args.max_calls,
                             max_seconds=args.max_seconds, progress=progress,
                             redaction_key=store.redaction_key)
    return minimize_invariant(trace, spec, args.rule, finding=args.finding,
                              signature=args.signature, max_calls=args.max_calls,
                              max_seconds=args.max_seconds, progress=progress)


def run(args: argparse.Namespace) -> int:
    _check_args(args)
    if args.invariants is None and (args.target or args.auth_env or args.allow_writes):
        raise UsageError("--target, --auth-env and --allow-writes replay HTTP steps: they "
                         "go with --invariants OPENAPI")
    if args.invariants is not None:
        progress = _Progress()
        try:
            result = _minimize_invariant(args, progress)
        finally:
            progress.done()
        return _finish(args, Store(resolve_store_path(args.store)), result)
    rules = load_rules(args.rules)
    rule = pick_rule(rules, args.rule)
    store = Store(resolve_store_path(args.store))
    trace = store.trace(store.resolve_trace_id(args.trace))
    oracle = (command_oracle(args.oracle_cmd, args.oracle_timeout)
              if args.oracle_cmd else None)
    progress = _Progress()
    try:
        result = minimize(trace, rule, finding=args.finding, signature=args.signature,
                          oracle=oracle, repeat=args.repeat, vote=args.vote,
                          max_calls=args.max_calls, max_seconds=args.max_seconds,
                          progress=progress)
    finally:
        progress.done()
    return _finish(args, store, result)


def _finish(args: argparse.Namespace, store: Store, result: MinimizeResult) -> int:
    saved = None if args.no_save else save_result(store, result)
    if args.out:
        write_result(result, args.out)
    doc = result.to_dict()
    doc.update(stored=saved, out=args.out)
    emit(args, doc, lambda: _text(result, saved, args.out))
    return 0 if result.one_minimal else 1
