"""The CLI as a whole: global options before or after the command, the command table,
and start-up that imports only what the command being run needs."""

import json
import subprocess
import sys

import pytest

from tests.support import EXAMPLES, run
from workbench.cli._main import COMMANDS, build_parser, command_of

EXAMPLE = EXAMPLES / "archive-incident.otlp.json"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.mark.parametrize("argv", [
    ["--store", "{s}", "ingest", "{f}", "--json"],
    ["--store={s}", "--json", "ingest", "{f}"],
    ["--json", "ingest", "{f}", "--store", "{s}"],
    ["ingest", "{f}", "--store", "{s}", "--json"],
])
def test_store_and_json_before_or_after_the_command(capsys, tmp_path, argv):
    store = tmp_path / "store"
    code, out, err = run(capsys, *(a.format(s=store, f=EXAMPLE) for a in argv))
    assert code == 0, err
    assert json.loads(out)["traces"][0]["trace_id"] == TRACE
    assert (store / "events").is_dir()


def test_a_global_store_reaches_a_nested_command(capsys, tmp_path):
    store = tmp_path / "store"
    assert run(capsys, "ingest", EXAMPLE, "--store", store)[0] == 0
    code, out, _ = run(capsys, "--store", store, "--json", "traces")
    assert code == 0 and [t["trace_id"] for t in json.loads(out)["traces"]] == [TRACE]
    src = tmp_path / "a.json"
    src.write_text('{"password": "hunter2-hunter2"}')
    code, out, err = run(capsys, "--store", store, "redact", "apply", src, "--out",
                         tmp_path / "clean", "--json")
    assert code == 0, err
    assert json.loads(out)["key"] == "store"  # the store's key, found through --store


def test_two_different_stores_are_refused(capsys, tmp_path):
    code, out, err = run(capsys, "--store", tmp_path / "a", "traces", "--store", tmp_path / "b")
    assert code == 2 and out == ""
    assert err.startswith("error[USAGE]: --store is given twice") and "hint:" in err


def test_the_same_store_twice_is_fine(capsys, tmp_path):
    s = tmp_path / "a"
    assert run(capsys, "--store", s, "traces", "--store", s)[0] == 0


@pytest.mark.parametrize("argv", [["shadow", "--old", "a", "--new", "b", "fx"],
                                  ["redact", "scan", "x"], ["verify"]])
def test_a_global_store_for_a_command_without_one_is_refused(capsys, tmp_path, argv):
    code, _, err = run(capsys, "--store", tmp_path, *argv)
    assert code == 2 and "takes no --store" in err and "hint:" in err


@pytest.mark.parametrize("argv", [["--stor", "x", "traces"], ["--nope", "traces"],
                                  ["--store"], ["frobnicate"]])
def test_bad_global_options_are_usage_errors(capsys, argv):
    code, _out, err = run(capsys, *argv)
    assert code == 2 and err.startswith("error[USAGE]: ") and "Traceback" not in err


def test_the_error_envelope_with_a_global_json(capsys, tmp_path):
    code, out, _ = run(capsys, "--json", "show", "nope", "--store", tmp_path / "s")
    assert code == 2 and json.loads(out)["error"]["code"] == "TRACE_NOT_FOUND"


def test_command_of_skips_global_options():
    assert command_of(["--store", "x", "--json", "ingest", "f"]) == "ingest"
    assert command_of(["--store=ingest", "traces"]) == "traces"
    assert command_of(["--store", "ingest"]) is None
    assert command_of(["--help"]) is None and command_of(["nope"]) is None


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_is_registered_by_its_module_with_the_table_help(command):
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command")
    full = sub.choices[command]
    assert full.description, f"{command} was not registered by {COMMANDS[command][0]}"
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert helps[command] == COMMANDS[command][1]
    assert list(sub.choices) == list(COMMANDS)  # the listing order is the table's


def _modules_after(argv):
    """The workbench, jsonschema and pandas modules a fresh process holds after
    ``workbench ARGV`` (``--help`` exits through SystemExit, as argparse does)."""
    code = ("import contextlib, json, sys\nfrom workbench.cli import main\n"
            f"with contextlib.suppress(SystemExit):\n    main({argv!r})\n"
            "print('MODULES', json.dumps(sorted(m for m in sys.modules if m.startswith("
            "('workbench.', 'jsonschema', 'pandas')))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return set(json.loads(out.rsplit("MODULES ", 1)[1]))


def test_help_loads_no_service():
    loaded = _modules_after(["--help"])
    services = {"ingest", "rules", "redact", "diff", "minimize", "fixtures", "notebook",
                "contracts"}
    assert not {m.split(".")[1] for m in loaded} & services, sorted(loaded)
    assert not any(m.startswith(("jsonschema", "pandas")) for m in loaded)


def test_traces_loads_neither_ingest_nor_jsonschema_nor_pandas(tmp_path):
    loaded = _modules_after(["traces", "--store", str(tmp_path / "s")])
    assert "workbench.cli._query" in loaded
    assert not any(m.startswith(("workbench.ingest", "workbench.redact", "jsonschema",
                                 "pandas")) for m in loaded), sorted(loaded)
