"""Writing ATIF-v1.7 (``export --format atif``): valid against the RFC's schema, and read
back to the same tool calls, arguments and results."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.fixtures import export_rows, trace_facts
from workbench.formats import atif_rows
from workbench.ingest import ingest
from workbench.store import Store

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[2] / "corpus"
SCHEMA = json.loads((HERE / "atif-v1.7.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
REAL = sorted([*CORPUS.glob("harbor-atif/*.json"), *CORPUS.glob("inspect-scout-atif/*.json"),
               *CORPUS.glob("mini-swe-agent/*.json")])


def stored(path: Path, root: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The events (store rows) and traces row of the one trace ``path`` holds."""
    store = Store(root)
    result = ingest([path], store, workers=1, redact=False)
    [trace] = result.traces
    rows = store.sql("SELECT * FROM events WHERE trace_id = ? ORDER BY seq",
                     [trace.trace_id]).to_pylist()
    return rows, trace_facts(store, trace.trace_id)


def calls(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The tool calls of a trace as they compare across formats."""
    out = []
    for r in sorted(rows, key=lambda r: r["seq"]):
        if r["kind"] == "tool_call":
            out.append((r["name"], json.loads(r["args"]) if r["args"] else None,
                        json.loads(r["result"]) if r["result"] else None, r["status"]))
    return out


def valid(doc: dict[str, Any]) -> None:
    """Valid against the schema, plus what the RFC says and JSON Schema cannot: step ids
    count from 1 in each trajectory; tool-call ids are unique in the document and every
    ``source_call_id`` names one of its step's calls."""
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(doc)]
    assert not errors, errors[:5]
    seen: set[str] = set()

    def walk(t: dict[str, Any]) -> None:
        assert [s["step_id"] for s in t["steps"]] == list(range(1, len(t["steps"]) + 1))
        for s in t["steps"]:
            ids = [c["tool_call_id"] for c in s.get("tool_calls", [])]
            assert not seen & set(ids) and len(set(ids)) == len(ids)
            seen.update(ids)
            for r in s.get("observation", {}).get("results", []):
                assert r.get("source_call_id") is None or r["source_call_id"] in ids
        for sub in t.get("subagent_trajectories", []):
            walk(sub)
    walk(doc)


def round_trip(path: Path, tmp: Path) -> tuple[list[dict[str, Any]], dict[str, Any],
                                              list[dict[str, Any]]]:
    rows, facts = stored(path, tmp / "first")
    out = io.BytesIO()
    assert export_rows(rows, "atif", out, "t-1", facts) == len(rows)
    doc = json.loads(out.getvalue())
    (tmp / "export.json").write_bytes(out.getvalue())
    again, _ = stored(tmp / "export.json", tmp / "second")
    return rows, doc, again


@pytest.mark.parametrize("path", REAL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_trajectories_export_valid_and_read_back_the_same_calls(path: Path,
                                                                      tmp_path: Path) -> None:
    rows, doc, again = round_trip(path, tmp_path)
    valid(doc)
    assert doc["schema_version"] == "ATIF-v1.7" and doc["session_id"] == "t-1"
    assert calls(again) == calls(rows)
    kinds = [r["kind"] for r in rows]
    assert [r["kind"] for r in again].count("llm_call") == kinds.count("llm_call")


def test_the_real_v1_7_files_are_valid_against_the_schema_as_given() -> None:
    """The schema is the RFC's, not ours: the files Harbor wrote pass it unchanged."""
    for path in REAL:
        doc = json.loads(path.read_text())
        if isinstance(doc, dict) and "schema_version" in doc:
            valid(doc)


def test_agent_model_and_tools_come_from_the_traces_row() -> None:
    rows = [{"trace_id": "t", "event_id": "m0", "parent_id": None, "seq": 0,
             "kind": "message", "name": "user", "start_ns": 1_760_178_600_000_000_000,
             "end_ns": None, "status": "unset", "args": None,
             "result": json.dumps({"role": "user", "content": "hi"}), "error": None,
             "attrs": "{}", "refs": []}]
    trace = {"source_format": "claude-code", "versions": {"model": "claude-x"},
             "tools": [{"name": "Read", "description": "read a file",
                        "input_schema": {"type": "object"}}], "attrs": {}}
    doc = atif_rows(rows, "t", trace)
    valid(doc)
    assert doc["agent"] == {"name": "claude-code", "version": "unknown",
                            "model_name": "claude-x", "tool_definitions": [
                                {"type": "function", "function": {
                                    "name": "Read", "description": "read a file",
                                    "parameters": {"type": "object"}}}]}
    assert doc["steps"] == [{"step_id": 1, "source": "user", "message": "hi",
                             "timestamp": "2025-10-11T10:30:00.000000000Z"}]


def row(eid: str, seq: int, kind: str, name: str, parent: str | None = None,
        **cols: Any) -> dict[str, Any]:
    base = {"trace_id": "t", "event_id": eid, "parent_id": parent, "seq": seq, "kind": kind,
            "name": name, "start_ns": None, "end_ns": None, "status": "unset", "args": None,
            "result": None, "error": None, "attrs": "{}", "refs": []}
    for k, v in cols.items():
        base[k] = json.dumps(v) if k in ("args", "result", "error", "attrs") else v
    return base


def test_calls_without_a_model_call_sub_agents_and_other_events() -> None:
    rows = [row("p", 0, "message", "user", result={"role": "user", "content": "go"}),
            row("a", 1, "agent", "planner"),
            row("l", 2, "llm_call", "m1", "a", status="ok",
                result={"messages": [{"role": "assistant", "content": "calling"}]},
                attrs={"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2}),
            row("t1", 3, "tool_call", "search", "l", status="error", args={"q": "x"},
                error={"message": "boom"}, result="failed"),
            row("t2", 4, "tool_call", "fetch", "a", status="ok", args=["not", "an", "object"],
                result={"n": 1}),
            row("h", 5, "http", "GET /x", "p", status="ok", args={"method": "GET"})]
    doc = atif_rows(rows, "t")
    valid(doc)
    steps = doc["steps"]
    assert [(s["source"], s["message"]) for s in steps] == [
        ("user", "go"), ("system", "sub-agent planner"), ("system", "http: GET /x")]
    assert steps[2]["extra"]["workbench"]["args"] == {"method": "GET"}
    [sub] = doc["subagent_trajectories"]
    assert sub["trajectory_id"] == "a" and sub["agent"]["name"] == "planner"
    turn, dispatch = sub["steps"]
    assert turn["metrics"] == {"prompt_tokens": 10, "completion_tokens": 2}
    assert turn["observation"]["results"] == [{"source_call_id": "t1", "content": "failed",
                                               "extra": {"status": "error", "error": "boom"}}]
    assert dispatch["llm_call_count"] == 0
    assert dispatch["tool_calls"][0]["arguments"] == {"value": ["not", "an", "object"]}
    assert dispatch["observation"]["results"][0]["content"] == '{"n":1}'
    assert sub["final_metrics"] == {"total_prompt_tokens": 10, "total_completion_tokens": 2,
                                    "total_steps": 2}


def test_a_reused_call_id_gets_a_unique_one() -> None:
    rows = [row("l", 0, "llm_call", "m", status="ok", result={"messages": []}),
            row("a", 1, "tool_call", "f", "l", attrs={"gen_ai.tool.call.id": "dup"}),
            row("b", 2, "tool_call", "g", "l", attrs={"gen_ai.tool.call.id": "dup"})]
    doc = atif_rows(rows, "t")
    valid(doc)
    assert [c["tool_call_id"] for c in doc["steps"][0]["tool_calls"]] == ["dup", "b"]


# -- the round trip, on any trajectory -------------------------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_LEAF = st.none() | st.booleans() | st.integers(-10**6, 10**6) | _TEXT
_JSON = st.recursive(_LEAF, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=6)


@st.composite
def trajectories(draw: st.DrawFn) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [{"source": "user", "message": draw(_TEXT)}]
    n = 0
    for _ in range(draw(st.integers(1, 4))):
        step: dict[str, Any] = {"source": "agent", "message": draw(_TEXT)}
        cs, results = [], []
        for _ in range(draw(st.integers(0, 3))):
            n += 1
            cid = f"call_{n}"
            cs.append({"tool_call_id": cid, "function_name": draw(st.sampled_from(
                ["bash", "read_file", "search"])),
                "arguments": draw(st.dictionaries(_TEXT, _JSON, max_size=3))})
            answer = draw(st.sampled_from(["text", "json", "none", "error"]))
            if answer == "text":
                results.append({"source_call_id": cid, "content": draw(_TEXT)})
            elif answer == "json":
                results.append({"source_call_id": cid, "content": json.dumps(draw(_JSON))})
            elif answer == "error":
                results.append({"source_call_id": cid, "content": draw(_TEXT),
                                "extra": {"status": "error", "error": "failed"}})
        if cs:
            step["tool_calls"] = cs
        if len(cs) == len(results) == 1 and draw(st.booleans()):
            del results[0]["source_call_id"]  # Terminus: the step's one output, no id
        if results:
            step["observation"] = {"results": draw(st.permutations(results))}
        if draw(st.booleans()):
            step["metrics"] = {"prompt_tokens": draw(st.integers(0, 10**6)),
                               "completion_tokens": draw(st.integers(0, 10**6))}
        steps.append(step)
    return {"schema_version": draw(st.sampled_from(["ATIF-v1.2", "ATIF-v1.5", "ATIF-v1.7"])),
            "session_id": "s", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": i, **s} for i, s in enumerate(steps, 1)]}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trajectories())
def test_round_trip_keeps_calls_arguments_and_results(doc: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "in.json").write_text(json.dumps(doc))
        rows, out, again = round_trip(root / "in.json", root)
        valid(out)
        want = [(c["function_name"], c["arguments"]) for s in doc["steps"]
                for c in s.get("tool_calls", [])]
        assert [(name, args) for name, args, _, _ in calls(rows)] == want
        assert calls(again) == calls(rows)


def test_message_roles_become_step_sources() -> None:
    rows = [row(f"m{i}", i, "message", role, result={"role": role, "content": role})
            for i, role in enumerate(["system", "developer", "user", "assistant", "tool"])]
    doc = atif_rows(rows, "t")
    valid(doc)
    assert [s["source"] for s in doc["steps"]] == ["system", "system", "user", "agent", "user"]
