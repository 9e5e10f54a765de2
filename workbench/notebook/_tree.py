"""The span tree of a trace's light columns: its order, self time and critical path.

Rows of the waterfall are the tree walked depth first (a parent, then its children),
children by start time, or slowest first (``latency``). An event's self time is its
duration less the time its children cover (their union, clipped to it). The critical
path of a subtree is the chain of events the end of it waited on: from the root,
the child that ended last, then within it the same, and back in time the child that
ended before that one started, and so on (as Jaeger and Phoenix draw it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SpanTree"]


class SpanTree:
    """Over ``parent`` (position of each event's parent, -1 for none) and times in
    seconds (``start``, ``end``; NaN start for an event without times)."""

    def __init__(self, parent: list[int], start: np.ndarray, end: np.ndarray,
                 timed: np.ndarray) -> None:
        n = len(parent)
        self.parent, self.start, self.end, self.timed = parent, start, end, timed
        self.children: list[list[int]] = [[] for _ in range(n)]
        roots: list[int] = []
        # a parent cycle would make the walk loop: an event whose chain meets itself is
        # taken as a root
        depth_ok = _acyclic(parent)
        for k in range(n):
            p = parent[k]
            (self.children[p] if p >= 0 and depth_ok[k] else roots).append(k)
        self.roots = roots
        self.duration = np.where(timed, end - start, 0.0)
        self._orders: dict[str, np.ndarray] = {}
        self._self: np.ndarray | None = None

    def order(self, by: str = "start") -> np.ndarray:
        """Positions depth first; siblings by start (``"start"``) or by duration,
        longest first (``"latency"``)."""
        if by not in self._orders:
            start = np.where(self.timed, self.start, np.inf)
            if by == "latency":
                def key(k: int) -> tuple[float, int]:
                    return (-float(self.duration[k]), k)
            else:
                def key(k: int) -> tuple[float, int]:
                    return (float(start[k]), k)
            out: list[int] = []
            stack = sorted(self.roots, key=key, reverse=True)
            while stack:
                k = stack.pop()
                out.append(k)
                kids = self.children[k]
                if kids:
                    stack.extend(sorted(kids, key=key, reverse=True))
            self._orders[by] = np.asarray(out, dtype=np.int64)
        return self._orders[by]

    def self_time(self) -> np.ndarray:
        """Seconds of each event not covered by its children."""
        if self._self is None:
            own = self.duration.copy()
            for k, kids in enumerate(self.children):
                if not kids or not self.timed[k]:
                    continue
                lo, hi = float(self.start[k]), float(self.end[k])
                spans = sorted((max(lo, float(self.start[c])), min(hi, float(self.end[c])))
                               for c in kids if self.timed[c])
                covered, cur_lo, cur_hi = 0.0, None, None
                for a, b in spans:
                    if b <= a:
                        continue
                    if cur_hi is None or a > cur_hi:
                        if cur_hi is not None and cur_lo is not None:
                            covered += cur_hi - cur_lo
                        cur_lo, cur_hi = a, b
                    else:
                        cur_hi = max(cur_hi, b)
                if cur_hi is not None and cur_lo is not None:
                    covered += cur_hi - cur_lo
                own[k] = max(0.0, own[k] - covered)
            self._self = own
        return self._self

    def critical_path(self, root: int) -> list[int]:
        """Positions on the critical path of ``root``'s subtree, root first."""
        path: list[int] = []
        todo = [(root, float(self.end[root]) if self.timed[root] else np.inf)]
        while todo:
            k, limit = todo.pop()
            path.append(k)
            kids = sorted((c for c in self.children[k] if self.timed[c]),
                          key=lambda c: float(self.end[c]), reverse=True)
            # walking back from the end: the last child to end, then the last to end
            # before that one started, …; each is followed into its own children
            chosen: list[tuple[int, float]] = []
            for c in kids:
                end = min(float(self.end[c]), limit)
                if end <= limit and (not chosen or float(self.end[c]) <= float(
                        self.start[chosen[-1][0]])):
                    chosen.append((c, end))
                    limit = float(self.start[c])
            todo.extend(reversed(chosen))
        return path


def _acyclic(parent: list[int]) -> list[bool]:
    """False for events on (or under) a parent cycle."""
    n = len(parent)
    state = [0] * n          # 0 unknown, 1 on the walk, 2 fine, 3 cyclic
    for k in range(n):
        chain = []
        j = k
        while j >= 0 and state[j] == 0:
            state[j] = 1
            chain.append(j)
            j = parent[j]
        bad = j >= 0 and state[j] in (1, 3)
        for c in chain:
            state[c] = 3 if bad else 2
    return [s == 2 for s in state]
