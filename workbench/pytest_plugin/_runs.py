"""Agent tests judged over runs: ``@pytest.mark.agent_runs(max_runs=40, max_rate=0.05)``
calls the test again until Wald's sequential test decides its failure rate
(docs/statistics.md), and the ``agent_run`` fixture names the run's scenario and build
(``OTEL_RESOURCE_ATTRIBUTES``, ``WORKBENCH_SCENARIO``, ``WORKBENCH_BUILD``) so the traces
the agent records are labelled for ``check --by``.

A call that raises ``AssertionError`` (a failed ``assert``, ``pytest.fail`` aside) is a
violation; any other exception is an error of the test and stops it, as it would
without the marker. The test's fixtures are set up once for all its runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

__all__ = ["MARKER", "AgentRun", "AgentRunsPlugin"]

MARKER = "agent_runs"
_SETTINGS = ("max_runs", "max_rate", "alpha", "beta", "good_rate", "bad_rate", "scenario")


@dataclass
class AgentRun:
    """What the ``agent_run`` fixture gives: the scenario (the marker's ``scenario``,
    else the test's node id without its path), the build (``--workbench-build``, ini
    ``workbench_build``, else ``$WORKBENCH_BUILD``) and the run number (1, 2, ...)."""

    scenario: str
    build: str | None
    run: int = 1

    @property
    def resource_attributes(self) -> dict[str, str]:
        from ..ingest import BUILD_ATTRIBUTE, SCENARIO_ATTRIBUTE

        return {SCENARIO_ATTRIBUTE: self.scenario,
                **({BUILD_ATTRIBUTE: self.build} if self.build else {})}


def _scenario(item: pytest.Item) -> str:
    marker = item.get_closest_marker(MARKER)
    named = marker.kwargs.get("scenario") if marker is not None else None
    if isinstance(named, str):
        return named
    raw = item.nodeid.split("::", 1)[-1]
    return "".join(c if c.isalnum() or c in "._:/+@-" else "-" for c in raw)[:128]


class AgentRunsPlugin:
    """The marker's runs and the ``agent_run`` fixture."""

    def __init__(self, build: str | None) -> None:
        self.build = build

    @pytest.fixture
    def agent_run(self, request: pytest.FixtureRequest) -> Iterator[AgentRun]:
        """The run's scenario and build, also in the environment while the test runs."""
        from ..runs import resource_attributes

        run = AgentRun(_scenario(request.node), self.build)
        saved = {k: os.environ.get(k) for k in ("OTEL_RESOURCE_ATTRIBUTES",
                                                "WORKBENCH_SCENARIO", "WORKBENCH_BUILD")}
        os.environ["OTEL_RESOURCE_ATTRIBUTES"] = resource_attributes(
            run.scenario, run.build, saved["OTEL_RESOURCE_ATTRIBUTES"])
        os.environ["WORKBENCH_SCENARIO"] = run.scenario
        os.environ["WORKBENCH_BUILD"] = run.build or ""
        try:
            yield run
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        marker = pyfuncitem.get_closest_marker(MARKER)
        if marker is None:
            return None
        from ..model import WorkbenchError
        from ..stats import SPRT

        unknown = set(marker.kwargs) - set(_SETTINGS)
        if marker.args or unknown:
            raise pytest.UsageError(f"{pyfuncitem.nodeid}: agent_runs takes keywords "
                                    f"{', '.join(_SETTINGS)}")
        kw = {k: marker.kwargs[k] for k in _SETTINGS[:-1] if k in marker.kwargs}
        try:
            test = SPRT(kw.get("max_rate", 0.05), kw.get("max_runs", 40),
                        kw.get("alpha", 0.05), kw.get("beta", 0.05), kw.get("good_rate"),
                        kw.get("bad_rate"))
        except WorkbenchError as exc:
            pytest.fail(f"agent_runs: {exc.message}", pytrace=False)
        args = {a: pyfuncitem.funcargs[a] for a in pyfuncitem._fixtureinfo.argnames}
        run = pyfuncitem.funcargs.get("agent_run")
        state = test.start()
        last = ""
        while state.verdict is None:
            if isinstance(run, AgentRun):
                run.run = state.runs + 1
            try:
                pyfuncitem.obj(**args)
                state.add(False)
            except AssertionError as exc:
                words = str(exc).splitlines()
                last = f"run {state.runs + 1}: {words[0] if words else 'assert'}"
                state.add(True)
        pyfuncitem.user_properties.append(("agent_runs", state.to_dict()))
        summary = (f"agent_runs: {state.verdict} after {state.runs} run(s), "
                   f"{state.rate().text()} failed (max rate {test.max_rate:g}; SPRT good "
                   f"{test.p0:g}, bad {test.p1:g}, alpha {test.alpha:g}, beta {test.beta:g})")
        if state.verdict != "PASS":
            pytest.fail(summary + (f"\n  last failure: {last}" if last else ""),
                        pytrace=False)
        return True
