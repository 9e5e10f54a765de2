"""`workbench lab` started for real: JupyterLab accepts the token it was given and
refuses any other, the token is nowhere in the server's command line
(``/proc/PID/cmdline`` is readable by every local user; the environment is not), and
the URL is printed only once the server answers it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lab_support import running_lab, status
from tests.support import REPO

TOKEN = "lab-token-test-" + "9f3c1a7e5b2d4c6a"


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_the_token_reaches_jupyterlab_through_the_environment_only(tmp_path):
    pytest.importorskip("jupyterlab")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    env.pop("JUPYTER_TOKEN", None)
    printed = tmp_path / "stdout.txt"
    with running_lab(tmp_path, REPO / "notebooks", TOKEN, env, stdout=printed) as lab:
        url = f"{lab.base}/lab/tree/01_triage.ipynb?token={TOKEN}"
        lab.wait(lambda: url in printed.read_text(), "URL printed", every=0.1)
        # printed: so it answers now, with no wait
        assert status(lab.base, TOKEN) == 200
        lines = printed.read_text().splitlines()
        assert lines[0].endswith(": starting…") and lines[1] == f"  {url}  (Ctrl-C stops it)"
        assert status(lab.base, "not-the-token-at-all") == 403
        cmdline = Path(f"/proc/{lab.proc.pid}/cmdline").read_bytes()
        assert b"jupyterlab" in cmdline and TOKEN.encode() not in cmdline
        assert TOKEN.encode() not in cmdline.lower()
