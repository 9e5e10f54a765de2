"""Hostile fixtures, run as CI would run them: ``workbench verify`` and the pytest items
in a child process under a memory cap (``RLIMIT_AS``) and a wall-clock bound far above
their normal time. Each ends in exit 2 (verify) or a failing item with the code, never
a crash, an allocation failure or a pass; nothing is written anywhere."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.hostile.cases import REPO
from tests.hostile.test_hostile_plugin import PLUGIN
from workbench.model import LIMITS

CAP = 2 << 30  # bytes of address space for the child: the bomb expands to 2 GB
BOUND = 120  # seconds; far above the normal run (a few seconds), only there for a hang
SECRET = "ghp_" + "R3aLlyN0tAT0k3n" * 3  # a GitHub token's shape (not a real one)


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def run_capped(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``args`` in a child under the memory cap, killed at the bound."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=BOUND,
                          preexec_fn=_capped, env=env, check=False)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


def dictionary_bomb(version: Path, rows: int, width: int) -> int:
    """``trace.parquet`` of ``rows`` events sharing one ``width``-character ``args``
    string, dictionary-encoded: under the row limit, a small file, a footer that states
    a few MB, and ``rows * width`` bytes once decoded. Returns the decoded bytes."""
    trace = version / "trace.parquet"
    table = pq.read_table(trace)
    first = table.slice(0, 1).to_pylist()[0]
    cols = {c: [first[c]] * rows for c in table.schema.names}
    cols["event_id"] = [f"{i:016x}" for i in range(rows)]
    cols["seq"] = list(range(rows))
    del cols["args"]
    bomb = pa.Table.from_pydict(cols, schema=table.schema.remove(
        table.schema.get_field_index("args")))
    shared = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()),
                                            pa.array([json.dumps({"blob": "x" * width})]))
    bomb = bomb.add_column(table.schema.get_field_index("args"), "args", shared)
    # written as its dictionary, never expanded; without the Arrow schema in the footer
    # a reader sees a plain string column, as the events schema has it
    pq.write_table(bomb, trace, compression="zstd", use_dictionary=True,
                   row_group_size=rows, store_schema=False)
    return rows * width


@pytest.fixture
def bombed(tmp_path) -> Path:
    fixtures = tmp_path / "traces" / "fixtures"
    shutil.copytree(REPO / "traces" / "fixtures" / "archive-incident", fixtures / "bomb")
    rows = LIMITS["fixture_rows"].value - 1_000  # under the row limit
    expands = dictionary_bomb(fixtures / "bomb" / "v1", rows, (2 << 30) // rows)
    trace = fixtures / "bomb" / "v1" / "trace.parquet"
    meta = pq.ParquetFile(trace).metadata
    # the bomb passes what the footer states: rows under the limit, a small size
    assert trace.stat().st_size < 1 << 20 and meta.num_rows == rows
    assert meta.row_group(0).total_byte_size < LIMITS["fixture_bytes"].value < expands
    return fixtures


def test_verify_refuses_a_dictionary_bomb_in_bounded_memory(bombed):
    before = tree(bombed.parent)
    done = run_capped([sys.executable, "-m", "workbench", "verify", "--fixtures",
                       str(bombed)], bombed.parent)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "error[LIMIT_EXCEEDED]" in done.stderr and "hint:" in done.stderr
    assert "fixture_bytes" in done.stderr and "bomb/v1/trace.parquet" in done.stderr
    assert "realloc" not in done.stderr + done.stdout
    assert "TRACE_UNREADABLE" not in done.stderr + done.stdout
    assert "INTERNAL" not in done.stderr
    assert tree(bombed.parent) == before


def test_verify_json_names_the_limit_of_the_bomb(bombed):
    done = run_capped([sys.executable, "-m", "workbench", "verify", "--fixtures",
                       str(bombed), "--json"], bombed.parent)
    assert done.returncode == 2
    error = json.loads(done.stdout or done.stderr)["error"]
    assert error["code"] == "LIMIT_EXCEEDED"
    assert error["details"]["limit"] == "fixture_bytes"


def test_pytest_item_of_a_dictionary_bomb_fails_with_the_code(bombed):
    project = bombed.parent.parent
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    done = run_capped([sys.executable, "-m", "pytest", *PLUGIN, "-p", "no:randomly", "-p", "no:cacheprovider", "traces/fixtures"],
                      project)
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "1 failed" in out and "passed" not in out.splitlines()[-1]
    assert "cannot be read: error[LIMIT_EXCEEDED]" in out and "fixture_bytes" in out
    assert "realloc" not in out and "MemoryError" not in out
