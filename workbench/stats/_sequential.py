"""Wald's sequential probability ratio test on runs of a scenario: stop as soon as the
runs so far tell a rate at most ``good`` from one at least ``bad`` (docs/statistics.md).

H0: the violation rate is ``good`` (default half the maximum rate), H1: it is ``bad``
(default twice the maximum rate, at most halfway to 1). After each run the log
likelihood ratio of H1 to H0 moves by ``log(bad/good)`` for a violation and by
``log((1-bad)/(1-good))`` for a clean run. It stops with FAIL when the ratio reaches
``log((1-beta)/alpha)``, with PASS when it falls to ``log(beta/(1-alpha))``, and with
INCONCLUSIVE when ``max_runs`` are spent first. Wald's inequalities bound the error
rates whatever the truncation: P(FAIL | rate <= good) <= alpha / (1 - beta) and
P(PASS | rate >= bad) <= beta / (1 - alpha).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..model import UsageError
from ._binomial import Rate, rate

__all__ = ["SPRT", "SequentialState"]


@dataclass(frozen=True)
class SPRT:
    """The test's settings; ``start()`` gives the state runs are added to."""

    max_rate: float
    max_runs: int
    alpha: float = 0.05
    beta: float = 0.05
    good: float | None = None
    bad: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.max_rate < 1.0:
            raise UsageError(f"max rate {self.max_rate!r} must lie strictly between 0 and 1 "
                             "for a sequential test", code="RATE_INVALID",
                             hint="e.g. --max-rate 0.05")
        for name, v in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < v < 0.5:
                raise UsageError(f"{name} {v!r} is not an error rate", code="RATE_INVALID",
                                 hint="a number between 0 and 0.5, e.g. 0.05")
        if self.max_runs < 1:
            raise UsageError(f"--max {self.max_runs} runs: at least one run",
                             hint="e.g. --max 40")
        if not 0.0 < self.p0 < self.max_rate < self.p1 < 1.0:
            raise UsageError(f"good {self.p0!r} < max rate {self.max_rate!r} < bad "
                             f"{self.p1!r} does not hold", code="RATE_INVALID",
                             hint="the good rate below the maximum, the bad rate above it")

    @property
    def p0(self) -> float:
        return self.max_rate / 2 if self.good is None else self.good

    @property
    def p1(self) -> float:
        return min(2 * self.max_rate, (1 + self.max_rate) / 2) if self.bad is None \
            else self.bad

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def error_rates(self) -> dict[str, float]:
        """Wald's bounds: a FAIL when the rate is at most ``good``, a PASS when it is at
        least ``bad``."""
        return {"false_fail": self.alpha / (1 - self.beta),
                "false_pass": self.beta / (1 - self.alpha)}

    def operating(self, p: float) -> dict[str, float]:
        """The test's exact operating characteristic at violation rate ``p``, by dynamic
        programming over (runs, violations): the chances of PASS, FAIL and INCONCLUSIVE
        and the expected number of runs."""
        step_v, step_c = math.log(self.p1 / self.p0), math.log((1 - self.p1) / (1 - self.p0))
        alive = {0: 1.0}  # violations so far -> chance of still running
        out = {"PASS": 0.0, "FAIL": 0.0, "INCONCLUSIVE": 0.0, "runs": 0.0}
        for n in range(1, self.max_runs + 1):
            nxt: dict[int, float] = {}
            for k, mass in alive.items():
                out["runs"] += mass
                for kk, m in ((k + 1, mass * p), (k, mass * (1 - p))):
                    if m:
                        nxt[kk] = nxt.get(kk, 0.0) + m
            alive = {}
            for k, mass in nxt.items():
                llr = k * step_v + (n - k) * step_c
                if llr >= self.upper:
                    out["FAIL"] += mass
                elif llr <= self.lower:
                    out["PASS"] += mass
                else:
                    alive[k] = mass
        out["INCONCLUSIVE"] = sum(alive.values())
        return out

    def start(self) -> SequentialState:
        return SequentialState(self)

    def to_dict(self) -> dict[str, Any]:
        return {"test": "sprt", "max_rate": self.max_rate, "good": self.p0, "bad": self.p1,
                "alpha": self.alpha, "beta": self.beta, "max_runs": self.max_runs,
                "error_rates": {k: round(v, 6) for k, v in self.error_rates.items()}}


@dataclass
class SequentialState:
    """Runs so far: their count, violations, the log likelihood ratio and the verdict
    (None while undecided and runs remain)."""

    test: SPRT
    runs: int = 0
    violations: int = 0
    llr: float = 0.0
    outcomes: list[bool] = field(default_factory=list)

    def add(self, violated: bool) -> str | None:
        """One more run; the verdict once decided."""
        if self.verdict is not None:
            raise UsageError("the sequential test has decided; no more runs")
        t = self.test
        self.runs += 1
        self.violations += int(violated)
        self.outcomes.append(violated)
        self.llr += math.log(t.p1 / t.p0) if violated else math.log((1 - t.p1) / (1 - t.p0))
        return self.verdict

    @property
    def verdict(self) -> str | None:
        if self.llr >= self.test.upper:
            return "FAIL"
        if self.llr <= self.test.lower:
            return "PASS"
        return "INCONCLUSIVE" if self.runs >= self.test.max_runs else None

    def rate(self) -> Rate:
        """The runs so far as a rate with its exact interval (reported beside the
        sequential verdict; the interval is not adjusted for the stopping)."""
        return rate(self.violations, self.runs, self.test.max_rate)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "runs": self.runs, "violations": self.violations,
                "llr": round(self.llr, 6), "sequential": self.test.to_dict(),
                "rate": self.rate().to_dict()}
