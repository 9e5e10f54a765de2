"""Adapter ``gemini-cli``: session recordings (JSON, JSONL) and checkpoints."""

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
from workbench.formats.agents import CLAUDE_CODE, CODEX, GEMINI_CLI
from workbench.formats.chat import OPENAI
from workbench.ingest import detect
from workbench.model import InvalidJSONError, InvalidTraceError

SID = "0ab84937-9fe7-4284-986a-33c832af0b6a"
META = {"sessionId": SID, "projectHash": "9da8b3df", "startTime": "2026-04-23T12:52:52.759Z",
        "lastUpdated": "2026-04-23T12:52:52.759Z", "kind": "main"}


def read(src: SourceFile) -> tuple[list[RawEvent], TraceInfo]:
    out = list(GEMINI_CLI.read(src))
    infos = [e for e in out if isinstance(e, TraceInfo)]
    assert len(infos) == 1
    return [e for e in out if isinstance(e, RawEvent)], infos[0]


def user(mid: str, text: str, ts: str = "2026-04-23T12:53:05.283Z") -> dict[str, Any]:
    return {"id": mid, "timestamp": ts, "type": "user", "content": [{"text": text}]}


def tool(cid: str, name: str, status: str, response: dict[str, Any],
         **args: Any) -> dict[str, Any]:
    return {"id": cid, "name": name, "args": args, "status": status,
            "timestamp": "2026-04-23T12:53:11.300Z", "displayName": name.title(),
            "result": [{"functionResponse": {"id": cid, "name": name, "response": response}}]}


def gemini(mid: str, text: str, *calls: dict[str, Any]) -> dict[str, Any]:
    m: dict[str, Any] = {"id": mid, "timestamp": "2026-04-23T12:53:11.257Z", "type": "gemini",
                         "content": text, "model": "gemini-3-flash-preview",
                         "thoughts": [{"subject": "Plan", "description": "read it"}],
                         "tokens": {"input": 100, "output": 7, "cached": 0, "total": 107}}
    if calls:
        m["toolCalls"] = list(calls)
    return m


MESSAGES = [
    {"id": "i1", "timestamp": "2026-04-23T12:53:02.597Z", "type": "info",
     "content": "Empty GEMINI.md created."},
    user("u1", "Read the README"),
    gemini("g1", "", tool("t1", "read_file", "success", {"output": "# Title"},
                          file_path="README.md"),
           tool("t2", "write_file", "error", {"error": "Tool \"write_file\" not found."},
                file_path="x")),
    gemini("g2", "Done."),
    {"id": "e1", "timestamp": "2026-04-23T12:58:35.591Z", "type": "error",
     "content": "Quota exceeded"},
]


def expect_session(events: list[RawEvent], info: TraceInfo) -> None:
    assert info.trace_id == SID and {e.trace_id for e in events} == {SID}
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status) for e in events] == [
        ("i1", "message", "info", None, "unset"),
        ("u1", "message", "user", None, "unset"),
        ("g1", "llm_call", "gemini-3-flash-preview", "u1", "ok"),
        ("t1", "tool_call", "read_file", "g1", "ok"),
        ("t2", "tool_call", "write_file", "g1", "error"),
        ("g2", "llm_call", "gemini-3-flash-preview", "u1", "ok"),
        ("e1", "error", "error", None, "error"),
    ]
    by = {e.event_id: e for e in events}
    assert (by["t1"].args, by["t1"].result) == ({"file_path": "README.md"}, {"output": "# Title"})
    assert by["t2"].error == {"message": "Tool \"write_file\" not found."}
    assert by["t1"].attrs["gemini_cli.displayName"] == "Read_File"
    assert by["g1"].attrs["gen_ai.usage.input_tokens"] == 100
    assert by["g1"].attrs["gemini_cli.thoughts"] == [{"subject": "Plan", "description": "read it"}]
    assert by["g2"].result == {"messages": [{"role": "model", "content": "Done."}]}
    assert by["u1"].result == {"role": "user", "content": [{"text": "Read the README"}]}
    assert by["e1"].error == {"message": "Quota exceeded"}
    assert by["t1"].end_ns is not None and by["u1"].start_ns is not None
    assert info.root_task == "Read the README"
    assert info.attrs["gemini_cli.projectHash"] == "9da8b3df"
    assert info.versions == {"model": "gemini-3-flash-preview"}


def test_json_session(tmp_path: Path) -> None:
    src = source(tmp_path / "session-1.json", json.dumps({**META, "messages": MESSAGES},
                                                         indent=2))
    assert GEMINI_CLI.sniff(src) == 95 and detect(src) is GEMINI_CLI
    events, info = read(src)
    expect_session(events, info)


def jsonl(*records: Any) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_jsonl_session_keeps_the_last_state_of_each_message(tmp_path: Path) -> None:
    first_g1 = {k: v for k, v in MESSAGES[2].items() if k != "toolCalls"}
    text = jsonl(META, MESSAGES[0], {"$set": {"lastUpdated": "x"}}, MESSAGES[1], first_g1,
                 {"$set": {"lastUpdated": "2026-04-23T12:58:35.591Z", "summary": "README"}},
                 MESSAGES[2], MESSAGES[3], MESSAGES[4])
    src = source(tmp_path / "session-1.jsonl", text)
    assert GEMINI_CLI.sniff(src) == 95 and detect(src) is GEMINI_CLI
    assert CLAUDE_CODE.sniff(src) == CODEX.sniff(src) == 0
    events, info = read(src)
    expect_session(events, info)
    assert info.attrs["gemini_cli.summary"] == "README"
    assert info.attrs["gemini_cli.lastUpdated"] == "2026-04-23T12:58:35.591Z"


def test_rewind_keeps_the_rewound_messages_marked(tmp_path: Path) -> None:
    text = jsonl(META, user("u1", "first"), gemini("g1", "one"), user("u2", "second"),
                 gemini("g2", "two"), {"$rewindTo": "u2"}, user("u3", "again"),
                 gemini("g3", "three"))
    events, _ = read(source(tmp_path / "s.jsonl", text))
    assert [(e.event_id, e.parent_id, e.attrs.get("gemini_cli.rewound")) for e in events] == [
        ("u1", None, None), ("g1", "u1", None), ("u2", None, True), ("g2", "u2", True),
        ("u3", None, None), ("g3", "u3", None)]


def test_session_context_is_no_prompt(tmp_path: Path) -> None:
    context = user("c0", "<session_context>\nThis is the Gemini CLI.\n</session_context>")
    odd = gemini("g1", "ok")
    odd["toolCalls"] = ["not a call"]
    events, info = read(source(tmp_path / "s.json", json.dumps(
        {**META, "messages": [context, user("u1", "real question"), odd]})))
    assert events[0].attrs["gemini_cli.context"] is True
    assert "gemini_cli.context" not in events[1].attrs
    assert info.root_task == "real question" and events[2].parent_id == "u1"
    assert info.attrs["gemini_cli.skipped"] == {"toolCall": 1}


def test_unfinished_and_cancelled_tool_calls(tmp_path: Path) -> None:
    running = tool("t1", "run_shell_command", "executing", {}, command="sleep 9")
    del running["result"]
    cancelled = tool("t2", "run_shell_command", "cancelled", {"error": "[Operation Cancelled]"})
    events, _ = read(source(tmp_path / "s.json", json.dumps(
        {**META, "messages": [user("u1", "go"), gemini("g1", "", running, cancelled)]})))
    t1, t2 = (e for e in events if e.kind == "tool_call")
    assert (t1.status, t1.attrs.get("workbench.flags")) == ("unset", ["unanswered"])
    assert (t2.status, t2.error) == ("error", {"message": "[Operation Cancelled]",
                                               "code": "cancelled"})


def call(name: str, cid: str | None = None, **args: Any) -> dict[str, Any]:
    fc: dict[str, Any] = {"name": name, "args": args}
    if cid:
        fc["id"] = cid
    return {"functionCall": fc}


def response(name: str, cid: str | None = None, **resp: Any) -> dict[str, Any]:
    fr: dict[str, Any] = {"name": name, "response": resp}
    if cid:
        fr["id"] = cid
    return {"functionResponse": fr}


HISTORY = [
    {"role": "user", "parts": [{"text": "List and read"}]},
    {"role": "model", "parts": [{"text": "Sure."}, call("ls", path="."),
                                call("read_file", path="a"), call("read_file", path="b")]},
    {"role": "user", "parts": [response("read_file", output="A"), response("ls", output="a b"),
                               response("read_file", error="no such file")]},
    {"role": "model", "parts": [{"text": "a has A."}]},
]


def test_chat_save_checkpoint_pairs_by_position_per_name(tmp_path: Path) -> None:
    for name, doc in (("checkpoint-a.json", HISTORY),
                      ("checkpoint-b.json", {"history": HISTORY, "authType": "oauth"})):
        src = source(tmp_path / name, json.dumps(doc, indent=2))
        assert GEMINI_CLI.sniff(src) == 80 and detect(src) is GEMINI_CLI, name
        assert OPENAI.sniff(src) < 80
        events, info = read(src)
        assert info.trace_id == derived_id(src.sha256, "gemini-cli")
        assert [(e.event_id, e.kind, e.name, e.parent_id, e.status, e.args, e.result)
                for e in events] == [
            ("c0", "message", "user", None, "unset", None,
             {"role": "user", "content": [{"text": "List and read"}]}),
            ("c1", "llm_call", "gemini", "c0", "ok", None, {"messages": [HISTORY[1]]}),
            ("c1-call2", "tool_call", "ls", "c1", "ok", {"path": "."}, {"output": "a b"}),
            ("c1-call3", "tool_call", "read_file", "c1", "ok", {"path": "a"}, {"output": "A"}),
            ("c1-call4", "tool_call", "read_file", "c1", "error", {"path": "b"},
             {"error": "no such file"}),
            ("c3", "llm_call", "gemini", "c0", "ok", None, {"messages": [HISTORY[3]]}),
        ]
        assert info.root_task == "List and read"


def test_ids_pair_before_positions(tmp_path: Path) -> None:
    history = [{"role": "model", "parts": [call("f", "x1"), call("f", "x2")]},
               {"role": "user", "parts": [response("f", "x2", output=2),
                                          response("f", "x9", output=9)]}]
    events, _ = read(source(tmp_path / "c.json", json.dumps(history)))
    tools = [(e.event_id, e.result, e.attrs.get("workbench.flags"))
             for e in events if e.kind == "tool_call"]
    assert tools == [("x1", None, ["unanswered"]), ("x2", {"output": 2}, None),
                     ("x9", {"output": 9}, ["unmatched"])]


def test_restore_checkpoint_marks_the_pending_call(tmp_path: Path) -> None:
    history = [{"role": "user", "parts": [{"text": "fix it"}]},
               {"role": "model", "parts": [call("replace", file_path="a.py", old="x")]}]
    doc = {"history": [{"type": "user", "text": "fix it", "id": 1}], "clientHistory": history,
           "toolCall": {"name": "replace", "args": {"file_path": "a.py", "old": "x"}},
           "commitHash": "abc123", "filePath": "/repo/a.py", "messageId": "m-7"}
    src = source(tmp_path / "2026-04-01T11-12-19-a.py-replace.json", json.dumps(doc, indent=2))
    assert GEMINI_CLI.sniff(src) == 90 and detect(src) is GEMINI_CLI
    events, info = read(src)
    assert [(e.kind, e.name, e.status) for e in events] == [
        ("message", "user", "unset"), ("llm_call", "gemini", "ok"),
        ("tool_call", "replace", "unset")]
    pending = events[-1]
    assert pending.attrs["workbench.flags"] == ["unanswered"]
    assert pending.attrs["gemini_cli.checkpoint"] == {
        "commitHash": "abc123", "filePath": "/repo/a.py", "messageId": "m-7"}
    assert info.attrs["gemini_cli.ui_history_items"] == 1


def test_sniff_leaves_other_formats_alone(tmp_path: Path) -> None:
    for name, doc in (("o.json", [{"role": "user", "content": "hi"}]),
                      ("c.jsonl", {"type": "user", "sessionId": "s", "parentUuid": None,
                                   "message": {"role": "user", "content": "hi"}}),
                      ("g.json", {"contents": [{"role": "user", "parts": [{"text": "x"}]}]})):
        assert GEMINI_CLI.sniff(source(tmp_path / name, json.dumps(doc))) == 0, name


@pytest.mark.parametrize(("name", "text", "error"), [
    ("t.json", '{"sessionId": "s", "projectHash": "p", "messages": [', InvalidJSONError),
    ("m.json", json.dumps({**META, "messages": [{"id": "x"}]}), InvalidTraceError),
    ("e.json", json.dumps({**META, "messages": []}), InvalidTraceError),
    ("h.json", json.dumps([{"role": "user", "parts": [{"text": "x"}]}, 3]), InvalidTraceError),
    ("l.jsonl", jsonl(META, ["not", "a", "record"]), InvalidTraceError),
    ("n.jsonl", jsonl(META, {"what": 1}), InvalidTraceError),
])
def test_bad_input(tmp_path: Path, name: str, text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        list(GEMINI_CLI.read(source(tmp_path / name, text)))


@settings(max_examples=50)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.booleans()), max_size=8),
       st.permutations(list(range(8))))
def test_responses_pair_by_position_per_name(calls: list[tuple[str, bool]],
                                             order: list[int]) -> None:
    """Calls without ids answered in any order across names: the n-th response of a name
    answers the n-th call of that name; nothing is lost."""
    answered = [i for i in order if i < len(calls)]
    history = [{"role": "model", "parts": [call(n, seq=i) for i, (n, _) in enumerate(calls)]},
               {"role": "user", "parts": [response(calls[i][0], seq=i) for i in answered
                                          if calls[i][1]]}]
    with tempfile.TemporaryDirectory() as tmp:
        events, _ = read(source(Path(tmp) / "c.json", json.dumps(history)))
    tools = [e for e in events if e.kind == "tool_call"]
    assert len(tools) == len(calls)
    for name in ("a", "b"):
        mine = [e for e in tools if e.name == name]
        got = [e.result["seq"] for e in mine if e.result is not None]
        want = [i for i in answered if calls[i][0] == name and calls[i][1]]
        assert got == want  # the k-th response went to the k-th call of its name
        assert sum(1 for e in mine if e.attrs.get("workbench.flags") == ["unanswered"]) \
            == len(mine) - len(want)
