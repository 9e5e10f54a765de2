"""``minimize``: one trace down to the steps that still break a rule.

``minimize(trace, rule)`` picks a finding of the rule (the first in step order, or
the one named by ``finding=N`` / ``signature=S``), builds the offline oracle "the
candidate still yields a finding with the same signature" unless another oracle is
given, and runs the search of ``_search.py``. ``minimize_trace(trace, oracle)`` is the
same search for any oracle, without rules.

The result's ``trace`` is the minimized trace ready to store or export: a new trace
id derived from the source id, the rule and the finding (``finding_trace_id``: stable
across runs, and two findings of one trace never share it), event ids kept (so
parents and refs stay valid) and seq renumbered 0..k-1 in the original order (the
original steps are in ``source_seqs``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Trace, UsageError
from ..rules import Finding, Rule, RuleSet, check_trace
from ._errors import NoFindingError, UnknownRuleError
from ._graph import Graph
from ._oracle import Oracle, RuleOracle
from ._runner import MinimizeProgress, OracleRunner
from ._search import reduce

__all__ = ["MinimizeResult", "derive_trace", "derived_trace_id", "finding_trace_id",
           "minimize", "minimize_trace", "pick_finding", "pick_rule"]

Progress = Callable[[MinimizeProgress], None]


@dataclass
class MinimizeResult:
    """A minimized trace and the figures of how it was found."""

    source: Trace
    trace: Trace
    kept_event_ids: tuple[str, ...]
    oracle_calls: int
    candidates: int
    one_minimal: bool
    seconds: float
    calls_by_phase: dict[str, int] = field(default_factory=dict)
    rule: str | None = None
    signature: str | None = None
    finding: Finding | None = None
    witness_failed: bool | None = None
    fell_back: bool = False
    stopped: str | None = None
    retest: bool | None = None
    unresolved: int = 0

    @property
    def trace_id(self) -> str:
        return self.trace.trace_id

    @property
    def source_seqs(self) -> dict[str, int]:
        """Each kept event's step in the source trace."""
        return {i: self.source[i].seq for i in self.kept_event_ids}

    def to_dict(self) -> dict[str, Any]:
        f = self.finding
        return {
            "trace_id": self.trace_id, "rule": self.rule, "signature": self.signature,
            "original_events": len(self.source), "kept_events": len(self.kept_event_ids),
            "kept_event_ids": list(self.kept_event_ids), "oracle_calls": self.oracle_calls,
            "one_minimal": self.one_minimal, "seconds": round(self.seconds, 3),
            "source_trace_id": self.source.trace_id,
            "kept_steps": [self.source_seqs[i] for i in self.kept_event_ids],
            "candidates": self.candidates, "calls_by_phase": dict(self.calls_by_phase),
            "witness_failed": self.witness_failed, "fell_back": self.fell_back,
            "stopped": self.stopped, "retest": self.retest, "unresolved": self.unresolved,
            "finding": None if f is None else {"seq": f.seq, "event_ids": list(f.event_ids),
                                               "message": f.message},
        }


def pick_rule(rules: RuleSet | Iterable[Rule], rule_id: str) -> Rule:
    """The rule with this id, or ``UNKNOWN_RULE``."""
    rules = list(rules)
    for r in rules:
        if r.id == rule_id:
            return r
    raise UnknownRuleError(f"no rule {rule_id!r} in the rules file",
                           hint="rules: " + ", ".join(r.id for r in rules[:20]))


def pick_finding(trace: Trace, rule: Rule, *, index: int | None = None,
                 signature: str | None = None) -> Finding:
    """The finding to minimize: the first of ``rule`` in step order, the ``index``-th
    (counting from 1), or the first whose signature starts with ``signature``."""
    return _pick(check_trace(trace, [rule]), trace, rule, index, signature)


def _pick(found: Sequence[Finding], trace: Trace, rule: Rule, index: int | None,
          signature: str | None) -> Finding:
    where = f"trace {trace.trace_id[:12]}"
    if not found:
        raise NoFindingError(f"rule {rule.id} finds nothing in {where}")
    if signature is not None:
        hits = [f for f in found if f.signature.startswith(signature)]
        if not hits:
            sigs = sorted({f.signature for f in found})
            raise NoFindingError(f"rule {rule.id} has no finding with signature "
                                 f"{signature!r} in {where}",
                                 hint="its signatures there: " + ", ".join(sigs[:10]))
        found = hits
    if index is None:
        return found[0]
    if index < 1:
        raise UsageError(f"--finding counts from 1, not {index}")
    if index > len(found):
        raise NoFindingError(f"rule {rule.id} has {len(found)} finding(s) in {where}, "
                             f"not {index}", hint=f"pick --finding 1 to {len(found)}")
    return found[index - 1]


def derived_trace_id(source_id: str, rule: str | None, signature: str | None,
                     finding: Finding | None = None) -> str:
    """A minimized trace's id: 32 hex digits over the source id, the rule and the
    signature, and with ``finding`` also over that finding's own identity (its step and
    witness event ids, what ``findings.finding_id`` hashes besides the run)."""
    parts = ["minimized", source_id, rule or "", signature or ""]
    if finding is not None:
        parts += ["" if finding.seq is None else str(finding.seq), ",".join(finding.event_ids)]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def finding_trace_id(source_id: str, finding: Finding, found: Sequence[Finding]) -> str:
    """The id of ``finding``'s minimization (``found``: every finding of its rule in the
    source trace, in step order). The first finding of a signature keeps the id stores
    and fixtures have always used (source, rule, signature); every later one adds its
    own identity, so two findings of one trace never share an id."""
    first = next((f for f in found if f.signature == finding.signature), finding)
    same = first.key() == finding.key()
    return derived_trace_id(source_id, finding.rule, finding.signature,
                            None if same else finding)


def derive_trace(source: Trace, kept: Iterable[str], trace_id: str,
                 meta: dict[str, Any] | None = None) -> Trace:
    """The kept events as a trace of their own: new trace id, seq renumbered in order."""
    keep = set(kept)
    events = [e for e in source.events if e.event_id in keep]
    return Trace(trace_id, tuple(dataclasses.replace(e, trace_id=trace_id, seq=n)
                                 for n, e in enumerate(events)), dict(meta or {}))


def minimize(trace: Trace, rule: Rule, *, finding: int | None = None,
             signature: str | None = None, oracle: Oracle | None = None,
             repeat: int = 1, vote: str = "any", max_calls: int | None = None,
             max_seconds: float | None = None,
             progress: Progress | None = None) -> MinimizeResult:
    """Reduce ``trace`` to a sub-trace that still yields ``rule``'s finding (same
    signature), closed under dependencies and 1-minimal when ``one_minimal`` says so."""
    found = check_trace(trace, [rule])
    target = _pick(found, trace, rule, finding, signature)
    offline = oracle is None
    result = minimize_trace(
        trace, oracle if oracle is not None else RuleOracle(rule, target.signature),
        witness=target.event_ids, whole_fails=offline, repeat=repeat, vote=vote,
        max_calls=max_calls, max_seconds=max_seconds, progress=progress,
        trace_id=finding_trace_id(trace.trace_id, target, found))
    result.rule, result.signature, result.finding = rule.id, target.signature, target
    return result


def minimize_trace(trace: Trace, oracle: Oracle, *, witness: Iterable[str] = (),
                   whole_fails: bool = False, repeat: int = 1, vote: str = "any",
                   max_calls: int | None = None, max_seconds: float | None = None,
                   progress: Progress | None = None, retest: bool | None = None,
                   trace_id: str | None = None) -> MinimizeResult:
    """The search for any oracle. ``witness``: event ids to try first (with their
    dependencies); ``whole_fails``: the whole trace is known to fail (no call spent
    on it); ``retest``: re-test the final result (default: unless the oracle is
    deterministic and runs once)."""
    graph = Graph(trace)
    runner = OracleRunner(graph, oracle, repeat=repeat, vote=vote, max_calls=max_calls,
                    max_seconds=max_seconds, progress=progress)
    if retest is None:
        retest = not (getattr(oracle, "deterministic", False) and repeat == 1)
    red = reduce(runner, graph, witness=graph.mask(witness), whole_fails=whole_fails,
                 retest=retest)
    kept = tuple(e.event_id for e in trace.events if red.mask >> graph.index[e.event_id] & 1)
    new_id = trace_id or derived_trace_id(trace.trace_id, None, None)
    return MinimizeResult(
        source=trace, trace=derive_trace(trace, kept, new_id, trace.meta),
        kept_event_ids=kept, oracle_calls=runner.calls, candidates=runner.candidates,
        one_minimal=red.one_minimal, seconds=runner.seconds,
        calls_by_phase=dict(runner.calls_by_phase), witness_failed=red.witness_failed,
        fell_back=red.fell_back, stopped=red.stopped, retest=red.retest,
        unresolved=getattr(oracle, "unresolved", 0))
