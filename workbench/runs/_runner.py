"""``workbench runs``: one command run per run of a scenario, judged as it comes.

The command is split like a shell would (``shlex``) and run without one, with these
placeholders replaced wherever they occur in a word: ``{out}`` (a file the run writes its
trace to; without it the trace is read from standard output), ``{run}`` (1, 2, ...),
``{scenario}`` and ``{build}``. The run's environment carries the same as
``WORKBENCH_RUN_OUT``, ``WORKBENCH_RUN``, ``WORKBENCH_SCENARIO`` and ``WORKBENCH_BUILD``,
and ``OTEL_RESOURCE_ATTRIBUTES`` gains ``workbench.scenario`` and ``workbench.build`` so
an OpenTelemetry SDK in the agent labels its spans itself.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..ingest import BUILD_ATTRIBUTE, SCENARIO_ATTRIBUTE, check_label, ingest, read_trace
from ..model import UsageError, WorkbenchError
from ..rules import Finding, RuleSet, check, check_trace
from ..stats import SPRT, SequentialState
from ..store import Store

__all__ = ["RunFailed", "RunsResult", "resource_attributes", "run_scenario"]


class RunFailed(WorkbenchError):
    """A run gave no trace to judge: the runs so far stay stored."""

    code = "RUN_FAILED"
    default_hint = "run the command once by hand; it must exit 0 and write its trace to {out}"


def resource_attributes(scenario: str, build: str | None,
                        existing: str | None = None) -> str:
    """``OTEL_RESOURCE_ATTRIBUTES`` with the run's scenario and build (the SDK reads
    ``key=value`` pairs separated by commas; ours come last, so they win)."""
    pairs = [p for p in (existing or "").split(",") if p.strip()
             and p.split("=", 1)[0].strip() not in (SCENARIO_ATTRIBUTE, BUILD_ATTRIBUTE)]
    pairs.append(f"{SCENARIO_ATTRIBUTE}={scenario}")
    if build is not None:
        pairs.append(f"{BUILD_ATTRIBUTE}={build}")
    return ",".join(pairs)


@dataclass
class RunsResult:
    """The runs made, per run the rules it broke, and each rule's sequential state."""

    scenario: str
    build: str | None
    test: SPRT
    states: dict[str, SequentialState]
    severities: dict[str, str]
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def verdict(self) -> str | None:
        """Over the ``error`` rules: FAIL when one fails, PASS when all pass,
        INCONCLUSIVE when the runs are spent first; None while undecided."""
        gating = [s.verdict for r, s in self.states.items() if self.severities[r] == "error"]
        if "FAIL" in gating:
            return "FAIL"
        if None in gating and len(self.runs) < self.test.max_runs:
            return None
        return "PASS" if all(v == "PASS" for v in gating) else "INCONCLUSIVE"

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "build": self.build, "verdict": self.verdict,
                "runs": len(self.runs), "sequential": self.test.to_dict(),
                "rules": {r: {"severity": self.severities[r], **s.to_dict()}
                          for r, s in self.states.items()},
                "run_log": self.runs}


def _words(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"command {command!r}: {exc}", code="RUN_INVALID") from None
    if not argv:
        raise UsageError("the command is empty", code="RUN_INVALID",
                         hint="workbench runs 'python agent.py --trace-out {out}' ...")
    return argv


def _one(argv: list[str], n: int, scenario: str, build: str | None, timeout: float,
         tmp: Path) -> Path:
    """Run ``n``: the file holding its trace."""
    out = tmp / f"run-{n}.trace"
    subst = {"{out}": str(out), "{run}": str(n), "{scenario}": scenario,
             "{build}": build or ""}
    words = []
    for w in argv:
        for k, v in subst.items():
            w = w.replace(k, v)
        words.append(w)
    env = {**os.environ, "WORKBENCH_RUN_OUT": str(out), "WORKBENCH_RUN": str(n),
           "WORKBENCH_SCENARIO": scenario, "WORKBENCH_BUILD": build or "",
           "OTEL_RESOURCE_ATTRIBUTES": resource_attributes(
               scenario, build, os.environ.get("OTEL_RESOURCE_ATTRIBUTES"))}
    stdout = tmp / f"run-{n}.stdout"
    try:
        with open(stdout, "wb") as f:
            proc = subprocess.run(words, stdout=f, stderr=subprocess.PIPE, env=env,
                                  timeout=timeout, check=False)
    except (FileNotFoundError, PermissionError):
        raise RunFailed(f"run {n}: the program {words[0]!r} cannot be run") from None
    except subprocess.TimeoutExpired:
        raise RunFailed(f"run {n}: it ran longer than {timeout:g} s") from None
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RunFailed(f"run {n}: the command exited with status {proc.returncode}"
                        + (": " + " / ".join(tail) if tail else ""))
    produced = out if any("{out}" in w for w in argv) else stdout
    if not produced.is_file() or produced.stat().st_size == 0:
        raise RunFailed(f"run {n}: it wrote no trace"
                        + (" to {out}" if produced == out else " on standard output"))
    named = tmp / f"{scenario.replace('/', '_')}-run-{n}{_suffix(produced)}"
    produced.rename(named)
    return named


def _suffix(path: Path) -> str:
    head = path.read_bytes()[:1].strip()
    return ".json" if head in (b"{", b"[") else ""


def _judge(path: Path, store: Store, rules: RuleSet, scenario: str,
           build: str | None) -> tuple[list[str], list[Finding]]:
    """Store the run's trace with its scenario and build and check it (findings
    recorded); a trace identical to one stored already is judged as read."""
    result = ingest([path], store, scenario=scenario, build=build, strict=True)
    ids = [t.trace_id for t in result.traces]
    if ids:
        return ids, check(store, rules, trace_ids=ids).findings
    traces = read_trace(path)
    return ([t.trace_id for t in traces],
            [f for t in traces for f in check_trace(t, rules)])


def run_scenario(command: str, store: Store, rules: RuleSet, *, scenario: str,
                 build: str | None = None, test: SPRT, timeout: float = 300.0,
                 progress: Callable[[dict[str, Any]], None] | None = None) -> RunsResult:
    """Run ``command`` until the sequential test decides every ``error`` rule (or one
    fails), or ``test.max_runs`` runs are spent."""
    check_label("--scenario", scenario)
    check_label("--build", build)
    argv = _words(command)
    if not any(r.severity == "error" for r in rules):
        raise UsageError("the rules file has no `error` rule to decide",
                         hint="runs stop on the verdicts of error rules")
    result = RunsResult(scenario, build, test, {r.id: test.start() for r in rules},
                        {r.id: r.severity for r in rules})
    with tempfile.TemporaryDirectory(prefix="workbench-runs-") as tmp:
        while result.verdict is None:
            n = len(result.runs) + 1
            ids, findings = _judge(_one(argv, n, scenario, build, timeout, Path(tmp)),
                                   store, rules, scenario, build)
            broke = sorted({f.rule for f in findings})
            for rule, state in result.states.items():
                if state.verdict is None:
                    state.add(rule in broke)
            entry = {"run": n, "traces": ids, "violated": broke}
            result.runs.append(entry)
            if progress is not None:
                progress(entry)
    return result
