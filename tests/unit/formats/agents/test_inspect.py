"""Adapter ``inspect``: Inspect AI EvalLogs, ``.json`` and zipped ``.eval``."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats._pairing import derived_id
from workbench.formats.agents import INSPECT
from workbench.model import InvalidJSONError, InvalidTraceError

RUN = "runAAAA1111"
T0 = "2025-03-01T10:00:00+00:00"


def ts(sec: float) -> str:
    return f"2025-03-01T10:00:{sec:09.6f}+00:00"


def ns(sec: float) -> int:
    return 1740823200_000_000_000 + round(sec * 1e6) * 1000


def header(**kw: Any) -> dict[str, Any]:
    log: dict[str, Any] = {
        "version": 2, "status": "success",
        "eval": {"run_id": RUN, "eval_id": "ev1", "created": T0, "task": "shop",
                 "task_id": "tk", "model": "openai/gpt-test",
                 "packages": {"inspect_ai": "0.3.99"}},
        "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
        "results": {"total_samples": 1}, "stats": {"started_at": T0},
    }
    log.update(kw)
    return log


def span(sid: str, name: str, type_: str, sec: float, parent: str | None = None,
         ) -> dict[str, Any]:
    e = {"span_id": sid, "timestamp": ts(sec), "event": "span_begin", "id": sid,
         "type": type_, "name": name}
    if parent:
        e["parent_id"] = parent
    return e


def end(sid: str, sec: float) -> dict[str, Any]:
    return {"span_id": sid, "timestamp": ts(sec), "event": "span_end", "id": sid}


TOOL_DEF = {"name": "get_order", "description": "Look an order up.",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}

EVENTS: list[dict[str, Any]] = [
    span("s-init", "init", "init", 0.0),
    {"span_id": "s-init", "timestamp": ts(0.1), "event": "sample_init",
     "sample": {"id": "q1", "input": "attachment://aa11"}, "state": {"messages": []}},
    end("s-init", 0.2),
    span("s-gen", "generate", "solver", 1.0),
    {"span_id": "s-gen", "timestamp": ts(1.1), "event": "model", "model": "openai/gpt-test",
     "input": [{"role": "user", "content": "attachment://aa11"}], "tools": [TOOL_DEF],
     "tool_choice": "auto", "config": {"temperature": 0},
     "output": {"model": "gpt-test-2025", "choices": [{"message": {
         "role": "assistant", "content": "", "tool_calls": [
             {"id": "call_1", "function": "get_order", "arguments": {"order_id": "42"}}]},
         "stop_reason": "tool_calls"}],
         "usage": {"input_tokens": 100, "output_tokens": 7, "total_tokens": 107}},
     "completed": ts(2.0), "working_time": 0.9},
    # the tool's span is written first but begins (by its clock) after the tool event
    span("s-tool", "get_order", "tool", 2.2, parent="s-gen"),
    {"span_id": "s-gen", "timestamp": ts(2.1), "event": "tool", "type": "function",
     "id": "call_1", "function": "get_order", "arguments": {"order_id": "42"},
     "result": '{"status": "shipped"}', "events": [], "completed": ts(3.0)},
    {"span_id": "s-tool", "timestamp": ts(2.3), "event": "sandbox", "action": "exec",
     "cmd": "lookup 42", "options": {}, "result": 1, "output": "boom",
     "completed": ts(2.4)},
    {"span_id": "s-tool", "timestamp": ts(2.5), "event": "store",
     "changes": [{"op": "add", "path": "/k", "value": 1}]},
    end("s-tool", 2.9),
    {"span_id": "s-gen", "timestamp": ts(3.1), "event": "tool", "type": "function",
     "id": "call_2", "function": "cancel", "arguments": {"order_id": "42"},
     "result": "", "error": {"type": "permission", "message": "not allowed"},
     "events": [], "completed": ts(3.2)},
    {"span_id": "s-gen", "timestamp": ts(3.3), "event": "error",
     "error": {"message": "RuntimeError('x')", "traceback": "Traceback ..."}},
    end("s-gen", 4.0),
    span("s-score", "includes", "scorer", 5.0),
    {"span_id": "s-score", "timestamp": ts(5.1), "event": "score",
     "score": {"value": "I", "answer": "no"}, "target": "yes", "intermediate": False},
    end("s-score", 5.2),
]


def sample(**kw: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"id": "q1", "epoch": 1, "input": "attachment://aa11", "target": "yes",
                         "messages": [], "events": EVENTS,
                         "attachments": {"aa11": "Cancel order 42."}}
    s.update(kw)
    return s


def write(tmp_path: Path, doc: Any, name: str = "log.json") -> SourceFile:
    return source(tmp_path / name, json.dumps(doc, indent=2))


def eval_zip(tmp_path: Path, members: dict[str, Any], name: str = "log.eval") -> SourceFile:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for member, value in members.items():
            z.writestr(member, value if isinstance(value, bytes) else json.dumps(value))
    return source(tmp_path / name, buf.getvalue())


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(INSPECT.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def test_sniff(tmp_path: Path) -> None:
    assert INSPECT.sniff(write(tmp_path, header(samples=[sample()]))) == 95
    only_eval = {"eval": {"task": "t"}, "samples": []}
    assert INSPECT.sniff(write(tmp_path, only_eval)) == 90
    assert INSPECT.sniff(eval_zip(tmp_path, {"_journal/start.json": header(),
                                             "samples/q1_epoch_1.json": sample()})) == 95
    assert INSPECT.sniff(eval_zip(tmp_path, {"samples/q1_epoch_1.json": sample()})) == 85
    # not ours: another zip, OpenAI bodies, a JSON object without an eval section
    assert INSPECT.sniff(eval_zip(tmp_path, {"word/document.xml": b"<w/>"})) == 0
    assert INSPECT.sniff(write(tmp_path, {"messages": [], "choices": []})) == 0
    assert INSPECT.sniff(write(tmp_path, {"version": 2, "status": "x", "plan": {}})) == 0
    assert INSPECT.sniff(write(tmp_path, [{"traj": [], "task_id": 1, "reward": 0}])) == 0


def test_sample_events(tmp_path: Path) -> None:
    src = write(tmp_path, header(samples=[sample()]))
    events, [info] = read(src)
    tid = derived_id("inspect", RUN, "q1", 1)
    assert {e.trace_id for e in events} == {tid} and info.trace_id == tid
    # span_end folds into its span_begin; the tool event keeps its place after its span
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status) for e in events] == [
        ("s-init", "other", "init", None, "unset"),
        ("e2", "state", "sample_init", "s-init", "unset"),
        ("s-gen", "agent", "generate", None, "unset"),
        ("e5", "llm_call", "openai/gpt-test", "s-gen", "ok"),
        ("s-tool", "other", "get_order", "s-gen", "unset"),
        ("call_1", "tool_call", "get_order", "s-gen", "ok"),
        ("e8", "other", "sandbox.exec", "s-tool", "error"),
        ("e9", "state", "store", "s-tool", "unset"),
        ("call_2", "tool_call", "cancel", "s-gen", "error"),
        ("e12", "error", "error", "s-gen", "error"),
        ("s-score", "other", "includes", None, "unset"),
        ("e15", "receipt", "score", "s-score", "ok"),
    ]
    by = {e.event_id: e for e in events}
    assert (by["s-gen"].start_ns, by["s-gen"].end_ns) == (ns(1.0), ns(4.0))
    assert by["s-gen"].attrs["inspect.span_type"] == "solver"
    tool = by["call_1"]
    assert (tool.start_ns, tool.end_ns) == (ns(2.1), ns(3.0))
    assert tool.start_ns < by["s-tool"].start_ns  # the source's quirk, kept
    assert tool.attrs["inspect.tool_span_id"] == "s-tool"  # the span it ran in
    assert by["s-tool"].attrs["inspect.tool_event_id"] == "call_1"
    assert "inspect.tool_span_id" not in by["call_2"].attrs  # ran in no span of its own
    assert tool.args == {"order_id": "42"} and tool.result == {"status": "shipped"}
    assert by["call_2"].error == {"code": "permission", "message": "not allowed"}
    llm = by["e5"]
    assert (llm.start_ns, llm.end_ns) == (ns(1.1), ns(2.0))
    assert llm.args["messages"] == [{"role": "user", "content": "Cancel order 42."}]
    assert llm.args["tools"] == ["get_order"] and llm.args["params"] == {"temperature": 0}
    assert llm.result["finish_reasons"] == ["tool_calls"]
    assert llm.result["messages"][0]["tool_calls"][0]["id"] == "call_1"
    assert llm.attrs["gen_ai.request.model"] == "openai/gpt-test"
    assert llm.attrs["gen_ai.response.model"] == "gpt-test-2025"
    assert (llm.attrs["gen_ai.usage.input_tokens"], llm.attrs["gen_ai.usage.output_tokens"]) \
        == (100, 7)
    assert by["e8"].error == {"code": "EXIT_1", "message": "exit status 1"}
    assert by["e8"].args == {"cmd": "lookup 42", "options": {}}
    assert by["e9"].result == [{"op": "add", "path": "/k", "value": 1}]
    assert by["e12"].error == {"message": "RuntimeError('x')",
                               "details": {"traceback": "Traceback ..."}}
    assert by["e15"].result == {"value": "I", "answer": "no"}
    assert by["e15"].args == {"target": "yes"}
    assert by["e2"].result["sample"]["input"] == "Cancel order 42."  # attachment resolved
    assert info.root_task == "Cancel order 42."
    assert info.tools == [TOOL_DEF]
    assert info.versions == {"inspect_ai": "0.3.99", "model": "openai/gpt-test",
                             "inspect_log_version": 2}
    assert info.attrs["inspect"]["task"] == "shop"
    assert info.attrs["inspect"]["sample.id"] == "q1"


def test_epochs_are_separate_traces_with_stable_ids(tmp_path: Path) -> None:
    src = write(tmp_path, header(samples=[sample(), sample(epoch=2)]))
    events, infos = read(src)
    assert [i.trace_id for i in infos] == [derived_id("inspect", RUN, "q1", 1),
                                           derived_id("inspect", RUN, "q1", 2)]
    again, _ = read(src)
    assert [(e.trace_id, e.event_id) for e in again] == [(e.trace_id, e.event_id)
                                                          for e in events]


def test_placeholder_run_id_uses_the_file_hash(tmp_path: Path) -> None:
    log = header(samples=[sample()])
    log["eval"]["run_id"] = "..."
    src = write(tmp_path, log)
    _, [info] = read(src)
    assert info.trace_id == derived_id("inspect", src.sha256, "q1", 1)


def test_steps_of_older_logs_nest(tmp_path: Path) -> None:
    steps = [
        {"timestamp": ts(0.0), "event": "sample_init", "sample": {"id": 1}, "state": {}},
        {"timestamp": ts(1.0), "event": "step", "action": "begin", "type": "solver",
         "name": "generate"},
        {"timestamp": ts(1.5), "event": "model", "model": "m", "input": [], "output": {}},
        {"timestamp": ts(2.0), "event": "step", "action": "end", "type": "solver",
         "name": "generate"},
        {"timestamp": ts(3.0), "event": "step", "action": "end", "name": "never-begun"},
        {"timestamp": ts(4.0), "event": "info", "data": {"note": "hi"}},
    ]
    events, _ = read(write(tmp_path, header(samples=[sample(id=1, events=steps)])))
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status) for e in events] == [
        ("e1", "state", "sample_init", None, "unset"),
        ("step2", "agent", "generate", None, "unset"),
        ("e3", "llm_call", "m", "step2", "unset"),
        ("e5", "other", "step", None, "unset"),
        ("e6", "other", "info", None, "unset"),
    ]
    assert (events[1].start_ns, events[1].end_ns) == (ns(1.0), ns(2.0))
    assert events[3].attrs["workbench.flags"] == ["unmatched"]
    assert events[4].result == {"note": "hi"}


def test_pending_tool_nested_events_and_unmatched_span_end(tmp_path: Path) -> None:
    evs = [
        {"timestamp": ts(1.0), "event": "tool", "id": "t1", "function": "bash",
         "arguments": '{"cmd": "ls"}', "pending": True,
         "events": [{"timestamp": ts(1.1), "event": "sandbox", "action": "exec",
                     "cmd": "ls", "result": 0, "output": "a"}]},
        {"timestamp": ts(2.0), "event": "tool", "id": "t1", "function": "bash",
         "arguments": {}, "result": [{"type": "text", "text": "[1, 2]"}]},
        end("nowhere", 3.0),
    ]
    events, _ = read(write(tmp_path, header(samples=[sample(events=evs)])))
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status,
             e.attrs.get("workbench.flags")) for e in events] == [
        ("t1", "tool_call", "bash", None, "unset", ["unanswered"]),
        ("e2", "other", "sandbox.exec", "t1", "ok", None),
        ("e3", "tool_call", "bash", None, "ok", None),  # a reused call id: positional
        ("e4", "other", "span_end", "nowhere", "unset", ["unmatched"]),
    ]
    assert events[0].args == {"cmd": "ls"}
    assert events[2].result == [1, 2]


MESSAGES = [
    {"id": "u1", "role": "user", "content": "Count files"},
    {"id": "a1", "role": "assistant", "model": "gpt-x", "content": "", "tool_calls": [
        {"id": "b1", "function": "bash", "arguments": {"cmd": "ls"}},
        {"id": "b2", "function": "bash", "arguments": {"cmd": "wc"}}]},
    {"id": "r2", "role": "tool", "tool_call_id": "b2", "function": "bash", "content": "3"},
    {"id": "r9", "role": "tool", "tool_call_id": "b9", "function": "bash", "content": "?",
     "error": {"type": "timeout", "message": "took too long"}},
    {"id": "a2", "role": "assistant", "content": "There are 3."},
]


def test_messages_when_a_sample_has_no_events(tmp_path: Path) -> None:
    log = header(samples=[sample(events=[], messages=MESSAGES, input="Count files")])
    events, [info] = read(write(tmp_path, log))
    assert [(e.event_id, e.kind, e.name, e.parent_id, e.status,
             e.attrs.get("workbench.flags")) for e in events] == [
        ("u1", "message", "user", None, "unset", None),
        ("a1", "llm_call", "gpt-x", "u1", "ok", None),  # the prompt's turn
        ("b1", "tool_call", "bash", "a1", "unset", ["unanswered"]),
        ("b2", "tool_call", "bash", "a1", "ok", None),
        ("r9", "tool_call", "bash", None, "error", ["unmatched"]),
        ("a2", "llm_call", "openai/gpt-test", "u1", "ok", None),
    ]
    assert events[3].result == "3"
    assert events[4].error == {"code": "timeout", "message": "took too long"}
    assert info.root_task == "Count files" and info.tools == []


def test_eval_zip(tmp_path: Path) -> None:
    members = {"_journal/start.json": header(), "samples/q1_epoch_1.json": sample(),
               "samples/q1_epoch_2.json": sample(epoch=2), "summaries.json": [],
               "header.json": header(status="success")}
    events, infos = read(eval_zip(tmp_path, members))
    assert [i.trace_id for i in infos] == [derived_id("inspect", RUN, "q1", 1),
                                           derived_id("inspect", RUN, "q1", 2)]
    assert len(events) == 24
    # a run still being written has only the journal's start record
    members.pop("header.json")
    events, _ = read(eval_zip(tmp_path, members))
    assert len(events) == 24


@pytest.mark.parametrize(("members", "message"), [
    ({"word/document.xml": b"<w/>"}, "not an Inspect AI log: the zip has no header.json"),
    ({"header.json": {"version": 2}}, "header.json has no `eval` section"),
    ({"header.json": header()}, "no samples"),
])
def test_zip_that_is_not_an_inspect_log(tmp_path: Path, members: dict[str, Any],
                                        message: str) -> None:
    with pytest.raises(InvalidTraceError, match=message):
        read(eval_zip(tmp_path, members))


def test_truncated_zip_and_bad_member(tmp_path: Path) -> None:
    whole = eval_zip(tmp_path, {"header.json": header(), "samples/1_epoch_1.json": sample()})
    data = whole.path.read_bytes()
    with pytest.raises(InvalidTraceError, match="not a readable zip archive"):
        read(source(tmp_path / "cut.eval", data[: len(data) // 2]))
    bad = eval_zip(tmp_path, {"header.json": header(), "samples/1_epoch_1.json": b'{"id": 1,'})
    with pytest.raises(InvalidJSONError, match=r"samples/1_epoch_1\.json"):
        read(bad)


@pytest.mark.parametrize(("doc", "message"), [
    ({"hello": "world"}, "not an Inspect AI log"),
    ([1, 2], "not an Inspect AI log"),
    (header(samples={"id": 1}), "`samples` is not a list"),
    (header(samples=[]), "no samples"),
    (header(samples=[sample(id=None)]), "sample 0 has no id"),
    (header(samples=[{"epoch": 1, "events": EVENTS}]), "sample 0 has no id"),
    (header(samples=["x"]), "sample 0 is not an object"),
    (header(samples=[sample(events=[], messages={"role": "user"})]), "messages is not a list"),
    (header(samples=[sample(events=[], messages=[])]), "no samples"),
])
def test_wrong_shape_is_invalid_trace(tmp_path: Path, doc: Any, message: str) -> None:
    with pytest.raises(InvalidTraceError, match=message) as exc:
        read(write(tmp_path, doc))
    assert exc.value.code == "INVALID_TRACE"


def test_truncated_json(tmp_path: Path) -> None:
    text = json.dumps(header(samples=[sample()]), indent=2)
    with pytest.raises(InvalidJSONError):
        read(source(tmp_path / "cut.json", text[: len(text) // 2]))


def test_odd_event_fields_are_tolerated(tmp_path: Path) -> None:
    evs = ["not an event", {"event": "model", "output": "text", "tools": "x", "error": "boom"},
           {"event": "tool", "error": "bad", "arguments": None},
           {"event": "span_begin", "id": 7, "name": None}, {"event": None}]
    events, _ = read(write(tmp_path, header(samples=[sample(events=evs)])))
    assert [(e.kind, e.name, e.status) for e in events] == [
        ("llm_call", "assistant", "error"), ("tool_call", "", "error"),
        ("other", "span_begin", "unset"), ("other", "event", "unset")]
    assert events[0].error == {"message": "boom"}
