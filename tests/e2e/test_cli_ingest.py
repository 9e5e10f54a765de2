"""The CLI contract end to end: exit codes, --json documents, errors, an unchanged store."""

import json
import os
import subprocess
import sys

import pytest

from tests.support import EXAMPLES, BadInput, assert_refused, run, snapshot
from workbench.cli import main

EXAMPLE = EXAMPLES / "archive-incident.otlp.json"


def otlp_span(span_id, name="s", parent=None, attrs=None, trace="a" * 32):
    span = {"traceId": trace, "spanId": span_id, "name": name, "kind": 1,
            "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            "attributes": [{"key": k, "value": {"stringValue": v}}
                           for k, v in (attrs or {}).items()]}
    if parent:
        span["parentSpanId"] = parent
    return span


def otlp_doc(*spans):
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}]}]}


def test_ingest_then_query_the_example(capsys, store_dir):
    code, out, err = run(capsys, "ingest", EXAMPLE, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["events"] == 14
    [trace] = doc["traces"]
    assert (trace["trace_id"], trace["events"], trace["format"]) == (
        "4bf92f3577b34da6a3ce929d0e0e4736", 14, "otlp")

    code, out, _ = run(capsys, "sql", "select name, count(*) as n from tool_calls group by 1 "
                       "order by 1", "--store", store_dir, "--json")
    assert code == 0
    assert json.loads(out)["rows"] == [
        {"name": "archive_project", "n": 3}, {"name": "list_projects", "n": 1},
        {"name": "request_approval", "n": 1}]

    code, out, _ = run(capsys, "show", "4bf92f35", "--store", store_dir)
    assert code == 0
    assert "archive_project(project_id=\"p18\")" in out
    assert "[args.project_id <- list_projects step" in out
    assert "tool calls:" in out

    code, out, _ = run(capsys, "traces", "--store", store_dir, "--json")
    assert [t["trace_id"] for t in json.loads(out)["traces"]] == [
        "4bf92f3577b34da6a3ce929d0e0e4736"]


def test_reingest_adds_nothing(capsys, store_dir):
    run(capsys, "ingest", EXAMPLE, "--store", store_dir)
    before = snapshot(store_dir)
    code, out, _ = run(capsys, "ingest", EXAMPLE, "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["events"] == 0
    assert snapshot(store_dir) == before


_FULL = json.dumps(otlp_doc(otlp_span("b" * 16)))
BAD: dict[str, BadInput] = {
    "empty.json": (b"", "EMPTY_INPUT", []),
    "blank.json": (b"  \n\n", "EMPTY_INPUT", []),
    "truncated.json": (_FULL[: len(_FULL) // 2], "INVALID_JSON", []),
    "truncated-forced.json": (_FULL[: len(_FULL) // 2], "INVALID_JSON", ["--format", "otlp"]),
    "wrong-shape.json": (json.dumps({"hello": "world"}), "UNKNOWN_FORMAT", []),
    "no-spans.json": (json.dumps({"resourceSpans": []}), "INVALID_TRACE", []),
    "latin1.json": (_FULL.replace('"s"', '"caf\u00e9"').encode("latin-1"), "INVALID_ENCODING",
                    []),
    "dup.json": (json.dumps(otlp_doc(otlp_span("c" * 16), otlp_span("c" * 16))),
                 "DUPLICATE_EVENT_ID", []),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_with_code_and_leaves_store_unchanged(capsys, tmp_path, store_dir,
                                                                case):
    run(capsys, "ingest", EXAMPLE, "--store", store_dir)
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])


def test_usage_errors(capsys, store_dir):
    code, _, err = run(capsys, "ingest", EXAMPLE, "--format", "nope", "--store", store_dir)
    assert code == 2 and err.startswith("error[USAGE]")
    code, _, err = run(capsys, "ingest", store_dir / "missing.json", "--store", store_dir)
    assert code == 2 and err.startswith("error[FILE_NOT_FOUND]")
    code, _, err = run(capsys, "show", "nope", "--store", store_dir)
    assert code == 2 and err.startswith("error[TRACE_NOT_FOUND]")
    code, _, err = run(capsys, "sql", "select * from nowhere", "--store", store_dir)
    assert code == 2 and err.startswith("error[SQL_ERROR]")
    code, out, _ = run(capsys, "sql", "select * from nowhere", "--store", store_dir, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "SQL_ERROR"


def test_orphans_are_kept_and_flagged(capsys, tmp_path):
    f = tmp_path / "orphan.json"
    f.write_text(json.dumps(otlp_doc(otlp_span("d" * 16, parent="e" * 16))))
    code, out, _ = run(capsys, "ingest", f, "--store", tmp_path / "s", "--json")
    assert code == 0 and json.loads(out)["traces"][0]["orphans"] == 1
    code, out, _ = run(capsys, "sql", "select parent_id, attrs from events",
                       "--store", tmp_path / "s", "--json")
    [row] = json.loads(out)["rows"]
    assert row["parent_id"] == "e" * 16
    assert json.loads(row["attrs"])["workbench.flags"] == ["orphan"]


def test_a_50mb_attribute_is_stored_truncated_with_a_marker(capsys, tmp_path):
    f = tmp_path / "huge.json"
    f.write_text(json.dumps(otlp_doc(otlp_span("f" * 16, attrs={"blob": "x" * 50_000_000}))))
    code, out, err = run(capsys, "ingest", f, "--store", tmp_path / "s", "--json")
    assert code == 0, err
    code, out, _ = run(capsys, "sql", "select attrs from events", "--store", tmp_path / "s",
                       "--json")
    attrs = json.loads(json.loads(out)["rows"][0]["attrs"])
    assert attrs["blob"].endswith("»") and "truncated: 50000000 chars" in attrs["blob"]
    assert len(attrs["blob"]) < 70_000
    assert "truncated" in attrs["workbench.flags"]


def test_help_has_an_example_for_every_command(capsys):
    for cmd in ["ingest", "traces", "show", "sql", "export", "check", "findings"]:
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        out, _ = capsys.readouterr()
        assert "example" in out, cmd


def test_installed_entry_point_runs(tmp_path):
    env = {**os.environ, "WORKBENCH_STORE": str(tmp_path / "s")}
    proc = subprocess.run([sys.executable, "-m", "workbench", "ingest", str(EXAMPLE), "--json"],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["events"] == 14
