"""The plugin's pytest hooks: its options (``pytest_addoption``, each with an ini twin)
and ``pytest_configure``, which registers one plugin object per concern."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..model import WorkbenchError
from . import _fixtures
from ._collect import CollectPlugin
from ._flakes import load_flakes
from ._quarantine import Quarantine
from ._runs import MARKER, AgentRunsPlugin
from ._seed import PinnedSeed
from ._serve import ServePlugin

__all__ = ["DEFAULT_FLAKES", "pytest_addoption", "pytest_configure",
           "pytest_load_initial_conftests"]

DEFAULT_FLAKES = "flakes.lock"


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("workbench", "Trace Workbench")
    g.addoption("--flakes", metavar="PATH", default=None,
                help=f"the flakes lock (default: {DEFAULT_FLAKES} in the rootdir, if any)")
    g.addoption("--merge-gate", action="store_true", default=None,
                help="skip the tests flakes.lock lists: they do not vote on the merge")
    g.addoption("--flakes-only", action="store_true", default=False,
                help="run only the quarantined tests (the side job)")
    g.addoption("--flake-seed", type=int, metavar="N", default=None,
                help="the fixed seed quarantined tests run with (default 0)")
    g.addoption("--flakes-max-age", type=int, metavar="DAYS", default=None,
                help="report entries whose last_seen is older than this (default 30)")
    g.addoption("--flakes-strict", action="store_true", default=None,
                help="fail the run when an entry is stale")
    g.addoption("--pin-seed", type=int, metavar="N", default=None,
                help="pin the seed of every test (random and Hypothesis) to replay a run")
    parser.addini("workbench_flakes", "the flakes lock path", default=None)
    parser.addini("workbench_merge_gate", "skip quarantined tests", type="bool", default=False)
    parser.addini("workbench_flake_seed", "seed of quarantined tests", default="0")
    parser.addini("workbench_flakes_max_age", "days before an entry is stale", default="30")
    parser.addini("workbench_flakes_strict", "fail on stale entries", type="bool",
                  default=False)
    parser.addini("workbench_seed", "pin the seed of every test", default=None)
    g.addoption("--no-workbench-fixtures", action="store_true", default=None,
                help="do not collect the promoted fixtures as test items")
    parser.addini("workbench_fixtures", "collect the promoted fixtures as test items",
                  type="bool", default=True)
    g.addoption("--workbench-canary", metavar="VALUE", default=None,
                help="the canary credential contract_server hands out (default: a new "
                     "random one per test)")
    parser.addini("workbench_canary", "the canary credential of contract_server",
                  default=None)
    g.addoption("--workbench-build", metavar="ID", default=None,
                help="the build of the agent under test, for the agent_run fixture "
                     "(default: $WORKBENCH_BUILD)")
    parser.addini("workbench_build", "the build of the agent under test", default=None)


def _int(config: pytest.Config, option: str, ini: str) -> int | None:
    value = config.getoption(option)
    if value is not None:
        return int(value)
    raw = config.getini(ini)
    if raw in (None, ""):
        return None
    try:
        return int(str(raw))
    except ValueError:
        raise pytest.UsageError(f"{ini} = {raw!r} is not an integer") from None


def _flag(config: pytest.Config, option: str, ini: str) -> bool:
    value = config.getoption(option)
    return bool(value) if value is not None else bool(config.getini(ini))


def _flakes_path(config: pytest.Config) -> tuple[Path | None, bool]:
    given = config.getoption("--flakes") or config.getini("workbench_flakes")
    if given:
        p = Path(given)
        return (p if p.is_absolute() else config.rootpath / p), True
    default = config.rootpath / DEFAULT_FLAKES
    # exists, not is_file: a folder named flakes.lock is an error, never ignored
    return (default if default.exists() or default.is_symlink() else None), False


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before pytest imports the first ``conftest.py``: a run whose fixtures folder holds
    one stops (a path on the command line inside that folder would import it)."""
    if getattr(early_config.known_args_namespace, "no_workbench_fixtures", False) \
            or not early_config.getini("workbench_fixtures"):
        return
    try:
        settings = _fixtures.read_settings(early_config.rootpath)
    except pytest.UsageError:
        return  # pytest_configure reports it
    _fixtures.refuse_code(settings.root, early_config.rootpath)


def pytest_configure(config: pytest.Config) -> None:
    _fixtures.configure(config, not config.getoption("--no-workbench-fixtures")
                        and bool(config.getini("workbench_fixtures")))
    canary = config.getoption("--workbench-canary") or config.getini("workbench_canary")
    config.pluginmanager.register(ServePlugin(str(canary) if canary else None),
                                  "workbench-contract-server")
    config.pluginmanager.register(CollectPlugin(), "workbench-otlp-collector")
    config.addinivalue_line("markers", f"{MARKER}(max_runs=40, max_rate=0.05, alpha=0.05, "
                            "beta=0.05, good_rate=None, bad_rate=None, scenario=None): run "
                            "the test until a sequential test decides its failure rate")
    build = (config.getoption("--workbench-build") or config.getini("workbench_build")
             or os.environ.get("WORKBENCH_BUILD") or None)
    config.pluginmanager.register(AgentRunsPlugin(str(build) if build else None),
                                  "workbench-agent-runs")
    seed = _int(config, "--pin-seed", "workbench_seed")
    if seed is not None:
        config.pluginmanager.register(PinnedSeed(seed), "workbench-pinned-seed")
    path, _given = _flakes_path(config)
    if path is None:
        if config.getoption("--flakes-only"):
            raise pytest.UsageError("--flakes-only needs a flakes lock (--flakes PATH)")
        return
    try:
        source = str(path.relative_to(config.rootpath))
    except ValueError:
        source = str(path)
    try:
        entries = load_flakes(path, source=source)
    except WorkbenchError as exc:
        from ..redact import error_text
        raise pytest.UsageError(error_text(exc)) from None
    quarantine = Quarantine(
        entries, source, merge_gate=_flag(config, "--merge-gate", "workbench_merge_gate"),
        only=bool(config.getoption("--flakes-only")),
        seed=_int(config, "--flake-seed", "workbench_flake_seed") or 0,
        max_age=_int(config, "--flakes-max-age", "workbench_flakes_max_age") or 30,
        strict=_flag(config, "--flakes-strict", "workbench_flakes_strict"))
    config.pluginmanager.register(quarantine, "workbench-quarantine")
