"""`shadow --runs`: a generated scenario whose fields change at known rates in each build's
runs gets the right verdict at the stated error rates (docs/statistics.md), over many
seeds.

Each example draws the old build's rate of changing a field, the new build's (equal, or
apart by more than the margin), a number of runs per build and a seed; it generates
``SCENARIOS`` shadow runs of one fixture (numpy's generator, seeded): each run's output
is the reference document with ``answer`` changed at its build's rate and ``latency``
changed in every run of both. ``field_rates`` reads them; the counts it finds are the
ones generated, and the wrong verdicts are counted:

- equal rates: REGRESSED or IMPROVED has chance at most alpha (Boschloo's test is exact);
- rates apart by more than the margin: NO CHANGE (the 95 % difference interval inside
  +-margin) has chance at most 2.5 % where the interval covers; the assertion allows 5 %,
  for Newcombe's interval is approximate; and the verdict never points the wrong way
  more often than alpha allows;
- a field every run of both builds changes is never REGRESSED or IMPROVED.

The allowance is the count a binomial variable of as many trials at the stated rate
exceeds with chance under 1e-9 (as in test_rates_verdicts.py). Each distinct pair of
counts is read once (Boschloo's test takes tens of milliseconds); the examples are
derandomized.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from workbench.diff import field_rates
from workbench.diff._builds import BuildRun

SCENARIOS = 300
REFERENCE = {"answer": "approve", "latency": 0, "steps": ["plan", "call"]}


def allowed(stated: float) -> int:
    return int(binom.isf(1e-9, SCENARIOS, stated))


def outputs(changed: list[bool], first: int) -> list[BuildRun]:
    """Runs of a build: the reference with ``answer`` changed where asked and a latency
    of its own in every run."""
    return [BuildRun(0, {**REFERENCE, "answer": "deny" if c else "approve",
                         "latency": first + i + 1}) for i, c in enumerate(changed)]


def verdicts(draws_old: np.ndarray, draws_new: np.ndarray, alpha: float, margin: float
             ) -> list[str]:
    """The verdict of ``answer`` in each scenario (rows of the draws), read by
    field_rates once per distinct pair of counts."""
    seen: dict[tuple[int, int], str] = {}
    out = []
    runs = draws_old.shape[1]
    for row_old, row_new in zip(draws_old.tolist(), draws_new.tolist(), strict=True):
        key = (sum(row_old), sum(row_new))
        if key not in seen:
            fields = {f.path: f for f in field_rates(
                BuildRun(0, REFERENCE), outputs(row_old, 0), outputs(row_new, runs),
                alpha=alpha, margin=margin)}
            lat = fields["latency"].comparison
            assert (lat.base.violations, lat.candidate.violations) == (runs, runs)
            assert fields["latency"].verdict in ("NO CHANGE", "INCONCLUSIVE")
            if key == (0, 0):
                assert "answer" not in fields
                seen[key] = "NO FIELD"
            else:
                c = fields["answer"].comparison
                assert (c.base.violations, c.base.runs, c.candidate.violations,
                        c.candidate.runs) == (*key[:1], runs, key[1], runs)
                seen[key] = fields["answer"].verdict
        out.append(seen[key])
    return out


@pytest.mark.slow
@settings(max_examples=8, deadline=None, derandomize=True)
@given(p_old=st.floats(0.0, 0.5), apart=st.sampled_from([0.0, 0.0, 0.3, -0.3, 0.45]),
       runs=st.integers(10, 25), alpha=st.sampled_from([0.05, 0.1]),
       seed=st.integers(0, 2**32 - 1))
def test_shadow_runs_verdicts_hold_their_error_rates(p_old, apart, runs, alpha, seed):
    margin = 0.10
    p_new = min(1.0, max(0.0, p_old + apart))
    if apart and abs(p_new - p_old) <= margin:
        p_new = p_old + (0.3 if p_old < 0.5 else -0.3)
    rng = np.random.default_rng(seed)
    got = verdicts(rng.random((SCENARIOS, runs)) < p_old,
                   rng.random((SCENARIOS, runs)) < p_new, alpha, margin)
    if p_new == p_old:
        wrong = sum(v in ("REGRESSED", "IMPROVED") for v in got)
        assert wrong <= allowed(alpha), (p_old, runs, wrong)
    else:
        no_change = sum(v == "NO CHANGE" for v in got)
        assert no_change <= allowed(0.05), (p_old, p_new, runs, no_change)
        backwards = sum(v == ("IMPROVED" if p_new > p_old else "REGRESSED") for v in got)
        assert backwards <= allowed(alpha), (p_old, p_new, runs, backwards)


def test_a_change_in_every_new_run_and_none_before_is_regressed_from_five_runs():
    for runs in (5, 12, 40):
        (f,) = [f for f in field_rates(BuildRun(0, REFERENCE), outputs([False] * runs, 0),
                                       outputs([True] * runs, runs)) if f.path == "answer"]
        assert f.verdict == "REGRESSED", runs
