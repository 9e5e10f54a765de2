"""The CLI on HTTP recordings (HAR, VCR.py cassettes, Pact files): detection, --json
output, bad input refused with exit 2 and an unchanged store, odd input kept and flagged."""

import json

import pytest

from tests.support import BadInput, assert_refused, run

HAR_FILE = "mitmproxy-har/flows_error_log.har"
VCR_FILE = "otel-python-contrib-openai-v2/test_chat_completion_tool_calls_with_content.yaml"
PACT_FILE = "pact-python/v2-http.json"


@pytest.mark.parametrize(("name", "fmt", "events"), [
    (HAR_FILE, "har", 2), (VCR_FILE, "vcr", 2), (PACT_FILE, "pact", 3)])
def test_ingest_detects_the_format(capsys, corpus, store_dir, name, fmt, events):
    code, out, err = run(capsys, "ingest", corpus / name, "--store", store_dir, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc) >= {"traces", "events", "skipped", "batch"}
    assert doc["events"] == events
    [trace] = doc["traces"]
    assert (trace["format"], trace["events"], trace["tool_calls"], trace["orphans"]) == (
        fmt, events, 0, 0)
    code, out, _ = run(capsys, "sql", "select count(*) as n from events where kind = 'http'",
                       "--store", store_dir, "--json")
    assert code == 0 and json.loads(out)["rows"] == [{"n": events}]


def test_har_unanswered_entry_is_stored_flagged(capsys, corpus, store_dir):
    run(capsys, "ingest", corpus / HAR_FILE, "--store", store_dir)
    code, out, _ = run(capsys, "sql", "select event_id, name, status, error, attrs from events "
                       "order by seq", "--store", store_dir, "--json")
    assert code == 0
    first, second = json.loads(out)["rows"]
    assert (first["event_id"], first["name"], first["status"]) == ("entry-0", "GET /", "error")
    assert json.loads(first["error"])["code"] == "NO_RESPONSE"
    assert json.loads(first["attrs"])["workbench.flags"] == ["unanswered"]
    assert json.loads(second["error"])["code"] == "HTTP_405"


def test_binary_cassette_body_is_kept_with_a_placeholder(capsys, tmp_path):
    f = tmp_path / "binary.yaml"
    f.write_text("interactions:\n- request:\n    body: null\n    headers: {}\n    method: GET\n"
                 "    uri: https://files.test/a.bin\n  response:\n    body:\n"
                 "      string: !!binary |\n        /9j/4AAQ\n    headers:\n      Content-Type:\n"
                 "      - application/octet-stream\n    status:\n      code: 200\n"
                 "      message: OK\nversion: 1\n")
    store = tmp_path / "s"
    code, out, err = run(capsys, "ingest", f, "--store", store, "--json")
    assert code == 0, err
    assert json.loads(out)["traces"][0]["format"] == "vcr"
    code, out, _ = run(capsys, "sql", "select result, attrs from events", "--store", store,
                       "--json")
    [row] = json.loads(out)["rows"]
    assert json.loads(row["result"])["body"] == "«binary: 6 bytes, application/octet-stream»"
    assert json.loads(row["attrs"])["workbench.flags"] == ["binary_body"]


BAD: dict[str, BadInput] = {
    "no-entries.har": (json.dumps({"log": {"version": "1.2", "creator": {"name": "x"}}}),
                       "INVALID_TRACE", []),
    "truncated.har": ('{"log": {"version": "1.2", "creator": {}, "entries": [{"request"',
                      "INVALID_JSON", []),
    "broken.yaml": ("interactions:\n- request:\n    uri: [unclosed\n  response:\n"
                    "    status: {code: 200}\n", "INVALID_YAML", []),
    "no-uri.yaml": ("interactions:\n- request:\n    method: GET\n  response:\n"
                    "    status: {code: 200}\n", "INVALID_TRACE", []),
    "no-interactions.json": (json.dumps({
        "consumer": {"name": "a"}, "provider": {"name": "b"}, "interactions": [],
        "metadata": {"pactSpecification": {"version": "3.0.0"}}}), "INVALID_TRACE", []),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_and_leaves_store_unchanged(capsys, corpus, tmp_path, store_dir, case):
    run(capsys, "ingest", corpus / PACT_FILE, "--store", store_dir)
    assert_refused(capsys, store_dir, tmp_path / case, *BAD[case])
