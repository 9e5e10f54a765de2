"""`workbench lab` started for real: JupyterLab accepts the token it was given and
refuses any other, the token is nowhere in the server's command line
(``/proc/PID/cmdline`` is readable by every local user; the environment is not), and
the URL is printed only once the server answers it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.support import REPO

TOKEN = "lab-token-test-" + "9f3c1a7e5b2d4c6a"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status(base: str, token: str) -> int:
    try:
        with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_the_token_reaches_jupyterlab_through_the_environment_only(tmp_path):
    pytest.importorskip("jupyterlab")
    port = _free_port()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    env.pop("JUPYTER_TOKEN", None)
    log = (tmp_path / "lab.log").open("w")
    printed = (tmp_path / "stdout.txt").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "lab", "--store", str(tmp_path / "store"),
         "--dir", str(REPO / "notebooks"), "--port", str(port), "--token", TOKEN,
         "--no-browser"], cwd=tmp_path, env=env, stdout=printed, stderr=log)
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/lab/tree/01_triage.ipynb?token={TOKEN}"
    try:
        deadline = time.monotonic() + 90
        while url not in (tmp_path / "stdout.txt").read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("no URL printed:\n" + (tmp_path / "stdout.txt").read_text()
                            + (tmp_path / "lab.log").read_text()[-3000:])
            time.sleep(0.1)
        # printed: so it answers now, with no wait
        assert _status(base, TOKEN) == 200
        lines = (tmp_path / "stdout.txt").read_text().splitlines()
        assert lines[0].endswith(": starting…") and lines[1] == f"  {url}  (Ctrl-C stops it)"
        assert _status(base, "not-the-token-at-all") == 403
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert b"jupyterlab" in cmdline and TOKEN.encode() not in cmdline
        assert TOKEN.encode() not in cmdline.lower()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        printed.close()
