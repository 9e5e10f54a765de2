"""Adapter ``swe-agent``: SWE-agent ``.traj`` trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.agents import SWE_AGENT
from workbench.model import InvalidJSONError, InvalidTraceError

SYSTEM = {"role": "system", "content": "You fix bugs.", "agent": "main",
          "message_type": "system_prompt"}
ISSUE = {"role": "user", "agent": "main", "message_type": "observation",
         "content": "We're solving this.\nISSUE:\nadd() returns a string\n\nINSTRUCTIONS:\nGo."}


def write(tmp_path: Path, doc: Any, name: str = "acme__calc-7.traj") -> SourceFile:
    return source(tmp_path / name, json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(SWE_AGENT.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def step(action: str, observation: str, thought: str = "think", **kw: Any) -> dict[str, Any]:
    s = {"action": action, "observation": observation, "response": thought, "thought": thought,
         "execution_time": 0.5, "state": {"open_file": "n/a", "working_dir": "/repo"}}
    s.update(kw)
    return s


def fc_turn(action: str, call_id: str, fn: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "think", "thought": "think", "action": action,
            "agent": "main", "message_type": "action",
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": fn, "arguments": json.dumps(args)}}]}


def tool_msg(content: Any, *ids: str) -> dict[str, Any]:
    return {"role": "tool", "content": content, "agent": "main", "message_type": "observation",
            "tool_call_ids": list(ids)}


def fc_doc() -> dict[str, Any]:
    return {
        "environment": "main",
        "trajectory": [
            step("cat calc.py", "def add(a, b): return str(a + b)"),
            step("edit 1:1\nreturn a + b\nend_of_edit",
                 "Your proposed edit has introduced new syntax error(s). Please retry.\nE999"),
            step("submit", "diff --git a/calc.py b/calc.py"),
        ],
        "history": [
            SYSTEM, ISSUE,
            fc_turn("cat calc.py", "call_a", "bash", {"command": "cat calc.py"}),
            tool_msg("def add(a, b): return str(a + b)", "call_a"),
            fc_turn("edit 1:1\nreturn a + b\nend_of_edit", "call_b", "edit",
                    {"search": "str(a + b)", "replace": "a + b"}),
            tool_msg("Your proposed edit has introduced new syntax error(s).", "call_b"),
            fc_turn("submit", "call_c", "submit", {}),
            tool_msg("diff --git a/calc.py b/calc.py", "call_c"),
        ],
        "info": {"exit_status": "submitted", "submission": "diff --git a/calc.py b/calc.py",
                 "model_stats": {"instance_cost": 0.1, "tokens_sent": 900,
                                 "tokens_received": 40, "api_calls": 3}},
        "replay_config": {"agent": {"model": {"name": "gpt-4o", "api_key": "sk-secret",
                                              "temperature": 0.0}},
                          "problem_statement": {"id": "acme__calc-7",
                                                "text": "add() returns a string"}},
    }


def test_sniff_scores(tmp_path: Path) -> None:
    assert SWE_AGENT.sniff(write(tmp_path, fc_doc())) == 95
    assert SWE_AGENT.sniff(write(tmp_path, {"trajectory": [step("ls", "a")]})) == 85
    assert SWE_AGENT.sniff(write(tmp_path, {"history": [SYSTEM, ISSUE]})) == 75
    assert SWE_AGENT.sniff(write(tmp_path, {"trajectory": "not a list", "info": {}})) == 0
    assert SWE_AGENT.sniff(write(tmp_path, {"history": [{"role": "user", "content": "x"}]})) == 0
    assert SWE_AGENT.sniff(write(tmp_path, [{"id": 0, "source": "user", "action": "message",
                                             "timestamp": "2025-01-01T00:00:00"}])) == 0
    assert SWE_AGENT.sniff(write(tmp_path, {"traj": [], "reward": 1})) == 0


def test_function_calling_steps_become_model_turns_and_tool_calls(tmp_path: Path) -> None:
    events, [info] = read(write(tmp_path, fc_doc()))
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events] == [
        ("m0", "message", "system", None),
        ("m1", "message", "user", None),
        ("step-0", "llm_call", "gpt-4o", "m1"),  # each turn under the task
        ("call_a", "tool_call", "bash", "step-0"),
        ("step-1", "llm_call", "gpt-4o", "m1"),
        ("call_b", "tool_call", "edit", "step-1"),
        ("step-2", "llm_call", "gpt-4o", "m1"),
        ("call_c", "tool_call", "submit", "step-2"),
    ]
    bash, edit, submit = (e for e in events if e.kind == "tool_call")
    assert bash.args == {"command": "cat calc.py"}
    assert bash.result == "def add(a, b): return str(a + b)"
    assert (bash.status, bash.error) == ("ok", None)
    assert bash.attrs["swe_agent.execution_time"] == 0.5
    assert bash.attrs["swe_agent.state"] == {"open_file": "n/a", "working_dir": "/repo"}
    assert bash.attrs["gen_ai.tool.call.id"] == "call_a"
    assert bash.attrs["swe_agent.action"] == "cat calc.py"
    assert (bash.start_ns, bash.end_ns) == (None, None)
    assert edit.status == "error"
    assert edit.error == {"message": "Your proposed edit has introduced new syntax error(s). "
                                     "Please retry."}
    assert submit.args == {}
    llm = events[2]
    assert llm.status == "ok"
    assert llm.result["messages"][0]["tool_calls"][0]["id"] == "call_a"
    assert llm.attrs["gen_ai.request.model"] == "gpt-4o"
    assert "swe_agent.thought" not in llm.attrs  # the same text as the response
    assert events[1].result == {"role": "user", "content": ISSUE["content"]}
    assert info.root_task == "add() returns a string"
    assert info.versions == {"model": "gpt-4o"}
    assert info.attrs["swe_agent.exit_status"] == "submitted"
    assert info.attrs["swe_agent.model_stats"]["api_calls"] == 3
    assert info.attrs["gen_ai.usage.input_tokens"] == 900
    assert info.attrs["gen_ai.usage.output_tokens"] == 40
    assert info.attrs["swe_agent.instance_id"] == "acme__calc-7"
    assert "api_key" not in info.attrs["swe_agent.model_config"]
    assert "sk-secret" not in json.dumps(info.attrs)
    assert {e.trace_id for e in events} == {info.trace_id}


def test_reused_tool_call_ids_give_positional_ids(tmp_path: Path) -> None:
    doc = fc_doc()
    for m in doc["history"]:
        for tc in m.get("tool_calls", []):
            tc["id"] = "call_same"
    events, _ = read(write(tmp_path, doc))
    assert [e.event_id for e in events if e.kind == "tool_call"] == [
        "step-0-action", "step-1-action", "step-2-action"]


def test_older_trajectory_parses_the_command_string(tmp_path: Path) -> None:
    doc = {"environment": "swe_main",
           "trajectory": [step("find_file setup.py\n", "Found 1 matches"),
                          step("python run.py\n", "bash: python: command not found"),
                          step("ls\n", "a b", response="DISCUSSION\nlook\n```ls```")],
           "history": [SYSTEM, {"role": "user", "content": "demo", "is_demo": True},
                       {"role": "user", "content": "fix it"},
                       {"role": "assistant", "content": "think", "action": "find_file setup.py\n"},
                       {"role": "user", "content": "Found 1 matches"},
                       {"role": "assistant", "content": "other", "action": "something else"},
                       {"role": "user", "content": "Your output could not be parsed properly"},
                       {"role": "assistant", "content": "again", "action": "ls\n"}],
           "info": {"exit_status": "early_exit"}}
    events, [info] = read(write(tmp_path, doc))
    tools = [e for e in events if e.kind == "tool_call"]
    assert [(t.event_id, t.name, t.args, t.status) for t in tools] == [
        ("step-0-action", "find_file", {"command": "find_file setup.py\n"}, "ok"),
        ("step-1-action", "python", {"command": "python run.py\n"}, "error"),
        ("step-2-action", "ls", {"command": "ls\n"}, "ok")]
    assert tools[1].error == {"message": "bash: python: command not found"}
    # the history repeats steps 0 and 2; the turn between them (another action) is skipped
    llms = [e for e in events if e.kind == "llm_call"]
    assert llms[0].result == {"messages": [doc["history"][3]]}
    assert llms[1].result == {"messages": [{"role": "assistant", "content": "think"}]}
    assert llms[2].result == {"messages": [doc["history"][7]]}
    assert llms[2].attrs["swe_agent.thought"] == "think"  # differs from the response
    assert [e.name for e in events if e.kind == "message"] == ["system", "user", "user"]
    assert events[1].attrs["swe_agent.is_demo"] is True
    assert llms[0].name == "assistant"
    assert info.root_task == "fix it"   # not the demonstration
    assert info.attrs["swe_agent.instance_id"] == "acme__calc-7"  # from the file name
    assert info.attrs["swe_agent.environment"] == "swe_main"


def test_a_step_without_observation_is_unanswered(tmp_path: Path) -> None:
    doc = {"trajectory": [{"action": "ls", "response": "r", "thought": "t"},
                          {"action": "", "observation": "", "response": "no action"}],
           "history": []}
    events, _ = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind) for e in events] == [
        ("step-0", "llm_call"), ("step-0-action", "tool_call"), ("step-1", "llm_call")]
    assert events[1].status == "unset"
    assert events[1].attrs["workbench.flags"] == ["unanswered"]


def test_history_only_pairs_results_by_id_in_any_order(tmp_path: Path) -> None:
    turn = {"role": "assistant", "content": "two at once", "agent": "main",
            "message_type": "action",
            "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": '{"command": "ls"}'}},
                           {"id": "c2", "function": {"name": "open", "arguments": '{"path": "a.py"}'}},
                           {"id": "c3", "function": {"name": "bash", "arguments": "{}"}}]}
    doc = {"history": [SYSTEM, ISSUE, turn,
                       tool_msg([{"type": "text", "text": '{"lines": 3}'}], "c2"),
                       tool_msg("a.py b.py", "c1"),
                       tool_msg("who am I?", "c9")]}
    events, [info] = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events] == [
        ("m0", "message", "system", None), ("m1", "message", "user", None),
        ("m2", "llm_call", "assistant", "m1"),
        ("c1", "tool_call", "bash", "m2"), ("c2", "tool_call", "open", "m2"),
        ("c3", "tool_call", "bash", "m2"),
        ("m5", "tool_call", "", None)]
    c1, c2, c3, stray = events[3:]
    assert (c1.result, c1.status, c1.args) == ("a.py b.py", "ok", {"command": "ls"})
    assert c2.result == {"lines": 3}  # one text block, reduced and decoded
    assert c3.status == "unset" and c3.attrs["workbench.flags"] == ["unanswered"]
    assert stray.attrs["workbench.flags"] == ["unmatched"]
    assert stray.attrs["gen_ai.tool.call.id"] == "c9"
    assert stray.result == "who am I?"
    assert info.root_task == "add() returns a string"


def test_history_only_integer_ids_pair(tmp_path: Path) -> None:
    turn = {"role": "assistant", "content": "x", "agent": "main", "message_type": "action",
            "tool_calls": [{"id": 7, "function": {"name": "bash", "arguments": "{}"}}]}
    events, _ = read(write(tmp_path, {"history": [ISSUE, turn, tool_msg("ok", 7)]}))
    [call] = [e for e in events if e.kind == "tool_call"]
    assert (call.event_id, call.result, call.status) == ("m1-call0", "ok", "ok")


def test_history_only_without_tool_calls_pairs_by_position(tmp_path: Path) -> None:
    doc = {"history": [SYSTEM, ISSUE,
                       {"role": "assistant", "content": "look", "action": "ls -a",
                        "agent": "main", "message_type": "action"},
                       {"role": "user", "content": ".git", "agent": "main",
                        "message_type": "observation"},
                       {"role": "assistant", "content": "again", "action": "ls",
                        "agent": "main", "message_type": "action"}]}
    events, _ = read(write(tmp_path, doc))
    tools = [e for e in events if e.kind == "tool_call"]
    assert [(t.event_id, t.name, t.result, t.status, t.parent_id) for t in tools] == [
        ("m2-action", "ls", ".git", "ok", "m2"), ("m4-action", "ls", None, "unset", "m4")]
    assert tools[1].attrs["workbench.flags"] == ["unanswered"]


def test_same_file_same_ids(tmp_path: Path) -> None:
    src = write(tmp_path, fc_doc())
    first, [i1] = read(src)
    again, [i2] = read(src)
    assert [(e.trace_id, e.event_id) for e in first] == [(e.trace_id, e.event_id) for e in again]
    assert len(i1.trace_id) == 32 and i1.trace_id == i2.trace_id


@pytest.mark.parametrize(("doc", "message"), [
    ({"trajectory": {"0": "step"}, "history": []}, "'trajectory' is not a list"),
    ({"trajectory": [], "history": "none"}, "'history' is not a list"),
    ([{"trajectory": []}], "not a SWE-agent trajectory"),
    ({"info": {}}, "not a SWE-agent trajectory"),
    ({"trajectory": ["ls"], "history": []}, "step 0 is not an object"),
    ({"trajectory": [], "history": []}, "no trajectory steps"),
    ({"history": [SYSTEM, "hello"]}, "history message 1 is not an object"),
    ({"trajectory": [step("ls", "x")], "history": [7]}, "history message 0 is not an object"),
])
def test_wrong_shapes_are_invalid_traces(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(InvalidTraceError, match=message) as exc:
        read(write(tmp_path, doc))
    assert exc.value.code == "INVALID_TRACE"
    assert exc.value.hint


def test_odd_field_types_do_not_escape(tmp_path: Path) -> None:
    doc = fc_doc()
    doc["history"][2]["tool_calls"] = [{"id": 5, "function": "bash"}]
    doc["trajectory"][0]["observation"] = {"weird": True}
    doc["replay_config"] = "not json"
    doc["info"] = ["x"]
    events, [info] = read(write(tmp_path, doc))
    first = events[3]
    assert (first.event_id, first.name, first.args) == ("step-0-action", "cat", {})
    assert first.result == {"weird": True}
    assert info.root_task == "add() returns a string"


def test_truncated_json(tmp_path: Path) -> None:
    text = json.dumps(fc_doc(), indent=2)
    with pytest.raises(InvalidJSONError) as exc:
        read(source(tmp_path / "t.traj", text[: len(text) // 2]))
    assert exc.value.code == "INVALID_JSON"
