"""Rates with confidence: violations of a rule over runs of a scenario, the difference
between two builds, and the sequential test that stops runs once the verdict is decided.

Every interval and p-value comes from scipy (docs/statistics.md); scipy is imported when
a statistic is first asked for, so commands that need none do not pay for it.
"""

from ._binomial import (
    CONFIDENCE,
    Comparison,
    Rate,
    check_comparison,
    compare_rates,
    interval,
    rate,
)
from ._sequential import SPRT, SequentialState

__all__ = [
    "CONFIDENCE",
    "SPRT",
    "Comparison",
    "Rate",
    "SequentialState",
    "check_comparison",
    "compare_rates",
    "interval",
    "rate",
]
