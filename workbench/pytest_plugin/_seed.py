"""Pinning the seed of a test: the ``random`` module and, for Hypothesis tests, the
example generator (``hypothesis.seed``), so a failing example replays from the seed."""

from __future__ import annotations

import random
from typing import Any

import pytest

__all__ = ["PinnedSeed", "pin_hypothesis", "pin_random"]


def pin_random(seed: int) -> None:
    random.seed(seed)


def pin_hypothesis(item: Any, seed: int) -> bool:
    """Give a Hypothesis test a fixed seed; False when the item is not one."""
    fn = getattr(item, "obj", None)
    fn = getattr(fn, "__func__", fn)  # a test method: the function behind it
    if fn is None or not getattr(fn, "is_hypothesis_test", False):
        return False
    try:
        from hypothesis import seed as hypothesis_seed
    except ImportError:  # pragma: no cover - hypothesis marks the test, so it is there
        return False
    hypothesis_seed(seed)(fn)
    return True


class PinnedSeed:
    """``--pin-seed N``: every test starts from seed N (``random``, Hypothesis), and the
    header says how to replay the run."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def pytest_report_header(self) -> str:
        return f"workbench: seed pinned to {self.seed} (replay with --pin-seed {self.seed})"

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            pin_hypothesis(item, self.seed)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: Any) -> None:
        pin_random(self.seed)
