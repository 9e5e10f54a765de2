"""A file a user names for a command's output (``--out``, ``--sarif``, ``--junit``,
``--html``): written to what the path names, never renamed over something else.

- a regular file, or a path that does not exist yet: written beside and renamed into
  place (``atomic_open``), so a crash leaves the old file or the new one;
- a symbolic link: followed; its final target is replaced atomically the same way (the
  link stays a link), or written directly when the target is a device or a FIFO; a
  dangling link creates its target, as a shell's ``>`` would;
- a character device or a FIFO (``/dev/null``, ``/dev/stdout``, a named pipe): opened
  and written directly, appending — no rename, nothing replaced; the file this
  process's standard output or error is redirected to, and ``-`` (standard output):
  written through that stream;
- a folder: ``OUTPUT_IS_FOLDER``; a block device or a socket: ``OUTPUT_UNSUPPORTED``;
  a missing folder on the way: ``FILE_NOT_FOUND``; a place that cannot be written:
  ``OUTPUT_UNWRITABLE``. All exit 2 with a hint, checked before any work is done and
  again when the output is written.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from ..model import NotFoundError, UsageError
from ._files import atomic_open

__all__ = ["OutputPath", "output_path"]

_EXAMPLE = {"--out": "out", "--sarif": "report.sarif", "--junit": "report.xml",
            "--html": "diff.html"}


@dataclass(frozen=True)
class OutputPath:
    """Where an output goes: ``how`` is ``replace`` (atomic, at ``path``, a link already
    followed), ``direct`` (opened and written in place), or ``stdout``/``stderr`` (the
    file the path names is this process's own standard output or error: written
    through that stream, so what else the command prints follows it)."""

    option: str
    given: str
    path: Path
    how: Literal["replace", "direct", "stdout", "stderr"]

    @contextlib.contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """A binary stream for the output (the path checked again first)."""
        now = output_path(self.option, self.given)
        if now.how in ("stdout", "stderr"):
            stream = sys.stdout if now.how == "stdout" else sys.stderr
            stream.flush()
            yield stream.buffer
            stream.buffer.flush()
            return
        try:
            if now.how == "direct":
                with open(now.path, "ab") as f:
                    yield f
                return
            with atomic_open(now.path, mkdir=False) as f:
                yield f
        except PermissionError as exc:
            raise UsageError(f"{self.option} {self.given}: cannot write {exc.filename or ''}",
                             code="OUTPUT_UNWRITABLE",
                             hint="name a file in a folder you may write to") from None

    def write(self, data: bytes) -> None:
        with self.open() as f:
            f.write(data)


def _standard_stream(st: os.stat_result) -> Literal["stdout", "stderr"] | None:
    """Which of this process's standard output and error ``st`` is the file of."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        try:
            other = os.fstat(fd)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return "stdout" if name == "stdout" else "stderr"
    return None


def output_path(option: str, value: str | os.PathLike[str]) -> OutputPath:
    """``value`` (given with ``option``) as an output, or the usage error saying why it
    cannot be one."""
    given = os.fspath(value)
    if given == "-":
        return OutputPath(option, given, Path(given), "stdout")
    path = Path(given)
    example = path / _EXAMPLE.get(option, "out")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        real = Path(os.path.realpath(path))  # a dangling link: its target
        if not real.parent.is_dir():
            raise NotFoundError(f"{option} {given}: its folder does not exist",
                                code="FILE_NOT_FOUND", hint="create the folder first"
                                ) from None
        return OutputPath(option, given, real, "replace")
    except NotADirectoryError:
        raise NotFoundError(f"{option} {given}: a part of the path is a file, not a folder",
                            code="FILE_NOT_FOUND", hint="name a file in an existing folder"
                            ) from None
    except OSError as exc:  # a loop of links, a name too long, no permission to look
        raise UsageError(f"{option} {given}: {exc.strerror}", code="OUTPUT_UNWRITABLE",
                         hint="name a file in a folder you may write to") from None
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise UsageError(f"{option} {given} is a folder", code="OUTPUT_IS_FOLDER",
                         hint=f"name a file inside it, e.g. {example}")
    stream = _standard_stream(st) if stat.S_ISREG(mode) else None
    if stream is not None:  # written through the stream itself: one file offset
        return OutputPath(option, given, path, stream)
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return OutputPath(option, given, path, "direct")
    if stat.S_ISREG(mode):
        return OutputPath(option, given, Path(os.path.realpath(path)), "replace")
    raise UsageError(f"{option} {given} is a block device or a socket",
                     code="OUTPUT_UNSUPPORTED",
                     hint="name a regular file, a character device or a named pipe")
