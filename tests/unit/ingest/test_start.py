"""What an ingest process imports at its start, each in a fresh interpreter (the test
process has everything loaded): ``ingest --help`` no reader, no redaction and no DuckDB;
``--format X`` the family of X alone; ``--no-redact`` no detector; redaction compiles no
vendor rule until one runs, and does not load the rules package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import EXAMPLES
from workbench import formats
from workbench.ingest import ADAPTERS, adapter_for, format_names

FAMILIES = ("agents", "chat", "http", "jsonl", "mcp", "otel")
EXAMPLE = EXAMPLES / "archive-incident.otlp.json"

LOADED = f"""
import json, sys
fams = sorted({{m.split(".")[2] for m in sys.modules
               if m.startswith("workbench.formats.") and m.split(".")[2] in {FAMILIES!r}}})
print(json.dumps({{"families": fams, "redact": "workbench.redact" in sys.modules,
                  "rules": "workbench.rules" in sys.modules,
                  "duckdb": "duckdb" in sys.modules}}))
"""


def _loaded(code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code + LOADED], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cli(*argv: str) -> str:
    return ("import contextlib, io\nfrom workbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        rc = main({list(argv)!r})\n"
            "    except SystemExit as exc:\n        rc = exc.code\n"
            "assert rc == 0, rc\n")


def test_ingest_help_imports_no_reader_no_redaction_and_no_duckdb():
    assert _loaded(_cli("ingest", "--help")) == {
        "families": [], "redact": False, "rules": False, "duckdb": False}


def test_a_named_format_imports_its_family_alone(tmp_path: Path):
    got = _loaded(_cli("ingest", str(EXAMPLE), "--format", "otlp", "--store",
                       str(tmp_path / "s")))
    assert got["families"] == ["otel"]
    assert got["redact"] is True and got["rules"] is False


def test_no_redact_imports_no_detector(tmp_path: Path):
    got = _loaded(_cli("ingest", str(EXAMPLE), "--no-redact", "--store",
                       str(tmp_path / "s")))
    assert got["redact"] is False and got["rules"] is False
    assert got["families"] == list(FAMILIES)  # detection asks every adapter


def test_redaction_compiles_no_vendor_rule_until_one_runs():
    code = """
from workbench.redact import Redactor
from workbench.redact._catalog import CONTEXT_RULES, RULES
assert not any(r.regex.is_compiled for r in (*RULES, *CONTEXT_RULES))
secret = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
assert secret not in Redactor(b"k" * 32).value("token " + secret)
compiled = sorted(r.id for r in RULES if r.regex.is_compiled)
assert "github-pat" in compiled and len(compiled) < 5, compiled
"""
    assert _loaded(code)["rules"] is False


def test_the_registry_names_each_adapter_as_it_names_itself():
    assert format_names()[0] == "auto"
    for registered in ADAPTERS:
        adapter = adapter_for(registered.name)
        assert adapter.name == registered.name
        assert adapter is getattr(formats, registered.export)  # type: ignore[attr-defined]
    assert len({a.name for a in ADAPTERS}) == len(ADAPTERS) == 23


@pytest.mark.parametrize("name", ["JSONL", "OTLP", "MCP", "HAR", "ATIF", "OPENAI"])
def test_a_family_name_is_the_familys_own(name: str):
    family = {"JSONL": "jsonl", "OTLP": "otel", "MCP": "mcp", "HAR": "http",
              "ATIF": "agents", "OPENAI": "chat"}[name]
    module = __import__(f"workbench.formats.{family}", fromlist=[name])
    assert getattr(formats, name) is getattr(module, name)


def _worker_imports(*preload: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m",
                           "workbench.ingest._worker_main", *preload],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:")}


def test_a_worker_imports_redaction_before_serving_only_when_asked():
    """A redacting ingest starts its workers with ``workbench.redact`` preloaded, so the
    first job does not pay for it; a ``--no-redact`` one without."""
    assert "workbench.redact._detect" in _worker_imports("workbench.redact")
    plain = _worker_imports()
    assert "workbench.ingest._pipeline" in plain
    assert not any(m.startswith("workbench.redact") for m in plain)
