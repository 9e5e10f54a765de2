"""Minimizing a real HAR keeps only what breaks the rule (tests/corpus/polly-har/).

Polly.js recorded a browser walking a React admin against jsonplaceholder: five GETs,
/posts, /users, /todos, /users, /users, each answered with the CORS header that echoes
the browser's Origin. The rule allows /users twice; the three /users calls alone
break it. With the echo taken for data flow, every later call "came from" the /posts
answer and minimization kept it too (5 -> 4 events); now 5 -> 3.
"""

from pathlib import Path

from workbench.ingest import read_trace
from workbench.minimize import minimize
from workbench.rules import check_trace, parse_rules

HAR = Path(__file__).resolve().parents[2] / "corpus" / "polly-har" / \
    "jest-puppeteer-navigate-all-routes.har"
RULES = parse_rules("""version: 1
rules:
  users-listed-at-most-twice:
    count: {event: {kind: http, where: {args.path: /users}}, max: 2}
""")


def test_the_three_users_calls_alone_are_kept():
    (trace,) = read_trace(HAR)
    assert [e.name for e in trace.events] == [
        "GET /posts", "GET /users", "GET /todos", "GET /users", "GET /users"]
    assert all(not e.refs for e in trace.events)  # the Origin echo is no data flow
    rule = RULES.get("users-listed-at-most-twice")
    assert len(check_trace(trace, [rule])) == 1
    r = minimize(trace, rule)
    kept = [r.source[i] for i in r.kept_event_ids]
    assert [(e.seq, e.name) for e in kept] == [(1, "GET /users"), (3, "GET /users"),
                                               (4, "GET /users")]
    assert (len(trace.events), len(kept)) == (5, 3)
