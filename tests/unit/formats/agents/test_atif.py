"""Adapter ``atif``: ATIF trajectories, what each version from v1.2 to v1.7 added."""

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
from workbench.formats.chat import OPENAI
from workbench.model import FLAGS_KEY, InvalidJSONError, InvalidTraceError


def write(tmp_path: Path, doc: Any, name: str = "trajectory.json") -> SourceFile:
    return source(tmp_path / name, json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], TraceInfo]:
    out = list(ATIF.read(src))
    infos = [e for e in out if isinstance(e, TraceInfo)]
    assert len(infos) == 1
    return [e for e in out if isinstance(e, RawEvent)], infos[0]


def traj(*steps: dict[str, Any], version: str = "ATIF-v1.7", **root: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"schema_version": version, "session_id": "s-1",
                           "agent": {"name": "terminus-2", "version": "2.0.0",
                                     "model_name": "openai/gpt-4o"}}
    doc.update(root)
    doc["steps"] = [{"step_id": n, **s} for n, s in enumerate(steps, 1)]
    return doc


def user(text: Any) -> dict[str, Any]:
    return {"source": "user", "message": text}


def agent(text: str = "", calls: list[dict[str, Any]] | None = None,
          results: list[dict[str, Any]] | None = None, **more: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent", "message": text, **more}
    if calls is not None:
        step["tool_calls"] = calls
    if results is not None:
        step["observation"] = {"results": results}
    return step


def call(cid: str, fn: str = "bash_command", **args: Any) -> dict[str, Any]:
    return {"tool_call_id": cid, "function_name": fn, "arguments": args}


def by_id(events: list[RawEvent]) -> dict[str, RawEvent]:
    return {e.event_id: e for e in events}


def test_detected_from_schema_version_and_nothing_else_claims_it(tmp_path: Path) -> None:
    src = write(tmp_path, traj(user("hi"), version="ATIF-v1.2"))
    assert ATIF.sniff(src) == 98
    for other in (MINI_SWE_AGENT, SWE_AGENT, OPENAI):
        assert other.sniff(src) == 0, other.name
    # no schema_version but the shape of steps: less sure
    bare = traj(user("hi"))
    del bare["schema_version"]
    assert ATIF.sniff(write(tmp_path, bare, "bare.json")) == 60
    # other JSON objects are not ATIF
    assert ATIF.sniff(write(tmp_path, {"steps": [1, 2]}, "steps.json")) == 0
    assert ATIF.sniff(write(tmp_path, [{"role": "user", "content": "x"}], "list.json")) == 0


def test_steps_become_messages_turns_and_calls_paired_by_source_call_id(tmp_path: Path) -> None:
    doc = traj({"source": "system", "message": "You are terse."}, user("Make hello.txt"),
               agent("Creating it.", [call("c1", keystrokes="echo hi > hello.txt\n"),
                                      call("c2", "read_file", path="hello.txt")],
                     # results in another order than the calls
                     [{"source_call_id": "c2", "content": "hi\n"},
                      {"source_call_id": "c1", "content": '{"exit": 0}'}],
                     timestamp="2025-10-11T10:30:02Z", reasoning_content="two calls",
                     metrics={"prompt_tokens": 520, "completion_tokens": 80,
                              "cached_tokens": 200, "cost_usd": 0.00045}),
               agent("Done."))
    events, info = read(write(tmp_path, doc))
    assert [(e.event_id, e.kind, e.name, e.parent_id) for e in events] == [
        ("step-1", "message", "system", None), ("step-2", "message", "user", None),
        ("step-3", "llm_call", "openai/gpt-4o", "step-2"),
        ("c1", "tool_call", "bash_command", "step-3"), ("c2", "tool_call", "read_file", "step-3"),
        ("step-4", "llm_call", "openai/gpt-4o", "step-2")]
    ev = by_id(events)
    assert ev["step-2"].result == {"role": "user", "content": "Make hello.txt"}
    assert ev["step-3"].result == {"messages": [{"role": "assistant", "content": "Creating it.",
                                                 "reasoning_content": "two calls"}]}
    assert ev["step-3"].attrs["gen_ai.usage.input_tokens"] == 520
    assert ev["step-3"].attrs["gen_ai.usage.output_tokens"] == 80
    assert ev["step-3"].attrs["gen_ai.usage.cache_read.input_tokens"] == 200
    assert ev["step-3"].attrs["atif.metrics"] == {"cost_usd": 0.00045}
    assert ev["step-3"].start_ns == 1_760_178_602_000_000_000
    assert ev["c1"].args == {"keystrokes": "echo hi > hello.txt\n"}
    assert ev["c1"].result == {"exit": 0} and ev["c1"].status == "ok"
    assert ev["c2"].result == "hi\n" and ev["c1"].attrs["gen_ai.tool.call.id"] == "c1"
    assert info.root_task == "Make hello.txt"
    assert info.versions == {"agent": {"name": "terminus-2", "version": "2.0.0"},
                             "model": "openai/gpt-4o"}
    assert info.attrs["atif.schema_version"] == "ATIF-v1.7"


def test_unanswered_calls_and_results_naming_no_call_are_kept_and_flagged(tmp_path: Path) -> None:
    doc = traj(user("go"), agent("", [call("c1"), call("c2")],
                                 [{"source_call_id": "c1", "content": "ok"},
                                  {"source_call_id": "zz", "content": "stray"}]))
    events, _ = read(write(tmp_path, doc))
    ev = by_id(events)
    assert ev["c2"].status == "unset" and ev["c2"].attrs[FLAGS_KEY] == ["unanswered"]
    stray = [e for e in events if e.attrs.get(FLAGS_KEY) == ["unmatched"]]
    assert [(s.kind, s.result, s.attrs["gen_ai.tool.call.id"]) for s in stray] == [
        ("tool_call", "stray", "zz")]


def test_results_without_source_call_id_pair_in_order_only_when_as_many(tmp_path: Path) -> None:
    doc = traj(user("go"),
               # Terminus: one call, its terminal output a result naming no call
               agent("", [call("a1")], [{"content": "$ ls\nfile"}]),
               # two calls, one output: which call it answers is not said
               agent("", [call("b1"), call("b2")], [{"content": "both"}]),
               # no calls at all (an action in the message text)
               agent("run ls", None, [{"content": "file"}]))
    events, _ = read(write(tmp_path, doc))
    ev = by_id(events)
    assert ev["a1"].result == "$ ls\nfile" and ev["a1"].attrs["atif.paired"] == "by-position"
    assert ev["b1"].status == ev["b2"].status == "unset"
    loose = [(e.parent_id, e.kind, e.name, e.result) for e in events if e.kind == "other"]
    assert loose == [("step-3", "other", "observation", "both"),
                     ("step-4", "other", "observation", "file")]


def test_v1_2_system_steps_with_observations_and_file_subagents(tmp_path: Path) -> None:
    ref = {"session_id": "sum-1", "trajectory_path": "trajectory.summarization-1.json",
           "extra": {"summary": "Summary generation"}}
    doc = traj(user("go"), {"source": "system", "message": "Performed context summarization",
                            "observation": {"results": [{"subagent_trajectory_ref": [ref]}]}},
               version="ATIF-v1.2")
    events, _ = read(write(tmp_path, doc))
    obs, run = events[2], events[3]
    assert (obs.kind, obs.parent_id, obs.result) == ("other", "step-2", None)
    assert (run.kind, run.parent_id, run.status) == ("agent", obs.event_id, "unset")
    assert run.attrs["atif.trajectory_path"] == "trajectory.summarization-1.json"
    assert run.attrs["atif.extra"] == {"summary": "Summary generation"}


def test_v1_3_v1_4_token_ids_and_logprobs_are_kept(tmp_path: Path) -> None:
    metrics = {"prompt_tokens": 3, "completion_tokens": 2, "prompt_token_ids": [1, 2, 3],
               "completion_token_ids": [7, 8], "logprobs": [-0.1, -0.2],
               "extra": {"reasoning_tokens": 1}}
    events, _ = read(write(tmp_path, traj(user("q"), agent("a", metrics=metrics),
                                          version="ATIF-v1.4")))
    assert events[1].attrs["atif.metrics"] == {
        "prompt_token_ids": [1, 2, 3], "completion_token_ids": [7, 8],
        "logprobs": [-0.1, -0.2], "extra": {"reasoning_tokens": 1}}


def test_v1_5_tool_definitions_are_the_trace_tools(tmp_path: Path) -> None:
    tool = {"type": "function", "function": {"name": "financial_search", "parameters": {
        "type": "object", "properties": {"ticker": {"type": "string"}}}}}
    doc = traj(user("q"), version="ATIF-v1.5")
    doc["agent"]["tool_definitions"] = [tool]
    doc["final_metrics"] = {"total_prompt_tokens": 1120, "total_completion_tokens": 124,
                            "total_cost_usd": 0.00078}
    _, info = read(write(tmp_path, doc))
    assert info.tools == [tool]
    assert "tool_definitions" not in info.attrs["atif.agent"]
    assert info.attrs["gen_ai.usage.input_tokens"] == 1120
    assert info.attrs["atif.final_metrics"]["total_cost_usd"] == 0.00078


def test_v1_6_multimodal_messages_and_results(tmp_path: Path) -> None:
    parts = [{"type": "text", "text": "What is in this image?"},
             {"type": "image", "source": {"media_type": "image/png", "path": "images/a.png"}}]
    doc = traj(user(parts), agent("", [call("v1", "view")],
                                  [{"source_call_id": "v1", "content": parts}]),
               version="ATIF-v1.6")
    events, info = read(write(tmp_path, doc))
    assert events[0].result == {"role": "user", "content": parts}
    assert by_id(events)["v1"].result == parts
    assert info.root_task == "What is in this image?"


def test_v1_7_embedded_subagents_hang_under_the_call_that_started_them(tmp_path: Path) -> None:
    sub = {"schema_version": "ATIF-v1.7", "trajectory_id": "sub-a",
           "agent": {"name": "researcher", "version": "1"},
           "steps": [{"step_id": 1, "source": "user", "message": "find prices"},
                     {"step_id": 2, "source": "agent", "message": "",
                      # the same call id as the parent's: still two events
                      "tool_calls": [call("c1", "search", q="GOOGL")],
                      "observation": {"results": [{"source_call_id": "c1",
                                                   "content": "185.35"}]}}]}
    orphan = {"schema_version": "ATIF-v1.7", "trajectory_id": "sub-b",
              "agent": {"name": "idle", "version": "1"},
              "steps": [{"step_id": 1, "source": "agent", "message": "nothing"}]}
    doc = traj(user("price?"),
               agent("", [{**call("c1", "delegate", task="find prices"),
                           "extra": {"timeout": 30}}],
                     [{"source_call_id": "c1", "content": "185.35",
                       "extra": {"retrieval_score": 0.9},
                       "subagent_trajectory_ref": [{"trajectory_id": "sub-a"}]}]),
               agent("done", llm_call_count=0),
               subagent_trajectories=[sub, orphan], trajectory_id="root")
    events, info = read(write(tmp_path, doc))
    got = [(e.event_id, e.kind, e.name, e.parent_id) for e in events]
    assert got[:3] == [("step-1", "message", "user", None),
                       ("step-2", "llm_call", "openai/gpt-4o", "step-1"),
                       ("step-2-call0", "tool_call", "delegate", "step-2")]
    run = events[3]
    assert (run.kind, run.name, run.parent_id) == ("agent", "researcher", "step-2-call0")
    inner = [(e.kind, e.parent_id) for e in events[4:7]]
    assert inner == [("message", run.event_id), ("llm_call", events[4].event_id),
                     ("tool_call", events[5].event_id)]
    assert events[6].result == "185.35" and events[6].name == "search"
    ev = by_id(events)
    assert ev["step-2-call0"].attrs["atif.extra"] == {"timeout": 30}
    assert ev["step-2-call0"].attrs["atif.result_extra"] == {"retrieval_score": 0.9}
    dispatch = ev["step-3"]
    assert (dispatch.kind, dispatch.name, dispatch.attrs["atif.llm_call_count"]) == (
        "other", "dispatch", 0)
    idle = [e for e in events if e.kind == "agent" and e.name == "idle"]
    assert len(idle) == 1 and idle[0].parent_id is None  # embedded, never referenced: kept
    assert len({e.event_id for e in events}) == len(events)
    assert info.attrs["atif.trajectory_id"] == "root"


def test_extra_fields_go_to_attrs(tmp_path: Path) -> None:
    step = agent("x", extra={"context_management": {"type": "compaction"}},
                 is_copied_context=True, reasoning_effort="low", vendor_field=1)
    events, info = read(write(tmp_path, traj(user("q"), step, notes="n", extra={"k": 1},
                                             custom_root=[1])))
    attrs = events[1].attrs
    assert attrs["atif.extra"] == {"context_management": {"type": "compaction"}}
    assert attrs["atif.is_copied_context"] is True and attrs["atif.reasoning_effort"] == "low"
    assert attrs["atif.vendor_field"] == 1 and attrs["atif.step_id"] == 2
    assert info.attrs["atif.notes"] == "n" and info.attrs["atif.extra"] == {"k": 1}
    assert info.attrs["atif.custom_root"] == [1]


@pytest.mark.parametrize(("doc", "words"), [
    ([1, 2], "expected a JSON object"),
    ({"schema_version": "ATIF-v2.0", "agent": {}, "steps": []}, "not an ATIF 1.x version"),
    ({"schema_version": "ATIF-v1.7", "agent": {}, "steps": {}}, "'steps' is not a list"),
    ({"schema_version": "ATIF-v1.7", "agent": {}, "steps": [3]}, "step 0 is not an object"),
    ({"schema_version": "ATIF-v1.7", "agent": {}, "steps": []}, "no steps"),
    ({"schema_version": "ATIF-v1.7", "agent": {},
      "steps": [{"step_id": 1, "source": "agent", "message": "", "tool_calls": "x"}]},
     "'tool_calls' is not a list"),
])
def test_bad_trajectories_are_refused_with_a_hint(tmp_path: Path, doc: Any, words: str) -> None:
    with pytest.raises(InvalidTraceError, match=words) as exc:
        list(ATIF.read(write(tmp_path, doc)))
    assert exc.value.hint and "ATIF" in exc.value.hint


def test_truncated_json_is_invalid_json(tmp_path: Path) -> None:
    text = json.dumps(traj(user("q")))
    with pytest.raises(InvalidJSONError):
        list(ATIF.read(source(tmp_path / "t.json", text[:-5])))


# --- odd values anywhere in a real trajectory: a clear error or events, never a crash --

_REAL = [json.loads(p.read_text()) for p in sorted(
    (Path(__file__).resolve().parents[3] / "corpus").glob("*-atif/*.json"))]
_V17 = traj(user("q"), agent("", [call("c1", "delegate", t="x")],
                             [{"source_call_id": "c1", "content": "ok",
                               "subagent_trajectory_ref": [{"trajectory_id": "s"}]}]),
            subagent_trajectories=[{"schema_version": "ATIF-v1.7", "trajectory_id": "s",
                                    "agent": {"name": "sub", "version": "1"},
                                    "steps": [{"step_id": 1, "source": "user",
                                               "message": "x"}]}])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(range(len(_REAL) + 1)), st.data())
def test_odd_values_never_crash(tmp_path_factory: pytest.TempPathFactory, n: int,
                                data: st.DataObject) -> None:
    doc = with_odd_values(data, [*_REAL, _V17][n])
    assert_reads_or_refuses(ATIF, write(tmp_path_factory.mktemp("odd"), doc))
