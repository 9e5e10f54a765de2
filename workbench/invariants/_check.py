"""``invariants``: the store's recorded HTTP traffic judged against an OpenAPI document,
its findings recorded in the same ``findings`` table as rules' (``rule`` = the
invariant's name), signed and grouped the same way."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Trace
from ..rules import Finding, ReportRule
from ..store import Store
from ._errors import NoHTTPEventsError
from ._http import exchanges_of, store_exchanges
from ._judge import INVARIANTS, judge, pick_invariants
from ._openapi import Spec

__all__ = ["InvariantCheck", "check_invariants", "judge_trace", "record_findings",
           "report_rules"]


@dataclass
class InvariantCheck:
    """One run: shaped like ``check``'s result (``rule`` is the invariant's name)."""

    findings: list[Finding]
    traces_checked: int
    exchanges: int
    judged: int
    undocumented: dict[str, int]
    invariants: list[str]
    run_id: str
    checked_at: dt.datetime
    seconds: float = 0.0
    recorded: bool = field(default=False)
    #: (invariant, why) -> exchanges of documented operations it could not judge
    not_judged: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def to_dict(self) -> dict[str, Any]:
        return {"findings": [f.to_dict() for f in self.findings],
                "traces_checked": self.traces_checked, "rules": self.invariants,
                "exchanges": self.exchanges, "judged": self.judged,
                "undocumented": [{"request": k, "count": v}
                                 for k, v in sorted(self.undocumented.items())],
                "not_judged": [{"invariant": k[0], "reason": k[1], "count": v}
                               for k, v in sorted(self.not_judged.items())],
                "run_id": self.run_id, "errors": self.errors,
                "warnings": len(self.findings) - self.errors,
                "seconds": round(self.seconds, 3)}


def report_rules(invariants: Sequence[str] | None = None) -> list[ReportRule]:
    """What SARIF and JUnit say of each invariant."""
    return [ReportRule(n, INVARIANTS[n], "error", "invariant")
            for n in (invariants or list(INVARIANTS))]


def judge_trace(trace: Trace, spec: Spec, only: Sequence[str] | None = None,
                windows: Sequence[tuple[int, int]] = ()) -> list[Finding]:
    """The findings of one trace in memory (what minimization's oracle re-runs)."""
    return judge(exchanges_of(trace), spec, only, windows).findings


def check_invariants(store: Store, spec: Spec, *, trace_ids: Sequence[str] | None = None,
                     only: Sequence[str] | None = None,
                     windows: Sequence[tuple[int, int]] = (), record: bool = True,
                     source: str | None = None, require_http: bool = True) -> InvariantCheck:
    """Judge the chosen traces (default: all); ``NO_HTTP_EVENTS`` when they hold no
    ``http`` event (unless ``require_http`` is false: ``check --invariants`` judges agent
    traces too). Findings are recorded unless ``record`` is false."""
    started = time.perf_counter()
    names = pick_invariants(only)
    checked_at = dt.datetime.now(dt.UTC)
    ids = sorted(set(store.resolve_trace_ids(trace_ids))) if trace_ids else None
    judged = judge(store_exchanges(store, ids), spec, names, windows)
    if judged.exchanges == 0 and require_http:
        which = "the named traces hold" if ids else "the store holds"
        raise NoHTTPEventsError(f"{which} no HTTP events to judge", traces=ids or [])
    traces = len(ids) if ids is not None else len(store.trace_ids())
    result = InvariantCheck(judged.findings, traces, judged.exchanges, judged.judged,
                            dict(judged.undocumented), names, uuid.uuid4().hex[:12],
                            checked_at, time.perf_counter() - started,
                            not_judged=dict(judged.not_judged))
    if record and result.findings:
        record_findings(store, [f.to_row(result.run_id, checked_at, source)
                                for f in result.findings])
        result.recorded = True
    return result


def record_findings(store: Store, rows: list[dict[str, Any]]) -> None:
    """Append finding rows (``Finding.to_row``) to the store's ``findings`` in one commit."""
    import pyarrow as pa

    from ..model import FINDINGS

    if rows:
        store.append("findings", pa.Table.from_pylist(rows, schema=FINDINGS))
