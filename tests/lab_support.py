"""Helpers of the notebook tests that run `workbench lab` for real: the server started
on a free port of 127.0.0.1 with a token, waited for, and stopped (terminated, killed
when it has not ended 20 s later), whatever the test did."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

#: how long the server may take to start (JupyterLab on a loaded machine)
START_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status(base: str, token: str, timeout: float = 5.0) -> int | None:
    """The HTTP status of ``/api/status`` under ``token``; None when nothing answers."""
    try:
        with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=timeout) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


@dataclass
class Lab:
    """A running `workbench lab`: its process, base URL and output files."""

    proc: subprocess.Popen[bytes]
    base: str
    log: Path  # its stderr, and its stdout unless kept apart
    stdout: Path | None = None

    def output(self) -> str:
        """What the server printed, for a failure's message (the log's tail)."""
        printed = self.stdout.read_text() if self.stdout is not None else ""
        return printed + self.log.read_text()[-3000:]

    def wait(self, ready: Callable[[], bool], what: str, every: float = 0.3) -> None:
        """Poll ``ready`` until it holds; fail the test with the server's output when
        the server exits first or ``START_TIMEOUT`` passes."""
        deadline = time.monotonic() + START_TIMEOUT
        while not ready():
            if self.proc.poll() is not None:
                pytest.fail(f"workbench lab exited ({self.proc.returncode}) before {what}:\n"
                            + self.output())
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} within {START_TIMEOUT:.0f} s:\n" + self.output())
            time.sleep(every)


@contextmanager
def running_lab(tmp: Path, folder: Path, token: str, env: dict[str, str], *,
                stdout: Path | None = None) -> Iterator[Lab]:
    """`workbench lab --no-browser` run from ``tmp`` with its store in ``tmp/store``,
    serving ``folder`` with ``token``; its output in ``tmp/lab.log`` (its stdout in
    ``stdout`` when given). Yields at once: the caller waits for what it needs."""
    port = free_port()
    with ExitStack() as files:
        log = files.enter_context((tmp / "lab.log").open("w"))
        out = files.enter_context(stdout.open("w")) if stdout is not None else log
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench", "lab", "--store", str(tmp / "store"),
             "--dir", str(folder), "--port", str(port), "--token", token, "--no-browser"],
            cwd=tmp, env=env, stdout=out,
            stderr=log if stdout is not None else subprocess.STDOUT)
        try:
            yield Lab(proc, f"http://127.0.0.1:{port}", tmp / "lab.log", stdout)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
