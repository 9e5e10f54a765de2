"""Report files a command writes beside its output (``--sarif``, ``--junit``,
``--html``): the path is checked before any work is done, and the file is written by
``store.output_path``: a regular file atomically (a crash leaves the old file), through
a link to what it names, directly to a device or a pipe, never renamed over either; a
folder is ``OUTPUT_IS_FOLDER`` (docs/cli.md, "Output files")."""

from __future__ import annotations

from ..store import OutputPath, output_path

__all__ = ["report_path", "write_report"]


def report_path(option: str, value: str | None) -> OutputPath | None:
    """``value`` as the path of a report file, or None when the option was not given;
    a folder, a missing folder on the way or a block device is a usage error."""
    return None if value is None else output_path(option, value)


def write_report(path: OutputPath | None, data: bytes) -> None:
    """Write a report checked by ``report_path`` (nothing when it is None)."""
    if path is not None:
        path.write(data)
