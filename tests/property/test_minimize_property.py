"""Hypothesis: a minimized trace still fails with the same signature, is closed under
dependencies, is no bigger than the input and is 1-minimal — for rule oracles on
random agent traces and for arbitrary (even non-monotone) oracles on random DAGs."""

import hashlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.dags import agent_trace, brute_one_minimal, ev, ids
from workbench.minimize import RuleOracle, minimize, minimize_trace
from workbench.model import Trace
from workbench.rules import check_trace, parse_rules

RULES = parse_rules("""version: 1
rules:
  approval-before-archive:
    before: {first: {tool: request_approval, where: {result.approved: true}}, then: {tool: archive_project}, same: [args.project_id]}
  no-retry:
    never: {event: {tool: retry_job}, after: {tool: get_job, where: {result.retry_allowed: false}}, same: [args.job_id]}
  one-capture:
    count: {event: {tool: charge, where: {result.status: captured}}, per: [args.cart_id], max: 1}
  known-status:
    every: {event: {tool: get_job}, where: {result.status: {in: [queued, running]}}}
  owned-only:
    flow: {event: {tool: archive_project}, value: args.project_id, from: {tool: list_projects}, from_value: "result.items[*].id", source_where: {owner: {in: [a]}}}
""")

KEYS = st.sampled_from(["p1", "p2"])
STEP = st.one_of(
    st.builds(lambda k, ok: ("request_approval", {"project_id": k}, {"approved": ok}), KEYS,
              st.booleans()),
    st.builds(lambda k: ("archive_project", {"project_id": k}, {}), KEYS),
    st.builds(lambda k, ok: ("get_job", {"job_id": k}, {"retry_allowed": ok,
                                                        "status": "queued" if ok else "odd"}),
              KEYS, st.booleans()),
    st.builds(lambda k: ("retry_job", {"job_id": k}, {}), KEYS),
    st.builds(lambda k: ("charge", {"cart_id": k}, {"status": "captured"}), KEYS),
    st.builds(lambda o: ("list_projects", {}, {"items": [{"id": "p1", "owner": o},
                                                         {"id": "p2", "owner": "a"}]}),
              st.sampled_from(["a", "b"])),
    st.just(("noise", {}, {})),
)


# One violation of each rule, planted among the random steps so every example has a
# finding to shrink (generated, not filtered: most random traces break no `flow` rule).
# The planted keys (p9, j9, c9) are never drawn by STEP, so nothing random can repair it.
PLANTED = {
    "approval-before-archive": st.just([("archive_project", {"project_id": "p9"}, {})]),
    "no-retry": st.just([("get_job", {"job_id": "j9"}, {"retry_allowed": False,
                                                      "status": "odd"}),
                         ("retry_job", {"job_id": "j9"}, {})]),
    "one-capture": st.just([("charge", {"cart_id": "c9"}, {"status": "captured"})] * 2),
    "known-status": st.just([("get_job", {"job_id": "j9"}, {"retry_allowed": False,
                                                          "status": "odd"})]),
    "owned-only": st.sampled_from([
        [("archive_project", {"project_id": "p9"}, {})],  # never listed
        [("list_projects", {}, {"items": [{"id": "p9", "owner": "b"}]}),  # listed, not a's
         ("archive_project", {"project_id": "p9"}, {})],
    ]),
}


@st.composite
def agent_traces(draw, rid):
    steps = draw(st.lists(STEP, max_size=16))
    lo = 0
    for step in draw(PLANTED[rid]):  # in order: each lands after the one before it
        at = draw(st.integers(lo, len(steps)))
        steps.insert(at, step)
        lo = at + 1
    events = [ev("r", 0, "agent", kind="agent")]
    for i, (name, args, result) in enumerate(steps, start=1):
        parent = draw(st.sampled_from([e.event_id for e in events[-3:]]))
        earlier = [e.event_id for e in events[1:]]
        refs = draw(st.lists(st.sampled_from(earlier), max_size=1)) if earlier else []
        events.append(ev(f"e{i}", i, name, parent=parent, args=args, result=result,
                         refs=refs))
    return Trace.from_events(events)


@st.composite
def rule_and_trace(draw):
    rid = draw(st.sampled_from(sorted(PLANTED)))
    return rid, draw(agent_traces(rid))


def closed(trace, kept):
    return trace.closure(kept) == set(kept)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_and_trace(), st.data())
def test_rule_minimization_keeps_the_signature_closed_smaller_and_1_minimal(case, data):
    rid, trace = case
    rule = RULES.get(rid)
    found = check_trace(trace, [rule])
    assert found, "the planted violation is found"
    n = data.draw(st.integers(1, len(found)))
    r = minimize(trace, rule, finding=n)
    kept = set(r.kept_event_ids)
    oracle = RuleOracle(rule, found[n - 1].signature)
    assert oracle(trace.subtrace(kept))
    assert r.signature in {f.signature for f in check_trace(r.trace, [rule])}
    assert closed(trace, kept) and len(kept) <= len(trace)
    assert r.one_minimal and brute_one_minimal(trace, kept, oracle)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10**6), st.data(), st.booleans())
def test_any_oracle_gets_a_closed_failing_1_minimal_answer(n, seed, data, monotone):
    trace = agent_trace(n, seed)
    all_ids = sorted(ids(trace))
    culprits = set(data.draw(st.lists(st.sampled_from(all_ids), min_size=1, max_size=4)))

    def oracle(t):
        here = ids(t)
        if len(here) == n:
            return True
        if not culprits <= here:
            return False
        if monotone:
            return True
        digest = hashlib.sha256(",".join(sorted(here)).encode()).digest()
        return digest[0] % 3 != 0  # fails on two thirds of the supersets, at random

    r = minimize_trace(trace, oracle, whole_fails=True, retest=False)
    kept = set(r.kept_event_ids)
    assert oracle(trace.subtrace(kept)) and closed(trace, kept) and len(kept) <= n
    assert r.one_minimal and brute_one_minimal(trace, kept, oracle)
    if monotone:
        assert kept == trace.closure(culprits)


@settings(max_examples=40, deadline=None)
@given(st.integers(8, 120), st.integers(0, 10**6), st.integers(0, 10**6), st.data())
def test_a_30_percent_flaky_oracle_still_gets_the_exact_1_minimal_answer(n, seed, luck, data):
    import random

    trace = agent_trace(n, seed)
    culprits = set(data.draw(st.lists(st.sampled_from(sorted(ids(trace))), min_size=1,
                                      max_size=3)))
    rnd = random.Random(luck)

    def flaky(t):  # reproduces only 30 % of the time, never without the culprits
        return culprits <= ids(t) and rnd.random() < 0.3

    r = minimize_trace(trace, flaky, whole_fails=True, repeat=40)
    # a miss needs 40 misses in a row (0.7**40 < 1e-6) on one of a few dozen candidates
    assert set(r.kept_event_ids) == trace.closure(culprits)
    assert r.one_minimal and r.retest is True
