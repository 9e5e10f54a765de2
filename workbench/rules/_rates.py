"""A check's findings as rates: per rule and scenario (and build), the runs that broke
the rule out of the runs judged, with an exact interval and a verdict against a maximum
rate; or two builds' rates compared (``check --by``, ``check --compare``;
docs/statistics.md)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import UsageError
from ..stats import Comparison, Rate, compare_rates, rate
from ..store import Store, to_rows
from ._check import CheckResult
from ._report import SARIF_LEVEL, sarif_log

__all__ = ["BY_COLUMNS", "RateGroup", "compare_builds", "junit_rates", "rate_report",
           "rates_by", "sarif_rates"]

#: what ``--by`` may group runs by
BY_COLUMNS = ("scenario", "build")
#: verdicts that fail ``check`` for an ``error`` rule
FAILING = frozenset({"FAIL", "REGRESSED"})


@dataclass(frozen=True)
class RateGroup:
    """One rule in one scenario (and build): its rate, or its comparison of builds."""

    rule: str
    severity: str
    scenario: str
    build: str | None
    stat: Rate | Comparison

    @property
    def verdict(self) -> str:
        return self.stat.verdict

    @property
    def fails(self) -> bool:
        return self.severity == "error" and self.verdict in FAILING

    @property
    def label(self) -> str:
        return self.scenario + (f" @ {self.build}" if self.build is not None else "")

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "scenario": self.scenario,
                **({"build": self.build} if self.build is not None else {}),
                **self.stat.to_dict()}

    def text(self) -> str:
        s = self.stat
        if isinstance(s, Rate):
            return (f"{self.verdict:<12} {self.rule}  {self.label}  {s.text()}  "
                    f"max {s.max_rate:.1%}")
        diff = "-" if s.difference is None else f"{s.difference:+.1%}"
        p = "-" if s.p_value is None else f"{s.p_value:.3g}"
        return (f"{self.verdict:<12} {self.rule}  {self.label}  base {s.base.text()}  "
                f"candidate {s.candidate.text()}  difference {diff} "
                f"[{s.low:+.1%}, {s.high:+.1%}]  p={p}")


def parse_by(text: str) -> tuple[str, ...]:
    """``scenario`` or ``scenario,build``."""
    cols = tuple(c.strip() for c in text.split(","))
    if not cols or cols[0] != "scenario" or len(set(cols)) != len(cols) \
            or not set(cols) <= set(BY_COLUMNS):
        raise UsageError(f"--by {text!r}: runs are grouped by scenario, or scenario,build",
                         hint="--by scenario  or  --by scenario,build")
    return cols


def _labels(store: Store, ids: Sequence[str]) -> list[tuple[str, str | None, str | None]]:
    if not ids:
        return []
    table = store.sql("SELECT trace_id, scenario, build FROM traces WHERE trace_id IN "
                      "(SELECT unnest(?))", [list(ids)])
    return [(r["trace_id"], r["scenario"], r["build"]) for r in to_rows(table)]


def _violated(result: CheckResult) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for f in result.findings:
        out[f.rule].add(f.trace_id)
    return out


def rates_by(store: Store, result: CheckResult, by: str, max_rate: float
             ) -> tuple[list[RateGroup], int]:
    """Per rule and group of runs, the rate of runs with a finding of the rule; and how
    many judged traces name no scenario (left out: they are runs of nothing known)."""
    cols = parse_by(by)
    groups: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    unlabelled = 0
    for tid, scenario, build in _labels(store, result.trace_ids):
        if scenario is None:
            unlabelled += 1
            continue
        groups[(scenario, build if "build" in cols else None)].append(tid)
    violated = _violated(result)
    out = []
    for r in result.rules:
        for (scenario, build), tids in sorted(groups.items(), key=lambda g: (g[0][0],
                                                                            g[0][1] or "")):
            k = sum(1 for t in tids if t in violated[r.id])
            out.append(RateGroup(r.id, r.severity, scenario, build,
                                 rate(k, len(tids), max_rate)))
    return out, unlabelled


def parse_compare(text: str) -> tuple[str, str]:
    base, sep, candidate = text.partition("..")
    if not sep or not base or not candidate or base == candidate:
        raise UsageError(f"--compare {text!r} is not BASE..CANDIDATE",
                         hint="two different builds, e.g. --compare 1.4.2..1.5.0")
    return base, candidate


def compare_builds(store: Store, result: CheckResult, spec: str, *, max_rate: float,
                   alpha: float, margin: float) -> tuple[list[RateGroup], int]:
    """Per rule and scenario, the candidate build's rate against the base's."""
    base, candidate = parse_compare(spec)
    runs: dict[str, dict[str, list[str]]] = defaultdict(lambda: {base: [], candidate: []})
    unlabelled = 0
    seen = set()
    for tid, scenario, build in _labels(store, result.trace_ids):
        seen.add(build)
        if scenario is None:
            unlabelled += 1
        elif build in (base, candidate):
            runs[scenario][build].append(tid)
    missing = [b for b in (base, candidate) if b not in seen]
    if missing:
        known = ", ".join(sorted(b for b in seen if b is not None)) or "none"
        raise UsageError(f"no trace checked was made by build {missing[0]!r}",
                         code="BUILD_UNKNOWN",
                         hint=f"builds of the traces checked: {known} (ingest --build)")
    violated = _violated(result)
    out = []
    for r in result.rules:
        for scenario, sides in sorted(runs.items()):
            def count(b: str, rule: str = r.id, sides: dict[str, list[str]] = sides
                      ) -> tuple[int, int]:
                return sum(1 for t in sides[b] if t in violated[rule]), len(sides[b])
            out.append(RateGroup(r.id, r.severity, scenario, None, compare_rates(
                count(base), count(candidate), max_rate=max_rate, alpha=alpha,
                margin=margin)))
    return out, unlabelled


def rate_report(store: Store, result: CheckResult, *, by: str | None = None,
                compare: str | None = None, max_rate: float = 0.05, alpha: float = 0.05,
                margin: float = 0.10) -> tuple[list[RateGroup], dict[str, Any]]:
    """``check --by`` or ``check --compare`` (one of them): the groups, and the
    ``rates`` object of ``check --json`` (``by``, ``compare``, ``max_rate``,
    ``unlabelled``, ``groups``)."""
    if (by is None) == (compare is None):
        raise UsageError("--by and --compare are two reports: give one",
                         hint="--compare groups by scenario already")
    if compare is not None:
        groups, unlabelled = compare_builds(store, result, compare, max_rate=max_rate,
                                            alpha=alpha, margin=margin)
    else:
        groups, unlabelled = rates_by(store, result, str(by), max_rate)
    return groups, {"by": by, "compare": compare, "max_rate": max_rate,
                    "unlabelled": unlabelled, "groups": [g.to_dict() for g in groups]}


#: a verdict as SARIF's result kind
_KIND = {"PASS": "pass", "NO CHANGE": "pass", "IMPROVED": "pass", "FAIL": "fail",
         "REGRESSED": "fail", "INCONCLUSIVE": "review"}


def sarif_rates(result: CheckResult, groups: Sequence[RateGroup],
                version: str = "0.1.0") -> dict[str, Any]:
    """One SARIF result per rule and group: kind ``pass``, ``fail`` (level: the rule's
    severity) or ``review`` (INCONCLUSIVE), the figures under ``properties``."""
    index = {r.id: i for i, r in enumerate(result.rules)}
    descriptors = [{"id": r.id, "name": r.id,
                    "shortDescription": {"text": r.description or r.id},
                    "defaultConfiguration": {"level": SARIF_LEVEL[r.severity]},
                    "properties": {"body": r.kind}} for r in result.rules]
    results = []
    for g in groups:
        kind = _KIND[g.verdict]
        line = next(r.line for r in result.rules if r.id == g.rule)
        location: dict[str, Any] = {"logicalLocations": [{
            "name": g.scenario, "fullyQualifiedName": g.label.replace(" @ ", "@"),
            "kind": "module"}]}
        if result.rules.source:
            location["physicalLocation"] = {
                "artifactLocation": {"uri": result.rules.source},
                **({"region": {"startLine": line}} if line else {})}
        results.append({
            "ruleId": g.rule, "ruleIndex": index[g.rule], "kind": kind,
            "level": SARIF_LEVEL[g.severity] if kind == "fail" else "none",
            "message": {"text": g.text()}, "locations": [location],
            "partialFingerprints": {"workbenchRate/v1": f"{g.rule}/{g.label}"},
            "properties": g.to_dict()})
    return sarif_log(rules=descriptors, results=results,
                     automation_id=f"workbench-check/{result.run_id}",
                     properties={"engine": result.engine,
                                 "traces_checked": result.traces_checked},
                     version=version)


def junit_rates(groups: Sequence[RateGroup], fail_inconclusive: bool = False) -> bytes:
    """A test suite per rule, a test case per group: FAIL and REGRESSED are failures
    (``error`` rules), INCONCLUSIVE is skipped unless ``fail_inconclusive``."""
    suites = ET.Element("testsuites", name="workbench check", tests="0", failures="0")
    by_rule: dict[str, list[RateGroup]] = defaultdict(list)
    for g in groups:
        by_rule[g.rule].append(g)
    total = failures = 0
    for rule, cases in by_rule.items():
        suite = ET.SubElement(suites, "testsuite", name=rule, tests=str(len(cases)))
        fails = 0
        for g in cases:
            case = ET.SubElement(suite, "testcase", classname=rule, name=g.label)
            failed = g.fails or (fail_inconclusive and g.verdict == "INCONCLUSIVE")
            if failed or g.verdict in ("FAIL", "REGRESSED", "INCONCLUSIVE"):
                tag = "failure" if failed else "skipped"
                ET.SubElement(case, tag, message=g.text(), type=g.verdict).text = g.text()
                fails += int(failed)
        suite.set("failures", str(fails))
        total += len(cases)
        failures += fails
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data
