"""Minimizing an invariant's finding: the same dependency-closed search as a rule's
(``minimize.minimize_trace``), with an offline oracle that re-judges each candidate and
looks for the same signature. The finding's witnesses (the create a retry repeats, the
pages of a walk) are tried first, with their dependencies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..minimize import MinimizeResult, NoFindingError, finding_trace_id, minimize_trace
from ..model import Trace, UsageError
from ..rules import Finding
from ._check import judge_trace
from ._judge import pick_invariants
from ._openapi import Spec

__all__ = ["InvariantOracle", "minimize_invariant", "pick_invariant_finding"]


@dataclass(frozen=True)
class InvariantOracle:
    """Offline: the candidate still yields a finding of ``invariant`` with ``signature``."""

    spec: Spec
    invariant: str
    signature: str
    deterministic: bool = True

    def __call__(self, trace: Trace) -> bool:
        return any(f.signature == self.signature
                   for f in judge_trace(trace, self.spec, [self.invariant]))


def pick_invariant_finding(trace: Trace, spec: Spec, invariant: str, *,
                           index: int | None = None, signature: str | None = None) -> Finding:
    """The first finding of ``invariant`` in step order, the ``index``-th (from 1), or the
    first whose signature starts with ``signature``."""
    pick_invariants([invariant])
    found = judge_trace(trace, spec, [invariant])
    where = f"trace {trace.trace_id[:12]}"
    if signature is not None:
        found = [f for f in found if f.signature.startswith(signature)]
    if not found:
        what = f" with signature {signature!r}" if signature else ""
        raise NoFindingError(f"invariant {invariant} finds nothing{what} in {where}")
    if index is None:
        return found[0]
    if not 1 <= index <= len(found):
        raise UsageError(f"--finding {index}: invariant {invariant} has {len(found)} "
                         f"finding(s) in {where}")
    return found[index - 1]


def minimize_invariant(trace: Trace, spec: Spec, invariant: str, *,
                       finding: int | None = None, signature: str | None = None,
                       max_calls: int | None = None, max_seconds: float | None = None,
                       progress: Callable[[Any], None] | None = None) -> MinimizeResult:
    target = pick_invariant_finding(trace, spec, invariant, index=finding, signature=signature)
    result = minimize_trace(
        trace, InvariantOracle(spec, invariant, target.signature), witness=target.event_ids,
        whole_fails=True, max_calls=max_calls, max_seconds=max_seconds, progress=progress,
        trace_id=finding_trace_id(trace.trace_id, target,
                                  judge_trace(trace, spec, [invariant])))
    result.rule, result.signature, result.finding = invariant, target.signature, target
    return result
