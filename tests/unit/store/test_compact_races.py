"""``compact --grace 0`` beside a reader or another ``compact``, and out of space after
a commit. Known answers: a reader whose listed files a clean-up removed reruns its
query over the new listing and sees every event once; two compactions at once end in
success or ``COMPACT_CONFLICT``, never an internal error, and lose nothing; a full disk
after the merge was committed says it was committed (docs/store.md, "Compaction")."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.ingest import ingest
from workbench.store import Commit, Store, compact

TRACES = 12


def _trace(path: Path, t: int) -> Path:
    path.write_text("".join(json.dumps({
        "trace_id": f"t{t:03d}", "event_id": f"e{i}", "seq": i, "kind": "tool_call",
        "name": "x", "args": {"t": t}}) + "\n" for i in range(3)))
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("races")
    for t in range(TRACES):
        ingest([_trace(d / f"{t}.jsonl", t)], Store(d / "store"), redact=False)
    return d / "store"


@pytest.fixture
def root(template: Path, tmp_path: Path) -> Path:
    shutil.copytree(template, tmp_path / "store")
    return tmp_path / "store"


def _count(store: Store) -> tuple[int, int]:
    row = store.sql("SELECT count(*) AS n, count(DISTINCT (trace_id, event_id)) AS d "
                    "FROM events").to_pylist()[0]
    return row["n"], row["d"]


class _CompactedAfterListing(Store):
    """A reader that lists the records, and then, before its query reads the files,
    sees another process compact the store with ``--grace 0``: the moment a reader
    loses its files, made to happen every time."""

    raced = 0

    def _visible(self) -> list[Commit]:
        listed = super()._visible()
        if not self.raced:
            self.raced += 1
            assert compact(Store(self.root), grace=0).removed_batches == TRACES
        return listed


def test_a_reader_whose_files_a_clean_up_removed_reruns(root: Path) -> None:
    reader = _CompactedAfterListing(root)
    assert _count(reader) == (3 * TRACES, 3 * TRACES)
    assert reader.raced == 1
    assert len(reader.files("events")) == 1


def test_a_kept_connection_over_removed_files_reruns(root: Path) -> None:
    reader = Store(root)
    assert _count(reader) == (3 * TRACES, 3 * TRACES)  # views over the small files kept
    compact(Store(root), grace=0)
    assert _count(reader) == (3 * TRACES, 3 * TRACES)


def test_a_reader_looping_beside_compact_with_no_grace(root: Path) -> None:
    """Another process compacts with ``--grace 0`` (its clean-up removes the files just
    replaced) while this one queries in a loop: every answer counts every event once."""
    proc = _compact(root)
    seen = []
    while proc.poll() is None:
        seen.append(_count(Store(root)))
    assert proc.wait(timeout=600) == 0, proc.stderr.read() if proc.stderr else ""
    seen.append(_count(Store(root)))
    assert set(seen) == {(3 * TRACES, 3 * TRACES)}


def _compact(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "workbench", "compact", "--store",
                             str(root), "--grace", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_two_compactions_with_no_grace_at_once(template: Path, tmp_path: Path) -> None:
    for n in range(4):
        root = tmp_path / f"s{n}"
        shutil.copytree(template, root)
        procs = [_compact(root), _compact(root)]
        results = [(p.wait(timeout=600), p.stderr.read() if p.stderr else "")
                   for p in procs]
        for code, err in results:
            assert code == 0 or (code == 2 and err.startswith("error[COMPACT_CONFLICT]")), err
        assert 0 in [code for code, _ in results]
        assert _count(Store(root)) == (3 * TRACES, 3 * TRACES)


CHILD = '''
import errno, os, sys
real = os.replace
def replace(src, dst, *a, **k):
    if str(dst).endswith(".generation"):
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))
    return real(src, dst, *a, **k)
os.replace = replace
from workbench.cli import main
sys.exit(main(sys.argv[1:]))
'''


def test_out_of_space_after_the_commit_says_it_was_committed(root: Path) -> None:
    """The merge's record is written, then the disk fills (the records' move counter
    cannot be written): the merge is kept, and the message says so."""
    proc = subprocess.run([sys.executable, "-c", CHILD, "compact", "--store", str(root)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error[DISK_FULL]: "), proc.stderr
    assert "after 1 of 1 merges were committed" in proc.stderr
    assert "are kept" in proc.stderr and "not kept" not in proc.stderr
    store = Store(root)
    assert len(store.commits()) == 1 and store.commits()[0].replaces
    assert _count(store) == (3 * TRACES, 3 * TRACES)
    assert compact(store).runs == []  # the next run moves the records; nothing to merge
    assert not list((root / "_commits").glob(".*.tmp"))

