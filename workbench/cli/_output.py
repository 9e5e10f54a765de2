"""Report files a command writes beside its output (``--sarif``, ``--junit``,
``--html``): the path is checked before any work is done, and the file is written
atomically, so a refused path costs nothing and a crash leaves the old file."""

from __future__ import annotations

from pathlib import Path

from ..model import UsageError
from ..store import atomic_write

__all__ = ["report_path", "write_report"]


def report_path(option: str, value: str | None) -> Path | None:
    """``value`` as the path of a report file, or None when the option was not given;
    a folder, or a file whose folder does not exist, is a usage error."""
    if value is None:
        return None
    out = Path(value)
    example = f"e.g. report.{option.lstrip('-')}"
    if out.is_dir():
        raise UsageError(f"{option} {out} is a folder", hint=f"give a file name, {example}")
    if not out.parent.is_dir():
        raise UsageError(f"{option} {out}: its folder does not exist",
                         hint="create the folder first")
    return out


def write_report(path: Path | None, data: bytes) -> None:
    """Write a report checked by ``report_path`` (nothing when it is None)."""
    if path is not None:
        atomic_write(path, data, mkdir=False)
