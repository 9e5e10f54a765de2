"""A folder (or several files) loses nothing: each file that is recognised but cannot be
read is refused with its code and hint while every other file is stored (exit 4);
``--strict`` keeps all or nothing (exit 2, the store byte-identical); a file named alone
keeps exit 2. Tool definitions are skipped, and side files merged into another file's
trace are named. The good files are real ones kept under tests/corpus."""

import json
import shutil
from pathlib import Path

import pytest

from tests.support import assert_refused, run, snapshot
from workbench.store import Store

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PACTS = CORPUS / "pact-js-filters"
SNAPS = CORPUS / "github-mcp-toolsnaps"
SPOTTER = CORPUS / "spotter-claude-code"
SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
GHP = "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"
HEAD = {"format": "workbench-events", "version": 1}
#: the events of the three pact files (3, 4 and 4 interactions)
PACT_EVENTS = {"filter-by-PACT_DESCRIPTION.json": 3, "filter-by-PACT_PROVIDER_NO_STATE.json": 4,
               "filter-by-PACT_PROVIDER_STATE.json": 4}


def ev(trace="t1", event="e1", **kw):
    return {"trace_id": trace, "event_id": event, "parent_id": None, "kind": "tool_call",
            "name": "get", "start_ns": 1, "end_ns": 2, "status": "ok", "args": {},
            "result": None, **kw}


def jsonl(*events):
    return "".join(json.dumps(e) + "\n" for e in (HEAD, *events))


@pytest.fixture
def folder(tmp_path):
    """Two real pact files and a truncated copy of the third."""
    d = tmp_path / "in"
    d.mkdir()
    names = sorted(PACT_EVENTS)
    for name in names[:2]:
        shutil.copy(PACTS / name, d / name)
    (d / "broken.json").write_bytes((PACTS / names[2]).read_bytes()[:700])
    return d


def stored(store_dir):
    return {r["source_path"]: r["events"] for r in Store(store_dir).sql(
        "SELECT source_path, events FROM traces").to_pylist()}


def test_a_broken_file_is_refused_and_every_other_file_stored(capsys, store_dir, folder):
    code, out, err = run(capsys, "ingest", folder, "--store", store_dir)
    assert code == 4
    names = sorted(PACT_EVENTS)[:2]
    assert stored(store_dir) == {str(folder / n): PACT_EVENTS[n] for n in names}
    assert f"{PACT_EVENTS[names[0]] + PACT_EVENTS[names[1]]} events in 2 traces" in out
    assert "1 file refused" in out
    broken = folder / "broken.json"
    [line, hint] = err.strip().splitlines()
    assert line.startswith(f"refused {broken}: error[INVALID_JSON]: invalid JSON at line ")
    assert hint == "  hint: the file is not complete JSON; a truncated export is the usual cause"
    assert "Traceback" not in err


def test_json_lists_the_refused_file_with_code_message_and_hint(capsys, store_dir, folder):
    code, out, _ = run(capsys, "ingest", folder, "--store", store_dir, "--json")
    assert code == 4
    doc = json.loads(out)
    assert sorted(t["events"] for t in doc["traces"]) == [3, 4]
    assert doc["events"] == 7 and doc["merged"] == [] and doc["skipped"] == []
    [refused] = doc["refused"]
    assert set(refused) == {"path", "code", "message", "hint"}
    assert (refused["path"], refused["code"]) == (str(folder / "broken.json"), "INVALID_JSON")
    assert refused["message"].startswith(f"{folder / 'broken.json'}: invalid JSON at line ")
    assert "truncated export" in refused["hint"]


def test_strict_stores_nothing_and_leaves_the_store_byte_identical(capsys, store_dir, folder,
                                                                   tmp_path):
    seed = tmp_path / "seed.json"
    shutil.copy(PACTS / sorted(PACT_EVENTS)[2], seed)
    assert run(capsys, "ingest", seed, "--store", store_dir)[0] == 0
    before = snapshot(store_dir)
    code, out, err = run(capsys, "ingest", folder, "--store", store_dir, "--strict")
    assert code == 2 and out == ""
    assert err.startswith(f"error[INVALID_JSON]: {folder / 'broken.json'}: invalid JSON")
    assert snapshot(store_dir) == before
    code, out, _ = run(capsys, "ingest", folder, "--store", store_dir, "--strict", "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "INVALID_JSON"
    assert snapshot(store_dir) == before
    # without --strict the same folder then stores the two good files
    assert run(capsys, "ingest", folder, "--store", store_dir)[0] == 4
    assert len(stored(store_dir)) == 3


def test_a_file_named_alone_keeps_exit_2(capsys, store_dir, tmp_path):
    assert run(capsys, "ingest", PACTS / sorted(PACT_EVENTS)[1], "--store", store_dir)[0] == 0
    data = (PACTS / sorted(PACT_EVENTS)[0]).read_bytes()[:700]
    assert_refused(capsys, store_dir, tmp_path / "alone.json", data, "INVALID_JSON")


def test_several_files_named_are_partial_too(capsys, store_dir, folder):
    good = sorted(PACT_EVENTS)[0]
    code, out, err = run(capsys, "ingest", folder / good, folder / "broken.json",
                         "--store", store_dir, "--json")
    assert code == 4
    doc = json.loads(out)
    assert [t["source"] for t in doc["traces"]] == [str(folder / good)]
    assert [r["code"] for r in doc["refused"]] == ["INVALID_JSON"]
    assert err.startswith(f"refused {folder / 'broken.json'}: error[INVALID_JSON]")


def test_a_missing_path_named_among_others_is_exit_2_before_anything(capsys, store_dir,
                                                                     folder):
    code, _, err = run(capsys, "ingest", folder, folder / "typo.json", "--store", store_dir)
    assert code == 2 and err.startswith("error[FILE_NOT_FOUND]")
    assert not Store(store_dir).exists or not stored(store_dir)


def test_a_refused_file_contributes_nothing_not_even_its_readable_start(capsys, store_dir,
                                                                        tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "good.jsonl").write_text(jsonl(ev("good", "g1"), ev("good", "g2")))
    # the first two events read, the third's kind is unknown: the whole file goes
    (d / "half.jsonl").write_text(jsonl(ev("half", "h1"), ev("half", "h2"),
                                        ev("half", "h3", kind="tool_cal")))
    code, out, _ = run(capsys, "ingest", d, "--store", store_dir, "--json", "--no-redact")
    assert code == 4
    doc = json.loads(out)
    assert [(t["trace_id"], t["events"]) for t in doc["traces"]] == [("good", 2)]
    assert [(r["path"], r["code"]) for r in doc["refused"]] == [
        (str(d / "half.jsonl"), "INVALID_TRACE")]
    assert Store(store_dir).sql("SELECT DISTINCT trace_id FROM events").to_pylist() == [
        {"trace_id": "good"}]


def test_files_whose_trace_breaks_a_rule_together_are_refused_together(capsys, store_dir,
                                                                       tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "a.jsonl").write_text(jsonl(ev("shared", "e1")))
    (d / "b.jsonl").write_text(jsonl(ev("shared", "e1", name="other")))  # the same id
    (d / "c.jsonl").write_text(jsonl(ev("alone", "e1")))
    code, out, _ = run(capsys, "ingest", d, "--store", store_dir, "--json", "--no-redact")
    assert code == 4
    doc = json.loads(out)
    assert [t["trace_id"] for t in doc["traces"]] == ["alone"]
    assert sorted((Path(r["path"]).name, r["code"]) for r in doc["refused"]) == [
        ("a.jsonl", "DUPLICATE_EVENT_ID"), ("b.jsonl", "DUPLICATE_EVENT_ID")]


def test_a_trace_the_store_holds_from_another_file_is_refused(capsys, store_dir, tmp_path):
    first = tmp_path / "first.jsonl"
    first.write_text(jsonl(ev("t1", "e1")))
    assert run(capsys, "ingest", first, "--store", store_dir, "--no-redact")[0] == 0
    d = tmp_path / "in"
    d.mkdir()
    (d / "again.jsonl").write_text(jsonl(ev("t1", "e2")))
    (d / "new.jsonl").write_text(jsonl(ev("t2", "e1")))
    code, out, _ = run(capsys, "ingest", d, "--store", store_dir, "--json", "--no-redact")
    assert code == 4
    doc = json.loads(out)
    assert [t["trace_id"] for t in doc["traces"]] == ["t2"]
    assert [(Path(r["path"]).name, r["code"]) for r in doc["refused"]] == [
        ("again.jsonl", "TRACE_EXISTS")]


def test_refused_messages_are_masked(capsys, store_dir, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "good.jsonl").write_text(jsonl(ev("good", "g1")))
    (d / "bad.jsonl").write_text(jsonl(ev("bad", "b1", kind=GHP)))
    code, out, err = run(capsys, "ingest", d, "--store", store_dir, "--json")
    assert code == 4
    [refused] = json.loads(out)["refused"]
    assert refused["code"] == "INVALID_TRACE" and "unknown kind" in refused["message"]
    assert GHP not in out and GHP not in err and "«github-pat»" in refused["message"]


def test_tool_definitions_in_a_folder_are_skipped(capsys, store_dir, tmp_path):
    d = tmp_path / "in"
    shutil.copytree(SNAPS, d)
    shutil.copy(PACTS / sorted(PACT_EVENTS)[0], d / "pact.json")
    code, out, _ = run(capsys, "ingest", d, "--store", store_dir, "--json")
    assert code == 0
    doc = json.loads(out)
    assert [Path(t["source"]).name for t in doc["traces"]] == ["pact.json"]
    snaps = sorted(p.name for p in SNAPS.glob("*.snap"))
    assert len(snaps) == 5
    assert sorted((Path(s["path"]).name, s["reason"]) for s in doc["skipped"]
                  if s["path"].endswith(".snap")) == [
        (n, "a tool definition: use `workbench contract import`") for n in snaps]


def test_a_tool_definition_named_alone_is_exit_2_with_the_hint(capsys, store_dir):
    snap = SNAPS / "get_gist.snap"
    code, out, err = run(capsys, "ingest", snap, "--store", store_dir)
    assert code == 2 and out == ""
    assert err.startswith(f"error[TOOL_DEFINITION]: {snap}: an MCP tool, not a trace")
    assert "hint: a tool definition: use `workbench contract import`" in err
    # and contract import reads it
    code, out, _ = run(capsys, "contract", "import", snap, "--json")
    assert code == 0 and "get_gist" in out


@pytest.mark.parametrize(("doc", "what"), [
    ({"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "x"},
     "a tools/list result"),
    ([{"type": "function", "function": {"name": "a", "parameters": {}}}],
     "an OpenAI function tool list"),
    ([{"name": "a", "description": "d", "input_schema": {"type": "object"}}],
     "an Anthropic tool list"),
    ({"tools": [{"functionDeclarations": [{"name": "a"}]}]}, "a tools/list result"),
    ({"version": 1, "tool": "projects.archive", "input": {"type": "object"}},
     "a tool descriptor"),
    ({"version": 1, "tools": [{"tool": "a.b", "input": {"type": "object"}}]},
     "a tool descriptor manifest"),
    ({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}},
     "an OpenAPI document"),
])
def test_each_kind_of_tool_definition_is_told(capsys, store_dir, tmp_path, doc, what):
    path = tmp_path / "defs.json"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "ingest", path, "--store", store_dir)
    assert code == 2 and err.startswith(f"error[TOOL_DEFINITION]: {path}: {what}, not"), err


def test_a_session_recording_holding_a_tools_list_exchange_is_a_trace(capsys, store_dir,
                                                                      tmp_path):
    tool = {"name": "echo", "inputSchema": {"type": "object"}}
    session = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "echo", "arguments": {"text": "hi"}}},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "hi"}]}},
    ]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    code, out, _ = run(capsys, "ingest", path, "--store", store_dir, "--json")
    assert code == 0
    [trace] = json.loads(out)["traces"]
    assert (trace["format"], trace["tool_calls"]) == ("mcp", 1)


def test_a_tool_definition_is_read_as_the_format_named_with_format(capsys, store_dir):
    code, out, _ = run(capsys, "ingest", SNAPS / "get_gist.snap", "--format", "mcp",
                       "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["traces"][0]["format"] == "mcp"


def test_a_sub_agent_side_file_is_named_as_merged(capsys, store_dir):
    code, out, _ = run(capsys, "ingest", SPOTTER, "--store", store_dir, "--json")
    assert code == 0
    doc = json.loads(out)
    session = str(SPOTTER / f"{SESSION}.jsonl")
    sub = str(SPOTTER / SESSION / "subagents" / "agent-aac57f5.jsonl")
    assert [(t["trace_id"], t["source"], t["events"]) for t in doc["traces"]] == [
        (SESSION, session, 73)]
    assert doc["merged"] == [{"path": sub, "into": SESSION, "source": session}]
    code, out, _ = run(capsys, "ingest", SPOTTER, "--store", store_dir.parent / "again")
    assert code == 0
    assert f"merged {sub} into {SESSION}  <- {session}" in out


def test_a_folder_of_only_broken_files_stores_nothing_and_says_so(capsys, store_dir, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "cut.json").write_bytes((PACTS / sorted(PACT_EVENTS)[0]).read_bytes()[:700])
    code, out, err = run(capsys, "ingest", d, "--store", store_dir)
    assert code == 4
    assert out.strip() == "1 file refused (listed on stderr); nothing stored"
    assert err.startswith(f"refused {d / 'cut.json'}: error[INVALID_JSON]")


def test_a_tool_definition_named_with_other_files_is_refused(capsys, store_dir):
    pact = PACTS / sorted(PACT_EVENTS)[0]
    code, out, err = run(capsys, "ingest", pact, SNAPS / "get_gist.snap", "--store", store_dir,
                         "--json")
    assert code == 4
    doc = json.loads(out)
    assert [t["source"] for t in doc["traces"]] == [str(pact)]
    assert [(r["path"], r["code"], r["hint"]) for r in doc["refused"]] == [
        (str(SNAPS / "get_gist.snap"), "TOOL_DEFINITION",
         f"a tool definition: use `workbench contract import` {SNAPS / 'get_gist.snap'}")]
    assert err.startswith(f"refused {SNAPS / 'get_gist.snap'}: error[TOOL_DEFINITION]: an MCP")
