"""Promoted fixtures as pytest items, driven by pytester: what is collected when, the
failure words, the replay item, and configuration mistakes stopping the run."""

import sys
from importlib.metadata import entry_points

import pytest

from tests.support import EXAMPLES
from workbench.fixtures import promote
from workbench.ingest import ingest
from workbench.rules import load_rules
from workbench.store import Store

pytest_plugins = ["pytester"]

AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]
CASE = EXAMPLES / "rules" / "unapproved-destructive"
FIXTURE = "traces/fixtures/archive/v1/manifest.json"

# A stand-in for a fixed agent: replays the fixture's calls, asking for an approval of
# each project right before archiving it.
FIXED_AGENT = r'''
import json, sys
src, out = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
lines = [json.loads(l) for l in open(src) if l.strip()]
events = []
for e in lines[1:]:
    if e["kind"] == "tool_call" and e["name"] == "archive_project":
        events.append(dict(e, event_id="ok-" + e["event_id"], name="request_approval",
                           start_ns=e["start_ns"] - 20, end_ns=e["start_ns"] - 10,
                           result={"approved": True}, refs=[]))
    events.append(e)
for i, e in enumerate(events):
    e["seq"] = i
text = "".join(json.dumps(e) + "\n" for e in [lines[0]] + events)
if out:
    open(out, "w").write(text)
else:
    sys.stdout.write(text)
'''
BUGGY_AGENT = "import sys; sys.stdout.write(open(sys.argv[1]).read())\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Store(tmp_path_factory.mktemp("items") / "store")
    ingest([CASE / "bad.jsonl", CASE / "good.jsonl"], s, workers=1)
    return s


def promote_into(store, root, trace="bad", name="archive", **kw):
    return promote(store.trace(f"rules-unapproved-destructive-{trace}"),
                   load_rules(CASE / "rules.yaml"), name, key=store.redaction_key(),
                   fixtures_dir=root, **kw)


@pytest.fixture
def project(pytester, store):
    real = pytester.runpytest
    pytester.runpytest = lambda *args, **kw: real(*PLUGIN, *args, **kw)
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    pytester.mkdir("tests")
    pytester.path.joinpath("tests", "test_unit.py").write_text("def test_unit():\n    pass\n")
    promote_into(store, pytester.path / "traces" / "fixtures")
    return pytester


def lines(*patterns):
    """fnmatch patterns with ``[`` meant literally (``*`` stays a wildcard)."""
    return [p.replace("[", "[[]") for p in patterns]


def with_workbench(pytester, table):
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
                               "[tool.workbench]\n" + table)


def test_a_plain_run_collects_the_fixtures_beside_testpaths(project):
    result = project.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["tests/test_unit.py::test_unit", f"{FIXTURE}::findings",
                                 "2 tests collected*"])
    result = project.runpytest("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["workbench: fixtures in traces/fixtures (replay: off)",
                                 f"{FIXTURE}::findings PASSED*"])


def test_explicit_paths_mean_just_those(project):
    project.runpytest("tests").assert_outcomes(passed=1)
    result = project.runpytest("traces/fixtures", "-q")
    result.assert_outcomes(passed=1)
    project.runpytest(f"{FIXTURE}::findings").assert_outcomes(passed=1)
    project.runpytest("traces/fixtures/archive/v1").assert_outcomes(passed=1)


def test_a_run_from_the_rootdir_without_testpaths_collects_each_item_once(project):
    project.makepyprojecttoml("[tool.pytest.ini_options]\n")
    result = project.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["tests/test_unit.py::test_unit", f"{FIXTURE}::findings",
                                 "2 tests collected*"])


def test_fixture_items_can_be_turned_off_or_deselected(project):
    project.runpytest("--no-workbench-fixtures").assert_outcomes(passed=1)
    project.runpytest("-m", "not workbench_fixture").assert_outcomes(passed=1, deselected=1)
    project.runpytest("-k", "findings").assert_outcomes(passed=1, deselected=1)
    project.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
                              "workbench_fixtures = false\n")
    project.runpytest().assert_outcomes(passed=1)


def test_every_version_is_an_item(project, store):
    promote_into(store, project.path / "traces" / "fixtures", trace="good", name="archive",
                 allow_clean=True, note="events, rules and expected_findings: the good run")
    result = project.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines([f"{FIXTURE}::findings",
                                 "traces/fixtures/archive/v2/manifest.json::findings"])
    project.runpytest().assert_outcomes(passed=3)


def test_a_regressed_check_fails_in_the_findings_words(project):
    rules = project.path / "traces" / "fixtures" / "archive" / "v1" / "rules.yaml"
    rules.write_text(rules.read_text().replace("then: {tool: archive_project}",
                                               "then: {tool: archive_projects}"))
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(lines(
        "*fixture archive/v1: findings*",
        "fixture archive/v1: its rules no longer find what the incident showed",
        "  not found: approval-before-archive at step 7 (archive_project): archive_project "
        "«id:*» at step 7 has no earlier request_approval for the same project_id  "
        "[signature *]",
        "  the rules found nothing"))
    assert "Traceback" not in result.stdout.str()


def test_an_unreadable_fixture_fails_its_items_with_the_reason(project):
    trace = project.path / "traces" / "fixtures" / "archive" / "v1" / "trace.parquet"
    trace.write_bytes(trace.read_bytes()[:100])
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(lines("fixture archive/v1 cannot be read: "
                                      "error[TRACE_UNREADABLE]: trace.parquet: not a "
                                      "readable Parquet file*"))


def test_a_clean_fixture_must_stay_clean(project, store):
    root = project.path / "traces" / "fixtures"
    promote_into(store, root, trace="good", name="good", allow_clean=True)
    project.runpytest().assert_outcomes(passed=3)
    rules = root / "good" / "v1" / "rules.yaml"
    rules.write_text(rules.read_text().replace("result.approved: true",
                                               "result.approved: false"))
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["fixture good/v1: the rules now flag a trace they accepted "
                                 "when it was promoted",
                                 "  approval-before-archive at step * (archive_project): *"])


def test_the_replay_item_fails_a_run_that_still_breaks_the_rules(project):
    project.path.joinpath("agent.py").write_text(BUGGY_AGENT)
    with_workbench(project, f'replay = "{sys.executable} agent.py {{fixture}}"\n')
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "fixture archive/v1: the replayed run still breaks its rules",
        "  approval-before-archive at step 7 (archive_project): archive_project «id:*» at "
        "step 7 has no earlier request_approval for the same project_id"])


@pytest.mark.parametrize("args", ["{fixture}", "{fixture} {out}"])
def test_the_replay_item_passes_a_fixed_run(project, args):
    project.path.joinpath("agent.py").write_text(FIXED_AGENT)
    with_workbench(project, f'replay = "{sys.executable} agent.py {args}"\n')
    result = project.runpytest("-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"{FIXTURE}::replay PASSED*"])


def test_the_replay_runs_as_a_run_of_the_fixtures_scenario(project, monkeypatch):
    monkeypatch.setenv("WORKBENCH_BUILD", "2.0")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=agent")
    check = ("import os, sys\n"
             "if os.environ['OTEL_RESOURCE_ATTRIBUTES'] != 'service.name=agent,"
             "workbench.scenario=archive,workbench.build=2.0' "
             "or os.environ['WORKBENCH_SCENARIO'] != 'archive': sys.exit(3)\n")
    project.path.joinpath("agent.py").write_text(check + FIXED_AGENT)
    with_workbench(project, f'replay = "{sys.executable} agent.py {{fixture}}"\n')
    project.runpytest().assert_outcomes(passed=3)


@pytest.mark.parametrize("script, timeout, words", [
    ("import sys; sys.exit(3)", 120, "the command exited with status 3"),
    ("pass", 120, "it printed no trace on standard output"),
    ("print('not a trace')", 120, "its trace could not be read: error[*"),
    ("import time; time.sleep(60)", 0.5, "it ran longer than 0.5 s"),
])
def test_a_replay_that_gives_no_trace_fails_with_the_reason(project, script, timeout, words):
    project.path.joinpath("agent.py").write_text(script + "\n")
    with_workbench(project, f'replay = "{sys.executable} agent.py {{fixture}}"\n'
                            f"replay_timeout = {timeout}\n")
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(lines(f"fixture archive/v1: the replay did not give a "
                                      f"trace to judge: {words}"))


def test_a_replay_program_that_does_not_exist(project):
    with_workbench(project, 'replay = "no-such-agent-xyz {fixture}"\n')
    result = project.runpytest()
    result.stdout.fnmatch_lines(["*the program 'no-such-agent-xyz' was not found*"])


def test_warn_findings_of_a_replay_are_warnings(project, store):
    warn_case = EXAMPLES / "rules" / "widening-default"
    s = Store(project.path / "store")
    ingest([warn_case / "bad.jsonl"], s, workers=1)
    promote(s.trace("rules-widening-default-bad"), load_rules(warn_case / "rules.yaml"),
            "limit", key=s.redaction_key(), fixtures_dir=project.path / "traces" / "fixtures")
    project.path.joinpath("agent.py").write_text(BUGGY_AGENT)
    with_workbench(project, f'replay = "{sys.executable} agent.py {{fixture}}"\n')
    result = project.runpytest("-k", "limit")
    result.assert_outcomes(passed=2, deselected=3, warnings=1)
    result.stdout.fnmatch_lines(["*FixtureWarning: fixture limit/v1 replay: "
                                 "explicit-project-limit at step 3 (GET /projects)*"])


@pytest.mark.parametrize("table, words", [
    ('replay = "python agent.py"\n', "replay command 'python agent.py' names no fixture"),
    ("replay = 3\n", "replay must be a command string"),
    ('replay = "x {fixture}"\nreplay_timeout = 0\n', "replay_timeout must be a positive"),
    ('fixtures = "nowhere"\n', "fixtures = '*nowhere' is not a folder"),
    ("fixtures = 1\n", "fixtures must be a folder path"),
])
def test_configuration_mistakes_stop_the_run(project, table, words):
    with_workbench(project, table)
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{words}*"])


def test_another_fixtures_folder(project):
    (project.path / "traces" / "fixtures").rename(project.path / "regressions")
    with_workbench(project, 'fixtures = "regressions"\n')
    result = project.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["regressions/archive/v1/manifest.json::findings"])


def test_no_fixtures_folder_no_items(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1)
    assert "workbench: fixtures" not in result.stdout.str()
