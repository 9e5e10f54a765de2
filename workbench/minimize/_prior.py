"""Where the next culprit probably is: the weights that steer the prefix search.

Model: k culprits lie uniformly among the n events of the search's universe, and k
itself follows a geometric prior, P(k) proportional to 2**-k (few culprits are likely,
many are possible). After j culprits were found, the last one with m free events
below it, the outcomes of the next round are "done" (k = j: the culprits found
already fail) or "the highest remaining culprit is the x-th free event" (x = 1..m).
Their posterior weights are

    done:  P(j) / C(n, j)
    x:     sum over k > j of P(k) * C(x - 1, k - j - 1) / C(n, k)

A round then bisects by weight rather than by count, so each answer halves what is
left to learn: a round with many culprits still to find looks near the top first, and
the "done" question costs little when it is unlikely. The first round has no evidence
yet and bisects by count, which is optimal for one culprit. Computed in logs
(``lgamma``), so n = 20,000 costs a few milliseconds per round.
"""

from __future__ import annotations

import math

__all__ = ["outcome_weights"]

_HALF = math.log(0.5)
_SPAN = 24  # culprits beyond the found ones that the prior still weighs


def _log_comb(a: int, b: int) -> float:
    return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)


def outcome_weights(n: int, m: int, found: int) -> list[float]:
    """Weights of the outcomes 0 (done) and 1..m of a round; index = outcome."""
    if found == 0:
        return [0.0] + [1.0] * m
    terms: list[tuple[int, float]] = []  # (remaining r, log of P(k) / C(n, k))
    for r in range(0, min(_SPAN, m) + 1):
        k = found + r
        if k > n:
            break
        terms.append((r, k * _HALF - _log_comb(n, k)))
    top = max(v for _, v in terms)
    out = [0.0] * (m + 1)
    out[0] = math.exp(terms[0][1] - top)
    for r, v in terms[1:]:
        scale = v - top
        if scale < -60:
            continue
        # C(x - 1, r - 1) for x = r..m, by the ratio x-1 choose r-1 over x-2 choose r-1
        log_c = 0.0
        for x in range(r, m + 1):
            if x > r:
                log_c += math.log(x - 1) - math.log(x - r)
            out[x] += math.exp(scale + log_c)
    return out
