"""``workbench replay``: a finding (or a group's representative) re-run against a
target, recorded, judged and appended to ``replays``; the group's status after it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..replay import OUTCOME_CODES, ReplayResult, run_replay
from ..store import Store, resolve_store_path
from ._main import common, emit, summary
from ._types import integer, rate_type, seconds

EXAMPLE = """examples:
  workbench replay 3f2a9c1e --target http://127.0.0.1:8080 --auth-env API_TOKEN
  workbench replay 9b0e4d27aa13c5f1 --target http://127.0.0.1:8080 --env staging --json
  workbench replay 3f2a9c1e --target https://staging.example.com --allow-writes \\
      staging.example.com --auth-env x-api-key=STAGING_KEY
  workbench replay 3f2a9c1e --target http://127.0.0.1:8080 --oracle-cmd 'python run.py {trace}'
exit status: 0 not reproduced in any attempt; 1 reproduced in at least one; 2 bad input,
or no attempt observed a result (the attempts are still recorded, as outcome error or
diverged: a step answered 404/405/501 or a redirect where the recording had another
answer, or nobody answered)
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "replay", help=summary("replay"),
        description="Re-run a finding's steps (its minimized trace where one is stored) "
        "against --target: HTTP steps are sent with ids from earlier answers replaced by "
        "the new answers' ids and credentials from --auth-env variables only; each attempt "
        "is recorded as a trace in --env, judged by the same rule or invariant, and "
        "appended to the store's replays table. A group is fixed after --attempts (at least "
        "3) clean replays in the environment its findings came from (docs/replay.md).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ref", metavar="FINDING|GROUP",
                   help="a finding id (findings --json: finding_id) or a group's signature, "
                        "or a unique prefix of 4+ digits")
    p.add_argument("--target", required=True, metavar="URL",
                   help="the service to replay against: an http:// or https:// base URL")
    p.add_argument("--env", metavar="NAME",
                   help="the target's environment (default: the finding's own)")
    p.add_argument("--attempts", type=integer(1, 1000), default=3, metavar="N",
                   help="replay N times (default 3; a race rarely recurs on the first try)")
    p.add_argument("--auth-env", action="append", default=[], metavar="[HEADER=]VAR",
                   help="a credential from an environment variable: VAR is the "
                        "Authorization header, HEADER=VAR another (repeat)")
    p.add_argument("--allow-writes", action="append", default=[], metavar="HOST",
                   help="allow writing steps (POST, PUT, PATCH, DELETE) to this host; "
                        "loopback hosts are always allowed (repeat)")
    p.add_argument("--oracle-cmd", metavar="CMD",
                   help="run tool-call steps with CMD ({trace} becomes the steps' JSONL "
                        "file; exit 1 = reproduced, 0 = clean, other = error)")
    p.add_argument("--oracle-timeout", type=seconds(), metavar="SECONDS",
                   help="per run of --oracle-cmd")
    judge = p.add_mutually_exclusive_group()
    judge.add_argument("--invariants", metavar="OPENAPI",
                       help="the OpenAPI document an invariant's finding is judged against "
                            "(default: the one the finding was found with)")
    judge.add_argument("--rules", metavar="RULES.yaml",
                       help="the rules file a rule's finding is judged against (default: "
                            "the one it was found with)")
    p.add_argument("--fixed-below", type=rate_type, metavar="RATE",
                   help="read the group by this run's reproduction rate: fixed when the "
                        "upper bound of its 95%% interval is under RATE, flaky when the "
                        "interval holds it (default: fixed after clean attempts, at least "
                        "three)")
    p.add_argument("--timeout", type=seconds(maximum=600), default=10.0, metavar="SECONDS",
                   help="per request (default 10)")
    common(p)
    p.set_defaults(func=run)


def _text(r: ReplayResult) -> str:
    p = r.picked
    what = "group" if p.kind == "group" else "finding"
    lines = [f"replay of {what} {p.finding_id if p.kind == 'finding' else p.signature} "
             f"({p.rule}, from env {p.env}) against {r.target} in env {r.env}",
             f"  steps from trace {p.source_trace[:12]}"
             + (f"; {r.regenerated} generated value(s) drawn again from the probe's seed"
                if r.regenerated else "")]
    for run in r.runs:
        line = f"  attempt {run.attempt}: {run.outcome:<10} {run.steps_run}/{run.steps} steps"
        d = run.divergence
        if run.outcome == "diverged" and d is not None:
            line += f"  at step {d.step}: {d.message}"
        elif run.error_code:
            line += f"  error[{run.error_code}]: {run.error_message}"
        elif run.signature and not run.reproduced:
            line += f"  (another finding: {run.signature})"
        if run.reproduced and d is not None:
            line += f"\n    (step {d.step} did not land: {d.message}; the finding's steps did)"
        if run.tokens_sent:
            shown = ", ".join(map(str, run.tokens_sent[:8]))
            more = f" and {len(run.tokens_sent) - 8} more" if len(run.tokens_sent) > 8 else ""
            line += (f"\n    sent redaction tokens in step(s) {shown}{more}: values that "
                     "could not be regenerated from the seed (not a faithful replay)")
        lines.append(line)
    verdict = {True: "reproduced", False: "not reproduced", None: "nothing observed"}
    said = verdict[r.reproduced]
    if r.reproduced is None and any(run.outcome == "diverged" for run in r.runs):
        said = "no attempt landed"
    rep = r.reproduction()
    if rep is not None:
        lines.append(f"  reproduced in {rep['reproduced']} of {rep['observed']} observed "
                     f"attempt(s) = {rep['rate']:.1%} [{rep['low']:.1%}, {rep['high']:.1%}] "
                     "(95% Clopper-Pearson)")
    lines.append(f"{said}; group {p.signature} is {r.status}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    store = Store(resolve_store_path(args.store))
    result = run_replay(store, args.ref, args.target, env=args.env, attempts=args.attempts,
                        auth_env=args.auth_env, oracle_cmd=args.oracle_cmd,
                        oracle_timeout=args.oracle_timeout, allow_writes=args.allow_writes,
                        invariants=args.invariants, rules=args.rules, timeout=args.timeout,
                        fixed_below=args.fixed_below)
    emit(args, result.to_json(), lambda: _text(result))
    err = result.error
    if err is not None:
        sys.stderr.write(f"error[{err.error_code}]: {err.error_message}\n  hint: "
                         f"{OUTCOME_CODES.get(err.error_code or '', '')}; the attempt is "
                         f"recorded with outcome {err.outcome}\n")
        return 2
    return 1 if result.reproduced else 0
