"""A fresh user project, driven as its developers would from a shell: ingest an incident,
check it, promote it, verify, tamper, verify again, promote a second version, and run
plain `pytest` there — which now runs the fixtures, and their replay against the
(fixed) agent."""

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import entry_points

import pyarrow.parquet as pq
import pytest

from tests.support import EXAMPLES

CASE = EXAMPLES / "rules" / "unapproved-destructive"
AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]

# the project's agent after the fix: it asks for an approval of each project right
# before archiving it (driven with the fixture's recorded calls)
AGENT = r'''
import json, sys
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
events = []
for e in lines[1:]:
    if e["kind"] == "tool_call" and e["name"] == "archive_project":
        events.append(dict(e, event_id="ok-" + e["event_id"], name="request_approval",
                           start_ns=e["start_ns"] - 20, end_ns=e["start_ns"] - 10,
                           result={"approved": True}, refs=[]))
    events.append(e)
for i, e in enumerate(events):
    e["seq"] = i
sys.stdout.write("".join(json.dumps(e) + "\n" for e in [lines[0]] + events))
'''


def sh(project, *argv, ok=(0,)):
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_STORE"}
    proc = subprocess.run([sys.executable, *argv], cwd=project, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode in ok, (argv, proc.returncode, proc.stdout, proc.stderr)
    return proc


def workbench(project, *args, ok=(0,)):
    return sh(project, "-m", "workbench", *map(str, args), ok=ok)


@pytest.fixture
def project(tmp_path):
    p = tmp_path / "shop-agent"
    (p / "tests").mkdir(parents=True)
    (p / "tests" / "test_app.py").write_text("def test_app():\n    assert 1 + 1 == 2\n")
    (p / "myagent.py").write_text(AGENT)
    (p / "pyproject.toml").write_text(
        '[project]\nname = "shop-agent"\nversion = "0.1"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
        "[tool.workbench]\n"
        f'replay = "{sys.executable} myagent.py --replay {{fixture}}"\n')
    shutil.copy(CASE / "bad.jsonl", p / "incident.jsonl")
    shutil.copy(CASE / "rules.yaml", p / "rules.yaml")
    return p


def run_pytest(project, *args):
    xml = project / "report.xml"
    proc = sh(project, "-m", "pytest", *PLUGIN, "-p", "no:cacheprovider", f"--junitxml={xml}",
              *args, ok=(0, 1))
    cases = {(c.get("classname"), c.get("name")): "failed" if c.find("failure") is not None
             else "passed" for c in ET.parse(xml).getroot().iter("testcase")}
    return proc, cases


@pytest.mark.slow
def test_from_incident_to_fixture_to_ci(project):
    out = json.loads(workbench(project, "ingest", "incident.jsonl", "--json").stdout)
    [trace] = out["traces"]
    check = workbench(project, "check", "rules.yaml", "--json", ok=(1,))
    assert [f["rule"] for f in json.loads(check.stdout)["findings"]] == [
        "approval-before-archive"]

    doc = json.loads(workbench(project, "promote", trace["trace_id"], "--rules", "rules.yaml",
                               "--name", "unapproved-archive", "--json").stdout)
    assert doc["fixture"] == "unapproved-archive/v1"
    v1 = project / "traces" / "fixtures" / "unapproved-archive" / "v1"
    assert sorted(p.name for p in v1.iterdir()) == ["manifest.json", "rules.yaml",
                                                    "trace.parquet"]
    assert workbench(project, "verify").stdout.strip().endswith("no problems")

    # tamper: a status flipped in place is caught, and named
    saved = (v1 / "trace.parquet").read_bytes()
    table = pq.read_table(v1 / "trace.parquet")
    rows = table.to_pylist()
    rows[3]["status"] = "error"
    pq.write_table(table.from_pylist(rows, schema=table.schema), v1 / "trace.parquet")
    bad = json.loads(workbench(project, "verify", "--json", ok=(1,)).stdout)
    assert [(p["fixture"], p["code"]) for p in bad["problems"]] == [
        ("unapproved-archive/v1", "CONTENT_CHANGED")]
    assert "fields status" in bad["problems"][0]["message"]
    (v1 / "trace.parquet").write_bytes(saved)
    assert workbench(project, "verify").returncode == 0

    # a second version: the minimized incident, with a note naming what changed
    doc = json.loads(workbench(
        project, "promote", trace["trace_id"][:12], "--rules", "rules.yaml",
        "--name", "unapproved-archive", "--minimize", "approval-before-archive",
        "--note", "events: only the steps the approval rule needs", "--json").stdout)
    assert (doc["fixture"], doc["previous"]) == ("unapproved-archive/v2",
                                                 "unapproved-archive/v1")
    lock = (project / "traces" / "fixtures" / "fixtures.lock").read_text()
    assert "unapproved-archive/v1\tsha256:" in lock and "unapproved-archive/v2\tsha256:" in lock
    assert workbench(project, "verify").returncode == 0

    # plain pytest runs the project's tests, both fixtures, and their replays
    proc, cases = run_pytest(project)
    assert proc.returncode == 0, proc.stdout
    assert sorted(cases) == [
        ("tests.test_app", "test_app"),
        *((f"traces.fixtures.unapproved-archive.v{n}.manifest.json", name)
          for n in (1, 2) for name in ("findings", "replay"))]
    assert set(cases.values()) == {"passed"}
    assert "workbench: fixtures in traces/fixtures" in proc.stdout

    # the agent regresses: the replay items fail, in the finding's words
    (project / "myagent.py").write_text(
        "import sys\nsys.stdout.write(open(sys.argv[2]).read())\n")
    proc, cases = run_pytest(project)
    assert proc.returncode == 1
    assert sorted(k[1] for k, v in cases.items() if v == "failed") == ["replay", "replay"]
    assert ("approval-before-archive at step 7 (archive_project): archive_project «id:"
            in proc.stdout)
