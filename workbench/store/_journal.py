"""Journals: append-only JSONL files under ``STORE/_journals/`` for data that arrives one
record at a time (the contract server's requests) and is committed as a batch later.

A journal is owned by the live process that opened it (an advisory lock on the file):
each ``append`` is one ``write`` of whole lines to a file opened ``O_APPEND``, so a
crash of the owner loses at most the record being written. ``orphans`` lists journals
whose owner is gone (an unfinished last line cut off), so the next writer commits what
a crashed run left, and ``drop`` removes a journal once its records are committed.
Readers never see journals: only committed batches are in the views.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ._records import inside

__all__ = ["JOURNALS", "Journal", "drop_journal", "open_journal", "orphan_journals"]

JOURNALS = "_journals"


class Journal:
    """An open journal: ``append`` lines, ``close`` when done (the lock goes with it)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_EXCL,
                                       0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def append(self, data: bytes) -> None:
        """Whole lines, written at once (a short write is finished before returning)."""
        if self._fd is None:
            raise ValueError(f"journal {self.path.name} is closed")
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def close(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None


def open_journal(root: Path, name: str) -> Journal:
    """A new journal ``NAME.jsonl`` (refused if one of that name exists)."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"bad journal name {name!r}")
    return Journal(root / JOURNALS / f"{name}.jsonl")


def orphan_journals(root: Path) -> list[Path]:
    """Journals no live process owns, oldest name first."""
    d = inside(root, JOURNALS)  # never a link out of the store: lines are cut here
    out: list[Path] = []
    for p in sorted(d.glob("*.jsonl")) if d.is_dir() else []:
        if p.is_symlink() or not p.is_file():
            continue
        fd = os.open(p, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _cut_partial_line(fd)
        except BlockingIOError:
            continue
        finally:
            os.close(fd)
        out.append(p)
    return out


def _cut_partial_line(fd: int) -> None:
    """Drop an unfinished last line: the record its owner was writing when it died."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, data.rfind(b"\n") + 1)
    os.fsync(fd)


def drop_journal(root: Path, path: Path) -> None:
    """Remove a journal of this store whose records are committed."""
    if path.parent != root / JOURNALS:
        raise ValueError(f"{path} is not a journal of the store at {root}")
    path.unlink(missing_ok=True)
