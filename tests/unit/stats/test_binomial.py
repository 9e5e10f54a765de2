"""Rates, intervals and comparisons against published known answers (R's
``binom.test``, Newcombe 1998 table II) and the verdict rules of docs/statistics.md."""

from __future__ import annotations

import pytest

from workbench.model import UsageError
from workbench.stats import SPRT, compare_rates, rate


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    # R 4.x: binom.test(k, n)$conf.int
    (0, 10, 0.0, 0.3084971),
    (3, 30, 0.02111753, 0.26528845),
    (10, 20, 0.2719578, 0.7280422),
    (30, 30, 0.8842967, 1.0),
])
def test_clopper_pearson_intervals(k, n, low, high):
    r = rate(k, n, 0.05)
    assert (r.low, r.high) == (pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6))


@pytest.mark.parametrize(("k", "n", "verdict"), [
    (0, 71, "INCONCLUSIVE"),  # upper bound 1 - 0.025^(1/71) = 5.06 %: not yet at most 5 %
    (0, 72, "PASS"),          # 4.99 %
    (0, 0, "INCONCLUSIVE"),   # no runs, no verdict
    (4, 20, "FAIL"),          # lower bound 5.7 %
    (3, 20, "INCONCLUSIVE"),  # lower bound 3.2 %
])
def test_verdicts_against_the_maximum_rate(k, n, verdict):
    assert rate(k, n, 0.05).verdict == verdict


def test_newcombe_difference_matches_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, table II, example (a): 56/70 vs
    # 48/80, method 10: 0.0524 to 0.3339 (of p1 - p2; here candidate - base)
    c = compare_rates((48, 80), (56, 70), max_rate=0.5)
    assert c.low == pytest.approx(0.0524, abs=1e-4)
    assert c.high == pytest.approx(0.3339, abs=1e-4)


def test_comparison_verdicts():
    assert compare_rates((1, 50), (12, 50), max_rate=0.05).verdict == "REGRESSED"
    assert compare_rates((12, 50), (1, 50), max_rate=0.05).verdict == "IMPROVED"
    assert compare_rates((0, 200), (0, 200), max_rate=0.05).verdict == "NO CHANGE"
    assert compare_rates((1, 10), (2, 10), max_rate=0.05).verdict == "INCONCLUSIVE"
    assert compare_rates((1, 10), (0, 0), max_rate=0.05).verdict == "INCONCLUSIVE"


def test_boschloo_p_value_is_scipys():
    from scipy.stats import boschloo_exact

    c = compare_rates((1, 40), (12, 40), max_rate=0.05)
    want = boschloo_exact([[12, 1], [28, 39]], alternative="two-sided").pvalue
    assert c.p_value == pytest.approx(want, abs=1e-6) and c.p_value < 0.01


@pytest.mark.parametrize("bad", [-0.1, 1.0, float("nan")])
def test_a_maximum_rate_outside_0_1_is_refused(bad):
    with pytest.raises(UsageError) as e:
        rate(1, 2, bad)
    assert e.value.code == "RATE_INVALID"


def test_sprt_boundaries_and_decisions():
    t = SPRT(max_rate=0.05, max_runs=40)
    assert (t.p0, t.p1) == (0.025, 0.10)
    s = t.start()
    while s.verdict is None:
        s.add(False)
    # log(0.05/0.95) / log(0.9/0.975) = 36.8: the 37th clean run decides
    assert (s.verdict, s.runs) == ("PASS", 37)
    s = t.start()
    verdicts = [s.add(True) for _ in range(3)]
    # log(0.95/0.05) / log(4) = 2.12: the third violation in a row decides
    assert verdicts == [None, None, "FAIL"]
    s = SPRT(max_rate=0.05, max_runs=5).start()
    for _ in range(5):
        s.add(False)
    assert s.verdict == "INCONCLUSIVE" and s.runs == 5
    with pytest.raises(UsageError):
        s.add(False)


@pytest.mark.parametrize("kw", [{"max_rate": 0.0}, {"max_rate": 0.05, "alpha": 0.6},
                                {"max_rate": 0.05, "good": 0.06},
                                {"max_rate": 0.05, "bad": 0.04}])
def test_sprt_refuses_settings_it_cannot_test(kw):
    with pytest.raises(UsageError):
        SPRT(max_runs=10, **kw)
