"""Durable file operations: atomic files and folders (write beside, fsync, rename), and
advisory locks.

Every write that must never be seen half done goes through here, inside the store and
outside it (fixtures, reports, redacted copies, exports):

- ``atomic_write(path, data)``: the whole content at once;
- ``atomic_open(path)``: a binary file to stream into, put in place when the block ends
  without an error;
- ``atomic_write_all(files)``: several files of one folder, all or none: every new
  content is written and fsynced beside its target before the first rename;
- ``AtomicDir(parent, prefix)``: a hidden folder to fill, then ``publish`` under its
  final name in one rename.

A temporary file or folder that is not put in place is removed; the target is then as
it was. A writer killed (``SIGKILL``) cannot remove its temporary file, so each holds
an advisory lock on it while it writes, and the next write of the same target removes
the temporary files beside it whose lock is free and that are older than a minute
(``sweep_temps``): a killed writer's debris does not stay where ``git add`` would
pick it up. ``mkdir=False`` leaves a missing parent folder an error (``FileNotFoundError``),
for commands that refuse to create folders the user did not ask for.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

__all__ = ["AtomicDir", "atomic_open", "atomic_write", "atomic_write_all", "exclusive_lock",
           "fsync_dir", "fsync_file", "sweep_temps", "try_lock"]

#: a temporary file younger than this is never swept: its writer may have made it and
#: not yet locked it
_STALE_SECONDS = 60.0


def sweep_temps(path: Path) -> int:
    """Remove the temporary files a killed writer of ``path`` left beside it
    (``.NAME.PID.tmp``, unlocked, older than a minute); how many."""
    removed = 0
    try:
        names = [n for n in os.listdir(path.parent)
                 if n.startswith(f".{path.name}.") and n.endswith(".tmp")]
    except OSError:
        return 0
    now = time.time()
    for name in names:
        tmp = path.parent / name
        try:
            if tmp.is_symlink() or now - tmp.stat().st_mtime < _STALE_SECONDS:
                continue
            fd = try_lock(tmp)
        except OSError:
            continue
        if fd is None:
            continue  # its writer is alive
        try:
            tmp.unlink(missing_ok=True)
            removed += 1
        finally:
            os.close(fd)
    return removed


def _open_temp(path: Path) -> tuple[Path, BinaryIO]:
    """A new temporary file beside ``path``, locked while this process writes it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    f = open(tmp, "wb")  # noqa: SIM115 - closed by the caller
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)
    return tmp, f


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


@contextlib.contextmanager
def atomic_open(path: Path, *, mkdir: bool = True) -> Iterator[BinaryIO]:
    """A binary file whose bytes replace ``path`` when the block ends without an error
    (fsynced, renamed into place, the folder fsynced); after an error ``path`` is as it
    was and nothing is left beside it."""
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    sweep_temps(path)
    tmp, f = _open_temp(path)
    try:
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def atomic_write(path: Path, data: bytes, *, mkdir: bool = True) -> None:
    """Write ``data`` to ``path`` so a crash leaves either the old file or the new one."""
    with atomic_open(path, mkdir=mkdir) as f:
        f.write(data)


def atomic_write_all(files: list[tuple[Path, bytes]]) -> None:
    """Write each ``(path, data)``: nothing is renamed into place until every new content
    is on disk beside its target, so an error while writing leaves every target as it
    was. (The renames themselves follow one another; a crash between two of them can
    leave some files new and some old, never a half-written one.)"""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            sweep_temps(path)
            tmp, f = _open_temp(path)
            staged.append((tmp, path))
            with f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
    for folder in {path.parent for path, _ in files}:
        fsync_dir(folder)


class AtomicDir:
    """A hidden folder ``PARENT/PREFIX<pid>-<random>`` (created at once, ``parent`` too),
    to fill and then ``publish`` under its final name in one rename. Used as a context
    manager, it is removed at the end of the block unless it was published."""

    def __init__(self, parent: Path, prefix: str) -> None:
        parent.mkdir(parents=True, exist_ok=True)
        self.path = parent / f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.path.mkdir()
        self.published: Path | None = None

    def publish(self, final: Path) -> None:
        """fsync the files and the folder, rename it to ``final`` (which must not exist
        as a non-empty folder) and fsync ``final``'s parent."""
        for p in self.path.iterdir():
            if p.is_file():
                fsync_file(p)
        fsync_dir(self.path)
        os.rename(self.path, final)
        fsync_dir(final.parent)
        self.published = final

    def __enter__(self) -> AtomicDir:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.published is None:
            shutil.rmtree(self.path, ignore_errors=True)


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path`` (created if missing) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def try_lock(path: Path) -> int | None:
    """Take an exclusive lock without waiting; the fd to keep, or None when held elsewhere."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd
