"""A rate of k violations in n runs with its exact interval, its verdict against a
maximum rate, and two builds' rates compared (docs/statistics.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..model import UsageError

__all__ = ["CONFIDENCE", "Comparison", "Rate", "compare_rates", "interval", "rate"]

#: the two-sided confidence of every interval reported
CONFIDENCE = 0.95
#: the interval a rate is reported with (scipy.stats.binomtest(...).proportion_ci)
INTERVAL = "clopper-pearson"


def _check_counts(k: int, n: int) -> None:
    if n < 0 or k < 0 or k > n:
        raise UsageError(f"{k} violations in {n} runs is not a count of runs",
                         hint="0 <= violations <= runs")


def _check_rate(name: str, value: float, *, top: bool = True) -> float:
    if not (0.0 <= value < 1.0 if top else 0.0 <= value <= 1.0) or math.isnan(value):
        raise UsageError(f"{name} {value!r} is not a rate", code="RATE_INVALID",
                         hint="a number from 0 up to (not including) 1, e.g. 0.05")
    return value


def interval(k: int, n: int, confidence: float = CONFIDENCE,
             method: str = "exact") -> tuple[float, float]:
    """The two-sided interval of k successes in n trials: Clopper-Pearson (``exact``) or
    Wilson (``wilson``), from scipy; [0, 1] when there are no trials."""
    _check_counts(k, n)
    if n == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method=method)
    return float(ci.low), float(ci.high)


@dataclass(frozen=True)
class Rate:
    """k violations in n runs, the rate's exact interval and its verdict against
    ``max_rate``: PASS (upper bound <= max_rate), FAIL (lower bound > max_rate),
    INCONCLUSIVE (the interval holds the threshold; more runs decide)."""

    violations: int
    runs: int
    low: float
    high: float
    max_rate: float
    confidence: float = CONFIDENCE

    @property
    def rate(self) -> float | None:
        return self.violations / self.runs if self.runs else None

    @property
    def verdict(self) -> str:
        if self.runs and self.high <= self.max_rate:
            return "PASS"
        if self.runs and self.low > self.max_rate:
            return "FAIL"
        return "INCONCLUSIVE"

    def to_dict(self) -> dict[str, Any]:
        return {"violations": self.violations, "runs": self.runs,
                "rate": None if self.rate is None else round(self.rate, 6),
                "low": round(self.low, 6), "high": round(self.high, 6),
                "confidence": self.confidence, "interval": INTERVAL,
                "max_rate": self.max_rate, "verdict": self.verdict}

    def text(self) -> str:
        shown = "-" if self.rate is None else f"{self.rate:.1%}"
        return (f"{self.violations}/{self.runs} = {shown} "
                f"[{self.low:.1%}, {self.high:.1%}]")


def rate(violations: int, runs: int, max_rate: float,
         confidence: float = CONFIDENCE) -> Rate:
    """The rate of ``violations`` in ``runs`` with its Clopper-Pearson interval."""
    _check_rate("max rate", max_rate)
    low, high = interval(violations, runs, confidence)
    return Rate(violations, runs, low, high, max_rate, confidence)


@dataclass(frozen=True)
class Comparison:
    """A base build's rate against a candidate's: the difference (candidate - base)
    with its Newcombe interval, Boschloo's exact two-sided p-value, and the verdict."""

    base: Rate
    candidate: Rate
    difference: float | None
    low: float
    high: float
    p_value: float | None
    alpha: float
    margin: float

    @property
    def verdict(self) -> str:
        """REGRESSED / IMPROVED: the exact test rejects equal rates at ``alpha`` (the
        direction is the difference's sign); NO CHANGE: it does not, and the whole
        difference interval lies within +-``margin``; INCONCLUSIVE otherwise."""
        if self.p_value is None or self.difference is None:
            return "INCONCLUSIVE"
        if self.p_value < self.alpha:
            return "REGRESSED" if self.difference > 0 else "IMPROVED"
        if -self.margin <= self.low and self.high <= self.margin:
            return "NO CHANGE"
        return "INCONCLUSIVE"

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base.to_dict(), "candidate": self.candidate.to_dict(),
                "difference": None if self.difference is None else round(self.difference, 6),
                "difference_low": round(self.low, 6), "difference_high": round(self.high, 6),
                "difference_interval": "newcombe-wilson",
                "p_value": None if self.p_value is None else round(self.p_value, 6),
                "test": "boschloo", "alpha": self.alpha, "margin": self.margin,
                "verdict": self.verdict}


def _newcombe(k1: int, n1: int, k2: int, n2: int,
              confidence: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of p2 - p1 (his method 10), from the two Wilson
    intervals scipy gives."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = interval(k1, n1, confidence, "wilson")
    l2, u2 = interval(k2, n2, confidence, "wilson")
    d = p2 - p1
    return (max(-1.0, d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)),
            min(1.0, d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)))


def _p_value(k1: int, n1: int, k2: int, n2: int) -> float:
    """Boschloo's exact test of equal rates, two-sided (scipy.stats.boschloo_exact); 1.0
    where the table has no violations, or no clean runs, at all (nothing to tell apart)."""
    if k1 + k2 in (0, n1 + n2):
        return 1.0
    from scipy.stats import boschloo_exact

    p = float(boschloo_exact([[k2, k1], [n2 - k2, n1 - k1]],
                             alternative="two-sided").pvalue)
    return min(1.0, p) if not math.isnan(p) else 1.0


def check_comparison(alpha: float, margin: float) -> None:
    """Refuse an ``alpha`` or ``margin`` that is not a rate (``RATE_INVALID``), before
    any run is made to be compared."""
    _check_rate("alpha", alpha)
    _check_rate("margin", margin, top=False)


def compare_rates(base: tuple[int, int], candidate: tuple[int, int], *, max_rate: float,
                  alpha: float = 0.05, margin: float = 0.10,
                  confidence: float = CONFIDENCE) -> Comparison:
    """``(violations, runs)`` of a base build and a candidate compared."""
    check_comparison(alpha, margin)
    b, c = rate(*base, max_rate, confidence), rate(*candidate, max_rate, confidence)
    if not b.runs or not c.runs:
        return Comparison(b, c, None, -1.0, 1.0, None, alpha, margin)
    low, high = _newcombe(b.violations, b.runs, c.violations, c.runs, confidence)
    return Comparison(b, c, c.violations / c.runs - b.violations / b.runs, low, high,
                      _p_value(b.violations, b.runs, c.violations, c.runs), alpha, margin)
