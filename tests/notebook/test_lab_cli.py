"""`workbench lab`: the command it runs (loopback, offline, the store in the kernels'
environment) and its refusals. The browser test starts it for real."""

from __future__ import annotations

import json

from tests.support import REPO, run

LONG = "t0k-long-enough-for-a-lab"


def test_dry_run_names_the_command_the_store_and_the_notebook(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, err = run(capsys, "lab", "--dry-run", "--json", "--store", tmp_path / "s",
                         "--port", 8899, "--token", LONG, "--no-browser")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["store"] == str((tmp_path / "s").resolve())
    assert doc["dir"] == str(REPO / "notebooks") and doc["notebook"] == "01_triage.ipynb"
    assert doc["url"] == f"http://127.0.0.1:8899/lab/tree/01_triage.ipynb?token={LONG}"
    assert doc["token_from"] == "JUPYTER_TOKEN"
    assert doc["strip_outputs"] is True
    cmd = doc["command"]
    assert cmd[1:3] == ["-m", "jupyterlab"]
    for flag in ("--ServerApp.ip=127.0.0.1", "--ServerApp.port=8899", "--LabApp.news_url=None",
                 "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                 "--LabApp.default_url=/lab/tree/01_triage.ipynb",
                 "--no-browser",
                 "--ContentsManager.pre_save_hook=workbench.cli._lab.strip_outputs",
                 f"--ServerApp.root_dir={REPO / 'notebooks'}"):
        assert flag in cmd
    assert not any(LONG in c or "token" in c.lower() for c in cmd)  # never in argv
    code, out, _ = run(capsys, "lab", "--dry-run", "--notebook", "03_store_queries.ipynb")
    assert code == 0 and "/lab/tree/03_store_queries.ipynb?token=" in out


def test_without_a_token_one_is_made_and_printed_in_the_url(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    docs = []
    for _ in range(2):
        code, out, _ = run(capsys, "lab", "--dry-run", "--json", "--keep-outputs")
        assert code == 0
        docs.append(json.loads(out))
    tokens = []
    for doc in docs:
        token = doc["url"].split("?token=", 1)[1]
        assert len(token) == 48 and not any(token in c for c in doc["command"])
        assert doc["strip_outputs"] is False
        assert not any("pre_save_hook" in c for c in doc["command"])
        tokens.append(token)
    assert tokens[0] != tokens[1]          # random, not a constant
    code, _, err = run(capsys, "lab", "--dry-run", "--json", "--token", "")
    assert code == 2 and "LAB_TOKEN_EMPTY" in err   # no token would turn authentication off


def test_the_pre_save_hook_leaves_the_notebook_as_committed(tmp_path):
    """A notebook run by nbclient (outputs, counts, widget state, language details) comes
    out of the hook byte for byte as committed, in JupyterLab's own file format."""
    import nbformat
    from nbclient import NotebookClient

    from workbench.cli._lab import strip_outputs

    committed = (REPO / "notebooks" / "03_store_queries.ipynb").read_text()
    nb = nbformat.reads(committed, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    code = nbformat.v4.new_code_cell("import ipywidgets\nprint(1)\nipywidgets.IntSlider()",
                                     id="x01")
    nb.cells = [first, code]
    nb.cells[1].metadata["tags"] = ["mine"]          # the user's own metadata stays
    before = nbformat.writes(nb) + "\n"
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert nb.cells[1].outputs and "widgets" in nb.metadata
    assert nb.metadata.language_info.get("version")
    model = {"type": "notebook", "content": json.loads(nbformat.writes(nb))}
    strip_outputs(model=model, path="x.ipynb", contents_manager=None)
    assert nbformat.writes(nbformat.from_dict(model["content"])) + "\n" == before
    other = {"type": "file", "content": "print(1)"}
    strip_outputs(model=other, path="x.py", contents_manager=None)
    assert other == {"type": "file", "content": "print(1)"}


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
    assert code == 2 and err.startswith("error[USAGE]: workbench lab: argument --port: '70000'")
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


def test_a_short_token_is_refused(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    for token in ("a", "x" * 15):
        code, out, err = run(capsys, "lab", "--dry-run", "--token", token)
        assert code == 2 and err.startswith("error[LAB_TOKEN_SHORT]: ") and "hint:" in err
        assert out == ""
    code, _, _ = run(capsys, "lab", "--dry-run", "--token", "x" * 16)
    assert code == 0


def test_open_names_a_trace_and_step_of_the_store(capsys, tmp_path, monkeypatch):
    """`--open TRACE[:STEP]` opens 04_open.ipynb with the trace resolved in the store and
    handed to the kernel as $WORKBENCH_OPEN; a bad link or an unknown trace is refused
    before anything starts."""
    from workbench import Store
    from workbench.ingest import ingest

    from .conftest import INCIDENT, TRACE
    monkeypatch.chdir(REPO)
    store = tmp_path / "s"
    ingest([INCIDENT], Store(store))
    code, out, err = run(capsys, "lab", "--dry-run", "--json", "--store", store,
                         "--token", LONG, "--open", "4bf92f35:8")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["open"] == f"{TRACE}:8" and doc["notebook"] == "04_open.ipynb"
    assert "--LabApp.default_url=/lab/tree/04_open.ipynb" in doc["command"]
    code, out, err = run(capsys, "lab", "--dry-run", "--json", "--store", store,
                         "--token", LONG, "--open", "4bf92f35")
    assert code == 0 and json.loads(out)["open"] == TRACE
    for link, want in (("4bf92f35:x", "error[USAGE]"), (":8", "error[USAGE]"),
                       ("ffffffff:1", "error[TRACE_NOT_FOUND]")):
        code, _, err = run(capsys, "lab", "--dry-run", "--store", store, "--open", link)
        assert code == 2 and want in err, (link, err)
    code, _, err = run(capsys, "lab", "--dry-run", "--store", tmp_path / "none",
                       "--open", "4bf92f35")
    assert code == 2 and "error[STORE_NOT_FOUND]" in err
    assert not (tmp_path / "none").exists()


def test_open_link_selects_the_step(store):
    import pytest

    from workbench.model import UsageError
    from workbench.notebook import open_link, parse_link

    from .conftest import ARCHIVE_P18
    assert parse_link("4bf92f35:8") == ("4bf92f35", 8)
    assert parse_link("4bf92f35") == ("4bf92f35", None)
    view = open_link(store, "4bf92f35:8")
    assert view.selected == ARCHIVE_P18 and view.waterfall.selected == ARCHIVE_P18
    assert "workbench lab --open 4bf92f3577b3:8" in view.detail_text
    with pytest.raises(UsageError, match="has no step 99"):
        open_link(store, "4bf92f35:99")
    with pytest.raises(UsageError, match="not a link"):
        parse_link("4bf92f35:eight")
