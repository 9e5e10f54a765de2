"""The ops-agent example's decision tests, run as a user runs them: pytest on the
example's folder, each test starting a real `workbench serve` on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys

from tests.support import EXAMPLES, REPO


def test_the_ops_agent_decision_tests_pass_against_a_real_server():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         str(EXAMPLES / "ops-agent")], cwd=REPO, capture_output=True, text=True,
        timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "4 passed" in out.stdout
