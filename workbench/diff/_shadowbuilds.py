"""``shadow --compare BASE..CANDIDATE``: two builds' recorded runs of each scenario,
changed fields by rate.

The runs are stored traces labelled with a scenario and a build (``ingest --scenario
--build``, as ``check --compare`` reads them). Per scenario, the base build's first run
(earliest start, then trace id), or a golden trace given, is the **reference**; every
other run of either build is
diffed against it as ``workbench diff`` does (events aligned, ``--canon`` applied), and
each changed field is counted once per run under a key that names the event and the
path: ``tool_call list_projects: args.owner``, ``+ tool_call archive_project`` (an event
only the run has), ``- …`` (only the reference has), ``↕ …`` (moved). The two builds'
counts are compared as ``shadow --runs`` compares them (``rate_fields``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..model import UsageError
from ..stats import check_comparison
from ..store import Store, to_rows
from ._canonfile import Canon
from ._shadowruns import FieldRate, rate_fields
from ._tracediff import EventRef, TraceDiff, diff_traces
from ._values import PathChange

__all__ = ["ScenarioRates", "ShadowBuildsResult", "diff_fields", "shadow_builds"]


def _ev(e: EventRef) -> str:
    return f"{e.kind} {e.name}"


def _ref(e: EventRef) -> dict[str, Any]:
    return {"seq": e.seq, "event_id": e.event_id}


def diff_fields(d: TraceDiff) -> dict[str, PathChange]:
    """A trace diff as changed fields: one key per changed path of an aligned event, and
    per event added, removed or moved (the first example of each key kept)."""
    out: dict[str, PathChange] = {}
    for c in d.changed:
        for p in c.paths:
            out.setdefault(f"{_ev(c.b)}: {p.path}", p)
    for e in d.added:
        out.setdefault(f"+ {_ev(e)}", PathChange(f"+ {_ev(e)}", None, _ref(e), "added"))
    for e in d.removed:
        out.setdefault(f"- {_ev(e)}", PathChange(f"- {_ev(e)}", _ref(e), None, "removed"))
    for r in d.reordered:
        key = f"↕ {_ev(r.b)}"
        out.setdefault(key, PathChange(key, r.a.seq, r.b.seq))
    return out


@dataclass
class ScenarioRates:
    """One scenario: its reference run, how many runs of each build were diffed
    against it, and the changed fields compared."""

    scenario: str
    reference: str | None
    base_runs: int
    candidate_runs: int
    fields: list[FieldRate] = field(default_factory=list)
    problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scenario": self.scenario, "reference": self.reference,
                               "base_runs": self.base_runs,
                               "candidate_runs": self.candidate_runs,
                               "fields": [f.to_dict(("base", "candidate"))
                                          for f in self.fields]}
        if self.problem:
            out["problem"] = self.problem
        return out


@dataclass
class ShadowBuildsResult:
    base: str
    candidate: str
    scenarios: list[ScenarioRates]
    alpha: float
    margin: float

    @property
    def verdicts(self) -> Counter[str]:
        return Counter(f.verdict for s in self.scenarios for f in s.fields)

    def failing(self, fail_inconclusive: bool = False) -> bool:
        bad = {"REGRESSED"} | ({"INCONCLUSIVE"} if fail_inconclusive else set())
        return any(f.verdict in bad for s in self.scenarios for f in s.fields)

    def to_dict(self) -> dict[str, Any]:
        return {"compare": f"{self.base}..{self.candidate}", "base": self.base,
                "candidate": self.candidate, "alpha": self.alpha, "margin": self.margin,
                "verdicts": dict(sorted(self.verdicts.items())),
                "scenarios": [s.to_dict() for s in self.scenarios]}


def _parse(spec: str) -> tuple[str, str]:
    base, sep, candidate = spec.partition("..")
    if not sep or not base or not candidate or base == candidate:
        raise UsageError(f"--compare {spec!r} is not BASE..CANDIDATE",
                         hint="two different builds, e.g. --compare 1.4.2..1.5.0")
    return base, candidate


def _runs(store: Store, base: str, candidate: str, scenario: str | None
          ) -> dict[str, dict[str, list[str]]]:
    """Per scenario, each build's trace ids, earliest start first."""
    rows = to_rows(store.sql(
        "SELECT trace_id, scenario, build FROM traces WHERE scenario IS NOT NULL "
        "AND build IN (?, ?) AND (? IS NULL OR scenario = ?) "
        "ORDER BY start_ns NULLS LAST, trace_id", [base, candidate, scenario, scenario]))
    runs: dict[str, dict[str, list[str]]] = defaultdict(lambda: {base: [], candidate: []})
    for r in rows:
        runs[r["scenario"]][r["build"]].append(r["trace_id"])
    return runs


def shadow_builds(store: Store, spec: str, *, canon: Canon | None = None,
                  scenario: str | None = None, reference: str | None = None,
                  alpha: float = 0.05, margin: float = 0.10) -> ShadowBuildsResult:
    """Per scenario, how often each build's runs change each field of the reference
    run, compared (``spec``: ``BASE..CANDIDATE``). The reference is the base build's
    first run of the scenario, or the trace ``reference`` (an id or a unique prefix: a
    golden run; with it, ``scenario`` is needed unless one scenario is labelled), which
    is then not counted among the runs."""
    base, candidate = _parse(spec)
    golden = store.resolve_trace_id(reference) if reference is not None else None
    check_comparison(alpha, margin)
    canon = canon or Canon()
    runs = _runs(store, base, candidate, scenario)
    seen = {b for sides in runs.values() for b, ids in sides.items() if ids}
    missing = [b for b in (base, candidate) if b not in seen]
    if missing:
        known = sorted(b for b in store.sql(
            "SELECT DISTINCT build FROM traces WHERE build IS NOT NULL AND scenario IS NOT "
            "NULL").column(0).to_pylist())
        raise UsageError(f"no run of a scenario was made by build {missing[0]!r}"
                         + (f" in scenario {scenario!r}" if scenario else ""),
                         code="BUILD_UNKNOWN",
                         hint="builds of the labelled traces: " + (", ".join(known) or
                                                                   "none") +
                              " (ingest --scenario NAME --build ID)")
    if golden is not None and len(runs) > 1:
        raise UsageError(f"--reference {reference} is one run: compare one scenario with "
                         "it", hint="add --scenario NAME (scenarios: "
                                    + ", ".join(sorted(runs)) + ")")
    out = []
    for name, sides in sorted(runs.items()):
        b_ids = [t for t in sides[base] if t != golden]
        c_ids = [t for t in sides[candidate] if t != golden]
        ref_id = golden or (b_ids.pop(0) if b_ids else None)
        if ref_id is None or not b_ids or not c_ids:
            lacking = base if not b_ids else candidate
            out.append(ScenarioRates(name, ref_id, len(b_ids), len(c_ids),
                                     problem=f"no run of build {lacking} to compare"))
            continue
        ref = store.trace(ref_id)
        old: list[dict[str, PathChange] | None] = [
            diff_fields(diff_traces(ref, store.trace(t), canon)) for t in b_ids]
        new: list[dict[str, PathChange] | None] = [
            diff_fields(diff_traces(ref, store.trace(t), canon)) for t in c_ids]
        out.append(ScenarioRates(name, ref_id, len(b_ids), len(c_ids),
                                 rate_fields(old, new, alpha=alpha, margin=margin)))
    return ShadowBuildsResult(base, candidate, out, alpha, margin)
