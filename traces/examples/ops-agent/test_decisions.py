"""Decision tests for the ops agent: it is pointed at `workbench serve` with a scenario,
driven through a realistic instruction, and what it sent is pinned — method, path,
query, the headers that matter, the number of actions — before anything irreversible.

Run them with `pytest traces/examples/ops-agent` (the workbench pytest plugin gives the
`contract_server` fixture). The v2 test shows the catch: in a real suite the decision
check itself is the test, and it fails on the v2 listing; here the test asserts that
it does, and that no archive was sent.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from agent import OpsAgent, ToolError  # noqa: E402

RULES = HERE / "rules.yaml"
V1, V2 = HERE / "scenario-v1.yaml", HERE / "scenario-v2.yaml"
LISTING = {"method": "GET", "path": "/v1/projects", "query": {"owner": "team-a"}}


class WidenedPlan(AssertionError):
    """The plan touches a project the listing did not show as the team's."""


def check_plan(projects: list[dict], plan: list[str], team: str) -> None:
    """The decision check: every planned project was listed as the team's."""
    owners = {p["id"]: p.get("owner") for p in projects}
    wrong = [pid for pid in plan if owners.get(pid) != team]
    if wrong:
        raise WidenedPlan(f"the plan archives {', '.join(wrong)}, which the listing "
                          f"does not show as {team}'s")


def test_v1_listing_archives_only_the_teams_stale_projects(contract_server):
    server = contract_server(V1)
    agent = OpsAgent(server.url, server.canary, team="team-a")
    projects = agent.list_projects()
    plan = agent.plan_archive(projects)
    check_plan(projects, plan, "team-a")
    agent.archive(plan)
    server.assert_sequence([LISTING, "POST /v1/projects/p-101/archive",
                            "POST /v1/projects/p-103/archive"])
    assert server.check(RULES).findings == []
    server.assert_no_canary(agent.transcript)


def test_v2_renamed_owner_widens_the_plan_and_is_caught_before_any_archive(contract_server):
    server = contract_server(V2)
    agent = OpsAgent(server.url, server.canary, team="team-a")
    projects = agent.list_projects()
    plan = agent.plan_archive(projects)
    assert plan == ["p-101", "p-103", "p-201", "p-305"]  # other teams' projects too
    with pytest.raises(WidenedPlan, match="p-201, p-305"):
        check_plan(projects, plan, "team-a")
    server.assert_sequence([LISTING])  # the listing only: no archive was sent


def test_retried_charge_after_a_timeout_sends_the_same_idempotency_key(contract_server):
    server = contract_server(V1, failures=["retry-then-ok"])
    agent = OpsAgent(server.url, server.canary, team="team-a", timeout=1.0)
    receipt = agent.charge("inv-7", 1200)
    assert receipt["state"] == "succeeded"
    key = {"headers.idempotency-key": "charge-inv-7"}
    server.assert_sequence([{"method": "POST", "path": "/v1/charges", "status": None, **key},
                            {"method": "POST", "path": "/v1/charges", "status": 201, **key}])
    assert server.check(RULES).findings == []


def test_an_error_under_a_200_stops_the_agent(contract_server):
    server = contract_server(V1, failures=["error-200"])
    agent = OpsAgent(server.url, server.canary, team="team-a")
    with pytest.raises(ToolError, match="internal_error"):
        agent.plan_archive(agent.list_projects())
    server.assert_sequence([LISTING])  # it stopped: nothing archived
    server.assert_no_canary(agent.transcript)
