"""A scenario whose violation rate is known gets the right verdict at the stated error
rates (docs/statistics.md), over many seeds.

Each example draws a true rate, a number of runs and a seed, generates 2000 scenarios
of that many runs (1000 for the sequential test; numpy's generator, seeded) and counts
the wrong verdicts:

- ``check --by`` (Clopper-Pearson at 95 %, two-sided): at a rate at or under the
  maximum, FAIL (the lower bound above it) has chance at most 2.5 %; at a rate above
  it, PASS (the upper bound at or under it) has chance at most 2.5 %.
- the sequential test: FAIL at a rate at or under ``good`` has chance at most
  alpha / (1 - beta), PASS at a rate at or over ``bad`` at most beta / (1 - alpha).

The count of wrong verdicts among those independent scenarios is then at most a
binomial variable of as many trials at the stated rate; the assertion allows the count
that such a variable exceeds with chance under 1e-9, so an honest implementation fails
it on no seed in practice, while an error rate three times the stated one fails it but
for a chance under 1e-5. The examples are derandomized: CI runs the same seeds every
time.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from workbench.stats import SPRT, rate

SCENARIOS, SEQUENTIAL = 2000, 1000


def allowed(stated: float, scenarios: int = SCENARIOS) -> int:
    """The most wrong verdicts among ``scenarios`` at the stated error rate but for a
    chance under 1e-9."""
    return int(binom.isf(1e-9, scenarios, stated))


def test_the_margin_catches_an_error_rate_three_times_the_stated_one():
    # the assertions are not vacuous: three times the stated rate exceeds the allowance
    # but for a chance under 1e-5
    for stated, n in ((0.025, SCENARIOS), (0.05 / 0.95, SEQUENTIAL)):
        assert allowed(stated, n) > n * stated
        assert binom.cdf(allowed(stated, n), n, 3 * stated) < 1e-5


@settings(max_examples=60, deadline=None, derandomize=True)
@given(max_rate=st.sampled_from([0.02, 0.05, 0.1, 0.2]),
       where=st.floats(0.0, 1.0), above=st.booleans(),
       runs=st.integers(10, 300), seed=st.integers(0, 2**32 - 1))
def test_check_by_verdicts_hold_their_error_rates(max_rate, where, above, runs, seed):
    # the true rate: anywhere at or under the maximum, or anywhere above it
    p = max_rate + where * (0.5 - max_rate) if above else where * max_rate
    if above and p == max_rate:
        p = min(0.5, max_rate * 1.001)
    ks = np.random.default_rng(seed).binomial(runs, p, size=SCENARIOS).tolist()
    verdicts = {k: rate(k, runs, max_rate).verdict for k in set(ks)}
    wrong = sum(1 for k in ks if verdicts[k] == ("PASS" if above else "FAIL"))
    assert wrong <= allowed(0.025), (p, runs, wrong)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(max_rate=st.sampled_from([0.05, 0.1, 0.2]), alpha=st.sampled_from([0.05, 0.1]),
       beta=st.sampled_from([0.05, 0.1]), bad_side=st.booleans(),
       where=st.floats(0.0, 1.0), seed=st.integers(0, 2**32 - 1))
def test_the_sequential_test_holds_its_error_rates(max_rate, alpha, beta, bad_side, where,
                                                    seed):
    test = SPRT(max_rate, 150, alpha, beta)
    # a rate at or under good, or at or over bad (up to 0.6)
    p = test.p1 + where * (0.6 - test.p1) if bad_side else where * test.p0
    draws = np.random.default_rng(seed).random((SEQUENTIAL, test.max_runs)) < p
    wrong = 0
    for row in draws.tolist():
        s = test.start()
        for violated in row:
            if s.add(violated) is not None:
                break
        wrong += s.verdict == ("PASS" if bad_side else "FAIL")
    stated = test.error_rates["false_pass" if bad_side else "false_fail"]
    assert wrong <= allowed(stated, SEQUENTIAL), (p, wrong)
    # and the exact operating characteristic keeps Wald's bound, with no margin at all
    oc = test.operating(p)
    assert oc["PASS" if bad_side else "FAIL"] <= stated + 1e-12
