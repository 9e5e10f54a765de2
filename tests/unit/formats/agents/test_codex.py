"""Adapters ``codex`` (session rollouts) and ``codex-exec`` (``codex exec --json``)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats._pairing import derived_id
from workbench.formats.agents import CLAUDE_CODE, CODEX, CODEX_EXEC, GEMINI_CLI
from workbench.ingest import detect
from workbench.model import InvalidJSONError, InvalidTraceError

CORPUS = Path(__file__).resolve().parents[3] / "corpus"
SID = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"


def line(typ: str, payload: dict[str, Any], ts: str = "2026-02-23T20:34:25.000Z") -> str:
    return json.dumps({"timestamp": ts, "type": typ, "payload": payload})


def item(payload: dict[str, Any], ts: str = "2026-02-23T20:34:26.000Z") -> str:
    return line("response_item", payload, ts)


def msg(role: str, text: str) -> str:
    kind = "output_text" if role == "assistant" else "input_text"
    return item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})


def fcall(cid: str, name: str, **args: Any) -> str:
    return item({"type": "function_call", "name": name, "arguments": json.dumps(args),
                 "call_id": cid})


def fout(cid: str, output: Any) -> str:
    return item({"type": "function_call_output", "call_id": cid, "output": output})


def tokens(total: int, last_in: int, last_out: int) -> str:
    return line("event_msg", {"type": "token_count", "info": {
        "total_token_usage": {"total_tokens": total},
        "last_token_usage": {"input_tokens": last_in, "output_tokens": last_out}}})


META = line("session_meta", {"id": SID, "cwd": "/repo", "cli_version": "0.104.0",
                             "originator": "codex_cli_rs"})
CONTEXT = line("turn_context", {"turn_id": "t1", "model": "gpt-5.3-codex",
                                "approval_policy": "never"})


def write(tmp_path: Path, *lines: str, name: str = "rollout.jsonl") -> SourceFile:
    return source(tmp_path / name, "\n".join(lines) + "\n")


def read(adapter: Any, src: SourceFile) -> tuple[list[RawEvent], TraceInfo]:
    out = list(adapter.read(src))
    infos = [e for e in out if isinstance(e, TraceInfo)]
    assert len(infos) == 1
    return [e for e in out if isinstance(e, RawEvent)], infos[0]


ROLLOUT = [
    META,
    msg("developer", "<permissions instructions>sandboxed</permissions instructions>"),
    msg("user", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
    CONTEXT,
    msg("user", "Fix the failing test in calc.py"),
    line("event_msg", {"type": "user_message", "message": "Fix the failing test in calc.py"}),
    item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Looking**"}],
          "encrypted_content": "gAAA"}),
    fcall("call_a", "exec_command", cmd="pytest -q"),
    fcall("call_b", "exec_command", cmd="cat calc.py"),
    tokens(100, 90, 10),
    fout("call_b", "Process exited with code 0\nOutput:\ndef add(a, b): return a - b"),
    fout("call_a", "Chunk ID: 1\nProcess exited with code 1\nOutput:\n1 failed"),
    CONTEXT,
    tokens(100, 90, 10),  # a repeat of the last count: no new request
    item({"type": "custom_tool_call", "status": "completed", "call_id": "call_p",
          "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch"}),
    tokens(200, 95, 20),
    item({"type": "custom_tool_call_output", "call_id": "call_p",
          "output": json.dumps({"output": "Success.", "metadata": {"exit_code": 0}})}),
    msg("assistant", "Fixed: add now adds."),
    line("event_msg", {"type": "agent_message", "message": "Fixed: add now adds."}),
    line("event_msg", {"type": "task_complete", "last_agent_message": "Fixed"}),
]


def test_sniff_and_detect(tmp_path: Path) -> None:
    src = write(tmp_path, *ROLLOUT)
    assert CODEX.sniff(src) == 95
    assert detect(src) is CODEX
    assert CODEX_EXEC.sniff(src) == CLAUDE_CODE.sniff(src) == GEMINI_CLI.sniff(src) == 0
    # an older rollout: a bare header, state markers, bare items
    legacy = write(tmp_path, json.dumps({"id": "s1", "timestamp": "2025-08-20T13:20:47Z",
                                         "instructions": None}),
                   json.dumps({"record_type": "state"}), name="legacy.jsonl")
    assert CODEX.sniff(legacy) == 90
    # not ours: a Responses API item list, a Claude Code line
    assert CODEX.sniff(write(tmp_path, json.dumps({"type": "message", "role": "user",
                                                   "content": "hi"}), name="o.jsonl")) == 0
    assert CODEX.sniff(write(tmp_path, json.dumps({"type": "user", "sessionId": "s",
                                                   "parentUuid": None}), name="c.jsonl")) == 0


def test_long_first_line_is_detected(tmp_path: Path) -> None:
    """session_meta holds the whole base instructions: often longer than the 64 KiB head."""
    from workbench.formats import open_source
    meta = line("session_meta", {"id": SID, "base_instructions": {"text": "x" * 100_000}})
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([meta, msg("user", "hi"), msg("assistant", "yo")]) + "\n")
    src = open_source(path)
    assert detect(src) is CODEX
    events, info = read(CODEX, src)
    assert info.trace_id == SID and len(events) == 2
    assert len(info.attrs["codex.base_instructions"]["text"]) == 100_000


def test_rollout(tmp_path: Path) -> None:
    events, info = read(CODEX, write(tmp_path, *ROLLOUT))
    assert {e.trace_id for e in events} == {SID} and info.trace_id == SID
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status) for e in events] == [
        ("m2", "message", "developer", None, "unset"),
        ("m3", "message", "user", None, "unset"),
        ("m5", "message", "user", None, "unset"),
        ("m7", "llm_call", "gpt-5.3-codex", "m5", "ok"),
        ("call_a", "tool_call", "exec_command", "m7", "error"),
        ("call_b", "tool_call", "exec_command", "m7", "ok"),
        ("m15", "llm_call", "gpt-5.3-codex", "m5", "ok"),  # a new request (turn_context)
        ("call_p", "tool_call", "apply_patch", "m15", "ok"),
        ("m18", "llm_call", "gpt-5.3-codex", "m5", "ok"),  # after the output: a new one
        ("e20", "other", "task_complete", "m5", "unset"),
    ]
    by = {e.event_id: e for e in events}
    assert by["m3"].attrs["codex.context"] is True and "codex.context" not in by["m5"].attrs
    assert info.root_task == "Fix the failing test in calc.py"
    assert by["call_a"].args == {"cmd": "pytest -q"}
    assert by["call_a"].error == {"message": "Chunk ID: 1\nProcess exited with code 1\n"
                                             "Output:\n1 failed", "details": {"exit_code": 1}}
    assert by["call_p"].args == "*** Begin Patch\n*** End Patch"  # free-form input, as is
    assert by["call_p"].result == "Success."
    assert by["call_p"].attrs["codex.output_metadata"] == {"exit_code": 0}
    assert by["call_p"].attrs["codex.output_type"] == "custom_tool_call_output"
    assert [it["type"] for it in by["m7"].result["messages"]] == [
        "reasoning", "function_call", "function_call"]
    # usage: each request's last_token_usage on its llm_call; the repeat is not counted
    assert (by["m7"].attrs["gen_ai.usage.input_tokens"],
            by["m15"].attrs["gen_ai.usage.output_tokens"]) == (90, 20)
    assert "gen_ai.usage.input_tokens" not in by["m18"].attrs
    assert by["m7"].attrs["gen_ai.request.model"] == "gpt-5.3-codex"
    assert by["m7"].attrs["codex.turn_id"] == "t1"
    assert info.versions == {"codex": "0.104.0", "model": "gpt-5.3-codex"}
    assert info.attrs["codex.cwd"] == "/repo"
    assert info.attrs["codex.turn_context"]["approval_policy"] == "never"
    assert info.attrs["codex.skipped"] == {"agent_message": 1, "token_count": 1,
                                           "user_message": 1}
    assert by["call_a"].start_ns is not None and by["call_a"].end_ns is not None


def test_token_count_before_its_items(tmp_path: Path) -> None:
    """Older rollouts (0.39, 0.40) count a request before writing its items."""
    events, _ = read(CODEX, write(tmp_path, META, msg("user", "go"), CONTEXT,
                                  tokens(50, 40, 5), fcall("c1", "shell", command=["ls"]),
                                  fout("c1", json.dumps({"output": "a\n", "metadata": {
                                      "exit_code": 0, "duration_seconds": 0.1}}))))
    turn = next(e for e in events if e.kind == "llm_call")
    assert turn.attrs["gen_ai.usage.input_tokens"] == 40
    call = next(e for e in events if e.kind == "tool_call")
    assert (call.status, call.result, call.args) == ("ok", "a\n", {"command": ["ls"]})


@pytest.mark.parametrize(("output", "status", "error"), [
    (json.dumps({"output": "nope\n", "metadata": {"exit_code": 2}}), "error",
     {"message": "nope\n", "details": {"exit_code": 2}}),
    ("failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, "
     "exit code: 2, stdout: , stderr: denied", "error",
     {"message": "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec "
                 "error, exit code: 2, stdout: , stderr: denied", "code": "sandbox",
      "details": {"exit_code": 2}}),
    ("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok", "ok", None),
    ({"content": "boom", "success": False}, "error", {"message": "boom"}),
    ([{"type": "input_text", "text": "done"}], "ok", None),
    ("patch rejected: empty patch", "ok", None),  # no exit code: the source says no error
])
def test_output_status(tmp_path: Path, output: Any, status: str, error: Any) -> None:
    events, _ = read(CODEX, write(tmp_path, META, fcall("c1", "shell"), fout("c1", output)))
    call = next(e for e in events if e.kind == "tool_call")
    assert (call.status, call.error) == (status, error)


def test_unanswered_unmatched_and_hosted_calls(tmp_path: Path) -> None:
    events, _ = read(CODEX, write(
        tmp_path, META, msg("user", "search"),
        item({"type": "web_search_call", "status": "completed",
              "action": {"type": "search", "query": "codex"}}),
        fcall("c1", "shell", command=["sleep", "9"]),
        fout("ghost", "late"),
        line("event_msg", {"type": "turn_aborted", "reason": "interrupted"})))
    kinds = [(e.kind, e.name, e.status, e.attrs.get("workbench.flags")) for e in events]
    assert kinds == [
        ("message", "user", "unset", None),
        ("llm_call", "assistant", "ok", None),  # no turn_context: no model named
        ("tool_call", "web_search", "ok", None),
        ("tool_call", "shell", "unset", ["unanswered"]),
        ("tool_call", "", "ok", ["unmatched"]),
        ("other", "turn_aborted", "unset", None),
    ]
    assert events[2].args == {"type": "search", "query": "codex"}
    assert events[4].event_id == "ghost" and events[4].result == "late"


def test_exec_events_fold_into_their_call(tmp_path: Path) -> None:
    events, _ = read(CODEX, write(
        tmp_path, META, fcall("c1", "shell", command=["false"]), fout("c1", "done"),
        line("event_msg", {"type": "exec_command_end", "call_id": "c1", "exit_code": 1,
                           "stderr": "bad"}),
        line("event_msg", {"type": "error", "message": "stream disconnected"})))
    call = next(e for e in events if e.kind == "tool_call")
    assert (call.status, call.error) == ("error", {"message": "bad",
                                                   "details": {"exit_code": 1}})
    assert call.attrs["codex.events"][0]["type"] == "exec_command_end"
    err = events[-1]
    assert (err.kind, err.name, err.status, err.error) == (
        "error", "error", "error", {"message": "stream disconnected"})


def test_legacy_rollout(tmp_path: Path) -> None:
    src = write(tmp_path,
                json.dumps({"id": "c27a914d", "timestamp": "2025-08-20T13:20:47.060Z",
                            "instructions": None, "git": {"branch": "main"}}),
                json.dumps({"record_type": "state"}),
                json.dumps({"type": "message", "id": None, "role": "user",
                            "content": [{"type": "input_text", "text": "index it"}]}),
                json.dumps({"type": "function_call", "id": "fc_1", "name": "shell",
                            "arguments": "{\"command\":[\"ls\"]}", "call_id": "call_1"}),
                json.dumps({"type": "function_call_output", "call_id": "call_1",
                            "output": "{\"output\":\"a\\n\",\"metadata\":{\"exit_code\":0}}"}),
                json.dumps({"record_type": "state"}))
    events, info = read(CODEX, src)
    assert info.trace_id == "c27a914d" and info.attrs["codex.git"] == {"branch": "main"}
    assert [(e.kind, e.name, e.status) for e in events] == [
        ("message", "user", "unset"), ("llm_call", "assistant", "ok"),
        ("tool_call", "shell", "ok")]
    assert info.attrs["codex.skipped"] == {"state": 2}


def test_no_session_id_derives_one(tmp_path: Path) -> None:
    src = write(tmp_path, msg("user", "hi"), msg("assistant", "hello"))
    events, info = read(CODEX, src)
    assert info.trace_id == derived_id(src.sha256, "codex") == events[0].trace_id


@pytest.mark.parametrize(("text", "error"), [
    ('{"timestamp": "x", "type": "session_meta", "payload": {"id": "s"}}\n{"type": "res',
     InvalidJSONError),
    ('{"timestamp": "x", "type": "response_item", "payload": "text"}\n', InvalidTraceError),
    ('[1, 2]\n', InvalidTraceError),
    (META + "\n" + CONTEXT + "\n", InvalidTraceError),  # nothing but metadata
])
def test_bad_input(tmp_path: Path, text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        list(CODEX.read(source(tmp_path / "bad.jsonl", text)))


@settings(max_examples=50)
@given(st.lists(st.sampled_from(["call", "output", "user", "assistant", "context",
                                 "tokens"]), max_size=12))
def test_any_order_keeps_every_call_and_output(kinds: list[str]) -> None:
    """Whatever order calls (c0, c1, ...) and outputs (for c0, c1, ...) come in, a call is
    one tool_call with the output that follows it; an output whose call is not open is
    its own tool_call, flagged unmatched; a call never answered is flagged unanswered;
    every parent is an event of the trace."""
    lines, calls, outputs = [META], 0, 0
    open_calls: set[int] = set()
    unmatched = 0
    for k in kinds:
        if k == "call":
            lines.append(fcall(f"c{calls}", "shell"))
            open_calls.add(calls)
            calls += 1
        elif k == "output":
            lines.append(fout(f"c{outputs}", "ok"))
            if outputs in open_calls:
                open_calls.remove(outputs)
            else:
                unmatched += 1
            outputs += 1
        elif k == "context":
            lines.append(CONTEXT)
        elif k == "tokens":
            lines.append(tokens(len(lines), 1, 1))
        else:
            lines.append(msg(k, "x"))
    lines.append(msg("user", "x"))
    with tempfile.TemporaryDirectory() as tmp:
        events, _ = read(CODEX, write(Path(tmp), *lines))
    tools = [e for e in events if e.kind == "tool_call"]
    assert len(tools) == calls + unmatched
    flags = [e.attrs.get("workbench.flags") for e in tools]
    assert flags.count(["unanswered"]) == len(open_calls)
    assert flags.count(["unmatched"]) == unmatched
    ids = {e.event_id for e in events}
    assert len(ids) == len(events)
    assert all(e.parent_id is None or e.parent_id in ids for e in events)


# -- codex exec --json ----------------------------------------------------------------------

def ev(typ: str, **fields: Any) -> str:
    return json.dumps({"type": typ, **fields})


def cmd(iid: str, status: str, code: Any = None, out: str = "") -> dict[str, Any]:
    return {"id": iid, "type": "command_execution", "command": "bash -lc ls",
            "aggregated_output": out, "exit_code": code, "status": status}


EXEC = [
    ev("thread.started", thread_id="019a2d7a-6455-7170-a661-c6d8b94c630a"),
    ev("turn.started"),
    ev("item.completed", item={"id": "item_0", "type": "reasoning", "text": "**Listing**"}),
    ev("item.started", item=cmd("item_1", "in_progress")),
    ev("item.completed", item=cmd("item_1", "completed", 0, "a.txt\n")),
    ev("item.started", item={"id": "item_2", "type": "mcp_tool_call", "server": "docs",
                             "tool": "search", "arguments": {"q": "x"}, "result": None,
                             "error": None, "status": "in_progress"}),
    ev("item.completed", item={"id": "item_2", "type": "mcp_tool_call", "server": "docs",
                               "tool": "search", "arguments": {"q": "x"}, "result": None,
                               "error": {"message": "timed out"}, "status": "failed"}),
    ev("item.started", item=cmd("item_3", "in_progress")),
    ev("item.completed", item={"id": "item_4", "type": "todo_list",
                               "items": [{"text": "list", "completed": True}]}),
    ev("item.completed", item={"id": "item_5", "type": "agent_message", "text": "Done."}),
    ev("turn.completed", usage={"input_tokens": 6040, "cached_input_tokens": 4992,
                                "output_tokens": 129}),
    ev("turn.started"),
    ev("item.completed", item=cmd("item_0", "failed", 2, "ls: nope\n")),
    ev("error", message="Reconnecting... 1/5"),
    ev("turn.failed", error={"message": "stream disconnected"}),
]


def test_exec_sniff(tmp_path: Path) -> None:
    src = write(tmp_path, *EXEC, name="out.jsonl")
    assert CODEX_EXEC.sniff(src) == 95 and detect(src) is CODEX_EXEC
    assert CODEX.sniff(src) == 0


def test_exec_stream(tmp_path: Path) -> None:
    events, info = read(CODEX_EXEC, write(tmp_path, *EXEC, name="out.jsonl"))
    assert info.trace_id == "019a2d7a-6455-7170-a661-c6d8b94c630a"
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status,
             e.attrs.get("workbench.flags")) for e in events] == [
        ("turn-1", "agent", "codex exec", None, "ok", None),
        ("step-3", "llm_call", "assistant", "turn-1", "ok", None),
        ("item_1", "tool_call", "command_execution", "step-3", "ok", None),
        ("item_2", "tool_call", "search", "turn-1", "error", None),
        ("item_3", "tool_call", "command_execution", "turn-1", "unset", ["unanswered"]),
        ("item_4", "state", "todo_list", "turn-1", "unset", None),
        ("step-10", "llm_call", "assistant", "turn-1", "ok", None),
        ("turn-2", "agent", "codex exec", None, "error", None),
        ("item_0", "tool_call", "command_execution", "turn-2", "error", None),
        ("e14", "error", "error", "turn-2", "error", None),
    ]
    by = {e.event_id: e for e in events}
    assert (by["item_1"].args, by["item_1"].result) == ({"command": "bash -lc ls"}, "a.txt\n")
    assert by["item_2"].error == {"message": "timed out"}
    assert by["item_2"].attrs["codex.mcp_server"] == "docs" and by["item_2"].args == {"q": "x"}
    assert by["item_0"].error == {"message": "ls: nope\n", "details": {"exit_code": 2}}
    assert by["turn-1"].attrs["gen_ai.usage.input_tokens"] == 6040
    assert by["turn-2"].error == {"message": "stream disconnected"}
    assert by["item_4"].result == {"items": [{"text": "list", "completed": True}]}
    assert by["step-10"].result == {"messages": [
        {"id": "item_5", "type": "agent_message", "text": "Done."}]}


def test_exec_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidTraceError):
        list(CODEX_EXEC.read(write(tmp_path, ev("thread.started", thread_id="t"),
                                   name="empty.jsonl")))
    with pytest.raises(InvalidTraceError):
        list(CODEX_EXEC.read(write(tmp_path, ev("item.completed", item="x"), name="b.jsonl")))


@pytest.mark.parametrize("name", ["stream-output-2.jsonl", "stream-output-5.jsonl"])
def test_exec_real_file_command(name: str) -> None:
    src = source_of(CORPUS / "codex-exec" / name)
    events, _ = read(CODEX_EXEC, src)
    call = next(e for e in events if e.kind == "tool_call")
    assert call.status == "ok" and call.args["command"].endswith("ls")
    assert isinstance(call.result, str) and "stream-output-1.jsonl" in call.result


def source_of(path: Path) -> SourceFile:
    from workbench.formats import open_source
    return open_source(path)
