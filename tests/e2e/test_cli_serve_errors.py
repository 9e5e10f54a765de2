"""``workbench serve`` refuses bad input before it starts anything: exit 2, a stable
``error[CODE]`` with a hint, no traceback, no store written, no port held."""

from __future__ import annotations

import json
import socket

import pytest

from tests.serve_support import scenario
from tests.support import EXAMPLES, run

HAR = EXAMPLES / "ops-agent" / "exchanges" / "projects-list-v1.har"
GOOD = {"id": "x", "request": {"path": "/x"}, "response": {"body": {"ok": True}}}


def _refused(capsys, tmp_path, code, *argv):
    store = tmp_path / "store"
    if "--port" not in argv:
        argv = (*argv, "--port", "0")
    rc, out, err = run(capsys, "serve", *argv, "--store", store)
    assert rc == 2, err
    assert err.startswith(f"error[{code}]: "), err
    assert "hint:" in err and "Traceback" not in err and out == ""
    assert not store.exists()  # nothing started, nothing written
    rc, out, _ = run(capsys, "serve", *argv, "--store", store, "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == code
    return err


def test_a_missing_recording(capsys, tmp_path):
    _refused(capsys, tmp_path, "FILE_NOT_FOUND", tmp_path / "nope.har")


def test_a_recording_that_cannot_be_read(capsys, tmp_path):
    bad = tmp_path / "bad.har"
    bad.write_text('{"log": {"entries": [')
    err = _refused(capsys, tmp_path, "RECORDING_UNREADABLE", bad)
    assert "bad.har" in err


def test_a_recording_without_an_answered_exchange(capsys, tmp_path):
    err = _refused(capsys, tmp_path, "NO_EXCHANGES",
                   EXAMPLES.parent / "fixtures" / "renamed-field" / "v1")
    assert "shapes only" in err
    tools = tmp_path / "tools.jsonl"  # tool calls only, and a request never answered
    tools.write_text(json.dumps({"trace_id": "t", "event_id": "a", "kind": "tool_call",
                                 "name": "list", "result": {"status": 200}}) + "\n"
                     + json.dumps({"trace_id": "t", "event_id": "b", "kind": "http",
                                   "name": "GET /x", "args": {"method": "GET",
                                                              "path": "/x"}}) + "\n")
    err = _refused(capsys, tmp_path, "NO_EXCHANGES", tools)
    assert "no answered HTTP exchange" in err


def test_a_folder_that_is_not_a_fixture(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    _refused(capsys, tmp_path, "RECORDING_UNREADABLE", tmp_path / "empty")


@pytest.mark.parametrize("failure", ["explode", "status", "status 7xx", "missing-field",
                                     "missing-field a..b", "enum-member items[0].state",
                                     "error-200 now"])
def test_an_unknown_or_malformed_failure_mode(capsys, tmp_path, failure):
    _refused(capsys, tmp_path, "UNKNOWN_FAILURE_MODE", HAR, "--failure", failure)


def test_a_scenario_naming_a_missing_file_an_unknown_mode_or_a_file_outside(
        capsys, tmp_path):
    folder = tmp_path / "sc"
    folder.mkdir()
    missing = scenario(folder, json.dumps({"version": 1, "exchanges": [
        {"file": "exchanges/gone.har"}]}), "missing.yaml")
    err = _refused(capsys, tmp_path, "FILE_NOT_FOUND", missing)
    assert "missing.yaml line 1" in err and "gone.har" in err
    mode = scenario(folder, "version: 1\nexchanges:\n  - id: x\n    request: {path: /x}\n"
                            "    response: {status: 200}\n    failures: [slow-down]\n",
                    "mode.yaml")
    err = _refused(capsys, tmp_path, "UNKNOWN_FAILURE_MODE", mode)
    assert "mode.yaml line 6" in err and "slow-down" in err
    (tmp_path / "outside.har").write_bytes(HAR.read_bytes())
    escape = scenario(folder, json.dumps({"version": 1, "exchanges": [
        {"file": "../outside.har"}]}), "escape.yaml")
    _refused(capsys, tmp_path, "REF_OUTSIDE", escape)
    (folder / "link.har").symlink_to(tmp_path / "outside.har")
    linked = scenario(folder, json.dumps({"version": 1, "exchanges": [
        {"file": "link.har"}]}), "linked.yaml")
    _refused(capsys, tmp_path, "REF_OUTSIDE", linked)


@pytest.mark.parametrize(("text", "code", "where"), [
    ("version: 1\nexchanges: [\n", "SCENARIO_YAML", "line"),
    ("version: 2\nexchanges: []\n", "SCENARIO_INVALID", "version must be 1"),
    ("version: 1\nexchanges: []\n", "SCENARIO_INVALID", "at least one"),
    ("version: 1\nexchanges: [{id: x}]\n", "SCENARIO_INVALID", "request"),
    ("version: 1\nexchanges:\n  - {request: {path: x}, response: {}}\n", "SCENARIO_INVALID",
     "starting with /"),
    ("version: 1\nexchanges:\n  - {request: {path: /x}, response: {status: 99}}\n",
     "SCENARIO_INVALID", "100-599"),
    ("version: 1\nmatch: {body: fuzzy}\nexchanges: [{request: {path: /x}, response: {}}]\n",
     "SCENARIO_INVALID", "match.body"),
    ("version: 1\nexchanges: [{request: {path: /x}, response: {}, when: now}]\n",
     "SCENARIO_INVALID", "unknown key 'when'"),
])
def test_a_scenario_file_that_cannot_be_served(capsys, tmp_path, text, code, where):
    err = _refused(capsys, tmp_path, code, scenario(tmp_path, text))
    assert where in err


def test_a_port_in_use(capsys, tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        store = tmp_path / "store"
        rc, _, err = run(capsys, "serve", HAR, "--port", port, "--store", store)
        assert rc == 2 and err.startswith("error[PORT_IN_USE]: ") and "hint:" in err
        assert not store.exists()
    finally:
        taken.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.test", "::"])
def test_a_host_other_than_loopback(capsys, tmp_path, host):
    _refused(capsys, tmp_path, "NOT_LOOPBACK", HAR, "--host", host)


def test_bad_numbers(capsys, tmp_path):
    _refused(capsys, tmp_path, "USAGE", HAR, "--port", "70000")
    _refused(capsys, tmp_path, "USAGE", HAR, "--request-timeout", "0")


def test_mcp_mode_refuses_a_recording_without_mcp_tools(capsys, tmp_path):
    _refused(capsys, tmp_path, "NO_EXCHANGES", HAR, "--mcp", "stdio")
    _refused(capsys, tmp_path, "NOT_LOOPBACK", HAR, "--mcp", "http", "--host", "10.0.0.1")
