"""`workbench lab` started for real: JupyterLab accepts the token it was given and
refuses any other, and the token is nowhere in the server's command line
(``/proc/PID/cmdline`` is readable by every local user; the environment is not)."""

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
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "lab", "--store", str(tmp_path / "store"),
         "--dir", str(REPO / "notebooks"), "--port", str(port), "--token", TOKEN,
         "--no-browser"], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail((tmp_path / "lab.log").read_text()[-3000:])
            try:
                status = _status(base, TOKEN)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not answer:\n"
                                + (tmp_path / "lab.log").read_text()[-3000:])
                time.sleep(0.3)
        assert status == 200
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
