"""The search on hand-built traces: known answers, call counts, fall-backs, budgets."""

import math

import pytest

from tests.dags import agent_trace, brute_one_minimal, closure, ev, ids
from workbench.minimize import NotReproducedError, minimize_trace
from workbench.model import Trace


def needs(*culprits):
    """A monotone oracle: fails while every culprit is present."""
    want = set(culprits)
    return lambda t: want <= ids(t)


def test_one_culprit_in_a_flat_trace_costs_about_log2_n_calls():
    t = Trace.from_events([ev(f"e{i}", i, "x") for i in range(64)])
    r = minimize_trace(t, needs("e37"), whole_fails=True, retest=False)
    assert r.kept_event_ids == ("e37",) and r.one_minimal
    # 6 bisection calls for 64 positions, one "is the culprit alone enough?", no sweep
    # call: removing the only event leaves nothing, which never fails
    assert r.calls_by_phase == {"search": 7}


def test_culprits_come_with_their_dependencies():
    t = agent_trace(200, seed=1)
    r = minimize_trace(t, needs("e150", "e40"), whole_fails=True)
    assert set(r.kept_event_ids) == closure(t, ["e150", "e40"])
    assert r.one_minimal and r.retest is True
    assert r.calls_by_phase["search"] <= 1.3 * math.log2(math.comb(200, 2)) + 2


def test_the_witness_is_tried_first_and_then_only_verified():
    t = agent_trace(500, seed=2)
    r = minimize_trace(t, needs("e300"), witness=["e300"], whole_fails=True, retest=False)
    assert set(r.kept_event_ids) == closure(t, ["e300"])
    assert r.witness_failed is True and "search" not in r.calls_by_phase
    assert r.calls_by_phase["witness"] == 1
    assert r.calls_by_phase["sweep"] == len(r.kept_event_ids) - 1  # the root: nothing left


def test_a_witness_that_does_not_fail_falls_back_to_the_search():
    t = agent_trace(120, seed=3)
    r = minimize_trace(t, needs("e100", "e20"), witness=["e100"], whole_fails=True)
    assert r.witness_failed is False
    assert set(r.kept_event_ids) == closure(t, ["e100", "e20"])


def test_an_oracle_that_passes_on_the_whole_trace_is_refused():
    t = Trace.from_events([ev(f"e{i}", i, "x") for i in range(8)])
    with pytest.raises(NotReproducedError):
        minimize_trace(t, lambda tr: False)


@pytest.mark.parametrize("seed", range(6))
def test_a_non_monotone_oracle_still_gets_a_failing_1_minimal_answer(seed):
    t = agent_trace(40, seed=seed)

    def odd(tr):  # the whole trace, or e30 with an odd number of tool calls
        return len(tr) == len(t) or (
            "e30" in ids(tr) and sum(e.kind == "tool_call" for e in tr.events) % 2 == 1)

    r = minimize_trace(t, odd, whole_fails=True, retest=False)
    kept = set(r.kept_event_ids)
    assert odd(t.subtrace(kept)) and r.one_minimal
    assert kept == closure(t, kept) and "e30" in kept
    assert brute_one_minimal(t, kept, odd)


def test_the_call_budget_returns_the_smallest_failure_seen_unproven():
    t = agent_trace(1000, seed=5)
    r = minimize_trace(t, needs("e900", "e10"), whole_fails=True, max_calls=5)
    assert r.oracle_calls == 5 and r.stopped == "max_calls" and not r.one_minimal
    assert {"e900", "e10"} <= set(r.kept_event_ids)
    assert set(r.kept_event_ids) == closure(t, r.kept_event_ids)


def test_a_flaky_oracle_that_fails_30_percent_of_the_time_still_gets_the_answer():
    import random
    t = agent_trace(300, seed=6)
    for seed in range(5):
        rnd = random.Random(seed)
        want = {"e250", "e60"}
        calls = []

        def flaky(tr, rnd=rnd, want=want, calls=calls):
            calls.append(1)
            return want <= ids(tr) and rnd.random() < 0.3

        r = minimize_trace(t, flaky, whole_fails=True, repeat=30)
        assert set(r.kept_event_ids) == closure(t, want), seed
        assert r.one_minimal and r.retest is True
        assert r.oracle_calls == len(calls)


def test_an_oracle_that_fails_only_on_the_whole_trace_falls_back_to_the_sweep():
    t = agent_trace(24, seed=7)
    whole = len(t)
    r = minimize_trace(t, lambda tr: len(tr) == whole, whole_fails=True, retest=False)
    assert r.fell_back and r.one_minimal and len(r.kept_event_ids) == whole
    assert r.oracle_calls < whole * math.log2(whole)


def test_the_time_budget_stops_the_search_too():
    import time

    t = agent_trace(1000, seed=8)

    def slow(tr):
        time.sleep(0.02)
        return {"e900", "e10"} <= ids(tr)

    r = minimize_trace(t, slow, whole_fails=True, max_seconds=0.1)
    assert r.stopped == "max_seconds" and not r.one_minimal
    assert {"e900", "e10"} <= set(r.kept_event_ids)
