"""Adapter ``claude-code``: Claude Code transcripts and Claude Agent SDK message streams.

Every input here is written by hand for the test: small sessions whose answers are known.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats.agents import CLAUDE_CODE
from workbench.ingest._registry import detect
from workbench.model import FLAGS_KEY, InputError

SID = "5f0c7a52-8d1e-4c3b-9a61-2b7d4e9f0a13"


def jsonl(tmp_path: Path, *records: dict[str, Any], name: str = "s.jsonl") -> SourceFile:
    return source(tmp_path / name, "".join(json.dumps(r) + "\n" for r in records))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(CLAUDE_CODE.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def line(type_: str, uuid: str, parent: str | None, ts: str, **kw: Any) -> dict[str, Any]:
    rec = {"type": type_, "uuid": uuid, "parentUuid": parent, "sessionId": SID,
           "timestamp": f"2026-01-05T09:00:{ts}Z", "isSidechain": False, "cwd": "/w",
           "version": "2.0.1", "userType": "external"}
    rec.update(kw)
    return rec


def ask(uuid: str, parent: str | None, ts: str, content: Any, **kw: Any) -> dict[str, Any]:
    return line("user", uuid, parent, ts, message={"role": "user", "content": content}, **kw)


def say(uuid: str, parent: str | None, ts: str, mid: str, *blocks: dict[str, Any],
        stop: str | None = None, **kw: Any) -> dict[str, Any]:
    msg = {"id": mid, "type": "message", "role": "assistant", "model": "claude-test-1",
           "content": list(blocks), "stop_reason": stop,
           "usage": {"input_tokens": 11, "output_tokens": 7}}
    return line("assistant", uuid, parent, ts, message=msg, requestId=f"req-{mid}", **kw)


def use(tid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": args}


def answer(uuid: str, parent: str | None, ts: str, tid: str, content: Any,
           is_error: bool = False, **kw: Any) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": is_error}
    return ask(uuid, parent, ts, [block], **kw)


def text(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


# --- transcripts -----------------------------------------------------------------------------

def test_a_session_becomes_messages_llm_calls_and_paired_tool_calls(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                ask("u1", None, "00", "list the repos"),
                say("a1", "u1", "01", "msg_A", text("looking")),
                say("a2", "a1", "02", "msg_A", use("toolu_1", "list_repos", owner="ann"),
                    stop="tool_use"),
                answer("r1", "a2", "03", "toolu_1", '{"repos": ["x", "y"]}',
                       toolUseResult={"stdout": "x y"}),
                say("a3", "r1", "04", "msg_B", text("two repos"), stop="end_turn"))
    assert CLAUDE_CODE.sniff(src) == 95
    (user, turn, tool, final), [info] = read(src)
    assert {e.trace_id for e in (user, turn, tool, final)} == {SID}
    # yielded in file order, which the format declares as the recording order (the turn
    # and its tool call share a timestamp, so the store must not order by time)
    assert CLAUDE_CODE.file_order and all(e.seq is None for e in (user, turn, tool, final))
    assert (user.kind, user.name, user.event_id, user.parent_id) == ("message", "user", "u1", None)
    assert user.result == {"role": "user", "content": "list the repos"}
    # two lines of one API message are one llm_call, under the first line's uuid
    assert (turn.kind, turn.name, turn.event_id, turn.parent_id) == (
        "llm_call", "claude-test-1", "a1", "u1")
    [msg] = turn.result["messages"]
    assert [b["type"] for b in msg["content"]] == ["text", "tool_use"]
    assert turn.result["finish_reasons"] == ["tool_use"]
    assert (turn.start_ns, turn.end_ns) == (1767603601000000000, 1767603602000000000)
    assert turn.attrs["claude_code.uuids"] == ["a1", "a2"]
    assert turn.attrs["gen_ai.usage.output_tokens"] == 7
    assert turn.attrs["gen_ai.response.model"] == "claude-test-1"
    assert turn.attrs["gen_ai.response.id"] == "msg_A"
    assert turn.attrs["anthropic.request_id"] == "req-msg_A"
    assert turn.status == "ok"
    # the tool call: one event, its parent the turn that asked for it
    assert (tool.kind, tool.name, tool.event_id, tool.parent_id) == (
        "tool_call", "list_repos", "toolu_1", "a1")
    assert (tool.args, tool.result, tool.status) == ({"owner": "ann"}, {"repos": ["x", "y"]}, "ok")
    assert (tool.start_ns, tool.end_ns) == (1767603602000000000, 1767603603000000000)
    assert tool.attrs["claude_code.tool_use_result"] == {"stdout": "x y"}
    assert tool.attrs["claude_code.result_uuid"] == "r1"
    # the next answer belongs to the turn's prompt, not to the result line it follows
    # (parentUuid is the threading of the conversation; its order stays in seq)
    assert final.parent_id == "u1"
    assert FLAGS_KEY not in tool.attrs
    assert info.trace_id == SID and info.root_task == "list the repos"
    assert info.versions == {"claude_code": "2.0.1"}
    assert info.attrs["claude_code.cwd"] == "/w"


def test_tool_errors_text_blocks_and_block_lists(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                say("a1", None, "01", "m1", use("t1", "read", path="/x"), use("t2", "ls"),
                    use("t3", "cat")),
                answer("r1", "a1", "02", "t1", [text("no such file")], is_error=True),
                answer("r2", "r1", "03", "t2", [text("a"), text("b")]),
                answer("r3", "r2", "04", "t3", [text('{"n": 1}')]))
    _, t1, t2, t3 = read(src)[0]
    assert (t1.status, t1.error, t1.result) == ("error", {"message": "no such file"},
                                                "no such file")
    assert (t2.status, t2.result) == ("ok", [text("a"), text("b")])
    assert t3.result == {"n": 1}


def test_results_before_their_call_pair_in_place(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                answer("r1", None, "02", "t1", "done"),
                say("a1", None, "01", "m1", use("t1", "save", k=1)))
    (tool, turn), _ = read(src)
    # one event, at the position where the call first appears in the file (its result)
    assert (tool.kind, tool.event_id, tool.name, tool.args, tool.result) == (
        "tool_call", "t1", "save", {"k": 1}, "done")
    assert tool.parent_id == "a1" and FLAGS_KEY not in tool.attrs
    assert turn.kind == "llm_call"


def test_unknown_and_unanswered_ids_are_kept_and_flagged(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                say("a1", None, "01", "m1", use("t1", "deploy")),
                answer("r9", "a1", "02", "t-unknown", "stray"))
    (_, call, stray), _ = read(src)
    assert (call.event_id, call.status, call.result) == ("t1", "unset", None)
    assert call.attrs[FLAGS_KEY] == ["unanswered"]
    assert (stray.kind, stray.event_id, stray.name, stray.result) == (
        "tool_call", "t-unknown", "", "stray")
    assert stray.attrs[FLAGS_KEY] == ["unmatched"]
    assert stray.parent_id == "a1"  # the source's own link


def test_a_prompt_after_a_missing_line_opens_its_own_turn(tmp_path: Path) -> None:
    (ev,), _ = read(jsonl(tmp_path, ask("u2", "gone-uuid", "01", "hi")))
    assert ev.parent_id is None  # its parentUuid is the thread, not a cause


def test_a_result_whose_call_line_is_missing_keeps_its_link_for_the_pipeline(
        tmp_path: Path) -> None:
    (ev,), _ = read(jsonl(tmp_path, answer("r1", "gone-uuid", "01", "t9", "ok")))
    assert ev.parent_id == "gone-uuid" and ev.attrs[FLAGS_KEY] == ["unmatched"]


def test_sidechain_lines_go_under_the_task_call_that_spawned_them(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                say("a1", None, "01", "m1", use("task1", "Task", prompt="dig")),
                answer("r1", "a1", "09", "task1", [text("found it")]),
                say("s1", None, "03", "m2", text("digging"), isSidechain=True),
                say("s2", "s1", "04", "m3", use("g1", "Grep", pattern="x"), isSidechain=True),
                answer("s3", "s2", "05", "g1", "3 hits", isSidechain=True),
                say("z1", None, "20", "m4", text("late"), isSidechain=True))
    events, _ = read(src)
    by_id = {e.event_id: e for e in events}
    assert by_id["task1"].result == "found it"
    assert by_id["s1"].parent_id == "task1"
    assert by_id["s1"].attrs["claude_code.is_sidechain"] is True
    assert by_id["g1"].parent_id == "s2" and by_id["g1"].attrs["claude_code.is_sidechain"]
    assert by_id["z1"].parent_id is None  # started after the Task ended: no spawner known


def test_sidechain_agent_id_names_its_task(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                say("a1", None, "01", "m1", use("task1", "Task", subagent_type="Explore"),
                    use("task2", "Task")),
                answer("r1", "a1", "05", "task1", "one", agentId="ag-1"),
                answer("r2", "r1", "06", "task2", "two", agentId="ag-2"),
                say("s1", None, "03", "m2", text("x"), isSidechain=True, agentId="ag-2"))
    events = read(src)[0]
    by_id = {e.event_id: e for e in events}
    # each call that names its sub-agent is followed by the sub-agent's run, its child
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events if e.kind == "agent"] == [
        ("agent-ag-1", "agent", "Explore", "task1"), ("agent-ag-2", "agent", "sub-agent", "task2")]
    assert by_id["agent-ag-2"].attrs["claude_code.agent_id"] == "ag-2"
    assert by_id["s1"].parent_id == "agent-ag-2"


def test_summary_system_and_other_lines(tmp_path: Path) -> None:
    src = jsonl(tmp_path,
                {"type": "summary", "summary": "Deploy fix", "leafUuid": "u1"},
                ask("u1", None, "01", [text("fix deploy")]),
                line("system", "y1", "u1", "02", content="Conversation compacted",
                     subtype="compact_boundary", level="info"),
                line("system", "y2", "y1", "03", content="hook failed", level="error"),
                {"type": "file-history-snapshot", "messageId": "u1"})
    (user, compact, failed), [info] = read(src)
    assert user.result == {"role": "user", "content": [text("fix deploy")]}
    assert (compact.kind, compact.name, compact.parent_id) == ("message", "system", "u1")
    assert compact.result == {"role": "system", "content": "Conversation compacted"}
    assert compact.attrs["claude_code.subtype"] == "compact_boundary"
    assert (failed.status, failed.error) == ("error", {"message": "hook failed"})
    assert info.attrs["claude_code.summaries"] == [{"summary": "Deploy fix", "leafUuid": "u1"}]
    assert info.attrs["claude_code.skipped"] == {"file-history-snapshot": 1}
    assert info.root_task == "fix deploy"


def test_api_error_turn_is_an_error(tmp_path: Path) -> None:
    (ev,), _ = read(jsonl(tmp_path, say("a1", None, "01", "m1", text("API Error: 529 overloaded"),
                                        isApiErrorMessage=True)))
    assert (ev.kind, ev.status, ev.error) == ("llm_call", "error",
                                              {"message": "API Error: 529 overloaded"})


def test_ids_are_stable_and_derived_when_the_source_has_none(tmp_path: Path) -> None:
    recs = [{"type": "user", "message": {"role": "user", "content": "hi"}},
            {"type": "assistant", "message": {"role": "assistant", "content": [text("yo")]}}]
    first, _ = read(jsonl(tmp_path, *recs, name="a.jsonl"))
    again, _ = read(jsonl(tmp_path, *recs, name="b.jsonl"))
    assert [(e.trace_id, e.event_id) for e in first] == [(e.trace_id, e.event_id) for e in again]
    assert len(first[0].trace_id) == 32 and first[0].trace_id == first[1].trace_id
    assert [e.event_id for e in first] == ["m1", "m2"]
    assert first[1].name == "assistant"


def test_each_session_id_is_a_trace(tmp_path: Path) -> None:
    recs = [{"type": "user", "message": {"role": "user", "content": "before"}},
            {"type": "user", "message": {"role": "user", "content": "a"}, "sessionId": "s1"},
            {"type": "user", "message": {"role": "user", "content": "b"}, "sessionId": "s2"},
            {"type": "user", "message": {"role": "user", "content": "c"}}]
    events, infos = read(jsonl(tmp_path, *recs))
    # a line without a session id belongs to the session before it (or the file's first)
    assert [e.trace_id for e in events] == ["s1", "s1", "s2", "s2"]
    assert {i.trace_id: i.root_task for i in infos} == {"s1": "before", "s2": "b"}


def test_repeated_uuids_get_distinct_event_ids(tmp_path: Path) -> None:
    events, _ = read(jsonl(tmp_path, ask("u1", None, "01", "a"), ask("u1", None, "02", "b")))
    assert [e.event_id for e in events] == ["u1", "u1-2"]


def test_mojibake_is_kept_as_the_source_has_it(tmp_path: Path) -> None:
    src = jsonl(tmp_path, say("a1", None, "01", "m1", use("t1", "Read")),
                answer("r1", "a1", "02", "t1", "  12\u00e2\u2020\u2019 code"))
    assert read(src)[0][1].result == "  12\u00e2\u2020\u2019 code"


# --- Agent SDK streams -----------------------------------------------------------------------

def sdk_messages() -> list[dict[str, Any]]:
    s = "9c1e7d20-4b8a-4f6e-8d3c-1a2b3c4d5e6f"

    def msg(kind: str, uuid: str, content: Any, parent: str | None = None,
            **kw: Any) -> dict[str, Any]:
        m: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            m.update(id=kw.pop("mid"), model="claude-test-2", stop_reason=None,
                     usage={"input_tokens": 2, "output_tokens": 3})
        return {"type": kind, "message": m, "parent_tool_use_id": parent, "session_id": s,
                "uuid": uuid, **kw}

    return [
        {"type": "control_response", "response": {"subtype": "success"}},
        {"type": "system", "subtype": "init", "session_id": s, "uuid": "i0",
         "tools": ["Agent", "Bash"], "model": "claude-test-2", "claude_code_version": "9.9.9",
         "cwd": "<c>", "mcp_servers": []},
        msg("assistant", "x1", [use("tA", "Agent", prompt="count")], mid="m1"),
        {"type": "system", "subtype": "task_started", "task_id": "k1", "tool_use_id": "tA",
         "session_id": s, "uuid": "i1", "description": "count files"},
        msg("user", "x2", [text("count the files")], parent="tA"),
        msg("assistant", "x3", [use("tB", "Bash", command="ls | wc -l")], parent="tA",
            mid="m2"),
        {"type": "control_request", "request_id": "q1",
         "request": {"subtype": "hook_callback", "tool_use_id": "tB",
                     "input": {"hook_event_name": "PreToolUse"}}},
        msg("user", "x4", [{"type": "tool_result", "tool_use_id": "tB", "content": "4"}],
            parent="tA", tool_use_result={"stdout": "4"}),
        msg("user", "x5", [{"type": "tool_result", "tool_use_id": "tA",
                            "content": [text("4 files")]}]),
        msg("assistant", "x6", [text("4")], mid="m3"),
        {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 900,
         "num_turns": 2, "total_cost_usd": 0.01, "result": "4", "session_id": s, "uuid": "x7",
         "usage": {"input_tokens": 5, "output_tokens": 6}},
    ]


def check_sdk(events: list[RawEvent], infos: list[TraceInfo]) -> None:
    assert [(e.kind, e.name, e.event_id, e.parent_id) for e in events] == [
        ("llm_call", "claude-test-2", "x1", None),
        ("tool_call", "Agent", "tA", "x1"),
        ("message", "user", "x2", "tA"),
        ("llm_call", "claude-test-2", "x3", "x2"),
        ("tool_call", "Bash", "tB", "x3"),
        ("llm_call", "claude-test-2", "x6", None),
        ("agent", "claude-code", "x7", None),
    ]
    agent_call, bash = events[1], events[4]
    assert agent_call.result == "4 files"
    assert agent_call.attrs["claude_code.task"]["task_id"] == "k1"
    assert bash.result == "4" and bash.attrs["claude_code.tool_use_result"] == {"stdout": "4"}
    assert bash.attrs["claude_code.control"] == ["hook_callback:PreToolUse"]
    assert bash.attrs["claude_code.is_sidechain"] is True
    assert all(e.start_ns is None and e.end_ns is None for e in events)
    result = events[-1]
    assert (result.status, result.result) == ("ok", "4")
    assert result.attrs["claude_code.total_cost_usd"] == 0.01
    assert result.attrs["gen_ai.usage.output_tokens"] == 6
    [info] = infos
    assert info.tools == [{"name": "Agent"}, {"name": "Bash"}]
    assert info.versions == {"claude_code": "9.9.9", "model": "claude-test-2"}
    assert info.attrs["claude_code.skipped"] == {"control_response": 1}
    assert info.root_task is None  # the SDK stream does not carry the prompt


def test_sdk_stream_as_yaml(tmp_path: Path) -> None:
    src = source(tmp_path / "c.yaml", yaml.safe_dump({"messages": sdk_messages()}))
    assert CLAUDE_CODE.sniff(src) == 90
    check_sdk(*read(src))


def test_sdk_stream_as_jsonl(tmp_path: Path) -> None:
    src = jsonl(tmp_path, *sdk_messages())
    assert CLAUDE_CODE.sniff(src) == 90
    check_sdk(*read(src))


@pytest.mark.parametrize("doc", ["list", "wrapped", "pretty"])
def test_sdk_stream_as_json(tmp_path: Path, doc: str) -> None:
    value: Any = sdk_messages() if doc == "list" else {"messages": sdk_messages()}
    src = source(tmp_path / "c.json", json.dumps(value, indent=2 if doc == "pretty" else None))
    assert CLAUDE_CODE.sniff(src) == (90 if doc == "wrapped" else 85)
    check_sdk(*read(src))


def test_sdk_error_result_is_an_error_agent(tmp_path: Path) -> None:
    src = jsonl(tmp_path, {"type": "result", "subtype": "error_max_turns", "is_error": True,
                           "session_id": "s", "uuid": "r", "num_turns": 30})
    (ev,), _ = read(src)
    assert (ev.kind, ev.status, ev.error) == (
        "agent", "error", {"code": "error_max_turns", "message": "error_max_turns"})


# --- detection -------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "score"), [
    ('interactions:\n- request: {uri: "x"}\n  session_id: a\n  parent_tool_use_id: null\n', 0),
    ('{"type": "message", "role": "assistant", "content": [], "model": "m"}\n', 0),
    ('{"trace_id": "a", "event_id": "b", "kind": "other", "name": "n"}\n', 0),
    ('{"trace": {"id": "x", "input": "{\\"session_id\\": 1, \\"parent_tool_use_id\\": 2}"},'
     ' "observations": []}', 0),
    ('{"type": "summary", "summary": "s", "leafUuid": "u"}\n', 0),
    ("messages:\n- type: system\n  subtype: init\n  session_id: s\n", 90),
    ('{"type":"system","subtype":"init","session_id":"s"}\n', 90),
    ("- type: user\n  uuid: u\n  parentUuid: null\n  sessionId: s\n", 85),
])
def test_sniff(tmp_path: Path, data: str, score: int) -> None:
    assert CLAUDE_CODE.sniff(source(tmp_path / "f", data)) == score


@pytest.mark.parametrize("form", ["jsonl", "yaml", "array", "pretty"])
def test_every_form_of_the_stream_is_detected_as_ours(tmp_path: Path, form: str) -> None:
    msgs = sdk_messages()
    data = {"jsonl": "".join(json.dumps(m) + "\n" for m in msgs),
            "yaml": yaml.safe_dump({"messages": msgs}), "array": json.dumps(msgs),
            "pretty": json.dumps(msgs, indent=2)}[form]
    assert detect(source(tmp_path / "s", data)).name == "claude-code"


def test_a_huge_first_line_is_still_jsonl(tmp_path: Path) -> None:
    big = answer("r1", None, "01", "t1", "x" * 70_000)
    src = jsonl(tmp_path, big, ask("u2", "r1", "02", "next"))
    assert CLAUDE_CODE.sniff(src) == 85  # only the head's regexes see it
    (stray, user), _ = read(src)
    assert stray.attrs[FLAGS_KEY] == ["unmatched"] and user.parent_id is None


# --- bad input -------------------------------------------------------------------------------

def error_of(src: SourceFile) -> InputError:
    with pytest.raises(InputError) as exc:
        list(CLAUDE_CODE.read(src))
    return exc.value


def test_truncated_jsonl_names_the_line(tmp_path: Path) -> None:
    full = json.dumps(ask("u1", None, "01", "hi")) + "\n" + json.dumps(ask("u2", "u1", "02", "x"))
    err = error_of(source(tmp_path / "t.jsonl", full[:-20]))
    assert err.code == "INVALID_JSON" and err.details["line"] == 2


def test_truncated_yaml_and_json(tmp_path: Path) -> None:
    assert error_of(source(tmp_path / "t.yaml", "messages:\n- type: user\n  message: {role: u"))\
        .code == "INVALID_YAML"
    assert error_of(source(tmp_path / "t.json", '[{"type": "user", "mess')).code == "INVALID_JSON"


def test_not_utf8(tmp_path: Path) -> None:
    data = json.dumps(ask("u1", None, "01", "caf\u00e9"), ensure_ascii=False).encode("latin-1")
    err = error_of(source(tmp_path / "l.jsonl", data))
    assert err.code == "INVALID_ENCODING" and err.details["line"] == 1


@pytest.mark.parametrize(("records", "where"), [
    ([{"hello": "world"}], "line 1"),  # no type
    ([ask("u1", None, "01", "ok"), ["a", "list"]], "line 2"),
    ([{"type": "assistant", "uuid": "a"}], "line 1"),  # no message
    ([{"type": "user", "message": "hi"}], "line 1"),
    ([{"type": "assistant", "message": {"content": {"text": "x"}}}], "line 1"),
    ([{"type": "assistant", "message": {"content": ["bare string block"]}}], "line 1"),
    ([{"type": "summary", "summary": "only a title"}], "no Claude Code messages"),
])
def test_wrong_shapes_are_invalid_trace(tmp_path: Path, records: list[Any], where: str) -> None:
    src = source(tmp_path / "w.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    err = error_of(src)
    assert err.code == "INVALID_TRACE" and where in err.message


@pytest.mark.parametrize("doc", [{"interactions": []}, "just text", 42, {"messages": "no"}])
def test_documents_of_the_wrong_shape(tmp_path: Path, doc: Any) -> None:
    assert error_of(source(tmp_path / "d.yaml", yaml.safe_dump(doc))).code == "INVALID_TRACE"


@pytest.mark.parametrize("record", [
    {"type": "assistant", "message": {"content": [{"type": "tool_use"}]}},
    {"type": "assistant", "message": {"id": 5, "model": 7, "usage": "x", "content": None}},
    {"type": "user", "message": {"content": [{"type": "tool_result", "content": {"a": 1}}]}},
    {"type": "user", "message": {"content": []}, "parentUuid": 3, "timestamp": "never"},
    {"type": "system", "subtype": "init", "tools": "Bash", "session_id": 4},
    {"type": "system", "tool_use_id": ["x"], "subtype": "task_started"},
    {"type": "result", "is_error": True, "errors": ["boom"], "usage": [1]},
    {"type": "control_request", "request": {"input": "x"}},
    {"type": "assistant", "message": {"content": "plain"}, "isSidechain": True},
])
def test_odd_records_are_kept_never_a_crash(tmp_path: Path, record: dict[str, Any]) -> None:
    src = jsonl(tmp_path, record, ask("u9", None, "01", "anchor"))
    events, _ = read(src)
    assert events and all(isinstance(e.event_id, str) and e.event_id for e in events)
    assert len({e.event_id for e in events}) == len(events)


# --- any odd mix of records: an InputError or well-formed events, never a crash ---------------

_KEYS = ["type", "uuid", "parentUuid", "sessionId", "session_id", "isSidechain", "timestamp",
         "message", "parent_tool_use_id", "toolUseResult", "agentId", "subtype", "tools",
         "tool_use_id", "request", "result", "is_error", "usage", "content", "leafUuid"]
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                     st.sampled_from(["user", "assistant", "system", "result", "summary",
                                      "init", "task_started", "control_request", "t1", "u1",
                                      "Task", "tool_use", "tool_result", "text", "2026-01-05"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from([*_KEYS, "id", "name", "input", "role", "model", "text"]),
                    inner, max_size=5)), max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=8), min_size=1,
                max_size=6))
def test_fuzzed_records_never_crash(tmp_path: Path, records: list[dict[str, Any]]) -> None:
    src = jsonl(tmp_path, *records)
    try:
        events, _ = read(src)
    except InputError as exc:
        assert exc.code in {"INVALID_TRACE", "INVALID_JSON"}
        return
    assert events
    for tid in {e.trace_id for e in events}:
        mine = [e for e in events if e.trace_id == tid]
        assert len({e.event_id for e in mine}) == len(mine)
        assert all(e.seq is None for e in mine)
    assert all(e.status in ("ok", "error", "unset") and isinstance(e.name, str) for e in events)
    json.dumps([(e.args, e.result, e.error, e.attrs) for e in events])


# --- causal parents, not threading -------------------------------------------------------------

def _depth(events: list[RawEvent]) -> dict[str, int]:
    parent = {e.event_id: e.parent_id for e in events}
    out: dict[str, int] = {}
    for eid in parent:
        n, p = 0, parent[eid]
        while p is not None and p in parent:
            n, p = n + 1, parent[p]
        out[eid] = n
    return out


def _long_session(loops: int) -> list[dict[str, Any]]:
    """A prompt, ``loops`` turns of one Read each (each line's parentUuid the line before,
    as Claude Code writes them), a Task whose sub-agent has a prompt and an Edit, then a
    second prompt with one more turn."""
    recs: list[dict[str, Any]] = [ask("u1", None, "00", "tidy the repo")]
    prev = "u1"
    for i in range(loops):
        recs.append(say(f"a{i}", prev, "01", f"m{i}", use(f"read{i}", "Read", file_path=f"/r/{i}")))
        recs.append(answer(f"r{i}", f"a{i}", "02", f"read{i}", f"text {i}"))
        prev = f"r{i}"
    recs += [
        say("at", prev, "03", "mt", use("task1", "Task", prompt="fix x")),
        ask("s0", None, "04", "fix x", isSidechain=True),
        say("s1", "s0", "05", "ms1", use("e1", "Edit", file_path="/r/x"), isSidechain=True),
        answer("s2", "s1", "06", "e1", "edited", isSidechain=True),
        answer("rt", "at", "07", "task1", "done"),
        ask("u2", "rt", "08", "now commit"),
        say("b1", "u2", "09", "mb", use("bash1", "Bash", command="git commit")),
        answer("rb", "b1", "10", "bash1", "ok"),
    ]
    return recs


@pytest.mark.parametrize("loops", [1, 40])
def test_parents_are_turns_and_calls_not_the_thread(tmp_path: Path, loops: int) -> None:
    events, _ = read(jsonl(tmp_path, *_long_session(loops)))
    parent = {e.event_id: e.parent_id for e in events}
    depth = _depth(events)
    # every turn of the first prompt hangs off it, each Read off its turn
    assert {parent[f"a{i}"] for i in range(loops)} == {"u1"}
    assert [parent[f"read{i}"] for i in range(loops)] == [f"a{i}" for i in range(loops)]
    # the sub-agent's prompt under its Task call, its turn under its prompt
    assert (parent["task1"], parent["s0"], parent["s1"], parent["e1"]) == (
        "at", "task1", "s0", "s1")
    # a new prompt opens a new turn, whatever line it follows
    assert (parent["u2"], parent["b1"], parent["bash1"]) == (None, "u2", "b1")
    # the depth does not grow with the session: prompt 0, turn 1, call 2, sub-agent 3-5
    assert max(depth.values()) == 5 and depth["e1"] == 5 and depth["bash1"] == 2


def test_a_sub_agent_file_names_the_run_its_session_file_holds(tmp_path: Path) -> None:
    # Claude Code 2.1 writes a sub-agent to <session>/subagents/agent-<id>.jsonl: no Task
    # call in the file, its first line's parentUuid null; the session's file has the
    # Task call whose result names the agentId, and so the run agent-<id>
    sub = jsonl(tmp_path, ask("p1", None, "01", "find x", isSidechain=True, agentId="a77"),
                say("q1", "p1", "02", "mq", use("g1", "Grep", pattern="x"),
                    isSidechain=True, agentId="a77"),
                answer("q2", "q1", "03", "g1", "hit", isSidechain=True, agentId="a77"),
                name="agent-a77.jsonl")
    parent = {e.event_id: e.parent_id for e in read(sub)[0]}
    assert parent == {"p1": "agent-a77", "q1": "p1", "g1": "q1"}
    # a compaction agent is started by no call: its prompt is a root
    compact = jsonl(tmp_path, ask("c1", None, "01", "summarise", isSidechain=True,
                                  agentId="acompact-9f"), name="agent-acompact-9f.jsonl")
    assert [e.parent_id for e in read(compact)[0]] == [None]
