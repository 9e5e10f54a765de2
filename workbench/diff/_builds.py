"""Running one build on one fixture: the command line, the process, its JSON output.

A build's command is split like a shell would (``shlex``) but run without one; the
token ``{fixture}`` is replaced by the fixture's path wherever it occurs. What the
build prints on stdout must be JSON — one document, or JSON lines (read as a list).
A build that is killed, times out, prints nothing or prints something else is a *failed*
run (``crashed`` when it also exited non-zero), reported for that fixture; the shadow
run itself goes on. Numbers are read exactly (``Decimal`` for fractions, integers of any
width).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..model import UsageError

__all__ = ["BuildRun", "parse_command", "run_build"]

PLACEHOLDER = "{fixture}"
_TAIL = 2000  # characters of stderr kept in a report


@dataclass(frozen=True)
class BuildRun:
    """One build run on one fixture. ``failure`` is None when ``doc`` holds its JSON,
    else ``crashed``, ``timeout``, ``no_output`` or ``not_json``."""

    exit_code: int | None
    doc: Any = None
    failure: str | None = None
    message: str = ""
    stdout: bytes = b""
    stderr: bytes = b""

    @property
    def ok(self) -> bool:
        return self.failure is None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"exit_code": self.exit_code, "failure": self.failure}
        if self.failure is not None:
            out["message"] = self.message
            out["stderr"] = self.stderr.decode("utf-8", "replace")[-_TAIL:]
        return out


def parse_command(cmd: str, option: str) -> list[str]:
    """Split a build command; refuse one without ``{fixture}`` or whose program is
    missing (every fixture would fail the same way: that is a usage error)."""
    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        raise UsageError(f"{option}: cannot split {cmd!r}: {exc}",
                         hint="quote the command as a shell would") from None
    if not argv:
        raise UsageError(f"{option} is empty", hint="e.g. --old 'mytool-1.4 run {fixture}'")
    if not any(PLACEHOLDER in a for a in argv):
        raise UsageError(f"{option} {cmd!r} has no {PLACEHOLDER}",
                         hint=f"write {PLACEHOLDER} where the fixture's path goes, e.g. "
                              f"--old 'mytool-1.4 run {PLACEHOLDER}'")
    prog = argv[0]
    found = shutil.which(prog) if os.sep not in prog else (
        prog if os.access(prog, os.X_OK) and Path(prog).is_file() else None)
    if found is None:
        raise UsageError(f"{option}: no program {prog!r}", code="COMMAND_NOT_FOUND",
                         hint="give the build's path, or put it on PATH")
    return argv


def run_build(argv: list[str], fixture: Path, timeout: float) -> BuildRun:
    """Run the build on the fixture and read its JSON output."""
    args = [a.replace(PLACEHOLDER, str(fixture)) for a in argv]
    try:
        proc = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        return BuildRun(None, failure="timeout", message=f"no answer within {timeout:g} s",
                        stdout=exc.stdout or b"", stderr=exc.stderr or b"")
    except OSError as exc:
        return BuildRun(None, failure="crashed", message=f"could not start: {exc.strerror}")
    if proc.returncode < 0:
        return BuildRun(proc.returncode, failure="crashed",
                        message=f"killed by signal {-proc.returncode}",
                        stdout=proc.stdout, stderr=proc.stderr)
    doc, why = parse_output(proc.stdout)
    if why is not None:
        failure = ("crashed" if proc.returncode != 0 else
                   "no_output" if not proc.stdout.strip() else "not_json")
        return BuildRun(proc.returncode, failure=failure,
                        message=f"{why} (exit status {proc.returncode})",
                        stdout=proc.stdout, stderr=proc.stderr)
    return BuildRun(proc.returncode, doc, stdout=proc.stdout, stderr=proc.stderr)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_output(data: bytes) -> tuple[Any, str | None]:
    """The JSON a build printed: one document, else JSON lines; or why not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"stdout is not UTF-8 (byte {exc.start})"
    if not text.strip():
        return None, "printed nothing on stdout"
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=_no_constant), None
    except ValueError as exc:
        first = str(exc)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        try:
            return [json.loads(ln, parse_float=Decimal, parse_constant=_no_constant)
                    for ln in lines], None
        except ValueError:
            pass
    return None, f"stdout is not JSON ({first})"
