"""Adapter ``openhands``: OpenHands event streams (actions, observations, ``cause``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.agents import OPENHANDS
from workbench.model import InvalidJSONError, InvalidTraceError

T0 = 1_700_000_000_000_000_000  # 2023-11-14T22:13:20 UTC


def ts(seconds: float) -> str:
    whole = int(seconds)
    return f"2023-11-14T22:13:{20 + whole:02d}.{int((seconds - whole) * 1e6):06d}"


def write(tmp_path: Path, doc: Any) -> SourceFile:
    return source(tmp_path / "stream.json", json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(OPENHANDS.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def response(rid: str, *calls: tuple[str, str, dict[str, Any]], text: str = "ok") -> dict[str, Any]:
    return {"id": rid, "created": 1_700_000_000, "model": "m-large",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": text, "tool_calls": [
                             {"id": cid, "type": "function",
                              "function": {"name": fn, "arguments": json.dumps(a)}}
                             for cid, fn, a in calls]}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 8}}


def user(eid: int, text: str, t: float = 0) -> dict[str, Any]:
    return {"id": eid, "timestamp": ts(t), "source": "user", "message": text,
            "action": "message", "args": {"content": text, "image_urls": None}}


def action(eid: int, act: str, args: dict[str, Any], t: float,
           tcm: dict[str, Any] | None = None) -> dict[str, Any]:
    ev = {"id": eid, "timestamp": ts(t), "source": "agent", "message": "", "action": act,
          "args": args}
    if tcm is not None:
        ev["tool_call_metadata"] = tcm
    return ev


def tcm(fn: str, call_id: str, resp: dict[str, Any], total: int = 1) -> dict[str, Any]:
    return {"function_name": fn, "tool_call_id": call_id, "model_response": resp,
            "total_calls_in_response": total}


def observation(eid: int, kind: str, cause: int | None, content: str, t: float,
                **kw: Any) -> dict[str, Any]:
    ev = {"id": eid, "timestamp": ts(t), "source": "agent", "message": kw.pop("message", ""),
          "observation": kind, "content": content, "extras": kw.pop("extras", {})}
    if cause is not None:
        ev["cause"] = cause
    ev.update(kw)
    return ev


def run_obs(eid: int, cause: int, out: str, code: int, t: float, **kw: Any) -> dict[str, Any]:
    return observation(eid, "run", cause, out, t,
                       message=f"Command executed with exit code {code}.",
                       extras={"command": "x", "metadata": {"exit_code": code}}, **kw)


def test_sniff_scores(tmp_path: Path) -> None:
    assert OPENHANDS.sniff(write(tmp_path, [user(0, "hi")])) == 90
    assert OPENHANDS.sniff(write(tmp_path, [observation(0, "agent_state_changed", None, "",
                                                       0, source="environment")])) == 90
    assert OPENHANDS.sniff(write(tmp_path, {"events": [user(0, "hi")]})) == 0
    assert OPENHANDS.sniff(write(tmp_path, [{"traj": [], "reward": 1.0}])) == 0
    assert OPENHANDS.sniff(write(tmp_path, {"trajectory": [], "history": []})) == 0
    assert OPENHANDS.sniff(write(tmp_path, [{"id": 1, "source": "bot", "action": "x",
                                             "timestamp": "t"}])) == 0


def test_actions_and_observations_pair_by_cause(tmp_path: Path) -> None:
    r1 = response("resp-1", ("tc-1", "execute_bash", {"command": "ls"}),
                  ("tc-2", "str_replace_editor", {"command": "view", "path": "/w"}))
    doc = [user(0, "list the files"),
           action(2, "run", {"command": "ls", "thought": "look", "blocking": False}, 1,
                  tcm("execute_bash", "tc-1", r1, 2)),
           action(3, "read", {"path": "/w", "start": 0}, 1.5, tcm("str_replace_editor", "tc-2", r1, 2)),
           observation(4, "read", 3, "a.py", 2),          # answers 3 before 2
           run_obs(5, 2, '{"files": ["a.py"]}', 0, 3, success=True)]
    events, [info] = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events] == [
        ("0", "message", "user", None),
        ("resp-1", "llm_call", "m-large", "0"),  # the turn of the prompt
        ("2", "tool_call", "execute_bash", "resp-1"),
        ("3", "tool_call", "str_replace_editor", "resp-1"),
    ]
    msg, llm, run, read_ = events
    assert msg.result == {"role": "user", "content": "list the files"}
    assert (msg.start_ns, msg.end_ns) == (T0, T0)
    assert llm.result == {"messages": [r1["choices"][0]["message"]], "finish_reasons": ["tool_calls"]}
    assert llm.status == "ok"
    assert (llm.start_ns, llm.end_ns) == (None, T0 + 1_000_000_000)
    assert llm.attrs["gen_ai.usage.input_tokens"] == 120
    assert llm.attrs["gen_ai.usage.output_tokens"] == 8
    assert llm.attrs["gen_ai.response.model"] == "m-large"
    assert run.args == {"command": "ls"}                   # what the model asked for
    assert run.attrs["openhands.args"] == {"command": "ls", "blocking": False}
    assert run.attrs["openhands.thought"] == "look"
    assert run.attrs["openhands.action"] == "run"
    assert run.attrs["gen_ai.tool.call.id"] == "tc-1"
    assert run.attrs["openhands.exit_code"] == 0
    assert run.attrs["openhands.observation_id"] == 5
    assert run.result == {"files": ["a.py"]}
    assert (run.status, run.error) == ("ok", None)
    assert (run.start_ns, run.end_ns) == (T0 + 1_000_000_000, T0 + 3_000_000_000)
    assert read_.args == {"command": "view", "path": "/w"}
    assert (read_.result, read_.status) == ("a.py", "ok")
    assert info.root_task == "list the files"
    assert info.versions == {"model": "m-large"}


def test_error_rules(tmp_path: Path) -> None:
    doc = [action(1, "run", {"command": "false"}, 0), run_obs(2, 1, "", 1, 1),
           action(3, "run", {"command": "serve"}, 2),
           run_obs(4, 3, "Serving", -1, 3, success=False),
           action(5, "browse", {"url": "http://x"}, 4),
           observation(6, "error", 5, "page not found", 5, extras={"error_id": "BROWSE_404"}),
           action(7, "run", {"command": "true"}, 6),
           observation(8, "run", 7, "", 7, success=False)]
    events, _ = read(write(tmp_path, doc))
    assert [(e.event_id, e.status) for e in events] == [
        ("1", "error"), ("3", "error"), ("5", "error"), ("7", "error")]
    assert events[0].error == {"message": "Command executed with exit code 1.",
                               "details": {"exit_code": 1}}
    assert events[1].error == {"message": "Command executed with exit code -1.",
                               "details": {"exit_code": -1}}
    assert events[2].error == {"message": "page not found", "code": "BROWSE_404"}
    assert events[3].error == {"message": "success: false"}
    assert events[0].args == {"command": "false"}  # no model response: the action's args
    assert events[0].parent_id is None


def test_unknown_cause_unanswered_and_finish(tmp_path: Path) -> None:
    r = response("resp-9", ("tc-9", "finish", {}))
    doc = [user(0, "go"),
           action(1, "run", {"command": "sleep 99"}, 1),
           observation(2, "run", 77, "orphan output", 2, extras={"metadata": {"exit_code": 0}}),
           action(3, "finish", {"outputs": {}, "thought": "done"}, 3, tcm("finish", "tc-9", r))]
    events, _ = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events] == [
        ("0", "message", "user", None),
        ("1", "tool_call", "run", None),
        ("2", "tool_call", "run", "77"),        # the dangling cause is kept
        ("resp-9", "llm_call", "m-large", "0"),
        ("3", "tool_call", "finish", "resp-9"),
    ]
    sleep, stray, finish = events[1], events[2], events[4]
    assert sleep.status == "unset" and sleep.attrs["workbench.flags"] == ["unanswered"]
    assert stray.attrs["workbench.flags"] == ["unmatched"]
    assert (stray.result, stray.status) == ("orphan output", "ok")
    assert finish.status == "unset" and "workbench.flags" not in finish.attrs
    assert finish.args == {}


def test_an_observation_recorded_before_its_action_still_pairs(tmp_path: Path) -> None:
    doc = [run_obs(9, 4, "done", 0, 2), action(4, "run", {"command": "make"}, 1)]
    events, _ = read(write(tmp_path, doc))
    assert [(e.event_id, e.result, e.status) for e in events] == [("4", "done", "ok")]
    assert (events[0].start_ns, events[0].end_ns) == (T0 + 1_000_000_000, T0 + 2_000_000_000)


def test_second_observation_of_an_action_is_unmatched(tmp_path: Path) -> None:
    doc = [action(1, "run", {"command": "ls"}, 0), run_obs(2, 1, "a", 0, 1),
           run_obs(3, 2, "b", 0, 2), run_obs(4, 1, "c", 0, 3)]
    events, _ = read(write(tmp_path, doc))
    assert [(e.event_id, e.parent_id, e.result) for e in events] == [
        ("1", None, "a"), ("3", "1", "b"), ("4", "1", "c")]  # 3's cause 2 was folded into 1
    assert [e.attrs.get("workbench.flags") for e in events] == [None, ["unmatched"], ["unmatched"]]


def test_messages_states_and_system(tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {"name": "execute_bash"}}]
    doc = [observation(0, "agent_state_changed", None, "", 0, source="environment",
                       extras={"agent_state": "loading"}),
           {"id": 1, "timestamp": ts(1), "source": "agent", "message": "sys", "action": "system",
            "args": {"content": "You are helpful.", "tools": tools,
                     "openhands_version": "0.40", "agent_class": "CodeActAgent"}},
           user(2, "hello", 2),
           observation(3, "null", 2, "", 2, message="No observation", source="user"),
           {"id": 4, "timestamp": ts(3), "source": "environment", "message": "",
            "action": "change_agent_state", "args": {"agent_state": "running", "thought": ""}},
           {"id": 5, "timestamp": ts(4), "source": "agent", "message": "hi!", "action": "message",
            "args": {"content": "hi!", "wait_for_response": True}},
           observation(6, "null", 5, "", 5, message="No observation")]
    events, [info] = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind, e.name) for e in events] == [
        ("0", "state", "agent_state_changed"), ("1", "message", "system"),
        ("2", "message", "user"), ("4", "state", "change_agent_state"),
        ("5", "llm_call", "assistant")]
    assert events[0].result == {"agent_state": "loading"}
    assert events[2].attrs["openhands.observations"] == [
        {"id": 3, "observation": "null", "message": "No observation"}]
    assert events[3].result == {"agent_state": "running"}
    assert events[4].result == {"messages": [{"role": "assistant", "content": "hi!"}]}
    assert events[4].status == "ok"
    assert info.tools == tools
    assert info.versions == {"openhands_version": "0.40", "agent_class": "CodeActAgent"}
    assert info.root_task == "hello"


def test_same_file_same_ids(tmp_path: Path) -> None:
    src = write(tmp_path, [user(0, "a"), action(1, "run", {"command": "ls"}, 1)])
    a, [ia] = read(src)
    b, [ib] = read(src)
    assert [(e.trace_id, e.event_id) for e in a] == [(e.trace_id, e.event_id) for e in b]
    assert len(ia.trace_id) == 32 and ia.trace_id == ib.trace_id == a[0].trace_id


@pytest.mark.parametrize(("doc", "message"), [
    ({"events": []}, "expected a JSON array of events"),
    ([], "no events in the file"),
    ([user(0, "a"), "b"], "event 1 is not an object"),
    ([{"id": 0, "source": "user", "timestamp": ts(0)}], "neither 'action' nor 'observation'"),
])
def test_wrong_shapes_are_invalid_traces(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(InvalidTraceError, match=message) as exc:
        read(write(tmp_path, doc))
    assert exc.value.code == "INVALID_TRACE" and exc.value.hint


def test_odd_field_types_do_not_escape(tmp_path: Path) -> None:
    doc = [{"id": 0, "timestamp": 12, "source": None, "action": "run", "args": "ls",
            "tool_call_metadata": {"model_response": {"choices": "none"}}},
           {"id": 1, "observation": "run", "cause": [0], "extras": "x", "content": None}]
    events, _ = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind) for e in events] == [
        ("0-response", "llm_call"), ("0", "tool_call"), ("1", "tool_call")]
    assert events[2].attrs["workbench.flags"] == ["unmatched"]


def test_truncated_json(tmp_path: Path) -> None:
    text = json.dumps([user(0, "a"), action(1, "run", {"command": "ls"}, 1)], indent=2)
    with pytest.raises(InvalidJSONError) as exc:
        read(source(tmp_path / "t.json", text[: len(text) // 2]))
    assert exc.value.code == "INVALID_JSON"
