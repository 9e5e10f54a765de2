"""``workbench promote`` and ``workbench verify``: incidents into fixtures, and fixtures
checked against their lock."""

from __future__ import annotations

import argparse
from typing import Any

from ..fixtures import (
    DEFAULT_FIXTURES,
    LOCK_FILE,
    PromoteResult,
    VerifyResult,
    finding_line,
    promote,
    relock,
    verify,
)
from ..model import UsageError
from ..redact import load_policy, masked
from ..rules import load_rules
from ..store import Store, resolve_store_path
from ._main import common, emit, summary
from ._types import integer

PROMOTE_EXAMPLE = """examples:
  workbench promote 4bf92f35 --rules rules.yaml --name archive-incident
  workbench promote 4bf92f35 --rules rules.yaml --name archive-incident \\
      --minimize approval-before-archive --policy promote-policy.yaml
  workbench promote 9c01 --rules rules.yaml --name archive-incident \\
      --note 'result.status: the API now answers paused_for_review' --json
exit status: 0 promoted (or a version already holds this content: "unchanged: NAME/vN");
2 refused (unknown trace, bad rules or policy, a clean trace, a policy that hides
the findings, a note that does not name what changed ...), nothing written
"""

VERIFY_EXAMPLE = """examples:
  workbench verify
  workbench verify --fixtures tests/fixtures --json
exit status: 0 every fixture matches its pin (or a hand edit is named in its note);
1 problems (each with the fixture, a code and a message); 2 no such folder
"""


def register(sub: Any) -> None:
    p = sub.add_parser("promote", help=summary("promote"),
                       description="Redact a stored trace with the promotion policy (and "
                       "optionally minimize it first), and write it with the rules that "
                       "catch it as the next version DIR/NAME/vN/ of a fixture; "
                       "DIR/fixtures.lock pins its content hash.",
                       epilog=PROMOTE_EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", metavar="TRACE", help="a trace id or a unique prefix of one")
    p.add_argument("--rules", required=True, metavar="RULES.yaml", help="the rules file")
    p.add_argument("--name", required=True, metavar="NAME",
                   help="the fixture's name (lower case, digits, '-', '_', '.')")
    p.add_argument("--policy", metavar="F",
                   help="the promotion policy (default: keep what the rules test, "
                        "pseudonymize what they correlate, shapes for the rest)")
    p.add_argument("--minimize", metavar="RULE",
                   help="minimize the trace to the steps that still break RULE first")
    p.add_argument("--finding", type=integer(1, 1_000_000), metavar="N",
                   help="with --minimize: RULE's N-th finding in step order (default: "
                        "the first), as `workbench minimize --finding N`")
    p.add_argument("--fixtures", metavar="DIR", default=str(DEFAULT_FIXTURES),
                   help=f"the fixtures folder (default: {DEFAULT_FIXTURES})")
    p.add_argument("--note", metavar="TEXT",
                   help="why this version exists; a new version's note names each field "
                        "that changed since the last one")
    p.add_argument("--allow-clean", action="store_true",
                   help="promote a trace the rules find nothing in (it must stay clean)")
    common(p)
    p.set_defaults(func=run_promote)

    v = sub.add_parser("verify", help=summary("verify"),
                       description="Recompute the content hash of every fixture version "
                       "and report versions that changed without a new version or a note "
                       "naming the changed field, unreadable files, and versions missing "
                       f"from or absent in {LOCK_FILE}.",
                       epilog=VERIFY_EXAMPLE,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("--fixtures", metavar="DIR", default=str(DEFAULT_FIXTURES),
                   help=f"the fixtures folder (default: {DEFAULT_FIXTURES})")
    v.add_argument("--relock", action="store_true",
                   help=f"first pin in {LOCK_FILE} the file bytes of every version whose "
                        "content matches its pin (a lock older than byte pins, a file "
                        "rewritten on purpose); then verify")
    common(v, store=False)
    v.set_defaults(func=run_verify)


def _promote_text(r: PromoteResult) -> str:
    m = r.manifest
    if not r.written:
        latest = (f"; the latest version is v{r.previous}"
                  if r.previous is not None and r.previous != r.version else "")
        return (f"unchanged: {r.fixture} already holds this content "
                f"(sha256 {m['content_sha256'][:16]}{latest}); nothing written")
    src, mini = m["source"], m["minimization"]
    tid = src["trace_id"]
    shown = tid[:12] if len(tid) == 32 and all(c in "0123456789abcdef" for c in tid) else tid
    lines = [f"promoted {shown} as {r.fixture} ({r.path})"]
    size = f"  {m['trace']['events']} of {src['events']} events"
    if mini:
        proof = "1-minimal" if mini["one_minimal"] else "not proven 1-minimal"
        size += f" (minimized by {mini['rule']}: {mini['oracle_calls']} oracle calls, {proof})"
    lines.append(size)
    lines.append(f"  rules: {', '.join(m['rules'])}")
    lines.append("  expected findings:" if m["expected_findings"] else
                 "  expected findings: none (a clean trace: the rules must keep accepting it)")
    for e in m["expected_findings"]:
        lines.append(f"    {finding_line(e['rule'], e['seq'], e['operation'], e['message'])}"
                     f"  [{e['signature']}]")
    if m["dropped_findings"]:
        rules = sorted({d["rule"] for d in m["dropped_findings"]})
        lines.append(f"  dropped by minimization: {len(m['dropped_findings'])} finding(s) of "
                     f"{', '.join(rules)}")
    pol = m["policy"]
    origin = "the rules' own paths" if pol["origin"] == "rules" else "the policy file"
    hits = sum(m["redactions"].values())
    lines.append(f"  policy: {origin} (keep {len(pol['keep'])} paths, pseudonymize "
                 f"{len(pol['pseudonymize'])}); {hits} value(s) redacted by the detectors")
    if r.changed_fields:
        lines.append(f"  changed since v{r.previous}: {', '.join(r.changed_fields[:10])}"
                     + (" …" if len(r.changed_fields) > 10 else ""))
    lines.append(f"  content sha256 {m['content_sha256'][:16]}…, pinned in {LOCK_FILE}")
    return "\n".join(lines)


def run_promote(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    policy = load_policy(args.policy) if args.policy else None
    if args.finding is not None and args.minimize is None:
        raise UsageError("--finding picks the finding --minimize RULE minimizes: name "
                         "the rule with --minimize")
    store = Store(resolve_store_path(args.store))
    trace = store.trace(store.resolve_trace_id(args.trace))
    result = promote(trace, rules, args.name, key=store.redaction_key(),
                     fixtures_dir=args.fixtures, policy=policy, minimize_rule=args.minimize,
                     minimize_finding=args.finding, store=store, note=args.note,
                     allow_clean=args.allow_clean)
    emit(args, result.to_dict(), lambda: _promote_text(result))
    return 0


def _verify_text(r: VerifyResult) -> str:
    lines = [f"{p.fixture}  {p.code}  {p.message}" for p in sorted(r.problems)]
    lines += [f"{a['fixture']}  accepted  hand edit of {', '.join(a['fields'][:8])} "
              "(named in the manifest note)" for a in r.accepted]
    lines += [f"{f}  relocked  its files' bytes pinned in {LOCK_FILE}" for f in r.relocked]
    lines += [f"{f}  unpinned bytes; re-lock (`workbench verify --relock`): {LOCK_FILE} "
              "pins its content only" for f in r.unpinned]
    n = len(r.problems)
    lines.append(f"verified {r.fixtures} fixture version(s) under {masked(str(r.root))}: "
                 + (f"{n} problem(s)" if n else "no problems"))
    return "\n".join(lines)


def run_verify(args: argparse.Namespace) -> int:
    result = verify(args.fixtures, relocked=relock(args.fixtures) if args.relock else None)
    emit(args, result.to_dict(), lambda: _verify_text(result))
    return 1 if result.problems else 0
