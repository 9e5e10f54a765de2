"""`workbench lab`: the command it runs (loopback, offline, the store in the kernels'
environment) and its refusals. The browser test starts it for real."""

from __future__ import annotations

import json

from tests.support import REPO, run


def test_dry_run_names_the_command_the_store_and_the_notebook(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, err = run(capsys, "lab", "--dry-run", "--json", "--store", tmp_path / "s",
                         "--port", 8899, "--token", "t0k", "--no-browser")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["store"] == str((tmp_path / "s").resolve())
    assert doc["dir"] == str(REPO / "notebooks") and doc["notebook"] == "01_triage.ipynb"
    assert doc["url"] == "http://127.0.0.1:8899/lab/tree/01_triage.ipynb"
    cmd = doc["command"]
    assert cmd[1:3] == ["-m", "jupyterlab"]
    for flag in ("--ServerApp.ip=127.0.0.1", "--ServerApp.port=8899", "--LabApp.news_url=None",
                 "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                 "--LabApp.default_url=/lab/tree/01_triage.ipynb",
                 "--IdentityProvider.token=t0k", "--no-browser",
                 f"--ServerApp.root_dir={REPO / 'notebooks'}"):
        assert flag in cmd
    code, out, _ = run(capsys, "lab", "--dry-run", "--notebook", "03_store_queries.ipynb")
    assert code == 0 and "/lab/tree/03_store_queries.ipynb" in out


def test_refusals(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "lab", "--dry-run")
    assert code == 2 and err.startswith("error[FILE_NOT_FOUND]: no notebooks folder notebooks")
    (tmp_path / "notebooks").mkdir()
    code, _, err = run(capsys, "lab", "--dry-run", "--notebook", "x.ipynb")
    assert code == 2 and "error[FILE_NOT_FOUND]: no notebook x.ipynb" in err
    assert "hint: notebooks holds no notebooks" in err
    code, out, _ = run(capsys, "lab", "--dry-run", "--json")
    assert code == 0 and json.loads(out)["notebook"] is None   # an empty folder still opens
    code, _, err = run(capsys, "lab", "--dry-run", "--port", 70000)
    assert code == 2 and err.startswith("error[USAGE]: --port 70000")
    code, out, err = run(capsys, "lab", "--bogus")
    assert code == 2 and "Traceback" not in err


def test_without_jupyterlab_the_lab_extra_is_named(capsys, tmp_path, monkeypatch):
    import importlib.util
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    code, out, err = run(capsys, "lab", "--dry-run", "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "LAB_NOT_INSTALLED"
    assert "pip install 'trace-workbench[lab]'" in err
