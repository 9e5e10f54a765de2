"""The bundled rules library: each bad trace shows exactly its failures, each good none."""

import json

import pytest

from tests.support import EXAMPLES
from workbench.cli import main

LIBRARY = EXAMPLES / "rules"

# (rule, trace, step) of every finding the library's bad traces were built to show
EXPECTED = sorted([
    ("list-projects-by-owner-id", "rules-renamed-field-bad", 2),
    ("archive-own-team-only", "rules-renamed-field-bad", 10),
    ("archive-own-team-only", "rules-renamed-field-bad", 11),
    ("known-job-status", "rules-added-enum-bad", 2),
    ("no-retry-when-refused", "rules-added-enum-bad", 4),
    ("explicit-project-limit", "rules-widening-default-bad", 3),
    ("one-capture-per-cart", "rules-retry-without-key-bad", 7),
    ("charge-has-idempotency-key", "rules-retry-without-key-bad", 4),
    ("charge-has-idempotency-key", "rules-retry-without-key-bad", 7),
    ("process-item-once", "rules-repeating-cursor-bad", 12),
    ("approval-before-archive", "rules-unapproved-destructive-bad", 7),
])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = tmp_path_factory.mktemp("library") / "store"
    assert main(["ingest", str(LIBRARY), "--store", str(s)]) == 0
    return s


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_the_library_shows_exactly_its_failures(store, capsys, engine):
    capsys.readouterr()
    code = main(["check", str(LIBRARY / "rules.yaml"), "--store", str(store), "--engine",
                 engine, "--json", "--no-record"])
    doc = json.loads(capsys.readouterr().out)
    found = sorted((f["rule"], f["trace_id"], f["seq"]) for f in doc["findings"])
    assert found == EXPECTED
    assert doc["traces_checked"] == 12
    assert code == 1
    assert not [f for f in doc["findings"] if f["trace_id"].endswith("-good")]


@pytest.mark.parametrize("failure", sorted(p.name for p in LIBRARY.iterdir() if p.is_dir()))
def test_each_folder_rules_file_catches_its_bad_trace_only(store, capsys, failure):
    capsys.readouterr()
    main(["check", str(LIBRARY / failure / "rules.yaml"), "--store", str(store),
          "--trace", f"rules-{failure}-bad", "--trace", f"rules-{failure}-good", "--json",
          "--no-record", "--engine", "python"])
    doc = json.loads(capsys.readouterr().out)
    assert {f["trace_id"] for f in doc["findings"]} == {f"rules-{failure}-bad"}
