"""``run_replay``: a finding's steps re-run against a target ``attempts`` times, each
attempt recorded as a trace (``ingest``, redaction on) and judged by the same rule or
invariant, each appended to ``replays``; the group's status read back from
``finding_groups`` (docs/replay.md)."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import shlex
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..ingest import check_env, ingest
from ..invariants import Exchange, exchanges_of
from ..minimize import command_oracle
from ..model import REPLAYS, Trace, UsageError
from ..redact import Scrubber, masked
from ..store import Store, to_rows
from ._errors import OUTCOME_CODES, ReplayInputError
from ._find import Judge, Picked, judge_for, pick, spec_for
from ._har import har_of
from ._landing import Divergence, divergences, stopped_at
from ._regen import regenerate
from ._scrub import scrub_attempt
from ._send import Attempt, play, steps_of
from ._target import Target, credentials, parse_target

__all__ = ["ReplayResult", "ReplayRun", "run_replay"]

MAX_ATTEMPTS = 20


@dataclass
class ReplayRun:
    """One attempt: what it observed (``reproduced`` None when it observed nothing:
    ``error``, or ``diverged`` when a step did not land; ``divergence`` names the first
    step that did not land, or at which the attempt stopped)."""

    attempt: int
    started_at: dt.datetime
    outcome: str
    reproduced: bool | None
    steps: int
    steps_run: int
    signature: str | None = None
    trace_id: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    seconds: float = 0.0
    tokens_sent: list[int] = field(default_factory=list)
    divergence: Divergence | None = None  # the first step that did not land

    def to_json(self) -> dict[str, Any]:
        return {"attempt": self.attempt, "outcome": self.outcome,
                "reproduced": self.reproduced, "steps_run": self.steps_run,
                "steps": self.steps, "signature": self.signature, "trace_id": self.trace_id,
                "tokens_sent": self.tokens_sent,
                "divergence": None if self.divergence is None else self.divergence.to_json(),
                "error": None if self.error_code is None else
                {"code": self.error_code, "message": self.error_message},
                "started_at": self.started_at.isoformat(), "seconds": round(self.seconds, 3)}


@dataclass
class ReplayResult:
    """A replay run: its attempts and the group's status after them."""

    replay_id: str
    picked: Picked
    env: str
    target: str
    attempts: int
    runs: list[ReplayRun] = field(default_factory=list)
    status: str = "open"
    seconds: float = 0.0
    mode: str = "http"
    regenerated: int = 0
    fixed_below: float | None = None

    @property
    def reproduced(self) -> bool | None:
        """True if any attempt reproduced; False if every observed attempt was clean;
        None if no attempt observed anything (each an ``error`` or ``diverged``)."""
        seen = [r.reproduced for r in self.runs if r.reproduced is not None]
        return any(seen) if seen else None

    @property
    def error(self) -> ReplayRun | None:
        """The first attempt that observed nothing, when none observed anything."""
        return None if self.reproduced is not None or not self.runs else self.runs[0]

    def reproduction(self) -> dict[str, Any] | None:
        """The reproduction rate over the attempts that observed a result (reproduced
        or clean), with its Clopper-Pearson interval (docs/statistics.md); None when
        none did."""
        seen = [r.reproduced for r in self.runs if r.reproduced is not None]
        if not seen:
            return None
        from ..stats import CONFIDENCE, interval

        low, high = interval(sum(seen), len(seen))
        return {"reproduced": sum(seen), "observed": len(seen),
                "rate": round(sum(seen) / len(seen), 6), "low": round(low, 6),
                "high": round(high, 6), "confidence": CONFIDENCE,
                "interval": "clopper-pearson"}

    def to_json(self) -> dict[str, Any]:
        p = self.picked
        return {"finding": p.finding_id, "group": p.signature, "env": self.env,
                "target": self.target, "attempts": self.attempts,
                "runs": [r.to_json() for r in self.runs], "reproduced": self.reproduced,
                "status": self.status, "replay_id": self.replay_id, "ref": p.kind,
                "rule": p.rule, "finding_env": p.env, "source_trace": p.source_trace,
                "mode": self.mode, "regenerated": self.regenerated,
                "seconds": round(self.seconds, 3),
                "error": self._error(), "reproduction": self.reproduction(),
                "fixed_below": self.fixed_below}

    def _error(self) -> dict[str, Any] | None:
        """When no attempt observed anything: the error envelope's keys, so a script
        reading ``error.code`` (as for any exit 2) finds why."""
        err = self.error
        if err is None:
            return None
        code = err.error_code or "ORACLE_UNRESOLVED"
        return {"code": code, "message": err.error_message, "hint": OUTCOME_CODES.get(code, ""),
                "details": {"recorded": len(self.runs)}}


def run_replay(store: Store, ref: str, target: str, *, env: str | None = None,
               attempts: int = 3, auth_env: Sequence[str] = (),
               oracle_cmd: str | None = None, oracle_timeout: float | None = None,
               allow_writes: Sequence[str] = (), invariants: str | None = None,
               rules: str | None = None, timeout: float = 10.0,
               fixed_below: float | None = None) -> ReplayResult:
    """Replay the finding or group ``ref`` against ``target``; see the module docstring.
    Bad input raises before anything is sent or written; what an attempt could not
    observe is recorded as its outcome ``error``. ``fixed_below``: the group reads fixed
    when the run's reproduction rate has its upper bound under this, flaky when its
    interval holds it (docs/statistics.md); else three clean attempts stay the reading."""
    started = time.perf_counter()
    # what recording an attempt converts first imports pandas under pyarrow (about
    # 0.3 s): let that happen while the steps are on the wire
    threading.Thread(target=_warm_up, daemon=True).start()
    if not 1 <= attempts <= MAX_ATTEMPTS:
        raise UsageError(f"--attempts must be 1..{MAX_ATTEMPTS}, not {attempts}")
    if timeout <= 0:
        raise UsageError(f"--timeout must be positive, not {timeout}")
    if fixed_below is not None and not 0 < fixed_below < 1:
        raise UsageError(f"--fixed-below {fixed_below!r} is not a rate between 0 and 1",
                         code="RATE_INVALID", hint="e.g. --fixed-below 0.05")
    tgt = parse_target(target, allow_writes)
    picked = pick(store, ref)
    env = check_env(env) if env is not None else picked.env
    creds = credentials(auth_env)
    trace = store.trace(picked.source_trace)
    result = ReplayResult(uuid.uuid4().hex[:12], picked, env, tgt.url, attempts,
                          fixed_below=fixed_below)
    if oracle_cmd is not None:
        result.mode = "oracle"
        # {target} in the command becomes the target URL; {trace} the steps' JSONL file
        oracle = command_oracle(oracle_cmd.replace("{target}", shlex.quote(tgt.url)),
                                oracle_timeout)
        for n in range(1, attempts + 1):
            at, before = dt.datetime.now(dt.UTC), oracle.unresolved
            t0 = time.perf_counter()
            # a command that cannot run at all raises ORACLE_FAILED: nothing is recorded
            hit = oracle(trace)
            spent = time.perf_counter() - t0
            if oracle.unresolved > before:
                result.runs.append(ReplayRun(
                    n, at, "error", None, len(trace), len(trace), error_code="ORACLE_UNRESOLVED",
                    error_message="--oracle-cmd exited with neither 0 nor 1, or timed out",
                    seconds=spent))
            else:
                result.runs.append(ReplayRun(n, at, "reproduced" if hit else "clean", hit,
                                             len(trace), len(trace),
                                             picked.signature if hit else None,
                                             seconds=spent))
    else:
        _replay_http(store, picked, trace, tgt, creds, result, invariants, rules, timeout)
    _record(store, result)
    result.status = _status(store, picked.signature)
    result.seconds = time.perf_counter() - started
    return result


def _replay_http(store: Store, picked: Picked, trace: Trace, tgt: Target,
                 creds: dict[str, str], result: ReplayResult, invariants: str | None,
                 rules: str | None, timeout: float) -> None:
    others = sorted({e.kind for e in trace.events if e.kind in ("tool_call", "llm_call")})
    exchanges = exchanges_of(trace)
    if not exchanges:
        raise ReplayInputError(
            f"trace {picked.source_trace[:12]} holds no HTTP step to send"
            + (f" (its steps are {', '.join(others)})" if others else ""),
            code="REPLAY_NEEDS_ORACLE" if others else "REPLAY_NO_STEPS",
            hint="replay tool-call steps with --oracle-cmd 'CMD {trace}' (as minimize does)")
    witness = set(picked.finding.get("event_ids") or ())
    offending = [e for e in trace.events if e.event_id in witness and e.kind != "http"
                 and e.kind in ("tool_call", "llm_call")]
    if offending:
        raise ReplayInputError(
            f"the finding's step {offending[0].name!r} is a {offending[0].kind}, not an "
            "HTTP request", hint="replay tool-call steps with --oracle-cmd 'CMD {trace}'")
    for x in exchanges:
        tgt.refuse_writes(x.method)
    judge = judge_for(picked, invariants=invariants, rules=rules)
    regen = regenerate(steps_of(trace.events, exchanges), trace.events,
                       lambda: spec_for(picked, invariants), store.redaction_key)
    steps, result.regenerated = regen.steps, regen.values
    # what was sent as a credential never reaches the store, whatever the service echoes
    scrub = Scrubber(store.redaction_key(), creds.items())
    played: list[tuple[int, dt.datetime, Attempt]] = []
    for n in range(1, result.attempts + 1):
        at = dt.datetime.now(dt.UTC)
        attempt = scrub_attempt(scrub, play(steps, tgt, creds, f"{result.replay_id}.{n}",
                                            timeout))
        played.append((n, at, attempt))
        if attempt.error_code in ("CREDENTIAL_MISSING", "REPLAY_UNREACHABLE",
                                  "REPLAY_TIMEOUT", "LIMIT_EXCEEDED"):
            break  # the next attempt cannot fare otherwise
    traces = _ingest(store, played, result, picked)
    recorded = store.traces(list(traces.values()))
    for n, at, attempt in played:
        run = ReplayRun(n, at, "error", None, len(steps), len(attempt.exchanges),
                        trace_id=traces.get(n), seconds=attempt.seconds,
                        tokens_sent=[s for s in regen.tokens if s <= len(attempt.exchanges)])
        _judge(run, attempt, [s.exchange for s in steps],
               recorded[traces[n]] if n in traces else None, judge, picked.signature)
        result.runs.append(run)


def _judge(run: ReplayRun, attempt: Attempt, sent: list[Exchange], trace: Trace | None,
           judge: Judge, signature: str) -> None:
    """The attempt's outcome (docs/replay.md, "Did the steps land?"): ``reproduced``
    when the signature came back on steps that landed; else ``error`` when it stopped
    without an answer, ``diverged`` when a step did not land, ``error`` when it sent
    redaction tokens, and ``clean`` only when every step landed and the judge found
    nothing of the signature."""
    missed = divergences(sent, attempt.exchanges)
    if attempt.error_code is not None and attempt.stopped is not None:
        i = attempt.stopped
        new = attempt.exchanges[i] if i < len(attempt.exchanges) else None
        missed.append(stopped_at(i + 1, sent[i], new, masked(attempt.error_message or "")))
    run.divergence = missed[0] if missed else None
    found = judge(trace) if trace is not None else []
    # a finding counts only on steps that landed: a 404 may break a rule of its own
    steps = {x.event_id: i + 1 for i, x in enumerate(exchanges_of(trace))} if trace else {}
    off = {d.step for d in missed}
    same = [f for f in found if f.signature == signature
            and not any(steps.get(e, 0) in off for e in f.event_ids)]
    seen = same or found
    run.signature = seen[0].signature if seen else None
    if same:
        run.outcome, run.reproduced = "reproduced", True
    elif attempt.error_code is not None:
        run.error_code = attempt.error_code
        run.error_message = masked(attempt.error_message or "")
    elif run.divergence is not None:
        run.outcome, run.error_code = "diverged", "REPLAY_DIVERGED"
        run.error_message = f"step {run.divergence.step}: {run.divergence.message}"
    elif run.tokens_sent:  # clean, but not on the recorded inputs
        run.error_code = "TOKENS_SENT"
        run.error_message = (
            f"step(s) {', '.join(map(str, run.tokens_sent))} were sent with "
            "redaction tokens in place of the recorded values (none could be drawn "
            "again from a probe's seed and proved); the clean answer counts for "
            "nothing")
    else:
        run.outcome, run.reproduced = "clean", False


def _ingest(store: Store, played: list[tuple[int, dt.datetime, Attempt]],
            result: ReplayResult, picked: Picked) -> dict[int, str]:
    """Each attempt that sent a step, as a trace in the target's environment."""
    docs = {n: har_of(a, f"replay {result.replay_id} of finding {picked.finding_id} "
                         f"attempt {n}") for n, _, a in played if a.exchanges}
    if not docs:
        return {}
    with tempfile.TemporaryDirectory(prefix="workbench-replay-") as tmp:
        paths = []
        for n, data in docs.items():
            p = Path(tmp) / f"replay-{result.replay_id}-{n}.har"
            p.write_bytes(data)
            paths.append(p)
        ingest(paths, store, workers=1, env=result.env, strict=True)  # its own files: all or none
    by_hash = {hashlib.sha256(d).hexdigest(): n for n, d in docs.items()}
    rows = to_rows(store.sql("SELECT trace_id, source_sha256 FROM traces "
                             "WHERE list_contains(?, source_sha256)", [list(by_hash)]))
    return {by_hash[r["source_sha256"]]: r["trace_id"] for r in rows}


def _record(store: Store, result: ReplayResult) -> None:
    p = result.picked
    rep = result.reproduction()
    low, high = (rep["low"], rep["high"]) if rep else (None, None)
    rows = [{"replay_id": result.replay_id, "attempt": r.attempt, "started_at": r.started_at,
             "finding": p.finding_id, "signature": p.signature, "rule": p.rule,
             "finding_env": p.env, "env": result.env, "target": result.target,
             "source_trace": p.source_trace, "outcome": r.outcome, "reproduced": r.reproduced,
             "steps": r.steps, "steps_run": r.steps_run, "observed_signature": r.signature,
             "trace_id": r.trace_id, "error_code": r.error_code,
             "error_message": r.error_message, "seconds": r.seconds,
             "diverged_step": None if r.divergence is None else r.divergence.step,
             "divergence": None if r.divergence is None else r.divergence.message,
             "fixed_below": result.fixed_below, "rate_low": low, "rate_high": high}
            for r in result.runs]
    if rows:
        store.append("replays", pa.Table.from_pylist(rows, schema=REPLAYS))


def _warm_up() -> None:
    with contextlib.suppress(Exception):
        pa.array([0], pa.int64())


def _status(store: Store, signature: str) -> str:
    rows = to_rows(store.sql("SELECT status FROM finding_groups WHERE signature = ?",
                             [signature]))
    return str(rows[0]["status"]) if rows else "open"
