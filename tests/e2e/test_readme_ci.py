"""The README's CI example, run as written: a pull request that renames an output field
fails the contract gate, and one that only adds a field passes it."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import EXAMPLES, REPO

V1 = EXAMPLES / "contracts" / "projects-v1"
CONSUMER = """version: 1
consumer: ops
tools:
  list_projects:
    reads: ["result.items[*].id", "result.items[*].owner"]
"""


def _steps() -> list[str]:
    """The `- run:` lines of the README's contracts CI block."""
    text = (REPO / "README.md").read_text()
    block = text[text.index("In CI, the gate runs"):]
    block = block[block.index("```yaml"):block.index("```", block.index("```yaml") + 7)]
    return re.findall(r"^- run: (.+)$", block, re.M)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@example.invalid", *args],
                   cwd=repo, check=True, capture_output=True)


def _pull_request(tmp_path: Path, edit) -> tuple[Path, Path]:
    """A repository whose main holds the v1 contracts, and a branch with ``edit`` made."""
    repo = tmp_path / "repo"
    (repo / "agents").mkdir(parents=True)
    shutil.copytree(V1, repo / "contracts")
    (repo / "agents" / "ops.consumer.yaml").write_text(CONSUMER)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "contracts v1")
    _git(repo, "update-ref", "refs/remotes/origin/main", "main")  # as a CI checkout has it
    _git(repo, "checkout", "-q", "-b", "pr")
    f = repo / "contracts" / "list_projects.yaml"
    f.write_text(edit(f.read_text()))
    _git(repo, "commit", "-q", "-am", "the change under review")
    return repo, tmp_path / "base"


def _run_steps(repo: Path, base: Path) -> subprocess.CompletedProcess[str]:
    steps = _steps()
    assert len(steps) == 2 and "contract diff" in steps[1]
    bindir = Path(sys.executable).parent
    result = None
    for step in steps:
        cmd = step.replace("/tmp/base", str(base)) + (" --json" if "contract diff" in step else "")
        result = subprocess.run(cmd, shell=True, cwd=repo, capture_output=True, text=True,
                                env={"PATH": f"{bindir}:/usr/bin:/bin"})
        if "contract diff" not in step:
            assert result.returncode == 0, result.stderr
    assert result is not None
    return result


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_renamed_output_field_fails_the_gate(tmp_path):
    repo, base = _pull_request(tmp_path, lambda t: t.replace(
        "required: [id, name, owner]", "required: [id, name, owner_id]").replace(
        "          owner: {type: string}", "          owner_id: {type: string}"))
    result = _run_steps(repo, base)
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert [(c["kind"], c["path"], c["direction"], c["severity"], c["consumers"])
            for c in doc["changes"]] == [
        ("field-renamed", "result.items[*].owner", "output", "error", ["ops"])]
    sarif = json.loads((repo / "contract.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "field-renamed"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_an_added_output_field_passes_the_gate(tmp_path):
    repo, base = _pull_request(tmp_path, lambda t: t.replace(
        "          stale: {type: boolean}\n",
        "          stale: {type: boolean}\n          archived: {type: boolean}\n"))
    result = _run_steps(repo, base)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [c["kind"] for c in json.loads(result.stdout)["changes"]] == ["field-added"]
