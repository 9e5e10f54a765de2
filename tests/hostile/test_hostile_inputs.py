"""Hostile files for the commands that read a tool contract or a trace file: each ends
in exit 2 with its code and a hint, never an internal error, and writes nothing. The
cases that used to exhaust the stack, the memory or the time (a 900-deep schema,
``/dev/zero``, a FIFO, YAML aliases) run in a child process under a memory and a CPU
bound (``resource.setrlimit``), killed past a wall-clock bound far above normal."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.cases import REPO, laughs
from tests.support import no_internal_error, run, snapshot
from workbench.contracts import Call, Descriptor, SchemaInvalidError, ToolSet, check_calls

#: the child's bounds: address space, CPU seconds and a wall clock only to stop a hang
MEMORY = 1 << 30
CPU = 60
WALL = 120
EXAMPLES = REPO / "traces" / "examples"


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU, CPU))


def child(*argv: object, cwd: Path) -> tuple[int, str, str]:
    """``workbench ARGV`` in a child process within ``MEMORY`` and ``CPU``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "workbench", *map(str, argv)], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=WALL,
                          preexec_fn=_bounded)
    no_internal_error(proc.returncode, proc.stdout, proc.stderr, argv)
    return proc.returncode, proc.stdout, proc.stderr


def refused_in_child(tmp_path: Path, code: str, *argv: object) -> str:
    before = snapshot(tmp_path)
    rc, out, err = child(*argv, cwd=tmp_path)
    assert rc == 2, err
    assert err.startswith(f"error[{code}]: "), err
    assert "hint:" in err and "Traceback" not in err
    assert out == ""
    assert snapshot(tmp_path) == before  # nothing written, not even --out
    assert not (tmp_path / "out").exists()
    return err


def mcp_list(schema_text: str) -> str:
    """An MCP ``tools/list`` result of one tool whose input schema is ``schema_text``."""
    return '{"tools": [{"name": "t", "inputSchema": ' + schema_text + "}]}"


def nested(key: str, levels: int) -> str:
    """A schema ``levels`` JSON levels deep through ``key`` (``not``, ``items``)."""
    return f'{{"{key}": ' * (levels - 1) + "{}" + "}" * (levels - 1)


@pytest.mark.parametrize("key", ["not", "items"])
def test_contract_import_of_a_900_deep_schema_is_refused_by_its_limit(tmp_path, key):
    src = tmp_path / "deep.json"
    src.write_text(mcp_list('{"type": "object", "properties": {"a": '
                            + nested(key, 900) + "}}"))
    err = refused_in_child(tmp_path, "LIMIT_EXCEEDED", "contract", "import", src,
                           "--out", tmp_path / "out")
    assert "contract_depth = 128" in err and "deep.json" in err


def test_a_schema_at_the_depth_limit_is_read_and_checked(capsys, tmp_path):
    """The known answer at the edge: a document exactly ``contract_depth`` deep is
    imported and read back, one level more is refused."""
    # {"tools": [{"inputSchema": ...}]} is three levels above the schema
    at_limit, beyond = (mcp_list(nested("not", n)) for n in (128 - 3, 128 - 2))
    (tmp_path / "ok.json").write_text(at_limit)
    (tmp_path / "deep.json").write_text(beyond)
    code, _, err = run(capsys, "contract", "import", tmp_path / "ok.json", "--out",
                         tmp_path / "out")
    assert code == 0, err
    code, out, err = run(capsys, "contract", "import", tmp_path / "out", "--json")
    assert code == 0, err
    assert [t["tool"] for t in json.loads(out)["tools"]] == ["t"]
    code, _, err = run(capsys, "contract", "import", tmp_path / "deep.json")
    assert code == 2 and err.startswith("error[LIMIT_EXCEEDED]: "), err


def test_a_stored_tools_document_too_deep_is_refused_by_its_limit(capsys, tmp_path):
    """``--from-store`` reads the tool definitions a trace recorded (an MCP session's
    ``tools/list``): the same bound as a file."""
    tools = json.loads(mcp_list(nested("items", 150)))["tools"]
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}]
    src = tmp_path / "session.jsonl"
    src.write_text("\n".join(json.dumps(m) for m in messages) + "\n")
    store = tmp_path / "store"
    code, _, err = run(capsys, "ingest", src, "--store", store, "--format", "mcp")
    assert code == 0, err
    code, _, err = run(capsys, "contract", "import", "--from-store", "--store", store)
    assert code == 2 and err.startswith("error[LIMIT_EXCEEDED]: "), err
    assert "contract_depth" in err and "store:" in err


def _ref_chain(n: int) -> dict[str, object]:
    """An OpenAPI document whose request body is a chain of ``n`` schemas, each naming
    the next: shallow as written, ``3n`` levels deep with its references inlined."""
    schemas: dict[str, object] = {
        f"A{i}": {"type": "object", "properties": {"x": {"$ref": f"#/components/schemas/A{i + 1}"}}}
        for i in range(n)}
    schemas[f"A{n}"] = {"type": "string"}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A0"}}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": {"operationId": "op", "requestBody": body,
                                      "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": schemas}}


def test_a_ref_chain_deeper_than_the_limit_once_inlined_is_refused(capsys, tmp_path):
    """Exporters and lint inline references: a 400-link chain was a RecursionError in
    `contract lint` and `contract export --provider gemini`; it is refused at reading."""
    src = tmp_path / "api.json"
    src.write_text(json.dumps(_ref_chain(400)))
    err = refused_in_child(tmp_path, "LIMIT_EXCEEDED", "contract", "import", src,
                           "--out", tmp_path / "out")
    assert "with its $refs followed" in err and "contract_depth" in err
    src.write_text(json.dumps(_ref_chain(20)))  # the known answer: a short chain is fine
    code, _, err = run(capsys, "contract", "import", src, "--out", tmp_path / "out")
    assert code == 0, err
    for provider in ("openai", "gemini"):
        code, _, err = run(capsys, "contract", "export", tmp_path / "out", "--provider",
                           provider, "--lossy")
        assert code == 0, err


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_contract_import_of_a_device_is_not_a_file(tmp_path, device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    err = refused_in_child(tmp_path, "NOT_A_FILE", "contract", "import", device,
                           "--out", tmp_path / "out")
    assert device in err


def test_contract_import_of_a_fifo_is_not_a_file_and_does_not_wait(tmp_path):
    fifo = tmp_path / "tools.json"
    os.mkfifo(fifo)
    err = refused_in_child(tmp_path, "NOT_A_FILE", "contract", "import", fifo)
    assert "tools.json" in err and "not a regular file" in err


def test_contract_import_of_a_file_beyond_its_byte_limit(tmp_path):
    src = tmp_path / "big.json"
    with open(src, "wb") as f:  # sparse: 64 MiB and one byte, of nothing
        f.truncate((64 << 20) + 1)
    err = refused_in_child(tmp_path, "LIMIT_EXCEEDED", "contract", "import", src)
    assert "contract_bytes" in err


@pytest.mark.parametrize(("case", "text", "limit"), [
    ("billion-laughs", laughs(first="a") + "tools:\n- name: t\n  inputSchema: "
     "{type: object, properties: {a: {enum: *a8}}}\n", "yaml_alias_nodes"),
    ("recursive-alias", "tools: &i\n- name: t\n  inputSchema: {type: object, properties: "
     "{a: {enum: *i}}}\n", "contract_depth"),
    ("deep-yaml", "tools:\n- name: t\n  inputSchema: " + "[" * 500 + "]" * 500 + "\n",
     "contract_depth"),
    ("huge-integer", "tools:\n- name: t\n  inputSchema: {type: object, maximum: "
     + "9" * 5_000 + "}\n", "integer_digits"),
])
def test_contract_import_of_hostile_yaml_is_refused_by_its_limit(tmp_path, case, text,
                                                                  limit):
    src = tmp_path / "tools.yaml"
    src.write_text(text)
    err = refused_in_child(tmp_path, "LIMIT_EXCEEDED", "contract", "import", src,
                           "--out", tmp_path / "out")
    assert limit in err, case


_LOOPS = {
    "allof-pair": {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]},
                             "b": {"$ref": "#/$defs/a"}},
                   "properties": {"x": {"$ref": "#/$defs/a"}}},
    "anyof-self": {"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}},
                   "properties": {"x": {"$ref": "#/$defs/a"}}},
    "root-allof": {"properties": {"x": {"$ref": "#"}}, "allOf": [{"$ref": "#"}]},
    "not-self": {"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}},
                 "properties": {"x": {"$ref": "#/$defs/a"}}},
}


@pytest.mark.parametrize("case", sorted(_LOOPS))
def test_contract_import_refuses_a_ref_loop_that_consumes_nothing(capsys, tmp_path, case):
    src = tmp_path / "tools.json"
    src.write_text(mcp_list(json.dumps({"type": "object", **_LOOPS[case]})))
    code, out, err = run(capsys, "contract", "import", src, "--out", tmp_path / "out")
    assert code == 2 and out == ""
    assert err.startswith("error[SCHEMA_INVALID]: "), err
    assert "tool t, input" in err and "hint:" in err
    assert not (tmp_path / "out").exists()


def test_a_recursive_schema_through_properties_is_still_imported(capsys, tmp_path):
    """The known answer beside the refusals: a tree whose children are trees."""
    tree = {"type": "object", "$defs": {"node": {"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "properties": {"root": {"$ref": "#/$defs/node"}}}
    src = tmp_path / "tools.json"
    src.write_text(mcp_list(json.dumps(tree)))
    code, _, err = run(capsys, "contract", "import", src, "--out", tmp_path / "out")
    assert code == 0, err
    assert (tmp_path / "out" / "t.yaml").is_file()


def test_contract_check_of_a_stored_descriptor_with_a_loop_is_schema_invalid(capsys,
                                                                            tmp_path):
    """A descriptor file written before loops were refused (or by hand): `contract
    check` ends in SCHEMA_INVALID, not a RecursionError."""
    import shutil

    folder = tmp_path / "contracts"
    shutil.copytree(EXAMPLES / "contracts" / "projects-v2", folder)
    path = folder / "archive_project.yaml"
    text = path.read_text()
    path.write_text(text.replace("    project_id: {type: string}\noutput:",
                                 "    project_id: {$ref: '#/$defs/a'}\n  $defs:\n"
                                 "    a: {allOf: [{$ref: '#/$defs/b'}]}\n"
                                 "    b: {$ref: '#/$defs/a'}\noutput:", 1))
    assert path.read_text() != text
    store = tmp_path / "store"
    assert run(capsys, "ingest", EXAMPLES / "archive-incident.otlp.json", "--store",
               store)[0] == 0
    code, out, err = run(capsys, "contract", "check", folder, "--store", store,
                         "--no-record")
    assert code == 2 and out == ""
    assert err.startswith("error[SCHEMA_INVALID]: ") and "archive_project.yaml" in err


def test_check_calls_with_a_looping_descriptor_built_in_code_is_schema_invalid():
    """Defensive: a descriptor that never went through reading (built in code) with a
    loop ends in the same code when a call is checked against it."""
    tools = ToolSet()
    tools.add(Descriptor(tool="t", input={"type": "object", **_LOOPS["allof-pair"]}))
    call = Call("tr", "e1", 1, "t", "ok", {"x": 1}, None, None)
    with pytest.raises(SchemaInvalidError) as info:
        check_calls([call], tools)
    assert info.value.code == "SCHEMA_INVALID" and "tool t" in info.value.message


# -- ingest: what a file that no format recognises is told ---------------------------

_EVENT = {"trace_id": "h1", "event_id": "e1", "kind": "tool_call", "name": "x",
          "args": {"n": 1}}
_LINE = json.dumps(_EVENT)


@pytest.mark.parametrize(("case", "data", "code", "words"), [
    ("latin-1", _LINE.replace('"x"', '"caf\xe9"').encode("latin-1") + b"\n",
     "INVALID_ENCODING", "line 1 is not UTF-8 (byte 0xe9"),
    ("utf-16", (_LINE + "\n").encode("utf-16"), "INVALID_ENCODING", "UTF-16 text"),
    ("windows-1252", "Grüße, “quoted”\n".encode("cp1252") * 3, "INVALID_ENCODING",
     "line 1 is not UTF-8 (byte 0xfc"),
    ("binary", bytes(range(256)) * 8, "UNKNOWN_FORMAT", "no known trace format"),
    ("zip", b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(200)), "UNKNOWN_FORMAT",
     "no known trace format"),
    ("nan-line", (_LINE.replace('"n": 1', '"n": NaN') + "\n").encode(), "INVALID_JSON",
     "NaN is not a JSON value"),
    ("infinity-line", (_LINE.replace('"n": 1', '"n": -Infinity') + "\n").encode(),
     "INVALID_JSON", "Infinity is not a JSON value"),
    ("nan-document", b'{"resourceSpans": [], "x": NaN}', "INVALID_JSON",
     "NaN is not a JSON value"),
    ("truncated-line", b'{"trace_id": "a", "x": [1, 2\n{"b": 1}\n', "INVALID_JSON",
     "line 1 starts like JSON but is not"),
    # a pretty-printed document no format knows: its first line `{` alone is not JSON,
    # the document is, so it is unknown, not broken
    ("unknown-pretty-document", json.dumps({"captureDate": "x", "results": [1]},
                                           indent=2).encode(),
     "UNKNOWN_FORMAT", "no known trace format"),
    ("broken-pretty-document", b'{\n  "a": 1,\n  "b": ]\n}\n', "INVALID_JSON",
     "the document starts like JSON but is not"),
    ("first-line-beyond-detection", b'{"a": "' + b"x" * (1 << 20) + b'"}\n{}\n',
     "UNKNOWN_FORMAT", "first line is longer than 1,048,576 bytes"),
])
def test_ingest_says_why_a_file_is_unreadable(capsys, tmp_path, case, data, code, words):
    """Not UNKNOWN_FORMAT for a file in another encoding or JSON with NaN: the code
    and the words of what is wrong, the store untouched."""
    src = tmp_path / "t.jsonl"
    src.write_bytes(data)
    store = tmp_path / "store"
    code_, out, err = run(capsys, "ingest", src, "--store", store)
    assert code_ == 2 and out == "", err
    assert err.startswith(f"error[{code}]: "), (case, err)
    assert words in err and "hint:" in err and "t.jsonl" in err
    assert list(store.rglob("*.parquet")) == [] and list(store.glob("_staging/*")) == []


@pytest.mark.parametrize("name", ["t.jsonl", "t.otlp.json"])
def test_ingest_reads_a_file_opening_with_a_utf8_byte_order_mark(capsys, tmp_path, name):
    """A UTF-8 BOM (Windows editors, PowerShell's Out-File) is skipped, and the file
    reads as the same file without it."""
    text = (_LINE + "\n" if name.endswith("jsonl")
            else (EXAMPLES / "archive-incident.otlp.json").read_text())
    counts = []
    for bom in (b"", b"\xef\xbb\xbf"):
        src = tmp_path / f"{len(bom)}-{name}"
        src.write_bytes(bom + text.encode())
        store = tmp_path / f"store{len(bom)}"
        code, out, err = run(capsys, "ingest", src, "--store", store, "--json")
        assert code == 0, err
        counts.append([(t["trace_id"], t["events"]) for t in json.loads(out)["traces"]])
    assert counts[0] == counts[1] and counts[0]


def test_ingest_detects_a_jsonl_file_whose_first_line_is_longer_than_64_kib(capsys,
                                                                         tmp_path):
    big = {**_EVENT, "args": {"blob": "a" * 70_000}}
    src = tmp_path / "long.jsonl"
    src.write_text(json.dumps(big) + "\n" + _LINE.replace("e1", "e2") + "\n")
    code, out, err = run(capsys, "ingest", src, "--store", tmp_path / "store", "--json")
    assert code == 0, err
    assert [(t["format"], t["events"]) for t in json.loads(out)["traces"]] == [("jsonl", 2)]


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_ingest_of_a_fifo_or_a_device_is_not_a_file_with_a_hint(tmp_path, kind):
    path = tmp_path / "t.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    err = refused_in_child(tmp_path, "NOT_A_FILE", "ingest", path, "--store",
                           tmp_path / "store")
    assert "a device or a pipe is not read" in err
