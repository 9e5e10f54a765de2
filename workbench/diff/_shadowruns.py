"""``shadow --runs N``: each build N times on every fixture, changed fields by rate.

A build whose output varies from run to run (an agent, a service with a cache, a clock
the canon does not drop) makes one run of each build a coin toss: a field that differs
may be one the new build changed, or one that changes anyway. With runs, the old build
runs once more first, and that run is the **reference**; then the old and the new build
run N times each, alternately (drift over the minutes of the run falls on both alike).
Every one of those runs is canonicalized and diffed against the reference as a shadow
run is, and each changed path counted once per run: ``k_old`` of the old build's N runs
changed it, ``k_new`` of the new build's. The two counts are compared by
``stats.compare_rates`` (Newcombe's interval of the difference, Boschloo's exact test),
whose verdict reads here: REGRESSED, the new build changes the field more often than the
old build's own run-to-run variation; IMPROVED, less often; NO CHANGE, alike within the
margin; INCONCLUSIVE, too few runs to tell (docs/statistics.md).

A run whose build failed counts under the path ``$failed`` (of all N runs of its side)
and is left out of every other path's count (its fields are unknown).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import UsageError
from ..stats import Comparison, Rate, check_comparison, compare_rates
from ._builds import BuildRun, run_build
from ._canonfile import Canon
from ._shadow import FixtureResult, _sha, _write, compare, each_fixture, plan_shadow
from ._values import PathChange

__all__ = ["FAILED_PATH", "FieldRate", "FixtureRates", "ShadowRunsResult", "field_rates",
           "rate_fields", "shadow_runs"]

FAILED_PATH = "$failed"
#: runs per build a shadow run may ask for
MAX_RUNS = 1000
#: verdicts that make ``shadow --runs`` exit 1 (INCONCLUSIVE too when asked)
FAILING = frozenset({"REGRESSED"})


def _side(r: Rate) -> dict[str, Any]:
    """A build's rate of changing a field: ``changed`` of ``runs``, its interval."""
    d = r.to_dict()
    return {"changed": d["violations"], "runs": d["runs"], "rate": d["rate"],
            "low": d["low"], "high": d["high"], "confidence": d["confidence"],
            "interval": d["interval"]}


@dataclass(frozen=True)
class FieldRate:
    """One path of one fixture: how often each build's runs changed it from the
    reference, compared; ``example``: a change a new run made (else an old run's)."""

    path: str
    comparison: Comparison
    example: PathChange | None = None

    @property
    def verdict(self) -> str:
        return self.comparison.verdict

    def to_dict(self, sides: tuple[str, str] = ("old", "new")) -> dict[str, Any]:
        """``sides``: the keys of the two builds' rates (``base`` and ``candidate`` for
        recorded runs of two builds)."""
        c = self.comparison.to_dict()
        out = {"path": self.path, sides[0]: _side(self.comparison.base),
               sides[1]: _side(self.comparison.candidate),
               **{k: c[k] for k in ("difference", "difference_low", "difference_high",
                                    "difference_interval", "p_value", "test", "alpha",
                                    "margin", "verdict")}}
        if self.example is not None:
            out["example"] = self.example.to_dict()
        return out


@dataclass
class FixtureRates:
    """One fixture: ``status`` is ``same`` (no run changed anything), ``changed`` or
    ``failed`` (no reference: the old build's first run failed, or a build modified the
    fixture); ``fields`` every path some run changed, ``$failed`` first."""

    fixture: str
    status: str
    reference: BuildRun
    fields: list[FieldRate] = field(default_factory=list)
    problem: str | None = None
    files: list[str] = field(default_factory=list)
    evidence: BuildRun | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"fixture": self.fixture, "status": self.status,
                               "reference": self.reference.to_dict(),
                               "fields": [f.to_dict() for f in self.fields],
                               "files": self.files}
        if self.problem:
            out["problem"] = self.problem
        return out


@dataclass
class ShadowRunsResult:
    results: list[FixtureRates]
    runs: int
    alpha: float
    margin: float
    out: Path | None = None

    @property
    def verdicts(self) -> Counter[str]:
        return Counter(f.verdict for r in self.results for f in r.fields)

    def failing(self, fail_inconclusive: bool = False) -> bool:
        """A fixture failed, or a field REGRESSED (or, when asked, is INCONCLUSIVE)."""
        bad = FAILING | ({"INCONCLUSIVE"} if fail_inconclusive else set())
        return any(r.status == "failed" or any(f.verdict in bad for f in r.fields)
                   for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {"fixtures": len(self.results), "runs": self.runs,
                "same": sum(r.status == "same" for r in self.results),
                "alpha": self.alpha, "margin": self.margin,
                "verdicts": dict(sorted(self.verdicts.items())),
                "results": [r.to_dict() for r in self.results],
                "out": str(self.out) if self.out is not None else None}


def _changes(name: str, reference: BuildRun, runs: Sequence[BuildRun], canon: Canon
             ) -> tuple[list[dict[str, PathChange] | None], int]:
    """Per run, the paths it changed from the reference (None: the build failed)."""
    out: list[dict[str, PathChange] | None] = []
    for run in runs:
        if not run.ok:
            out.append(None)
            continue
        r = compare(name, reference, run, canon)
        out.append({p.path: p for p in r.paths})
    return out, sum(c is None for c in out)


def field_rates(reference: BuildRun, old: Sequence[BuildRun], new: Sequence[BuildRun],
                canon: Canon | None = None, *, alpha: float = 0.05, margin: float = 0.10,
                name: str = "") -> list[FieldRate]:
    """Per path some run changed from ``reference`` (an old build's run that did not
    fail), the old runs' rate of changing it against the new runs'."""
    if not reference.ok:
        raise UsageError("the reference run failed: there is nothing to diff against",
                         hint="the old build's first run on a fixture must give JSON")
    canon = canon or Canon()
    return rate_fields(_changes(name, reference, old, canon)[0],
                       _changes(name, reference, new, canon)[0], alpha=alpha,
                       margin=margin)


def rate_fields(old: Sequence[dict[str, PathChange] | None],
                new: Sequence[dict[str, PathChange] | None], *, alpha: float = 0.05,
                margin: float = 0.10) -> list[FieldRate]:
    """Each run's changes from the reference, by field (None: the run failed), counted
    per field and side and compared: ``$failed`` first, then the fields sorted."""
    f_old, f_new = sum(c is None for c in old), sum(c is None for c in new)
    out = []
    if f_old or f_new:
        out.append(FieldRate(FAILED_PATH, compare_rates(
            (f_old, len(old)), (f_new, len(new)), max_rate=0.0, alpha=alpha,
            margin=margin)))
    ok_old = [c for c in old if c is not None]
    ok_new = [c for c in new if c is not None]
    paths = dict.fromkeys(p for c in (*ok_new, *ok_old) for p in c)
    for path in sorted(paths):
        k_old = sum(path in c for c in ok_old)
        k_new = sum(path in c for c in ok_new)
        example = next((c[path] for c in (*ok_new, *ok_old) if path in c), None)
        out.append(FieldRate(path, compare_rates(
            (k_old, len(ok_old)), (k_new, len(ok_new)), max_rate=0.0, alpha=alpha,
            margin=margin), example))
    return out


def shadow_runs(old: str, new: str, fixtures_dir: str | os.PathLike[str], *, runs: int,
                canon: Canon | None = None, out: str | os.PathLike[str] | None = None,
                glob: str | None = None, timeout: float = 120.0, jobs: int | None = None,
                alpha: float = 0.05, margin: float = 0.10) -> ShadowRunsResult:
    """Run the old build once (the reference) and then both builds ``runs`` times each
    on every fixture, and compare how often each build's runs change each field."""
    if not 2 <= runs <= MAX_RUNS:
        raise UsageError(f"--runs {runs}: each build runs 2..{MAX_RUNS} times per fixture",
                         hint="one run per build is a plain shadow run (leave out --runs)")
    check_comparison(alpha, margin)
    old_argv, new_argv, folder, files, out_dir = plan_shadow(old, new, fixtures_dir,
                                                             glob, out)
    canon = canon or Canon()

    def one(path: Path) -> FixtureRates:
        name = path.relative_to(folder).as_posix()
        before = _sha(path)
        reference = run_build(old_argv, path, timeout)
        if not reference.ok:
            return FixtureRates(name, "failed", reference, problem=(
                f"the old build's reference run failed: {reference.failure}: "
                f"{reference.message}"))
        olds, news = [], []
        for _ in range(runs):
            olds.append(run_build(old_argv, path, timeout))
            news.append(run_build(new_argv, path, timeout))
        if _sha(path) != before:
            return FixtureRates(name, "failed", reference, problem=(
                "a build modified the fixture (fixtures are read-only inputs)"))
        fields = field_rates(reference, olds, news, canon, alpha=alpha, margin=margin,
                             name=name)
        res = FixtureRates(name, "changed" if fields else "same", reference, fields)
        res.evidence = _evidence(fields, news, reference, name, canon)
        return res

    results = each_fixture(one, files, jobs)
    if out_dir is not None:
        for r in results:
            shown = FixtureResult(r.fixture, "same" if r.evidence is None else "changed",
                                  r.reference, r.evidence or r.reference)
            r.files = _write(out_dir, shown, canon)
    return ShadowRunsResult(results, runs, alpha, margin, out_dir)


def _evidence(fields: Sequence[FieldRate], news: Sequence[BuildRun], reference: BuildRun,
              name: str, canon: Canon) -> BuildRun | None:
    """The first new run that changed a REGRESSED field: left as ``NAME.new`` beside the
    reference as ``NAME.old``; None when no field REGRESSED."""
    for f in fields:
        if f.verdict != "REGRESSED":
            continue
        for run in news:
            if f.path == FAILED_PATH:
                if not run.ok:
                    return run
            elif run.ok and any(p.path == f.path for p in
                                compare(name, reference, run, canon).paths):
                return run
    return None
