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
from tests.support import run
from workbench.model import LIMITS

CAP = 2 << 30  # bytes of address space for the child: the bomb expands to 2 GB
BOUND = 120  # seconds; far above the normal run (a few seconds), only there for a hang
SECRET = "ghp_" + "R3aLlyN0tAT0k3n" * 3  # a GitHub token's shape (not a real one)


def run_capped(args: list[str], cwd: Path, cap: int = CAP
               ) -> subprocess.CompletedProcess[str]:
    """``args`` in a child under the memory cap, killed at the bound."""
    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=BOUND,
                          preexec_fn=capped, env=env, check=False)


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



def refs_bomb(version: Path, rows: int, per_row: int) -> None:
    """``trace.parquet`` whose every row refers ``per_row`` times to one event: a few
    KB on disk (levels and indices compress to nothing), ``rows * per_row`` list items
    once read."""
    trace = version / "trace.parquet"
    table = pq.read_table(trace)
    first = table.slice(0, 1).to_pylist()[0]
    cols = {c: [first[c]] * rows for c in table.schema.names if c != "refs"}
    cols["event_id"] = [f"{i:016x}" for i in range(rows)]
    cols["seq"] = list(range(rows))
    bomb = pa.Table.from_pydict(cols, schema=table.schema.remove(
        table.schema.get_field_index("refs")))
    zeros = pa.nulls(rows * per_row, pa.int32()).fill_null(0)
    shared = pa.dictionary(pa.int32(), pa.string())
    items = pa.StructArray.from_arrays(
        [pa.DictionaryArray.from_arrays(zeros, pa.array(["0" * 16])) for _ in range(3)],
        fields=[pa.field(n, shared, nullable=False) for n in ("event_id", "path",
                                                               "from_path")])
    refs = pa.ListArray.from_arrays(
        pa.array(range(0, rows * per_row + 1, per_row), pa.int32()), items)
    pq.write_table(bomb.append_column("refs", refs), trace, compression="zstd",
                   row_group_size=rows, store_schema=False)


def test_verify_refuses_a_list_bomb_from_its_value_counts(tmp_path):
    """17 million ``refs`` items in an 11 KB file: the footer's value counts say what it
    expands to, so it is refused before a row is read (it used to take 800 MB to find
    out, and fail to allocate under a 1 GB cap)."""
    fixtures = tmp_path / "fixtures"
    shutil.copytree(REPO / "traces" / "fixtures" / "archive-incident", fixtures / "bomb")
    refs_bomb(fixtures / "bomb" / "v1", 1_000, 17_000)
    trace = fixtures / "bomb" / "v1" / "trace.parquet"
    assert trace.stat().st_size < 64 << 10
    meta = pq.ParquetFile(trace).metadata
    assert sum(meta.row_group(0).column(j).total_uncompressed_size
               for j in range(meta.num_columns)) < LIMITS["fixture_bytes"].value
    done = run_capped([sys.executable, "-m", "workbench", "verify", "--fixtures",
                       str(fixtures)], tmp_path, cap=1 << 30)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "error[LIMIT_EXCEEDED]" in done.stderr and "fixture_bytes" in done.stderr
    assert "realloc" not in done.stdout + done.stderr

# -- the bytes a fixture holds, not only its content --------------------------------------

def _copy(tmp_path: Path) -> Path:
    fixtures = tmp_path / "fixtures"
    shutil.copytree(REPO / "traces" / "fixtures", fixtures)
    return fixtures


def _verify(capsys, fixtures: Path, *more: str) -> tuple[int, str, str]:
    rc, out, err = run(capsys, "verify", "--fixtures", str(fixtures), *more)
    assert "INTERNAL" not in err and "Traceback" not in err
    return rc, out, err


def flip_footer_statistic(trace: Path) -> None:
    """Lower the ``trace_id`` column's min statistic in the footer by one hex digit:
    every value read stays the same, a reader pruning by statistics sees another file."""
    data = bytearray(trace.read_bytes())
    size = int.from_bytes(data[-8:-4], "little")
    footer_at = len(data) - 8 - size
    tid = pq.read_table(trace).column("trace_id")[0].as_py().encode()
    at = data.rindex(tid, footer_at)  # min_value is written after max_value
    assert tid[0] > ord("0")
    data[at] = ord("0")  # a lower min: still true of every value, so no reader refuses it
    trace.write_bytes(bytes(data))


def test_a_flipped_footer_statistic_is_bytes_changed(capsys, tmp_path):
    fixtures = _copy(tmp_path)
    trace = fixtures / "archive-incident" / "v1" / "trace.parquet"
    content = pq.read_table(trace)
    flip_footer_statistic(trace)
    assert pq.read_table(trace).equals(content)  # the decoded content is the same
    stats = pq.ParquetFile(trace).metadata.row_group(0).column(0).statistics
    assert stats.min != content.column("trace_id")[0].as_py()
    rc, out, _ = _verify(capsys, fixtures, "--json")
    assert rc == 1
    problems = json.loads(out)["problems"]
    assert [(p["fixture"], p["code"]) for p in problems] == [
        ("archive-incident/v1", "BYTES_CHANGED")]
    assert problems[0]["message"].startswith("trace.parquet: its bytes changed")


def test_a_lock_without_byte_pins_is_accepted_and_said_so_then_relocked(capsys, tmp_path):
    fixtures = _copy(tmp_path)
    lock = fixtures / "fixtures.lock"
    pinned = lock.read_text()
    old = "".join(line.split("\t")[0] + "\t" + line.split("\t")[1] + "\n"
                  if not line.startswith("#") else line + "\n"
                  for line in pinned.splitlines())
    lock.write_text(old)
    rc, out, _ = _verify(capsys, fixtures)
    assert rc == 0
    assert "archive-incident/v1  unpinned bytes; re-lock" in out
    assert lock.read_text() == old  # verify alone writes nothing
    # a version whose content changed is not re-pinned by --relock
    rules = fixtures / "added-enum" / "v1" / "rules.yaml"
    rules.write_text(rules.read_text().replace("severity: warn", "severity: error", 1))
    rc, out, _ = _verify(capsys, fixtures, "--relock")
    assert rc == 1 and "added-enum/v1  CONTENT_CHANGED" in out
    assert "archive-incident/v1  relocked" in out and "unpinned" not in out.replace(
        "added-enum/v1  unpinned", "")
    relocked = lock.read_text().splitlines()
    assert [line for line in relocked if line.startswith("added-enum/")] == [
        line for line in old.splitlines() if line.startswith("added-enum/")]
    assert [line for line in relocked if not line.startswith("added-enum/")] == [
        line for line in pinned.splitlines() if not line.startswith("added-enum/")]


# -- secrets in names, links out of the folder ---------------------------------------------

TOKEN = "ghp_" + ("R3aLlyN0tAT0k3n" * 3)[:36]


def test_verify_masks_secrets_in_folder_names_and_rule_ids(capsys, tmp_path):
    fixtures = _copy(tmp_path)
    (fixtures / TOKEN).mkdir()  # not a fixture name: reported by its name
    rules = fixtures / "archive-incident" / "v1" / "rules.yaml"
    rules.write_text(rules.read_text().replace("rules:\n", f"rules:\n  {TOKEN}:\n"
                                               "    every:\n      event: {tool: x}\n"
                                               "      where: {status: ok}\n", 1))
    for more in ((), ("--json",)):
        rc, out, err = _verify(capsys, fixtures, *more)
        assert rc == 1
        assert TOKEN not in out + err
        assert "«github-pat»" in out
    rc, out, _ = _verify(capsys, fixtures, "--json")
    found = {(p["fixture"], p["code"]) for p in json.loads(out)["problems"]}
    assert ("«github-pat»", "UNEXPECTED_ENTRY") in found
    assert ("archive-incident/v1", "CONTENT_CHANGED") in found


def _planted(tmp_path: Path) -> tuple[Path, Path]:
    """A fixtures copy, and outside it a fixture version whose trace is garbage: read,
    it would be TRACE_UNREADABLE."""
    fixtures = _copy(tmp_path)
    outside = tmp_path / "elsewhere" / "v2"
    shutil.copytree(fixtures / "archive-incident" / "v1", outside)
    (outside / "trace.parquet").write_bytes(b"PAR1 not read through a link PAR1")
    return fixtures, outside


def test_a_symlinked_version_folder_is_refused_and_not_read(capsys, tmp_path):
    fixtures, outside = _planted(tmp_path)
    (fixtures / "archive-incident" / "v2").symlink_to(outside, target_is_directory=True)
    rc, out, _ = _verify(capsys, fixtures)
    assert rc == 1
    assert "archive-incident/v2  SYMBOLIC_LINK" in out
    assert "TRACE_UNREADABLE" not in out and "UNREDACTED" not in out


def test_a_symlinked_fixture_folder_is_refused_and_not_read(capsys, tmp_path):
    fixtures, outside = _planted(tmp_path)
    (fixtures / "linked").symlink_to(outside.parent, target_is_directory=True)
    rc, out, _ = _verify(capsys, fixtures)
    assert rc == 1
    assert "linked  SYMBOLIC_LINK" in out
    assert "TRACE_UNREADABLE" not in out and "linked/v2" not in out


def test_pytest_items_of_a_symlinked_version_fail_with_the_code(tmp_path):
    fixtures, outside = _planted(tmp_path)
    (fixtures / "archive-incident" / "v2").symlink_to(outside, target_is_directory=True)
    project = tmp_path
    (project / "pyproject.toml").write_text(
        '[tool.workbench]\nfixtures = "fixtures"\n[tool.pytest.ini_options]\n')
    done = run_capped([sys.executable, "-m", "pytest", *PLUGIN, "-p", "no:randomly",
                       "-p", "no:cacheprovider", "fixtures"], project)
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "cannot be read: error[SYMBOLIC_LINK]" in out
    assert "TRACE_UNREADABLE" not in out
