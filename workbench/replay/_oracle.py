"""``minimize --target``: the oracle replays each candidate's HTTP steps against a live
target and judges the answers by the invariant (in memory: candidates are not stored),
so a finding shrinks to the steps that still make the service fail. Each candidate
replay is one oracle call, counted against ``--max-calls`` and ``--max-seconds``;
``--repeat`` replays a candidate up to N times (a race rarely recurs on the first try).
The search, its dependency closure and the 1-minimality proof are ``minimize``'s."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..invariants import (
    Exchange,
    Spec,
    exchanges_of,
    judge,
    judge_trace,
    pick_invariant_finding,
)
from ..minimize import MinimizeResult, OracleError, finding_trace_id, minimize_trace
from ..model import Trace
from ._regen import regenerate
from ._send import play, steps_of
from ._target import Target, credentials, parse_target

__all__ = ["ReplayOracle", "minimize_live"]

#: budgets of a live minimization when none is given
LIVE_MAX_CALLS = 200
LIVE_MAX_SECONDS = 120.0


@dataclass
class ReplayOracle:
    """A candidate still fails when replaying it against ``target`` yields a finding of
    ``invariant`` with ``signature``. A target that cannot be reached, or a credential
    the candidate needs and no ``--auth-env`` gives, stops the search (``ORACLE_FAILED``);
    a 401/403 to a credentialed step makes the call unresolved (a pass)."""

    spec: Spec
    invariant: str
    signature: str
    target: Target
    creds: dict[str, str]
    timeout: float = 10.0
    deterministic: bool = False
    #: exchanges whose generated values were drawn again from the probe's seed, by event
    restored: dict[str, Exchange] = field(default_factory=dict)
    unresolved: int = field(default=0, init=False)
    calls: int = field(default=0, init=False)
    _run: str = field(default_factory=lambda: uuid.uuid4().hex[:8], init=False)

    def __call__(self, trace: Trace) -> bool:
        exchanges = [self.restored.get(x.event_id, x) for x in exchanges_of(trace)]
        if not exchanges:
            return False
        self.calls += 1
        attempt = play(steps_of(trace.events, exchanges), self.target, self.creds,
                       f"m{self._run}.{self.calls}", self.timeout)
        if attempt.error_code in ("REPLAY_UNREACHABLE", "REPLAY_TIMEOUT",
                                  "CREDENTIAL_MISSING"):
            raise OracleError(f"replaying a candidate failed: {attempt.error_message}",
                              code="ORACLE_FAILED", outcome=attempt.error_code,
                              hint="check that --target answers and --auth-env names the "
                                   "credentials the steps carry")
        if attempt.error_code is not None:
            self.unresolved += 1
            return False
        found = judge(attempt.exchanges, self.spec, [self.invariant]).findings
        return any(f.signature == self.signature for f in found)


def minimize_live(trace: Trace, spec: Spec, invariant: str, target: str, *,
                  finding: int | None = None, signature: str | None = None,
                  auth_env: Sequence[str] = (), allow_writes: Sequence[str] = (),
                  repeat: int = 1, vote: str = "any", max_calls: int | None = None,
                  max_seconds: float | None = None, timeout: float = 10.0,
                  progress: Callable[[Any], None] | None = None,
                  redaction_key: Callable[[], bytes] | None = None) -> MinimizeResult:
    """Minimize an invariant's finding with the live oracle. The whole trace is replayed
    first (one call): if the target does not fail on it, ``NOT_REPRODUCED``. With
    ``redaction_key`` (the store's), values a probe generated and the store redacted are
    drawn again from its seed and proved, as ``replay`` does (docs/replay.md)."""
    tgt = parse_target(target, allow_writes)
    creds = credentials(auth_env)
    chosen = pick_invariant_finding(trace, spec, invariant, index=finding, signature=signature)
    for x in exchanges_of(trace):
        tgt.refuse_writes(x.method)
    restored: dict[str, Exchange] = {}
    if redaction_key is not None:
        regen = regenerate(steps_of(trace.events, exchanges_of(trace)), trace.events,
                           lambda: spec, redaction_key)
        restored = {s.exchange.event_id: s.exchange for s in regen.steps}
    oracle = ReplayOracle(spec, invariant, chosen.signature, tgt, creds, timeout,
                          restored=restored)
    result = minimize_trace(
        trace, oracle, witness=chosen.event_ids, whole_fails=False, repeat=repeat, vote=vote,
        max_calls=LIVE_MAX_CALLS if max_calls is None else max_calls,
        max_seconds=LIVE_MAX_SECONDS if max_seconds is None else max_seconds,
        progress=progress,
        trace_id=finding_trace_id(trace.trace_id, chosen,
                                  judge_trace(trace, spec, [invariant])))
    result.rule, result.signature, result.finding = invariant, chosen.signature, chosen
    return result
