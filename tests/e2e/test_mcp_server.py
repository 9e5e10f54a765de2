"""`workbench mcp` driven by the official SDK's own client over stdio: a real server
subprocess in a project folder, initialize, tools/list, each tool's known answer, and
bad input as tool errors with our codes while the server keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
import yaml
from mcp.client.session import ClientSession  # the `serve` extra, which `test` brings
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client

from tests.mcp_support import FINDINGS, GHP, TRACE, make_project

TOOL_NAMES = ["list_findings", "list_groups", "show_finding", "check", "invariants",
              "minimize", "replay", "fixture_status", "ingest", "shadow_compare"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("agent-project")
    make_project(root)
    return root


def session(root, calls, env=None, allow=()):
    """Run ``calls(session)`` against a `workbench mcp` started in ``root`` (``env``: more
    environment variables for the server, as a host's configuration gives them;
    ``allow``: more arguments, the operator's ``--allow-target``/``--allow-auth-env``)."""
    params = StdioServerParameters(command=sys.executable, cwd=str(root),
                                   args=["-m", "workbench", "mcp", "--store", "store",
                                         *allow],
                                   env=None if env is None else
                                   {**get_default_environment(), **env})

    async def go():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            return await calls(s)
    return anyio.run(go)


def code_of(result) -> str:
    assert result.is_error
    code = result.structured_content["error"]["code"]
    text = result.content[0].text
    assert text.startswith(f"error[{code}]: ") and "\n  hint: " in text, text
    return code


def test_initialize_and_list_the_tools_with_their_schemas(project):
    async def calls(s):
        return await s.initialize(), await s.list_tools()
    init, tools = session(project, calls)
    assert init.server_info.name == "workbench"
    assert init.capabilities.tools is not None and "show_finding" in init.instructions
    assert [t.name for t in tools.tools] == TOOL_NAMES
    for t in tools.tools:
        assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object"
        assert t.description
    show = next(t for t in tools.tools if t.name == "show_finding")
    assert show.input_schema["required"] == ["finding"]
    assert show.annotations.read_only_hint and not show.annotations.destructive_hint
    ingest = next(t for t in tools.tools if t.name == "ingest")
    assert not ingest.annotations.read_only_hint and not ingest.annotations.open_world_hint


def test_the_agent_loop_over_stdio(project):
    """List, show, check, minimize, verify: every answer is structured content the SDK
    client validated against the tool's output schema (it raises when one is not)."""
    async def calls(s):
        await s.initialize()
        out = {"groups": await s.call_tool("list_groups", {"status": "open"}),
               "findings": await s.call_tool("list_findings", {"rule": "archive-owned-only"})}
        fid = next(f["finding_id"] for f in out["findings"].structured_content["findings"]
                   if f["seq"] == 9)
        out["show"] = await s.call_tool("show_finding", {"finding": fid})
        out["check"] = await s.call_tool("check", {"rules": "rules.yaml", "record": False})
        out["recording"] = await s.call_tool("check", {"rules": "rules.yaml",
                                                       "recording": "incident.otlp.json"})
        out["invariants"] = await s.call_tool("invariants", {"openapi": "openapi.yaml",
                                                             "record": False})
        out["minimize"] = await s.call_tool("minimize", {
            "trace_id": TRACE[:8], "rules": "rules.yaml", "rule": "approval-before-archive",
            "save": False})
        out["fixtures"] = await s.call_tool("fixture_status", {})
        out["ingest"] = await s.call_tool("ingest", {"path": "secret.jsonl"})
        return out
    out = session(project, calls)
    groups = out["groups"].structured_content
    assert sorted(g["signature"] for g in groups["groups"]) == sorted(
        {sig for _, _, sig in FINDINGS})
    show = out["show"].structured_content
    assert show["message"] == ("archive_project p19 at step 9 came from list_projects at "
                               "step 2 (result.items[2]), whose owner_id does not qualify")
    assert [(st["seq"], st["role"]) for st in show["steps"]] == [
        (0, "leads_to"), (2, "witness"), (9, "offender")]
    assert "archive_project at step 9 (tool_call, error): " in show["text"]
    assert json.loads(out["show"].content[0].text) == show  # the same document as text
    check = out["check"].structured_content
    assert sorted((f["rule"], f["seq"], f["signature"]) for f in check["findings"]) == FINDINGS
    assert out["recording"].structured_content["findings"] == check["findings"]
    (inv,) = out["invariants"].structured_content["findings"]
    assert (inv["rule"], inv["seq"]) == ("status_declared", 12)
    mini = out["minimize"].structured_content
    assert (mini["kept_steps"], mini["one_minimal"], mini["stored"]) == ([0, 2, 8], True, None)
    assert code_of(out["fixtures"]) == "FIXTURES_NOT_FOUND"
    ingested = out["ingest"].structured_content
    assert [t["trace_id"] for t in ingested["traces"]] == ["with-a-secret"]
    assert ingested["redacted"] is True
    assert GHP.encode() not in b"".join(p.read_bytes() for p in project.rglob("*.parquet"))


def test_bad_input_gives_tool_errors_and_the_server_keeps_serving(project):
    async def calls(s):
        await s.initialize()
        codes = [code_of(await s.call_tool(name, args)) for name, args in [
            ("show_finding", {"finding": "0000nothing"}),
            ("check", {"rules": "broken.yaml"}),
            ("check", {"rules": "/etc/passwd"}),
            ("check", {"rules": "rules.yaml", "recording": "../../outside.json"}),
            ("list_findings", {"limit": "ten"}),
            ("show_finding", {"finding": ["a", "list"]}),
            ("minimize", {"trace_id": "ffffffff", "rules": "rules.yaml", "rule": "x"}),
            ("no_such_tool", {}),
        ]]
        after = await s.call_tool("list_findings", {"limit": 1})
        return codes, after
    codes, after = session(project, calls)
    assert codes == ["FINDING_NOT_FOUND", "RULES_YAML", "REF_OUTSIDE", "REF_OUTSIDE",
                     "BAD_ARGUMENTS", "BAD_ARGUMENTS", "TRACE_NOT_FOUND", "UNKNOWN_TOOL"]
    assert not after.is_error and after.structured_content["total"] == 5


def test_a_store_path_that_is_a_file_is_refused_before_serving(tmp_path):
    (tmp_path / "store").write_text("not a store")
    proc = subprocess.run([sys.executable, "-m", "workbench", "mcp", "--store", "store"],
                          cwd=tmp_path, input="", capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error[STORE_NOT_A_DIRECTORY]: ") and "hint:" in proc.stderr


def test_without_the_sdk_it_says_which_extra_to_install(tmp_path):
    code = ("import sys; sys.modules['mcp'] = None\n"
            "from workbench.cli import main\nsys.exit(main(['mcp', '--store', 'store']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, input="",
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error[MCP_UNAVAILABLE]: ") and "[serve]" in proc.stderr


def test_a_line_that_is_not_json_rpc_does_not_stop_the_server(project):
    """Raw protocol: a garbage line, then initialize and a call, each answered."""
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "mcp", "--store", "store"],
                            cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "list_groups", "arguments": {"rule": "archive-owned-only"}}}
        proc.stdin.write("this is not JSON-RPC\n" + json.dumps(init) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
                         + "\n" + json.dumps(call) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 2 and not answer["result"].get("isError")
        assert [g["signature"] for g in answer["result"]["structuredContent"]["groups"]] == [
            "e3cd8e366278883f"]
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_replay_over_stdio_reproduces_then_closes_a_group(tmp_path, capsys):
    """The loop an agent follows over MCP: read the open group, replay it (reproduced),
    the service is fixed, replay until the group is ``fixed``; the credential comes from
    the server's environment, as a host's configuration passes it."""
    from tests.e2e.test_cli_replay import _found
    from tests.unit.invariants.service import DOC, TOKEN, running

    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(DOC))
    with running({"double_create"}) as (url, svc):
        _found(capsys, tmp_path, url, tmp_path / "openapi.yaml")

        async def calls(s):
            await s.initialize()
            groups = (await s.call_tool("list_groups", {"rule": "idempotent_retry"}))
            (group,) = groups.structured_content["groups"]
            args = {"finding": group["signature"], "target": url,
                    "auth_env": ["WB_MCP_ORDERS_TOKEN"]}
            first = await s.call_tool("replay", args)
            svc.bugs.discard("double_create")
            second = await s.call_tool("replay", args)
            after = await s.call_tool("list_groups", {"status": "fixed"})
            return group, first, second, after
        group, first, second, after = session(
            tmp_path, calls, env={"WB_MCP_ORDERS_TOKEN": TOKEN},
            allow=["--allow-target", url, "--allow-auth-env", "WB_MCP_ORDERS_TOKEN"])
    assert group["status"] == "open" and group["env"] == "prod"
    doc = first.structured_content
    assert not first.is_error and doc["reproduced"] is True and doc["status"] == "open"
    assert [r["outcome"] for r in doc["runs"]] == ["reproduced"] * 3
    doc = second.structured_content
    assert doc["reproduced"] is False and doc["status"] == "fixed"
    assert [g["signature"] for g in after.structured_content["groups"]] == [group["signature"]]


def test_replay_over_stdio_says_which_step_did_not_land(tmp_path, capsys):
    """A target one path segment off, over MCP: every attempt ``diverged`` with the
    same first step and cause as the CLI shows, the group stays ``open`` and
    ``list_groups`` carries the note (docs/replay.md, "Did the steps land?")."""
    from tests.e2e.test_cli_replay import _found
    from tests.unit.invariants.service import DOC, TOKEN, running

    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(DOC))
    with running({"double_create"}) as (url, _):  # the bug is still there
        _found(capsys, tmp_path, url, tmp_path / "openapi.yaml")

        async def calls(s):
            await s.initialize()
            (group,) = (await s.call_tool("list_groups", {"rule": "idempotent_retry"})
                        ).structured_content["groups"]
            args = {"finding": group["signature"], "target": url + "/v1",
                    "auth_env": ["WB_MCP_ORDERS_TOKEN"]}
            first = await s.call_tool("replay", args)
            second = await s.call_tool("replay", args)
            after = await s.call_tool("list_groups", {"rule": "idempotent_retry"})
            return first, second, after
        first, second, after = session(
            tmp_path, calls, env={"WB_MCP_ORDERS_TOKEN": TOKEN},
            allow=["--allow-target", url, "--allow-auth-env", "WB_MCP_ORDERS_TOKEN"])
    want = ("POST /v1/orders answered 404 where the recording had 201: is --target's base "
            "path right?")
    for result in (first, second):
        doc = result.structured_content
        assert not result.is_error and doc["reproduced"] is None and doc["status"] == "open"
        assert [r["outcome"] for r in doc["runs"]] == ["diverged"] * 3
        assert {json.dumps(r["divergence"], sort_keys=True) for r in doc["runs"]} == {
            json.dumps({"step": 1, "method": "POST", "path": "/v1/orders", "recorded": 201,
                        "answered": 404, "message": want}, sort_keys=True)}
        assert doc["error"]["code"] == "REPLAY_DIVERGED"
        assert doc["error"]["message"] == f"step 1: {want}"
    (group,) = after.structured_content["groups"]
    assert (group["status"], group["last_replay"], group["last_replay_note"]) == (
        "open", "diverged", f"step 1: {want}")


def test_check_over_runs_of_a_scenario_over_stdio(tmp_path, capsys):
    """`check` with `by` and `compare` through the SDK client: the `rates` of `check
    --by/--compare --json` (docs/statistics.md), validated by the client against the
    tool's output schema."""
    from tests.e2e.test_cli_rates import RULES, write_runs
    from tests.support import run

    (tmp_path / "rules.yaml").write_text(RULES)
    for folder, name, k, build in (("a", "base", 1, "1.4.2"), ("b", "cand", 12, "1.5.0")):
        code, _, err = run(capsys, "ingest", write_runs(tmp_path / folder, name, 40, k),
                           "--store", tmp_path / "store", "--scenario", "refund",
                           "--build", build)
        assert code == 0, err

    async def calls(s):
        await s.initialize()
        by = await s.call_tool("check", {"rules": "rules.yaml", "by": "scenario,build",
                                         "max_rate": 0.2, "record": False})
        cmp = await s.call_tool("check", {"rules": "rules.yaml", "compare": "1.4.2..1.5.0",
                                          "record": False})
        bad = await s.call_tool("check", {"rules": "rules.yaml", "compare": "1.4.2..2.0"})
        fields = await s.call_tool("shadow_compare", {"compare": "1.4.2..1.5.0"})
        return by, cmp, bad, fields
    by, cmp, bad, fields = session(tmp_path, calls)
    code, out, _ = run(capsys, "shadow", "--compare", "1.4.2..1.5.0", "--store",
                       tmp_path / "store", "--json")
    assert code == 0 and json.loads(out) == fields.structured_content  # none REGRESSED
    (sc,) = fields.structured_content["scenarios"]
    # the reference base-000 is the violating base run: the others add an approval
    added = next(f for f in sc["fields"] if f["path"] == "+ tool_call request_approval")
    assert (added["base"]["changed"], added["candidate"]["changed"]) == (39, 28)
    got = {(g["rule"], g["build"]): (g["violations"], g["runs"], g["verdict"])
           for g in by.structured_content["rates"]["groups"]}
    assert got[("approval-before-archive", "1.4.2")] == (1, 40, "PASS")
    assert got[("approval-before-archive", "1.5.0")] == (12, 40, "INCONCLUSIVE")
    for doc, argv in ((by, ["--by", "scenario,build", "--max-rate", "0.2"]),
                      (cmp, ["--compare", "1.4.2..1.5.0"])):
        code, out, _ = run(capsys, "check", tmp_path / "rules.yaml", "--store",
                           tmp_path / "store", "--no-record", "--json", *argv)
        assert json.loads(out)["rates"] == doc.structured_content["rates"]
    g = next(g for g in cmp.structured_content["rates"]["groups"]
             if g["rule"] == "approval-before-archive")
    assert (g["base"]["violations"], g["candidate"]["violations"], g["verdict"]) == (
        1, 12, "REGRESSED")
    assert code_of(bad) == "BUILD_UNKNOWN"


def test_replay_over_stdio_reads_the_group_by_its_rate(tmp_path, capsys):
    """`replay` with `attempts` and `fixed_below` through the SDK client: the
    reproduction rate with its interval, and the group read by it as `replay
    --fixed-below` reads it."""
    from tests.e2e.test_cli_replay import _found
    from tests.unit.invariants.service import DOC, TOKEN, running

    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(DOC))
    with running({"double_create"}) as (url, svc):
        _found(capsys, tmp_path, url, tmp_path / "openapi.yaml")
        svc.bugs.discard("double_create")  # the fix

        async def calls(s):
            await s.initialize()
            (group,) = (await s.call_tool("list_groups", {"rule": "idempotent_retry"})
                        ).structured_content["groups"]
            args = {"finding": group["signature"], "target": url,
                    "auth_env": ["WB_MCP_ORDERS_TOKEN"], "fixed_below": 0.5}
            three = await s.call_tool("replay", {**args, "attempts": 3})
            six = await s.call_tool("replay", {**args, "attempts": 6})
            bad = await s.call_tool("replay", {**args, "fixed_below": 1.5})
            return three, six, bad
        three, six, bad = session(
            tmp_path, calls, env={"WB_MCP_ORDERS_TOKEN": TOKEN},
            allow=["--allow-target", url, "--allow-auth-env", "WB_MCP_ORDERS_TOKEN"])
    doc = three.structured_content
    # 0 of 3 clean attempts: at most 70.8 %, which holds 0.5: flaky, not fixed
    assert doc["reproduced"] is False and doc["fixed_below"] == 0.5
    rep = doc["reproduction"]
    assert (rep["reproduced"], rep["observed"], rep["low"]) == (0, 3, 0)
    assert rep["high"] == pytest.approx(1 - 0.025 ** (1 / 3), abs=1e-6)
    assert doc["status"] == "flaky"
    # 0 of 6: at most 45.9 %, under 0.5: fixed
    doc = six.structured_content
    assert doc["reproduction"]["observed"] == 6 and doc["status"] == "fixed"
    assert doc["reproduction"]["high"] == pytest.approx(1 - 0.025 ** (1 / 6), abs=1e-6)
    assert code_of(bad) == "BAD_ARGUMENTS"
