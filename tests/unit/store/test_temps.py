"""Temporary files a killed writer leaves: ``atomic_write``/``atomic_open`` write
``.NAME.PID.tmp`` beside their target under an advisory lock, and the next write of the
same target removes those whose lock is free and that are over a minute old; the
store's own record temporaries go at the next writer's recovery (under the store lock).
Known answers: a writer killed with SIGKILL mid-write leaves its temp file, which the
next write removes; a live writer's, and a fresh one, stay."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from workbench.ingest import ingest
from workbench.store import Store, atomic_write, compact

WRITER = """
import sys, time
from pathlib import Path
from workbench.store import atomic_open
with atomic_open(Path(sys.argv[1])) as f:
    f.write(b"half")
    f.flush()
    print("writing", flush=True)
    time.sleep(600)
"""


def _old(path: Path) -> None:
    then = time.time() - 120
    os.utime(path, (then, then))


def test_a_killed_writers_temp_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "fixtures.lock"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    temp = tmp_path / f".fixtures.lock.{proc.pid}.tmp"
    assert temp.read_bytes() == b"half"
    atomic_write(target, b"first")  # the writer is alive: its file stays
    assert temp.exists()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    atomic_write(target, b"second")  # dead, but under a minute old: it may be a new one
    assert temp.exists()
    _old(temp)
    atomic_write(target, b"third")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fixtures.lock"]
    assert target.read_bytes() == b"third"


def test_a_locked_temp_file_stays(tmp_path: Path) -> None:
    target = tmp_path / "report.sarif"
    temp = tmp_path / ".report.sarif.4242.tmp"
    temp.write_bytes(b"x")
    _old(temp)
    fd = os.open(temp, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another open file: as another writer's
        atomic_write(target, b"y")
        assert temp.exists()
    finally:
        os.close(fd)
    atomic_write(target, b"z")
    assert not temp.exists()


def test_record_temp_files_go_at_the_next_commit(tmp_path: Path) -> None:
    """A record's temporary file in ``_commits/`` (an ingest killed while writing its
    record, before the rename) is removed by the next writer, under the store lock."""
    src = tmp_path / "a.jsonl"
    src.write_text(json.dumps({"trace_id": "t1", "event_id": "e1", "kind": "tool_call",
                               "name": "x"}) + "\n")
    store = Store(tmp_path / "store")
    ingest([src], store, redact=False)
    debris = [store.root / "_commits" / ".20990101T000000-0123456789ab.json.4242.tmp",
              store.root / "_commits" / ".generation.4242.tmp"]
    for p in debris:
        p.write_bytes(b"{")
    compact(store)
    assert not any(p.exists() for p in debris)
    assert len(store.commits()) == 1


def test_a_killed_key_creation_is_swept_by_the_next_commit(tmp_path: Path) -> None:
    """The redaction key is written to ``.redaction.key.PID.RANDOM.tmp`` and linked into
    place; killed before the link, the temp file holds a key nobody uses."""
    src = tmp_path / "a.jsonl"
    src.write_text(json.dumps({"trace_id": "t1", "event_id": "e1", "kind": "tool_call",
                               "name": "x"}) + "\n")
    store = Store(tmp_path / "store")
    ingest([src], store, redact=False)
    debris = store.root / ".redaction.key.4242.0123456789abcdef.tmp"
    debris.write_text("ab" * 32 + "\n")
    fresh = store.root / ".redaction.key.4243.0123456789abcdef.tmp"
    fresh.write_text("cd" * 32 + "\n")
    _old(debris)
    compact(store)
    assert not debris.exists() and fresh.exists()
