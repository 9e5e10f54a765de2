"""The pytest plugin, driven by pytester: quarantine under the merge gate, the seeded
side job, stale witnesses, malformed locks, and pinned seeds that replay Hypothesis."""

import datetime as dt
import random
from importlib.metadata import entry_points

import pytest

pytest_plugins = ["pytester"]

# installed, the plugin loads through its pytest11 entry point; from a checkout whose
# metadata predates it, name it explicitly
AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]


@pytest.fixture(autouse=True)
def _plugin(pytester):
    real = pytester.runpytest
    pytester.runpytest = lambda *args, **kw: real(*PLUGIN, *args, **kw)

TESTS = """
import random, os

def test_stable():
    pass

def test_flaky():
    with open(os.environ["DRAWS"], "a") as f:
        f.write(repr(random.random()) + "\\n")
    assert False, "flaked"

import pytest
@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n == 0
"""

RECENT = (dt.date.today() - dt.timedelta(days=3)).isoformat()


@pytest.fixture
def project(pytester, tmp_path, monkeypatch):
    monkeypatch.setenv("DRAWS", str(tmp_path / "draws.txt"))
    pytester.makepyfile(test_mod=TESTS)
    pytester.path.joinpath("flakes.lock").write_text(
        "# quarantined tests\n"
        f"test_mod.py::test_flaky\t{RECENT}\tflakes on CI runners under load\n"
        f"test_mod.py::test_param\t{RECENT}\tboth parametrizations race a port\n")
    return pytester


def draws(tmp_path):
    return (tmp_path / "draws.txt").read_text().split()


def test_the_merge_gate_skips_frozen_tests(project):
    result = project.runpytest("--merge-gate", "-rs")
    result.assert_outcomes(passed=1, skipped=3)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*quarantined by flakes.lock line 2: flakes on CI runners under load*"])
    result.stdout.fnmatch_lines(["*3 quarantined test(s) skipped (merge gate), from flakes.lock*"])


def test_the_merge_gate_from_the_ini_file(project):
    project.makeini("[pytest]\nworkbench_merge_gate = true\n")
    project.runpytest().assert_outcomes(passed=1, skipped=3)


def test_off_the_gate_frozen_tests_run_with_a_fixed_seed(project, tmp_path):
    result = project.runpytest("--flake-seed", "7")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(["*3 quarantined test(s) ran with seed 7*",
                                 "*failed again: test_mod.py::test_flaky*"])
    project.runpytest("--flake-seed", "7")
    assert draws(tmp_path) == [repr(random.Random(7).random())] * 2


def test_the_side_job_runs_only_the_frozen_tests(project):
    result = project.runpytest("--flakes-only")
    result.assert_outcomes(failed=3, deselected=1)


def test_stale_entries_are_reported_and_strict_fails(project):
    project.path.joinpath("flakes.lock").write_text(
        "test_mod.py::test_stable\t2020-01-01\twas flaky once\n"
        "test_mod.py::test_gone\t2020-01-01\tthe test was deleted\n")
    result = project.runpytest("-k", "stable", "--flakes-max-age", "30")
    result.assert_outcomes(passed=1, deselected=3)
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "*stale: test_mod.py::test_stable last seen 2020-01-01 (* days > 30), flakes.lock "
        "line 1: a dead witness is worse than a missing one*",
        "*not collected: test_mod.py::test_gone (flakes.lock line 2)*"])
    assert project.runpytest("-k", "stable", "--flakes-strict").ret == 1
    assert "stale:" not in project.runpytest("-k", "stable", "--flakes-max-age",
                                             "100000").stdout.str()


def test_a_malformed_lock_is_an_error_naming_the_line(project):
    project.path.joinpath("flakes.lock").write_text(
        "# ok\ntest_mod.py::test_flaky\t2026-11-01\tfine\ntest_mod.py::test_param 2026 bad\n")
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*error[[]FLAKES_INVALID[]]: flakes.lock line 3: expected 3 "
                                 "tab-separated fields*"])


def test_a_named_lock_that_is_missing_is_an_error(pytester):
    pytester.makepyfile(test_x="def test_x(): pass")
    result = pytester.runpytest("--flakes", "nope.lock")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*error[[]FILE_NOT_FOUND[]]: no flakes file*"])


def test_no_lock_no_quarantine(pytester):
    pytester.makepyfile(test_x="def test_x(): pass")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "workbench flakes" not in result.stdout.str()


PROPERTY = """
import os
from hypothesis import given, strategies as st

@given(st.integers(0, 10**9))
def test_prop(x):
    with open(os.environ["DRAWS"], "a") as f:
        f.write(f"{x}\\n")
    assert x % 97 != 13
"""


def test_a_pinned_seed_replays_the_same_examples(pytester, tmp_path, monkeypatch):
    monkeypatch.setenv("DRAWS", str(tmp_path / "draws.txt"))
    pytester.makepyfile(test_prop=PROPERTY)
    first = pytester.runpytest("--pin-seed", "1234", "-p", "no:cacheprovider")
    first.stdout.fnmatch_lines(["workbench: seed pinned to 1234 (replay with --pin-seed 1234)"])
    one = draws(tmp_path)
    (tmp_path / "draws.txt").unlink()
    second = pytester.runpytest("--pin-seed", "1234", "-p", "no:cacheprovider")
    assert draws(tmp_path) == one and first.ret == second.ret
    # the falsifying example (if any) is the same too
    assert [ln for ln in first.stdout.lines if "Falsifying" in ln or "x=" in ln] == \
        [ln for ln in second.stdout.lines if "Falsifying" in ln or "x=" in ln]
    (tmp_path / "draws.txt").unlink()
    pytester.runpytest("--pin-seed", "99", "-p", "no:cacheprovider")
    assert draws(tmp_path) != one
