"""``workbench runs``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..rules import load_rules
from ..runs import RunsResult, run_scenario
from ..stats import SPRT
from ..store import Store, resolve_store_path
from ._main import common, emit, summary
from ._types import integer, rate_type, seconds

EXAMPLE = """examples:
  workbench runs 'python agent.py --task refund --trace-out {out}' --scenario refund \\
      --rules rules.yaml --max 40 --max-rate 0.05
  workbench runs './run-agent.sh {run}' --scenario checkout --build 1.5.0 --rules r.yaml

The command writes each run's trace to {out} (or prints it); {run}, {scenario} and
{build} are replaced too, and OTEL_RESOURCE_ATTRIBUTES names the scenario and build.
Runs stop when Wald's sequential test decides every `error` rule: PASS (rate at most the
good rate), FAIL (at least the bad rate), or INCONCLUSIVE after --max runs.
exit status: 0 PASS, 1 FAIL or INCONCLUSIVE, 2 bad input or a run that gave no trace.
"""


def register(sub: Any) -> None:
    p = sub.add_parser("runs", help=summary("runs"),
                       description="Run an agent's command once per run of a scenario, "
                       "store and check each run's trace, and stop as soon as a "
                       "sequential probability ratio test decides each rule's violation "
                       "rate against --max-rate (docs/statistics.md).",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", metavar="CMD", help="the agent's command, one string")
    p.add_argument("--scenario", required=True, metavar="NAME",
                   help="the scenario the runs are of (kept with each trace)")
    p.add_argument("--build", metavar="ID", help="the build of the agent under test")
    p.add_argument("--rules", required=True, metavar="RULES.yaml",
                   help="the rules each run is judged by")
    p.add_argument("--max", type=integer(1, 100_000), default=40, metavar="N",
                   help="runs at most (default 40); undecided then: INCONCLUSIVE")
    p.add_argument("--max-rate", type=rate_type, default=0.05, metavar="RATE",
                   help="the violation rate a rule may have (default 0.05)")
    p.add_argument("--good-rate", type=rate_type, metavar="RATE",
                   help="the rate the test must PASS (default: half of --max-rate)")
    p.add_argument("--bad-rate", type=rate_type, metavar="RATE",
                   help="the rate the test must FAIL (default: twice --max-rate, at most "
                        "halfway to 1)")
    p.add_argument("--alpha", type=rate_type, default=0.05, metavar="P",
                   help="the chance of FAIL at the good rate (default 0.05)")
    p.add_argument("--beta", type=rate_type, default=0.05, metavar="P",
                   help="the chance of PASS at the bad rate (default 0.05)")
    p.add_argument("--timeout", type=seconds(), default=300.0, metavar="S",
                   help="seconds per run (default 300)")
    common(p)
    p.set_defaults(func=run)


def _text(result: RunsResult) -> str:
    t = result.test
    lines = [f"run {r['run']}: " + (", ".join(r["violated"]) if r["violated"] else "clean")
             for r in result.runs]
    for rule, s in result.states.items():
        lines.append(f"{s.verdict or '-':<12} {rule}  {s.rate().text()} after {s.runs} "
                     f"run(s)" + ("" if result.severities[rule] == "error" else "  (warn)"))
    lines.append(f"{result.verdict} after {len(result.runs)} run(s) of {result.scenario}"
                 + (f" @ {result.build}" if result.build else "")
                 + f" (SPRT: good {t.p0:.1%}, bad {t.p1:.1%}, alpha {t.alpha:g}, "
                   f"beta {t.beta:g}, at most {t.max_runs} runs)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    test = SPRT(args.max_rate, args.max, args.alpha, args.beta, args.good_rate,
                args.bad_rate)
    store = Store(resolve_store_path(args.store))

    def progress(entry: dict[str, Any]) -> None:
        if not args.json and sys.stderr.isatty():
            sys.stderr.write(f"\rrun {entry['run']}" + " " * 8)

    result = run_scenario(args.command, store, rules, scenario=args.scenario,
                          build=args.build, test=test, timeout=args.timeout,
                          progress=progress)
    emit(args, result.to_dict(), lambda: _text(result))
    return 0 if result.verdict == "PASS" else 1
