"""``@pytest.mark.agent_runs``: a test called until Wald's sequential test decides its
failure rate, and the ``agent_run`` fixture that labels the runs; driven by pytester."""

from importlib.metadata import entry_points

pytest_plugins = ["pytester"]

AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]

TESTS = """
import os, pytest

CALLS = {"clean": 0, "half": 0}

@pytest.mark.agent_runs(max_runs=40, max_rate=0.2, scenario="refund")
def test_clean(agent_run):
    CALLS["clean"] += 1
    assert agent_run.run == CALLS["clean"]
    assert os.environ["OTEL_RESOURCE_ATTRIBUTES"].endswith(
        "workbench.scenario=refund,workbench.build=1.5.0")
    assert agent_run.scenario == "refund" and agent_run.build == "1.5.0"

@pytest.mark.agent_runs(max_runs=40, max_rate=0.2)
def test_half():
    CALLS["half"] += 1
    assert CALLS["half"] % 2, "approval skipped"

@pytest.mark.agent_runs(max_runs=3, max_rate=0.2)
def test_short():
    pass

@pytest.mark.agent_runs(max_rate=0)
def test_bad_setting():
    pass

def test_counts():
    # the clean test passed at its 8th run (good 10 %, bad 40 %: 8 log(2/3) < log(1/19))
    assert CALLS == {"clean": 8, "half": 8}
"""


def test_the_marker_runs_until_decided(pytester):
    pytester.makepyfile(test_agent=TESTS)
    result = pytester.runpytest(*PLUGIN, "--workbench-build", "1.5.0", "-q")
    result.assert_outcomes(passed=2, failed=3)
    out = result.stdout.str()
    # every other run fails: 4 failures and 4 passes cross log(19) at the 8th run
    assert "agent_runs: FAIL after 8 run(s), 4/8 = 50.0% [15.7%, 84.3%] failed" in out
    assert "last failure: run 8: approval skipped" in out
    assert "agent_runs: INCONCLUSIVE after 3 run(s)" in out
    assert "agent_runs: max rate 0 must lie strictly between 0 and 1" in out


def test_the_fixture_restores_the_environment(pytester, monkeypatch):
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=agent")
    monkeypatch.delenv("WORKBENCH_BUILD", raising=False)
    pytester.makepyfile(test_env="""
import os
def test_a(agent_run):
    assert agent_run.build is None and agent_run.scenario == "test_a"
    assert os.environ["OTEL_RESOURCE_ATTRIBUTES"] == (
        "service.name=agent,workbench.scenario=test_a")
def test_b():
    assert os.environ["OTEL_RESOURCE_ATTRIBUTES"] == "service.name=agent"
    assert "WORKBENCH_SCENARIO" not in os.environ
""")
    pytester.runpytest(*PLUGIN, "-q").assert_outcomes(passed=2)


def test_resource_attributes_of_a_run():
    from workbench.pytest_plugin import AgentRun

    assert AgentRun("s", "2").resource_attributes == {"workbench.scenario": "s",
                                                      "workbench.build": "2"}
    assert AgentRun("s", None).resource_attributes == {"workbench.scenario": "s"}
