"""The search: from a failing trace to a 1-minimal, dependency-closed failing sub-trace.

Contract of every step: candidates are dependency-closed bitsets (``_graph.py``);
every verdict goes through the ``OracleRunner`` (cached, budgeted); the current result is
always a candidate the oracle was *seen* to fail on, so stopping at any point — the
budget spent, the oracle inconsistent — still leaves a correct, if larger, answer.

1. **Witness first.** The finding's witness events plus what they depend on: one
   call. When it fails, a witness of one or two events (the offending call, the call
   it clashed with) goes straight to the sweep, which verifies it; a longer one (a
   ``count`` group) is the universe the prefix search works in.
2. **Prefix search** (``prefix_search``). Events are in dependency order, so every
   prefix is closed, and so is a prefix joined with the closure of culprits found so
   far (F). Round j binary-searches the smallest prefix that, joined with F, still
   fails; the event that tips it is a culprit, added with its dependencies to F; the
   next round searches only below it, and one of its outcomes is "F alone already
   fails" (the search is over). Rounds after the first bisect by the weights of
   ``_prior.py`` rather than by count, so k culprits among n events cost close to
   log2 C(n, k) calls.
3. **Sweep** (``sweep``). ddmin's complement step over closed sets: remove a chunk
   with everything in the result that depends on it; a removal that still fails is
   kept. Chunks start at single events after a prefix search (which is then a
   verification) or halves after an inconsistent oracle (a fall-back to ddmin). It
   ends after a whole pass of single-event removals, each tested against the final
   result, none of which fails: the result is then **1-minimal**, proven by calls.

A non-monotone or flaky oracle can make the prefix search contradict itself (a round
with no event left to tip it); it then stops and the sweep starts from the smallest
failing candidate seen, at coarse chunks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ._errors import NotReproducedError
from ._graph import Graph, members
from ._prior import outcome_weights
from ._runner import BudgetSpent, OracleRunner

__all__ = ["Inconsistent", "Reduction", "prefix_search", "reduce", "sweep"]


class Inconsistent(Exception):
    """The oracle contradicted monotonicity; the prefix search cannot go on."""


@dataclass
class Reduction:
    """What the search ends with."""

    mask: int
    one_minimal: bool
    witness_failed: bool | None   # None: no witness was given
    fell_back: bool               # the prefix search was abandoned for a ddmin sweep
    stopped: str | None           # None, "max_calls" or "max_seconds"
    retest: bool | None           # the final result failed again (None: not re-tested)


def prefix_search(t: OracleRunner, g: Graph, universe: int) -> int:
    """The closure of the culprits inside ``universe`` (a failing closed bitset)."""
    pos = members(universe)
    found, rounds = 0, 0
    hi = len(pos)  # F | universe-prefix(hi) is known to fail
    blind = 0  # rounds in a row that saw no failure below the top of their range
    while True:
        free = [p for p in pos[:hi] if not found >> p & 1]

        def candidate(x: int, free: list[int] = free, found: int = found) -> int:
            """F joined with the universe up to and including free[x - 1] (x = 0: F)."""
            return found | (universe & ((1 << (free[x - 1] + 1)) - 1)) if x else found

        x = _bisect(t, candidate, outcome_weights(len(pos), len(free), rounds),
                    1 if rounds == 0 else 0)
        if x == 0:
            return found
        if not t.fails(candidate(x)):  # a cache hit unless the top was never seen
            raise Inconsistent("the largest candidate of a round passes")
        blind = blind + 1 if x == len(free) and len(free) > 1 else 0
        if blind >= _BLIND_ROUNDS:
            raise Inconsistent("culprit after culprit at the very top: not monotone")
        culprit = free[x - 1]
        found = g.close(found | (1 << culprit))
        hi = pos.index(culprit)
        rounds += 1


def _bisect(t: OracleRunner, candidate: Callable[[int], int], weights: list[float],
            lo: int) -> int:
    """The smallest outcome x in lo..len(weights)-1 whose candidate fails, asking at the
    weighted median each time (the top outcome is known to fail)."""
    hi = len(weights) - 1
    if hi < lo:
        raise Inconsistent("no event left below the last culprit")
    while lo < hi:
        half = sum(weights[lo:hi + 1]) / 2
        acc, cut, gap = 0.0, lo, math.inf
        for x in range(lo, hi):
            acc += weights[x]
            if abs(acc - half) < gap:
                cut, gap = x, abs(acc - half)
        if t.fails(candidate(cut)):
            hi = cut
        else:
            lo = cut + 1
    return lo


# A monotone oracle rarely puts several culprits in a row at the top of their ranges; an
# oracle that fails only on near-whole traces does it every round, which would cost
# n log n calls: after this many such rounds the search hands over to the sweep.
_BLIND_ROUNDS = 4


def sweep(t: OracleRunner, g: Graph, mask: int, chunks: int) -> int:
    """Remove what can go, chunk by chunk, until no single event can (1-minimal)."""
    units = members(mask)
    n = max(1, min(chunks, len(units)))
    while units:
        if n >= len(units):
            return _single_pass(t, g, mask)
        size = -(-len(units) // n)
        parts = [units[i:i + size] for i in range(0, len(units), size)]
        for part in reversed(parts):  # later events first: they have fewer dependents
            cut = g.dependents_within(sum(1 << u for u in part), mask)
            if t.fails(mask & ~cut):
                mask &= ~cut
                units = members(mask)
                n = max(n - 1, 2)
                break
        else:
            n = min(2 * n, len(units))
    return mask


def _single_pass(t: OracleRunner, g: Graph, mask: int) -> int:
    """Single-event removals, cyclically, until a whole pass over the current result
    finds none that still fails."""
    units = members(mask)[::-1]
    clean, i = 0, 0
    while clean < len(units):
        u = units[i % len(units)]
        cut = g.dependents_within(1 << u, mask)
        if t.fails(mask & ~cut):
            mask &= ~cut
            units = [v for v in units if mask >> v & 1]
            clean = 0
            i = i % len(units) if units else 0
            continue
        clean += 1
        i += 1
    return mask


def reduce(t: OracleRunner, g: Graph, *, witness: int = 0, whole_fails: bool = False,
           retest: bool = True) -> Reduction:
    """Witness first, then prefix search, then the sweep; budget-safe throughout."""
    if whole_fails:
        t.assume(g.full, True)
    universe, witness_failed, fell_back = g.full, None, False
    mask: int | None = None
    try:
        if witness:
            t.phase = "witness"
            closed = g.close(witness)
            witness_failed = t.fails(closed)
            if witness_failed:
                universe = closed
                if witness.bit_count() <= 2:
                    mask = closed  # the witness itself: the sweep verifies it
        if mask is None:
            t.phase = "search"
            try:
                mask = prefix_search(t, g, universe)
            except Inconsistent:
                fell_back = True
                if t.best is None:
                    _require_failure(t, g)
                mask = t.best if t.best is not None else universe
        t.phase = "sweep"
        mask = sweep(t, g, mask, 2 if fell_back else mask.bit_count())
    except BudgetSpent as spent:
        best = t.best if t.best is not None else g.full
        return Reduction(best, False, witness_failed, fell_back, spent.reason, None)
    again: bool | None = None
    if retest:
        t.phase = "retest"
        try:
            again = t.retest(mask)
        except BudgetSpent as spent:
            return Reduction(mask, True, witness_failed, fell_back, spent.reason, None)
    return Reduction(mask, again is not False, witness_failed, fell_back, None, again)


def _require_failure(t: OracleRunner, g: Graph) -> None:
    if not t.fails(g.full):
        raise NotReproducedError(
            f"the oracle passes on the whole trace ({len(g)} events): there is nothing "
            "to minimize")
