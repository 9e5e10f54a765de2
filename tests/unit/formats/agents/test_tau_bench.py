"""Adapter ``tau-bench``: episode records ``{task_id, reward, info, traj}``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats._pairing import derived_id
from workbench.formats.agents import TAU_BENCH
from workbench.model import InvalidJSONError, InvalidTraceError


def write(tmp_path: Path, doc: Any) -> SourceFile:
    return source(tmp_path / "results.json", json.dumps(doc, indent=2))


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": cid, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def asked(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def answer(cid: str, name: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "name": name, "content": content}


def episode(traj: list[dict[str, Any]], task_id: int = 7, reward: float | None = 1.0,
            instruction: str | None = "You are kim_9. Cancel order 42.") -> dict[str, Any]:
    rec: dict[str, Any] = {"task_id": task_id, "trial": 0}
    if reward is not None:
        rec["reward"] = reward
    task: dict[str, Any] = {"user_id": "kim_9", "actions": [{"name": "cancel", "kwargs": {}}]}
    if instruction is not None:
        task["instruction"] = instruction
    rec["info"] = {"task": task, "reward_info": {"reward": reward, "info": {"r_actions": 1.0}}}
    rec["traj"] = traj
    return rec


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(TAU_BENCH.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


CONVERSATION = [
    {"role": "system", "content": "You are a shop agent."},
    {"role": "user", "content": "Please cancel order 42."},
    asked(call("c1", "get_order", order_id="42"), call("c2", "get_user", user_id="kim_9")),
    answer("c2", "get_user", '{"name": "Kim"}'),          # answered out of order
    answer("c1", "get_order", '{"status": "pending"}'),
    asked(call("c3", "cancel_order", order_id="42")),
    answer("c3", "cancel_order", "Error: order 42 is already shipped"),
    {"role": "assistant", "content": "Sorry, it has shipped."},
]


def test_sniff(tmp_path: Path) -> None:
    assert TAU_BENCH.sniff(write(tmp_path, [episode(CONVERSATION)])) == 90
    # the keys before ``traj`` only (a first record whose info fills the head)
    head = b'[\n  {\n    "task_id": 0,\n    "reward": 1.0,\n    "info": {"task": {"x": "' \
        + b"y" * 70000
    assert TAU_BENCH.sniff(source(tmp_path / "big.json", head)) == 60
    # not ours: an object, a list of other records, swe-agent's "trajectory"
    assert TAU_BENCH.sniff(write(tmp_path, episode(CONVERSATION))) == 0
    assert TAU_BENCH.sniff(write(tmp_path, [{"messages": [], "choices": []}])) == 0
    assert TAU_BENCH.sniff(write(tmp_path, [{"trajectory": [], "task_id": 1,
                                             "reward": 0}])) == 0


def test_one_episode(tmp_path: Path) -> None:
    src = write(tmp_path, [episode(CONVERSATION)])
    events, [info] = read(src)
    tid = derived_id(src.sha256, 7, 0)
    assert {e.trace_id for e in events} == {tid} and info.trace_id == tid
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status) for e in events] == [
        ("m0", "message", "system", None, "unset"),
        ("m1", "message", "user", None, "unset"),
        ("m2", "llm_call", "assistant", "m1", "ok"),  # the prompt's turns
        ("c1", "tool_call", "get_order", "m2", "ok"),
        ("c2", "tool_call", "get_user", "m2", "ok"),
        ("m5", "llm_call", "assistant", "m1", "ok"),
        ("c3", "tool_call", "cancel_order", "m5", "error"),
        ("m7", "llm_call", "assistant", "m1", "ok"),
        ("reward", "receipt", "reward", None, "ok"),
    ]
    by_id = {e.event_id: e for e in events}
    assert by_id["c1"].args == {"order_id": "42"}
    assert by_id["c1"].result == {"status": "pending"}
    assert by_id["c2"].result == {"name": "Kim"}
    assert by_id["c3"].error == {"message": "order 42 is already shipped"}
    assert by_id["c3"].result == "Error: order 42 is already shipped"
    assert by_id["m1"].result == {"role": "user", "content": "Please cancel order 42."}
    assert by_id["m2"].result == {"messages": [CONVERSATION[2]]} and by_id["m2"].args is None
    assert by_id["reward"].result == {
        "reward": 1.0, "reward_info": {"reward": 1.0, "info": {"r_actions": 1.0}}}
    assert all(e.start_ns is None and e.end_ns is None for e in events)  # no clock at all
    assert info.root_task == "You are kim_9. Cancel order 42."
    assert info.attrs["tau_bench"]["reward"] == 1.0
    assert info.attrs["tau_bench"]["task_id"] == 7
    assert info.attrs["tau_bench"]["info"]["task"]["user_id"] == "kim_9"


def test_reused_tool_call_ids_pair_by_position(tmp_path: Path) -> None:
    traj = [
        {"role": "user", "content": "two flights please"},
        asked(call("dup", "search_direct", day="mon")),
        answer("dup", "search_direct", "[]"),
        asked(call("dup", "search_onestop", day="mon")),
        answer("dup", "search_onestop", '[{"flight": "HAT1"}]'),
    ]
    events, _ = read(write(tmp_path, [episode(traj)]))
    tools = [e for e in events if e.kind == "tool_call"]
    assert [(e.event_id, e.name, e.result, e.parent_id) for e in tools] == [
        ("m1.0", "search_direct", [], "m1"),
        ("m3.0", "search_onestop", [{"flight": "HAT1"}], "m3"),
    ]
    assert all(e.attrs["tau_bench.tool_call_id"] == "dup" for e in tools)
    assert not any("workbench.flags" in e.attrs for e in events)


def test_reused_id_open_twice_pairs_in_call_order(tmp_path: Path) -> None:
    traj = [asked(call("x", "first"), call("x", "second")),
            answer("x", "first", "1"), answer("x", "second", "2")]
    events, _ = read(write(tmp_path, [episode(traj)]))
    assert [(e.name, e.result) for e in events if e.kind == "tool_call"] == [
        ("first", "1"), ("second", "2")]


def test_unmatched_and_unanswered(tmp_path: Path) -> None:
    traj = [asked(call("c1", "lookup", q="a")),
            answer("zz", "mystery", "orphan result"),
            {"role": "assistant", "content": "done"}]
    events, _ = read(write(tmp_path, [episode(traj, reward=None)]))
    assert [(e.event_id, e.kind, e.name, e.status, e.attrs.get("workbench.flags"))
            for e in events] == [
        ("m0", "llm_call", "assistant", "ok", None),
        ("c1", "tool_call", "lookup", "unset", ["unanswered"]),
        ("m1", "tool_call", "mystery", "ok", ["unmatched"]),
        ("m2", "llm_call", "assistant", "ok", None),
    ]
    orphan = events[2]
    assert orphan.parent_id is None and orphan.result == "orphan result"
    assert orphan.attrs["tau_bench.tool_call_id"] == "zz"


def test_episodes_are_traces_with_stable_ids(tmp_path: Path) -> None:
    doc = [episode(CONVERSATION, task_id=3), episode(CONVERSATION, task_id=3, reward=0.0,
                                                     instruction=None)]
    src = write(tmp_path, doc)
    events, infos = read(src)
    assert [i.trace_id for i in infos] == [derived_id(src.sha256, 3, 0),
                                           derived_id(src.sha256, 3, 1)]
    assert len({e.trace_id for e in events}) == 2
    assert infos[1].root_task == "Please cancel order 42."  # no instruction: first user turn
    again, _ = read(src)
    assert [(e.trace_id, e.event_id) for e in again] == [(e.trace_id, e.event_id)
                                                          for e in events]


@pytest.mark.parametrize(("doc", "message"), [
    ({"hello": "world"}, "not a tau-bench results file"),
    ([{"task_id": 1, "reward": 1.0}], "not a tau-bench results file"),
    ([], "no episodes"),
    ([{"task_id": 1, "traj": {"role": "user"}}], "traj is not a list"),
    ([{"task_id": 1, "traj": ["hello"]}], "episode 0: message 0 is not an object"),
    ([{"task_id": 1, "traj": [{"role": "assistant", "tool_calls": ["x"]}]}],
     "tool call 0 is not an object"),
    ([{"task_id": 1, "traj": []}], "episode 0 has no messages"),
])
def test_wrong_shape_is_invalid_trace(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(InvalidTraceError, match=message) as exc:
        read(write(tmp_path, doc))
    assert exc.value.code == "INVALID_TRACE"


def test_truncated_json(tmp_path: Path) -> None:
    text = json.dumps([episode(CONVERSATION)], indent=2)
    with pytest.raises(InvalidJSONError) as exc:
        read(source(tmp_path / "cut.json", text[: len(text) // 2]))
    assert exc.value.code == "INVALID_JSON"


def test_odd_field_types_are_tolerated(tmp_path: Path) -> None:
    traj = [{"role": None, "content": 5},
            {"role": "assistant", "tool_calls": [{"id": 3, "function": "f", "arguments": 7}]},
            {"role": "tool", "tool_call_id": None, "content": None}]
    events, [info] = read(write(tmp_path, [{"task_id": None, "info": "x", "traj": traj}]))
    assert [(e.kind, e.name) for e in events] == [
        ("message", "message"), ("llm_call", "assistant"), ("tool_call", "f"),
        ("tool_call", "")]
    assert events[2].attrs["workbench.flags"] == ["unanswered"]
    assert events[3].attrs["workbench.flags"] == ["unmatched"]
    assert info.root_task is None and info.attrs["tau_bench"]["info"] == {"info": "x"}


def test_tool_calls_of_the_wrong_type_are_ignored(tmp_path: Path) -> None:
    traj = [{"role": "assistant", "content": "hi", "tool_calls": 1}]
    events, _ = read(write(tmp_path, [episode(traj, reward=None)]))
    assert [(e.kind, e.status) for e in events] == [("llm_call", "ok")]
