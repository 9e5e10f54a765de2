"""``check``: run a rule set over stored traces with either engine, and record findings."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..model import FINDINGS, UsageError
from ..store import Store
from ._engine import Engine
from ._findings import Finding
from ._python import PythonEngine
from ._rule import RuleSet
from ._spark import SparkEngine
from ._sql import DuckDBEngine

__all__ = ["ENGINES", "CheckResult", "check"]

ENGINES: dict[str, Engine] = {"duckdb": DuckDBEngine(), "python": PythonEngine(),
                              "spark": SparkEngine()}
"""The engines ``check`` (and ``--engine``) can use, by name; the first is the default."""


@dataclass
class CheckResult:
    findings: list[Finding]
    traces_checked: int
    rules: RuleSet
    engine: str
    run_id: str
    checked_at: dt.datetime
    seconds: float = 0.0
    recorded: bool = field(default=False)
    #: the traces judged (``traces_checked`` of them)
    trace_ids: tuple[str, ...] = ()

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def to_dict(self) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "traces_checked": self.traces_checked,
            "rules": [r.id for r in self.rules],
            "engine": self.engine, "run_id": self.run_id,
            "errors": self.errors, "warnings": len(self.findings) - self.errors,
            "seconds": round(self.seconds, 3),
        }


def check(store: Store, rules: RuleSet, *, trace_ids: Sequence[str] | None = None,
          engine: str = "duckdb", record: bool = True,
          using: Engine | None = None) -> CheckResult:
    """Every finding of ``rules`` in the chosen traces (default: all); recorded in the
    store's ``findings`` table unless ``record`` is false. ``using``: the engine object
    to run under the name ``engine`` (one set up with options, such as a Spark master)."""
    chosen = using or ENGINES.get(engine)
    if chosen is None:
        raise UsageError(f"unknown engine {engine!r}", hint="engines: " + ", ".join(ENGINES))
    started = time.perf_counter()
    checked_at = dt.datetime.now(dt.UTC)
    ids = sorted(set(store.resolve_trace_ids(trace_ids))) if trace_ids else None
    all_ids = ids if ids is not None else sorted(store.trace_ids())
    findings = chosen.findings(store, rules, ids)
    order = {r.id: i for i, r in enumerate(rules)}
    findings.sort(key=lambda f: (order[f.rule], f.trace_id, -1 if f.seq is None else f.seq,
                                 f.event_ids))
    result = CheckResult(findings, len(all_ids), rules, engine, uuid.uuid4().hex[:12],
                         checked_at, time.perf_counter() - started,
                         trace_ids=tuple(all_ids))
    if record and findings:
        rows = [f.to_row(result.run_id, checked_at, rules.source) for f in findings]
        store.append("findings", pa.Table.from_pylist(rows, schema=FINDINGS))
        result.recorded = True
    return result
