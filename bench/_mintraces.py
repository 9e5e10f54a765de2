"""Synthetic incident traces for ``minimize.py``, and the two baselines it races.

``agent_trace(n, seed)``: a seeded random dependency DAG shaped like an agent trace —
one ``agent`` root, ``llm_call`` events under it (about one event in four), each tool
call under the latest model call, and 30 % of tool calls taking an argument from one
of the eight previous tool calls (a data-flow ref). ``culprits(trace, k, seed)`` picks k
distinct tool calls. The incident oracle fails while every culprit is present.

Baselines, both given the same oracle, a cache and a budget of calls and seconds:

* ``ddmin`` — classic ddmin (Zeller & Hildebrandt 2002: subsets, then complements,
  granularity doubling) over event sets, with the dependency closure applied to every
  candidate before it is tested (so it never pays for a candidate that cannot replay)
  and a cache keyed by the closed candidate.
* ``picire_run`` — picire's ``DD`` as published, on the list of events, with its own
  config cache; a candidate that misses a dependency cannot replay, so it costs a call
  and counts as a pass, as it would against a real service.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from workbench.model import Event, Ref, Trace

__all__ = ["Budget", "agent_trace", "culprits", "ddmin", "picire_run"]


def agent_trace(n: int, seed: int, ref_rate: float = 0.3) -> Trace:
    rnd = random.Random(seed)
    tid = f"bench-{n}-{seed}"

    def event(i: int, kind: str, name: str, parent: str | None,
              refs: tuple[Ref, ...] = ()) -> Event:
        return Event(tid, f"e{i}", parent, i, kind, name, None, None, "ok", {}, {}, {}, refs)

    events = [event(0, "agent", "agent", None)]
    llm: str | None = None
    tools: list[str] = []
    for i in range(1, n):
        if llm is None or rnd.random() < 0.25:
            events.append(event(i, "llm_call", "model", "e0"))
            llm = f"e{i}"
            continue
        refs = ((Ref(rnd.choice(tools[-8:]), "args.id", "result.id"),)
                if tools and rnd.random() < ref_rate else ())
        events.append(event(i, "tool_call", f"tool{i % 7}", llm, refs))
        tools.append(f"e{i}")
    return Trace.from_events(events)


def culprits(trace: Trace, k: int, seed: int) -> set[str]:
    tools = [e.event_id for e in trace.events if e.kind == "tool_call"]
    return set(random.Random(seed * 7919 + k).sample(tools, k))


class Budget(Exception):
    """The budget is spent: a stop signal, caught by the caller."""


class Counted:
    """The incident oracle with a call counter, a budget and the best failure seen."""

    def __init__(self, trace: Trace, want: set[str], max_calls: int,
                 max_seconds: float) -> None:
        self.trace, self.want = trace, want
        self.max_calls, self.deadline = max_calls, time.perf_counter() + max_seconds
        self.calls = 0
        self.best: set[str] | None = None
        self.stopped: str | None = None

    def check_time(self) -> None:
        if time.perf_counter() >= self.deadline:
            self.stopped = "max_seconds"
            raise Budget

    def __call__(self, kept: set[str]) -> bool:
        if self.calls >= self.max_calls:
            self.stopped = "max_calls"
            raise Budget
        self.check_time()
        self.calls += 1
        candidate = self.trace.subtrace(kept)  # what a replay would be handed
        # a candidate that misses a dependency cannot replay: it costs a call and passes
        fails = (self.want <= {e.event_id for e in candidate.events}
                 and self.trace.closure(kept) == kept)
        if fails and (self.best is None or len(kept) < len(self.best)):
            self.best = set(kept)
        return fails


def ddmin(trace: Trace, oracle: Counted) -> set[str]:
    """Classic ddmin with the dependency closure applied; the smallest failure seen
    when the budget runs out."""
    cache: dict[frozenset[str], bool] = {}

    def fails(part: set[str]) -> tuple[bool, set[str]]:
        closed = trace.closure(part)
        key = frozenset(closed)
        if key not in cache:
            cache[key] = bool(closed) and oracle(closed)
        return cache[key], closed

    current = {e.event_id for e in trace.events}
    n = 2
    try:
        while len(current) >= 2:
            order = [e.event_id for e in trace.events if e.event_id in current]
            size = -(-len(order) // n)
            parts = [set(order[i:i + size]) for i in range(0, len(order), size)]
            oracle.check_time()  # closures cost time even when the cache answers
            nxt = _first_failing(parts, fails, current) or _first_failing(
                [current - p for p in parts], fails, current)
            if nxt is not None:
                reduced_to_subset = any(nxt == trace.closure(p) for p in parts)
                current = nxt
                n = 2 if reduced_to_subset else max(n - 1, 2)
            elif n >= len(current):
                break
            else:
                n = min(2 * n, len(current))
    except Budget:
        return oracle.best or current
    return current


def _first_failing(cands: list[set[str]], fails: Callable[[set[str]], tuple[bool, set[str]]],
                   current: set[str]) -> set[str] | None:
    """The first candidate whose closure is smaller than ``current`` and fails."""
    for c in cands:
        ok, closed = fails(c)
        if ok and len(closed) < len(current):
            return closed
    return None


def picire_run(trace: Trace, oracle: Counted) -> set[str] | None:
    """picire's DD on the events; None when picire is not installed."""
    try:
        import picire
    except ImportError:
        return None
    ids = [e.event_id for e in trace.events]

    def test(config: list[int], config_id: Any) -> Any:
        return picire.Outcome.FAIL if oracle({ids[i] for i in config}) else picire.Outcome.PASS

    try:
        result = picire.DD(test)(list(range(len(ids))))
    except Budget:
        return oracle.best or set(ids)
    return {ids[i] for i in result}
