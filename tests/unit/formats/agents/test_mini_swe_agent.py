"""Adapter ``mini-swe-agent``: fenced bash actions and tool calls, return codes as results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import assert_reads_or_refuses, with_odd_values
from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.agents import ATIF, MINI_SWE_AGENT, SWE_AGENT
from workbench.formats.chat import ANTHROPIC, OPENAI
from workbench.model import FLAGS_KEY, InvalidTraceError

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "mini-swe-agent"
TASK = ("<pr_description>\nConsider the following PR description:\nreindl() gives NaN\n"
        "</pr_description>\n\n<instructions>...</instructions>")


def write(tmp_path: Path, doc: Any, name: str = "x.traj.json") -> SourceFile:
    return source(tmp_path / name, json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], TraceInfo]:
    out = list(MINI_SWE_AGENT.read(src))
    [info] = [e for e in out if isinstance(e, TraceInfo)]
    return [e for e in out if isinstance(e, RawEvent)], info


def v1(*messages: dict[str, Any], status: str = "Submitted") -> dict[str, Any]:
    return {"info": {"exit_status": status, "submission": "diff", "mini_version": "1.17.0",
                     "model_stats": {"instance_cost": 0.1, "api_calls": 3},
                     "config": {"model": {"model_name": "openai/gpt-5-mini"}}},
            "messages": [{"role": "system", "content": "You are helpful."},
                         {"role": "user", "content": TASK}, *messages],
            "trajectory_format": "mini-swe-agent-1"}


def said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def bash(command: str, thought: str = "THOUGHT: look") -> dict[str, Any]:
    return said(f"{thought}\n\n```bash\n{command}\n```")


def observed(code: int, output: str = "") -> dict[str, Any]:
    return {"role": "user", "content": f"<returncode>{code}</returncode>\n<output>\n{output}"
                                       "</output>"}


def test_the_reported_file_gives_its_tool_calls_not_openai_messages() -> None:
    """A mini-swe-agent v1 trajectory was read as OpenAI messages with no tool calls."""
    src = source(CORPUS / "harbor-rfc-hello-world.traj.json",
                 (CORPUS / "harbor-rfc-hello-world.traj.json").read_bytes())
    assert MINI_SWE_AGENT.sniff(src) == 98 and OPENAI.sniff(src) < 98
    events, info = read(src)
    got = [(e.kind, e.name, e.args) for e in events if e.kind == "tool_call"]
    assert got == [("tool_call", "bash", {"command": 'echo "Hello, world!" > hello.txt'}),
                   ("tool_call", "bash", {"command": "cat hello.txt"}),
                   ("tool_call", "bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})]
    assert info.root_task == 'Create a file called hello.txt with "Hello, world!" as the content.'


def test_detection(tmp_path: Path) -> None:
    named = write(tmp_path, v1())
    assert MINI_SWE_AGENT.sniff(named) == 98
    for other in (ATIF, SWE_AGENT, OPENAI, ANTHROPIC):
        assert other.sniff(named) < 95, other.name
    # the format's name is last in the file: beyond the head of a long one, info says it
    doc = v1()
    del doc["trajectory_format"]
    assert MINI_SWE_AGENT.sniff(write(tmp_path, doc, "y.json")) == 95
    assert MINI_SWE_AGENT.sniff(write(tmp_path, {"info": {}, "messages": []}, "z.json")) == 0


def test_v1_fenced_actions_and_their_observations(tmp_path: Path) -> None:
    doc = v1(bash("ls"), observed(0, "a.py\n"),
             bash("python a.py"), observed(2, "Traceback\n"),
             said("two at once\n```bash\nls\n```\n```bash\npwd\n```"),
             {"role": "user", "content": "Please always provide EXACTLY ONE action in triple "
                                         "backticks, found 2 actions."},
             bash("sleep 999"),
             {"role": "user", "content": "The last command <command>sleep 999</command> timed "
                                         "out and has been killed.\nThe output of the command "
                                         "was:\n <output>\n\n</output>"},
             bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
             {"role": "user", "content": "diff --git a/a.py b/a.py"})
    events, info = read(write(tmp_path, doc))
    got = [(e.event_id, e.kind, e.parent_id, e.status) for e in events]
    assert got == [
        ("m0", "message", None, "unset"), ("m1", "message", None, "unset"),
        ("m2", "llm_call", "m1", "ok"), ("m2-action", "tool_call", "m2", "ok"),
        ("m4", "llm_call", "m1", "ok"), ("m4-action", "tool_call", "m4", "error"),
        ("m6", "llm_call", "m1", "ok"),  # two actions: refused, none run
        ("m7", "message", None, "unset"),  # the format error is the next turn's prompt
        ("m8", "llm_call", "m7", "ok"), ("m8-action", "tool_call", "m8", "error"),
        ("m10", "llm_call", "m7", "ok"), ("m10-action", "tool_call", "m10", "ok")]
    ev = {e.event_id: e for e in events}
    assert ev["m2-action"].args == {"command": "ls"}
    assert ev["m2-action"].result == "<returncode>0</returncode>\n<output>\na.py\n</output>"
    assert ev["m4-action"].error == {"code": "nonzero_exit",
                                     "message": "the command exited with status 2"}
    assert ev["m4-action"].attrs["mini_swe_agent.returncode"] == 2
    assert ev["m8-action"].error is not None and ev["m8-action"].error["code"] == "timeout"
    assert ev["m10-action"].result == "diff --git a/a.py b/a.py"
    assert ev["m10-action"].attrs["mini_swe_agent.exit_status"] == "Submitted"
    assert ev["m2"].name == "openai/gpt-5-mini"
    assert info.root_task == "reindl() gives NaN"
    assert info.versions == {"model": "openai/gpt-5-mini", "mini-swe-agent": "1.17.0"}
    assert info.attrs["mini_swe_agent.model_stats"] == {"instance_cost": 0.1, "api_calls": 3}


def test_v2_text_actions_extra_returncode_exception_and_exit(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": 7,
             "prompt_tokens_details": {"cached_tokens": 64}}
    turn = {"role": "assistant", "content": "```mswea_bash_command\nmake\n```",
            "extra": {"actions": [{"command": "make"}], "cost": 0.01, "timestamp": 1.7e9,
                      "response": {"id": "r1", "model": "m-2", "usage": usage,
                                   "choices": [{"finish_reason": "stop"}]}}}
    doc = {"info": {"exit_status": "Submitted", "mini_version": "2.0.0"},
           "messages": [{"role": "user", "content": "build it"}, turn,
                        {"role": "user", "content": "<exception>OSError</exception>\n"
                                                    "<returncode>-1</returncode>\n<output>\n"
                                                    "</output>",
                         "extra": {"returncode": -1, "exception_info": "OSError: no make"}},
                        {**turn, "extra": {"actions": [{"command": "echo done"}]}},
                        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted",
                                                                   "submission": ""}}],
           "trajectory_format": "mini-swe-agent-1.1"}
    events, _ = read(write(tmp_path, doc))
    ev = {e.event_id: e for e in events}
    assert ev["m1-action"].args == {"command": "make"}
    assert ev["m1-action"].status == "error"
    assert ev["m1-action"].error == {"code": "nonzero_exit", "message": "OSError: no make"}
    assert ev["m1"].attrs["gen_ai.usage.input_tokens"] == 100
    assert ev["m1"].attrs["gen_ai.usage.cache_read.input_tokens"] == 64
    assert ev["m1"].attrs["gen_ai.response.model"] == "m-2"
    assert ev["m1"].attrs["mini_swe_agent.cost"] == 0.01
    assert ev["m1"].start_ns == 1_700_000_000_000_000_000
    assert ev["m3-action"].status == "ok"  # completed by the submission
    assert "m4" not in ev  # the exit message is the action's result


def test_v2_tool_calls_pair_by_id_and_an_exit_after_outputs_stays_a_message(
        tmp_path: Path) -> None:
    def tc(cid: str, cmd: str) -> dict[str, Any]:
        return {"id": cid, "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": cmd})}}
    doc = {"info": {"exit_status": "LimitsExceeded"},
           "messages": [{"role": "user", "content": "fix"},
                        {"role": "assistant", "content": "", "tool_calls": [tc("a", "ls"),
                                                                            tc("b", "pwd")]},
                        {"role": "tool", "tool_call_id": "b", "content": "<returncode>0"
                         "</returncode>\n<output>\n/testbed\n</output>",
                         "extra": {"returncode": 0}},
                        {"role": "tool", "tool_call_id": "zz", "content": "stray"},
                        {"role": "exit", "content": "limits exceeded",
                         "extra": {"exit_status": "LimitsExceeded"}}],
           "trajectory_format": "mini-swe-agent-1.1"}
    events, _ = read(write(tmp_path, doc))
    ev = {e.event_id: e for e in events}
    assert (ev["b"].args, ev["b"].status) == ({"command": "pwd"}, "ok")
    assert ev["a"].status == "unset" and ev["a"].attrs[FLAGS_KEY] == ["unanswered"]
    assert ev["m3"].attrs[FLAGS_KEY] == ["unmatched"] and ev["m3"].result == "stray"
    assert (ev["m4"].kind, ev["m4"].name) == ("message", "exit")
    assert ev["m4"].attrs["mini_swe_agent.exit_status"] == "LimitsExceeded"


@pytest.mark.parametrize(("doc", "words"), [
    ([], "expected an object with a 'messages' list"),
    ({"info": {}, "messages": {}}, "expected an object with a 'messages' list"),
    ({"info": {}, "messages": [3]}, "message 0 is not an object"),
    ({"info": {}, "messages": []}, "no messages"),
])
def test_bad_files_are_refused(tmp_path: Path, doc: Any, words: str) -> None:
    with pytest.raises(InvalidTraceError, match=words) as exc:
        list(MINI_SWE_AGENT.read(write(tmp_path, doc)))
    assert exc.value.hint and "mini-swe-agent" in exc.value.hint


# --- odd values anywhere in a real trajectory: a clear error or events, never a crash --

_SMALL = [json.loads((CORPUS / name).read_text()) for name in (
    "harbor-rfc-hello-world.traj.json", "pvlib__pvlib-python-1606.traj.json")]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(range(len(_SMALL))), st.data())
def test_odd_values_never_crash(tmp_path_factory: pytest.TempPathFactory, n: int,
                                data: st.DataObject) -> None:
    doc = with_odd_values(data, _SMALL[n])
    assert_reads_or_refuses(MINI_SWE_AGENT, write(tmp_path_factory.mktemp("odd"), doc))
