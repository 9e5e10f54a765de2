"""Aligning two event sequences: which event of A is which event of B.

Events pair only with events of the same kind and name. The alignment is a longest
common subsequence in spirit, computed the way patience/histogram diff does it, so it
stays near O(n log n) where plain LCS over keys that many events share is quadratic:

1. strip the common prefix and suffix of identical events;
2. anchor on *rare* tokens — tokens that occur exactly once on each side of the window
   — keeping the longest increasing run of them (patience sorting), then recurse into
   the gaps between anchors;
3. tokens are tried from the most to the least specific: the event's full canonical
   content, then its graph key (kind, name, the parent's kind and name, the kinds and
   names its data came from), then kind and name alone;
4. a gap with no rare token left is aligned by dynamic programming when small, else by
   a linear in-order walk with a short look-ahead.

An insertion therefore never makes later events look changed: they are anchored past it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Sequence

__all__ = ["align", "pair_moves"]

_DP_CELLS = 40_000   # gaps up to this many cells are aligned exactly
_LOOKAHEAD = 64


def align(levels_a: Sequence[Sequence[Hashable]],
          levels_b: Sequence[Sequence[Hashable]]) -> list[tuple[int, int]]:
    """Monotone pairs ``(i, j)``: event ``i`` of A is event ``j`` of B.

    ``levels_x[k][i]`` is event ``i``'s token at level ``k``, most specific first; the
    last level (kind and name) decides which events may pair at all.
    """
    out: list[tuple[int, int]] = []
    n, m = len(levels_a[0]), len(levels_b[0])
    stack: list[tuple[int, int, int, int, int]] = [(0, n, 0, m, 0)]
    last = len(levels_a) - 1
    exact_a, exact_b = levels_a[0], levels_b[0]
    while stack:
        a0, a1, b0, b1, level = stack.pop()
        # common prefix and suffix of identical events
        while a0 < a1 and b0 < b1 and exact_a[a0] == exact_b[b0]:
            out.append((a0, b0))
            a0, b0 = a0 + 1, b0 + 1
        while a0 < a1 and b0 < b1 and exact_a[a1 - 1] == exact_b[b1 - 1]:
            out.append((a1 - 1, b1 - 1))
            a1, b1 = a1 - 1, b1 - 1
        if a0 == a1 or b0 == b1:
            continue
        if a1 - a0 == 1 and b1 - b0 == 1:  # one event each side (a change): pair or not
            if levels_a[last][a0] == levels_b[last][b0]:
                out.append((a0, b0))
            continue
        while level <= last:
            anchors = _anchors(levels_a[level], levels_b[level], a0, a1, b0, b1)
            if anchors:
                break
            level += 1
        if level > last:
            out.extend(_fallback(levels_a[last], levels_b[last], a0, a1, b0, b1))
            continue
        out.extend(anchors)
        # gaps between anchors, at the same level (rarity is relative to the window)
        pa, pb = a0, b0
        for i, j in [*anchors, (a1, b1)]:
            if pa < i and pb < j:
                stack.append((pa, i, pb, j, level))
            pa, pb = i + 1, j + 1
    out.sort()
    return out


def _anchors(ta: Sequence[Hashable], tb: Sequence[Hashable], a0: int, a1: int,
             b0: int, b1: int) -> list[tuple[int, int]]:
    """Tokens unique on both sides of the window, longest increasing run of them."""
    wa, wb = ta[a0:a1], tb[b0:b1]
    count_a, count_b = Counter(wa), Counter(wb)  # counting and indexing run in C
    at_a = dict(zip(wa, range(a0, a1), strict=True))  # the last index of each token
    at_b = dict(zip(wb, range(b0, b1), strict=True))
    pairs = [(at_a[t], at_b[t]) for t, c in count_a.items()
             if c == 1 and count_b.get(t) == 1]
    if not pairs:
        return []
    pairs.sort()
    return _lis(pairs)


def _lis(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of pairs increasing in both coordinates (pairs sorted by the first)."""
    js = [j for _, j in pairs]
    if js == sorted(set(js)):  # strictly increasing already (the common case): all of them
        return pairs
    tails: list[int] = []        # smallest j ending a run of each length
    tail_idx: list[int] = []
    back = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = len(tails) if not tails or j > tails[-1] else bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos] = j
            tail_idx[pos] = k
        back[k] = tail_idx[pos - 1] if pos else -1
    run = []
    k = tail_idx[-1]
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    run.reverse()
    return run


def _fallback(ta: Sequence[Hashable], tb: Sequence[Hashable], a0: int, a1: int,
              b0: int, b1: int) -> list[tuple[int, int]]:
    if (a1 - a0) * (b1 - b0) <= _DP_CELLS:
        return _dp(ta, tb, a0, a1, b0, b1)
    return _walk(ta, tb, a0, a1, b0, b1)


def _dp(ta: Sequence[Hashable], tb: Sequence[Hashable], a0: int, a1: int,
        b0: int, b1: int) -> list[tuple[int, int]]:
    """Exact LCS of a small window."""
    n, m = a1 - a0, b1 - b0
    row = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        ri, rn = row[i], row[i + 1]
        x = ta[a0 + i]
        for j in range(m - 1, -1, -1):
            ri[j] = rn[j + 1] + 1 if x == tb[b0 + j] else max(rn[j], ri[j + 1])
    out = []
    i = j = 0
    while i < n and j < m:
        if ta[a0 + i] == tb[b0 + j]:
            out.append((a0 + i, b0 + j))
            i, j = i + 1, j + 1
        elif row[i + 1][j] >= row[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _walk(ta: Sequence[Hashable], tb: Sequence[Hashable], a0: int, a1: int,
          b0: int, b1: int) -> list[tuple[int, int]]:
    """In-order matching with a short look-ahead: linear, for huge windows of common keys."""
    out = []
    i, j = a0, b0
    while i < a1 and j < b1:
        if ta[i] == tb[j]:
            out.append((i, j))
            i, j = i + 1, j + 1
            continue
        skip_b = next((d for d in range(1, _LOOKAHEAD) if j + d < b1 and tb[j + d] == ta[i]),
                      None)
        skip_a = next((d for d in range(1, _LOOKAHEAD) if i + d < a1 and ta[i + d] == tb[j]),
                      None)
        if skip_b is None and skip_a is None:
            i, j = i + 1, j + 1
        elif skip_a is None or (skip_b is not None and skip_b <= skip_a):
            j += skip_b  # type: ignore[operator]
        else:
            i += skip_a
    return out


def pair_moves(left_a: Sequence[int], left_b: Sequence[int], ta: Sequence[Hashable],
               tb: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Unaligned events of A and B with the same token, paired in order: events that
    moved rather than vanished and reappeared."""
    pool: dict[Hashable, list[int]] = {}
    for j in left_b:
        pool.setdefault(tb[j], []).append(j)
    out = []
    used: dict[Hashable, int] = {}
    for i in left_a:
        t = ta[i]
        js = pool.get(t)
        k = used.get(t, 0)
        if js is not None and k < len(js):
            out.append((i, js[k]))
            used[t] = k + 1
    return out
