"""The pytest plugin given hostile fixtures: each fixture item fails with the code and
the reason, the run ends, in bounded time, and nothing crashes or hangs."""

from __future__ import annotations

import shutil
import time
from importlib.metadata import entry_points

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.hostile.cases import REPO, laughs

pytest_plugins = ["pytester"]

AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]
BOUND = 60  # seconds; far above the run's normal time, only there to catch a hang


def _project(pytester):
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    pytester.mkdir("tests")
    pytester.path.joinpath("tests", "test_unit.py").write_text("def test_unit():\n    pass\n")
    fixtures = pytester.path / "traces" / "fixtures"
    shutil.copytree(REPO / "traces" / "fixtures" / "archive-incident", fixtures / "incident")
    return fixtures / "incident" / "v1"


def _alias_bomb(version):
    rules = version / "rules.yaml"
    rules.write_text(laughs() + rules.read_text())


def _deep_rules(version):
    (version / "rules.yaml").write_text("version: 1\nrules: " + "[" * 50_000 + "]" * 50_000)


def _too_many_rows(version):
    trace = version / "trace.parquet"
    table = pq.read_table(trace)
    pq.write_table(pa.concat_tables([table] * (200_000 // table.num_rows + 1)), trace)


def _schema_out(version):
    rules = version / "rules.yaml"
    rules.write_text(rules.read_text().replace(
        "rules:\n", "rules:\n  sneaky:\n    every: {event: {tool: x}, "
        "schema: {args: {$ref: 'file:///etc/passwd'}}}\n", 1))


@pytest.mark.parametrize(("spoil", "code"), [
    (_alias_bomb, "LIMIT_EXCEEDED"), (_deep_rules, "LIMIT_EXCEEDED"),
    (_too_many_rows, "LIMIT_EXCEEDED"), (_schema_out, "REF_OUTSIDE")])
def test_hostile_fixture_items_fail_with_the_code(pytester, spoil, code):
    version = _project(pytester)
    spoil(version)
    start = time.monotonic()
    result = pytester.runpytest(*PLUGIN, "-p", "no:randomly", "traces/fixtures")
    assert time.monotonic() - start < BOUND
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 1 and "passed" not in outcomes
    result.stdout.fnmatch_lines([f"*cannot be read: error?{code}?*"])
    assert "INTERNAL" not in result.stdout.str()
