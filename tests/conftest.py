"""Shared fixtures: the corpus of real traces and temporary stores. Plain helpers (the
CLI runner, store snapshots, reading a file with an adapter) live in ``tests/support.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI replays the same examples every run (a red build is reproducible, never a dice
# roll); developers explore new ones. HYPOTHESIS_PROFILE overrides either. Neither has a
# deadline: a deadline is a timing assertion, and on a shared machine a first call that
# imports a library or a busy neighbour makes it fail at random.
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("dev", print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI")
                                                               else "dev"))

REPO = Path(__file__).resolve().parents[1]

#: CI (``.ci/run`` sets ``CI=true``) must run every test: what is missing there fails
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _corpus_dir() -> Path:
    env = os.environ.get("WORKBENCH_CORPUS")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


CORPUS = _corpus_dir()
CORPUS_MISSING = (
    f"the trace corpus is missing at {CORPUS}: these tests read real traces from a "
    "corpus folder beside the repository (../shared/corpus); point WORKBENCH_CORPUS at a "
    "copy to run them (CI runs them)")


def require_outside(path: Path, reason: str) -> Path:
    """``path``, which lives outside the repository; when it is absent the test skips
    with ``reason``, except in CI, where it fails."""
    if not path.exists():
        if IN_CI:
            pytest.fail(f"{reason} (CI=true: these tests must run in CI)")
        pytest.skip(reason)
    return path


def corpus_params(values: list[str]) -> list[object]:
    """Parameters read from the corpus at collection time: ``values``, or, when the
    corpus is absent, one parameter that skips and says why (in CI, one that runs and
    fails where it asks for the ``corpus`` fixture)."""
    if values or CORPUS.is_dir():
        return list(values)
    marks = () if IN_CI else (pytest.mark.skip(reason=CORPUS_MISSING),)
    return [pytest.param("corpus-missing", marks=marks)]


@pytest.fixture(scope="session")
def corpus() -> Path:
    """``../shared/corpus`` (or ``$WORKBENCH_CORPUS``); the corpus tests need it."""
    return require_outside(CORPUS, CORPUS_MISSING)


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture(scope="session")
def spark_engine() -> object:
    """The Spark engine on one ``local[2]`` session for the whole run (Spark starts once:
    a JVM and its Python workers). Without PySpark or Java the Spark tests skip, except
    in CI, which installs PySpark with the ``test`` extra and has Java 17."""
    from workbench.rules import SparkEngine, java_available

    missing = None
    try:
        import pyspark  # noqa: F401
    except ImportError:
        missing = "PySpark is not installed (pip install -e '.[test]' brings it)"
    if missing is None and not java_available():
        missing = "the Spark tests need Java 17 or later (java on PATH or JAVA_HOME)"
    if missing is not None:
        if IN_CI:
            pytest.fail(f"{missing} (CI=true: these tests must run in CI)")
        pytest.skip(missing)
    return SparkEngine("local[2]", partitions=4)


# An internal error is a bug whatever a test expected: a CLI run in the test that printed
# `error[INTERNAL]` to the captured stderr fails it (tests that read the output with
# capsys go through `tests.support.run`, which checks the same).
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.passed and "error[INTERNAL]" in report.capstderr:
        report.outcome = "failed"
        report.longrepr = ("the test passed, but a CLI run in it ended in an internal error "
                           "(a bug):\n" + report.capstderr[-2000:])
