"""Smaller edges found under attack: a ``flakes.lock`` written with a BOM still
quarantines its first entry, a ``flakes.lock`` that is a folder stops the run instead of
being ignored, and ``workbench lab --token ""`` is refused instead of turning
authentication off."""

import datetime as dt
import json
from importlib.metadata import entry_points

import pytest

from tests.support import REPO, run

pytest_plugins = ["pytester"]

AUTOLOADED = any(ep.value == "workbench.pytest_plugin" for ep in entry_points(group="pytest11"))
PLUGIN = [] if AUTOLOADED else ["-p", "workbench.pytest_plugin"]
RECENT = (dt.date.today() - dt.timedelta(days=3)).isoformat()
LINE = f"test_mod.py::test_flaky\t{RECENT}\tflakes under load\n"


@pytest.fixture
def project(pytester):
    pytester.makepyfile(test_mod="def test_flaky():\n    assert False\n\n"
                                 "def test_ok():\n    pass\n")
    return pytester


@pytest.mark.parametrize("encoding, head", [("utf-8-sig", ""), ("utf-8", "\ufeff"),
                                            ("utf-8-sig", "# frozen tests\n")])
def test_a_lock_with_a_bom_quarantines_its_first_entry(project, encoding, head):
    project.path.joinpath("flakes.lock").write_bytes((head + LINE).encode(encoding))
    result = project.runpytest(*PLUGIN, "--merge-gate", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == 0


@pytest.mark.parametrize("given", [[], ["--flakes", "flakes.lock"]])
def test_a_lock_that_is_a_folder_stops_the_run(project, given):
    project.path.joinpath("flakes.lock").mkdir()
    result = project.runpytest(*PLUGIN, *given)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*error[[]FLAKES_INVALID[]]: cannot read the flakes file*"])


def test_no_lock_at_all_is_still_no_quarantine(project):
    result = project.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, failed=1)


@pytest.mark.parametrize(("token", "code"), [("", "LAB_TOKEN_EMPTY"),
                                             ("   ", "LAB_TOKEN_EMPTY"),
                                             ("\t", "USAGE")])  # a control character
def test_lab_refuses_an_empty_token(capsys, monkeypatch, tmp_path, token, code):
    monkeypatch.chdir(REPO)
    status, out, err = run(capsys, "lab", "--dry-run", "--store", tmp_path / "s",
                           "--token", token)
    assert status == 2 and out == ""
    assert err.startswith(f"error[{code}]: ")
    assert "hint: " in err


def test_lab_keeps_a_real_token_and_its_default(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    code, out, _ = run(capsys, "lab", "--dry-run", "--json", "--store", tmp_path / "s",
                       "--token", "t0k-long-enough-here")
    doc = json.loads(out)
    assert code == 0 and doc["url"].endswith("?token=t0k-long-enough-here")
    assert doc["token_from"] == "JUPYTER_TOKEN"  # the environment, never the command line
    assert not any("t0k" in c for c in doc["command"])
    code, out, _ = run(capsys, "lab", "--dry-run", "--json", "--store", tmp_path / "s")
    token = json.loads(out)["url"].split("?token=", 1)[1]  # the default: a random one
    assert code == 0 and len(token) == 48 and not any(token in c
                                                      for c in json.loads(out)["command"])
