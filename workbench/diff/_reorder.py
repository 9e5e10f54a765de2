"""Reordered events, and whether a reordering matters.

An event *moved* when it has the same content on both sides but could not be aligned
in order: it went past others (``crossed``). Whether that matters is a question for the
partial order, not for the sequence:

- ``unordered``: in A the moved event overlapped every event it crossed (neither
  happened before the other), so A never ordered them;
- ``breaks``: with a rules file, B has a finding A does not, on the moved event or an
  event it crossed (or a trace-level finding such as a failed ``order``);
- ``allowed``: with a rules file, no such finding: the rules' partial order permits it;
- ``unchecked``: no rules file was given.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from ..model import Event, Trace
from ..rules import RuleSet, check_trace
from ._tracediff import EventRef, Reorder

__all__ = ["judge", "reorders"]

_CROSSED = 50       # events listed per reordering
_MOVES_PAIRWISE = 500


def reorders(a: Trace, ea: Sequence[Event], eb: Sequence[Event],
             pairs: list[tuple[int, int]], moves: list[tuple[int, int]]) -> list[Reorder]:
    """One ``Reorder`` per moved event, with the events it went past."""
    pa = [i for i, _ in pairs]
    pb = [j for _, j in pairs]
    out = []
    for i, j in sorted(moves, key=lambda m: m[1]):
        k = bisect_left(pa, i)
        # aligned events before it in A but after it in B, and the other way round
        crossed = [pairs[x] for x in range(bisect_right(pb, j, 0, k), k)]
        crossed += [pairs[x] for x in range(k, bisect_left(pb, j, k))]
        if len(moves) <= _MOVES_PAIRWISE:
            crossed += [(i2, j2) for i2, j2 in moves if (i2 < i) != (j2 < j) and i2 != i]
        if not crossed:
            continue
        crossed.sort()
        x = ea[i]
        verdict = "unordered" if all(a.concurrent(x, ea[c]) for c, _ in crossed) else (
            "unchecked")
        out.append(Reorder(EventRef.of(x), EventRef.of(eb[j]),
                           tuple(EventRef.of(ea[c]) for c, _ in crossed[:_CROSSED]), verdict))
    return out


def judge(a: Trace, b: Trace, found: list[Reorder], pairs: list[tuple[str, str]],
          rules: RuleSet) -> tuple[list[Reorder], dict[str, list[dict[str, Any]]]]:
    """Judge each reordering by the findings B has and A has not."""
    b2a = {y: x for x, y in pairs}
    fa, fb = check_trace(a, rules), check_trace(b, rules)
    seen = {(f.rule, f.event_ids) for f in fa}
    new = [f for f in fb
           if (f.rule, tuple(b2a.get(e, "b:" + e) for e in f.event_ids)) not in seen]
    a2b = {x: y for x, y in pairs}
    seen_b = {(f.rule, f.event_ids) for f in fb}
    gone = [f for f in fa if (f.rule, tuple(a2b.get(e, "a:" + e) for e in f.event_ids))
            not in seen_b]
    judged = []
    for r in found:
        involved = {r.b.event_id} | {a2b.get(c.event_id, "") for c in r.crossed}
        broken = sorted({f.rule for f in new
                         if not f.event_ids or involved & set(f.event_ids)})
        verdict = "breaks" if broken else (
            "unordered" if r.verdict == "unordered" else "allowed")
        judged.append(Reorder(r.a, r.b, r.crossed, verdict, tuple(broken)))
    return judged, {"new": [f.to_dict() for f in new], "gone": [f.to_dict() for f in gone]}
