"""Writing imported descriptors: one YAML file per tool, all or nothing, never over a
different file unless forced; the manifest reads back; the tool definitions traces
recorded import like files."""

import json

import pytest
import yaml

from tests.support import run
from workbench.contracts import (
    DescriptorExistsError,
    DuplicateToolError,
    ToolSet,
    descriptor_from_dict,
    dump_yaml,
    import_tools,
    manifest,
    read_document,
    read_tools,
    write_descriptors,
)
from workbench.model import InputError, NotFoundError
from workbench.store import Store


def _set(*names, description="d"):
    return ToolSet(descriptor_from_dict({"version": 1, "tool": n, "description": description,
                                         "input": {"type": "object"}}) for n in names)


def test_one_file_per_tool_in_field_order_and_unchanged_files_left_alone(tmp_path):
    out = tmp_path / "contracts"
    written = write_descriptors(_set("orders.find", "billing/refund"), out)
    assert [(w.tool, w.status) for w in written] == [("orders.find", "written"),
                                                     ("billing/refund", "written")]
    assert sorted(p.name for p in out.iterdir()) == ["billing%2Frefund.yaml", "orders.find.yaml"]
    text = (out / "orders.find.yaml").read_text()
    assert list(yaml.safe_load(text)) == ["version", "tool", "description", "input"]
    assert list(read_tools([out])) == ["billing/refund", "orders.find"]
    again = write_descriptors(_set("orders.find", "billing/refund"), out)
    assert {w.status for w in again} == {"unchanged"}


def test_a_different_file_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "c"
    write_descriptors(_set("b"), out)
    before = (out / "b.yaml").read_bytes()
    with pytest.raises(DescriptorExistsError) as info:
        write_descriptors(_set("a", "b", description="new"), out)
    assert info.value.code == "DESCRIPTOR_EXISTS" and "b.yaml" in str(info.value)
    assert sorted(p.name for p in out.iterdir()) == ["b.yaml"]  # a.yaml was not written
    assert (out / "b.yaml").read_bytes() == before
    written = write_descriptors(_set("a", "b", description="new"), out, force=True)
    assert [w.status for w in written] == ["written", "replaced"]


def test_an_out_that_is_a_file_or_names_that_clash_by_case(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        write_descriptors(_set("a"), tmp_path / "f")
    with pytest.raises(InputError) as info:
        write_descriptors(_set("Find", "find"), tmp_path / "new")
    assert info.value.code == "OUT_CLASH" and not (tmp_path / "new").exists()


def test_the_manifest_reads_back_and_shared_schemas_are_written_out():
    shared = {"type": "object", "properties": {"id": {"type": "string"}}}
    tools = ToolSet(descriptor_from_dict({"version": 1, "tool": n, "input": shared})
                    for n in ("a", "b"))
    text = dump_yaml(manifest(tools))
    assert "&id" not in text and "*id" not in text  # no YAML anchors
    assert {d.tool: d for d in read_document(yaml.safe_load(text), "m.yaml")} == dict(tools)


def _session(path, description, query="x"):
    tools = [{"name": "lookup", "description": description,
              "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}]
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "lookup", "arguments": {"q": query}}},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}]
    path.write_text("\n".join(json.dumps(m) for m in messages) + "\n")
    return path


def _ingest(capsys, store, *files):
    code, out, err = run(capsys, "ingest", *files, "--store", store, "--json")
    assert code == 0, err
    return [t["trace_id"] for t in json.loads(out)["traces"]]


def test_tool_definitions_recorded_in_traces_import_like_files(capsys, tmp_path):
    store = tmp_path / "store"
    a, b = _ingest(capsys, store, _session(tmp_path / "a.jsonl", "Look up."),
                   _session(tmp_path / "b.jsonl", "Look up.", query="y"))
    tools = import_tools([], store=Store(store))
    (d,) = tools.values()  # the same definition in both traces: once
    assert d.tool == "lookup" and d.source.format == "mcp"
    assert d.source.file == f"store:{min(a, b)}"
    assert list(import_tools([], store=Store(store), traces=[b[:8]])) == ["lookup"]


def test_a_tool_recorded_differently_in_two_traces_is_refused(capsys, tmp_path):
    store = tmp_path / "store"
    _ingest(capsys, store, _session(tmp_path / "a.jsonl", "Look up."),
            _session(tmp_path / "b.jsonl", "Look up, v2."))
    with pytest.raises(DuplicateToolError, match="defined differently in store:"):
        import_tools([], store=Store(store))


def test_no_store_or_a_trace_without_tools(capsys, tmp_path):
    with pytest.raises(NotFoundError) as info:
        import_tools([], store=Store(tmp_path / "none"))
    assert info.value.code == "STORE_NOT_FOUND"
    store = tmp_path / "store"
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                 "params": {"name": "x"}}) + "\n")
    (trace,) = _ingest(capsys, store, calls)
    with pytest.raises(NotFoundError) as info:
        import_tools([], store=Store(store), traces=[trace])
    assert info.value.code == "NO_TOOLS" and trace in str(info.value)
