"""Asking the oracle: the cache, repeats and votes, the budget and progress.

Every candidate is a dependency-closed bitset (``_graph.py``). The runner remembers
each verdict, so a candidate is never paid for twice; it runs a flaky oracle
``repeat`` times and decides by ``vote``:

* ``any``: the candidate fails if any run fails (a reproduction with the same
  signature is evidence; runs stop at the first failure). For oracles that sometimes
  miss a failure but never invent one — the common flaky replay.
* ``majority``: it fails if more than half of the runs fail (runs stop once the
  majority is decided). For oracles that can also fail spuriously.

It counts oracle invocations (every repeat is one: each may be a real replay), keeps
the smallest failing candidate seen, and stops the search with ``BudgetSpent`` once
``max_calls`` or ``max_seconds`` is reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..model import UsageError
from ._graph import Graph
from ._oracle import Oracle

__all__ = ["VOTES", "BudgetSpent", "MinimizeProgress", "OracleRunner"]

VOTES = ("any", "majority")


class BudgetSpent(Exception):
    """Raised inside the search when the call or time budget is used up."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class MinimizeProgress:
    """What a progress callback is told after each oracle call."""

    phase: str          # witness, search, sweep, retest
    calls: int          # oracle invocations so far
    candidates: int     # distinct candidates tested so far
    best: int           # events in the smallest failing candidate seen (0: none yet)
    total: int          # events in the original trace
    seconds: float


class OracleRunner:
    """Runs candidates through the oracle with a cache, repeats, a budget and progress."""

    def __init__(self, graph: Graph, oracle: Oracle, *, repeat: int = 1, vote: str = "any",
                 max_calls: int | None = None, max_seconds: float | None = None,
                 progress: Callable[[MinimizeProgress], None] | None = None) -> None:
        if repeat < 1:
            raise UsageError(f"repeat must be at least 1, not {repeat}")
        if vote not in VOTES:
            raise UsageError(f"unknown vote {vote!r}", hint="votes: " + ", ".join(VOTES))
        if max_calls is not None and max_calls < 1:
            raise UsageError(f"the call budget must be at least 1, not {max_calls}")
        if max_seconds is not None and max_seconds <= 0:
            raise UsageError(f"the time budget must be positive, not {max_seconds}")
        self.graph, self.oracle = graph, oracle
        self.repeat, self.vote = repeat, vote
        self.max_calls, self.max_seconds = max_calls, max_seconds
        self.progress = progress
        self.cache: dict[int, bool] = {}
        self.calls = 0
        self.candidates = 0
        self.phase = "search"
        self.calls_by_phase: dict[str, int] = {}
        self.best: int | None = None
        self.started = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def assume(self, mask: int, fails: bool) -> None:
        """Record a verdict known without asking (the whole trace holds the finding)."""
        self.cache[mask] = fails
        if fails:
            self._note_failing(mask)

    def fails(self, mask: int) -> bool:
        """Whether the candidate still fails; the empty candidate never does."""
        if mask == 0:
            return False
        hit = self.cache.get(mask)
        if hit is not None:
            return hit
        verdict = self._ask(mask)
        self.cache[mask] = verdict
        return verdict

    def retest(self, mask: int) -> bool:
        """Ask again, past the cache (the final result is re-tested this way)."""
        return self._ask(mask)

    def _ask(self, mask: int) -> bool:
        candidate = self.graph.subtrace(mask)
        self.candidates += 1
        failed = passed = 0
        need = self.repeat // 2 + 1  # a majority
        for _ in range(self.repeat):
            self._charge()
            if self.oracle(candidate):
                failed += 1
            else:
                passed += 1
            if self.vote == "any" and failed:
                break
            if self.vote == "majority" and (failed >= need or passed >= need):
                break
        verdict = failed > 0 if self.vote == "any" else failed >= need
        if verdict:
            self._note_failing(mask)
        self._report()
        return verdict

    def _charge(self) -> None:
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise BudgetSpent("max_calls")
        if self.max_seconds is not None and self.seconds >= self.max_seconds:
            raise BudgetSpent("max_seconds")
        self.calls += 1
        self.calls_by_phase[self.phase] = self.calls_by_phase.get(self.phase, 0) + 1

    def _note_failing(self, mask: int) -> None:
        if self.best is None or mask.bit_count() < self.best.bit_count():
            self.best = mask

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(MinimizeProgress(
                self.phase, self.calls, self.candidates,
                self.best.bit_count() if self.best is not None else 0,
                len(self.graph), self.seconds))
