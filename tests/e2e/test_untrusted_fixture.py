"""A fixture folder from an untrusted pull request is data only (docs/security.md): a
temporary user project with a planted fixture, run through real ``pytest`` in a
subprocess. Each attack leaves a marker file if any of its Python runs."""

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points

import pytest

from tests.support import EXAMPLES
from workbench.fixtures import promote
from workbench.ingest import ingest
from workbench.rules import load_rules
from workbench.store import Store

CASE = EXAMPLES / "rules" / "unapproved-destructive"
AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]
PAYLOAD = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Store(tmp_path_factory.mktemp("untrusted") / "store")
    ingest([CASE / "bad.jsonl"], s, workers=1)
    return s


@pytest.fixture
def project(tmp_path, store):
    p = tmp_path / "agent"
    (p / "tests").mkdir(parents=True)
    (p / "tests" / "test_app.py").write_text("def test_app():\n    pass\n")
    (p / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    promote(store.trace("rules-unapproved-destructive-bad"), load_rules(CASE / "rules.yaml"),
            "archive", key=store.redaction_key(), fixtures_dir=p / "traces" / "fixtures")
    return p


def run(project, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, "-m", "pytest", *PLUGIN, "-p", "no:cacheprovider",
                           "-p", "no:randomly", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


def workbench(project, *args):
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=project,
                          capture_output=True, text=True, timeout=600)


V1 = "traces/fixtures/archive/v1"


@pytest.mark.parametrize("where", [V1, "traces/fixtures/archive", "traces/fixtures"])
@pytest.mark.parametrize("args", [(), (V1,), ("traces/fixtures",), (f"{V1}/manifest.json",)])
def test_a_conftest_in_the_fixtures_folder_never_runs(project, where, args):
    marker = project / "PWNED"
    (project / where / "conftest.py").write_text(PAYLOAD.format(marker=str(marker)))
    proc = run(project, *args)
    assert not marker.exists(), proc.stdout + proc.stderr
    assert proc.returncode == 4, proc.stdout + proc.stderr  # a usage error: nothing ran
    assert f"{where}/conftest.py is Python inside the fixtures folder" in proc.stderr
    assert "test_app" not in proc.stdout


def test_collecting_the_fixtures_imports_nothing_from_there(project):
    """The conftest appears after pytest's start-up check (planted by the project's own
    tests/conftest.py at session start): collection still does not import it."""
    marker = project / "PWNED"
    planted = project / V1 / "conftest.py"
    (project / "tests" / "conftest.py").write_text(
        "import pathlib\n"
        "def pytest_sessionstart(session):\n"
        f"    pathlib.Path({str(planted)!r}).write_text({PAYLOAD.format(marker=str(marker))!r})\n")
    proc = run(project, "-rA")
    assert planted.exists() and not marker.exists(), proc.stdout
    assert proc.returncode == 1, proc.stdout
    assert "FAILED traces/fixtures/archive/v1/manifest.json::findings" in proc.stdout
    assert "fixture archive/v1 holds what it does not list: conftest.py is not one of " \
           "the files a version lists" in proc.stdout
    assert "PASSED tests/test_app.py::test_app" in proc.stdout


@pytest.mark.parametrize("plant, why", [
    ("evil.py", "evil.py is not one of the files a version lists"),
    (".hidden", ".hidden is not one of the files a version lists"),
    ("schemas/", "schemas is not one of the files a version lists"),
    ("rules.yaml->", "rules.yaml is a symbolic link"),
])
def test_a_file_a_version_does_not_list_fails_its_items_and_verify(project, tmp_path,
                                                                   plant, why):
    v1 = project / V1
    assert workbench(project, "verify").returncode == 0
    if plant.endswith("/"):
        (v1 / plant.rstrip("/")).mkdir()
        (v1 / plant / "s.json").write_text("{}")
    elif plant.endswith("->"):
        outside = tmp_path / "outside.yaml"
        outside.write_bytes((v1 / "rules.yaml").read_bytes())
        (v1 / "rules.yaml").unlink()
        (v1 / "rules.yaml").symlink_to(outside)
    else:
        (v1 / plant).write_text("print('hello')\n")
    proc = run(project)
    assert proc.returncode == 1, proc.stdout
    assert f"fixture archive/v1 holds what it does not list: {why}" in proc.stdout
    out = workbench(project, "verify", "--json")
    assert out.returncode == 1, out.stdout + out.stderr
    problems = json.loads(out.stdout)["problems"]
    assert [(p["fixture"], p["code"]) for p in problems] == [("archive/v1", "UNLISTED_FILE")]
    assert why in problems[0]["message"]


def test_a_fixture_carrying_a_catastrophic_regex_does_not_hang_pytest(tmp_path):
    """The rule ``matches: "(a+)+$"`` and a 41-byte value, promoted into a fixture: the
    findings item runs the Python engine on it and answers at once (the subprocess
    timeout only catches a hang)."""
    p = tmp_path / "agent"
    (p / "tests").mkdir(parents=True)
    (p / "tests" / "test_app.py").write_text("def test_app():\n    pass\n")
    (p / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    lines = [{"format": "workbench-events", "version": 1},
             {"trace_id": "redos", "event_id": "e0", "parent_id": None, "kind": "tool_call",
              "name": "lookup", "start_ns": 0, "end_ns": 5, "status": "ok",
              "args": {"q": "a" * 40 + "!"}, "result": None}]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (tmp_path / "rules.yaml").write_text(
        "version: 1\nrules:\n  shape:\n    severity: error\n    every:\n"
        '      event: {tool: lookup}\n      where: {args.q: {matches: "(a+)+$"}}\n')
    s = Store(tmp_path / "store")
    ingest([tmp_path / "t.jsonl"], s, workers=1)
    promote(s.trace("redos"), load_rules(tmp_path / "rules.yaml"), "redos",
            key=s.redaction_key(), fixtures_dir=p / "traces" / "fixtures")
    proc = run(p, "-rA")
    assert proc.returncode == 0, proc.stdout
    assert "PASSED traces/fixtures/redos/v1/manifest.json::findings" in proc.stdout
