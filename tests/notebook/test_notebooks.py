"""The notebooks: each runs top to bottom on the bundled examples with no edits (nbclient,
headless, a fresh store each), loads no code from a CDN, and is committed without
outputs."""

from __future__ import annotations

import json
import os
import re
import runpy
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.support import REPO

FOLDER = REPO / "notebooks"
NAMES = ["01_triage.ipynb", "02_shadow_diff.ipynb", "03_store_queries.ipynb", "04_open.ipynb"]
# code fetched from the network: a CDN host, or a script or module loaded over http(s)
REMOTE_CODE = re.compile(r"cdn\.jsdelivr|unpkg\.com|esm\.sh|cdnjs|<script[^>]+src=[\"']?https?:"
                         r"|import\s*\(?\s*[\"']https?://|from\s+[\"']https?://", re.I)


def test_the_notebooks_are_there():
    assert sorted(p.name for p in FOLDER.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebooks_carry_no_outputs(name):
    """Outputs are stripped in git: a notebook saved after a run must be cleared first
    (`jupyter nbconvert --clear-output --ClearMetadataPreprocessor.enabled=True
    --inplace notebooks/*.ipynb`)."""
    nb = nbformat.read(FOLDER / name, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name}: a cell has outputs"
            assert cell.execution_count is None, f"{name}: a cell has an execution count"
        assert "execution" not in cell.metadata, f"{name}: cell timing metadata"
    assert "widgets" not in nb.metadata, f"{name}: saved widget state"


def _execute(name: str, tmp: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(FOLDER / name, as_version=4)
    env = {"WORKBENCH_STORE": str(tmp / "store"), "WORKBENCH_FIXTURES": str(tmp / "fixtures")}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits the test's environment
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(FOLDER)}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each notebook run once, in a store of its own (they do not depend on each other)."""
    return {name: _execute(name, tmp_path_factory.mktemp(name.split("_")[0])) for name in NAMES}


def _text(nb: nbformat.NotebookNode) -> str:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o["text"])
            elif "data" in o:
                out.append(o["data"].get("text/plain", ""))
                out.append(o["data"].get("text/html", ""))
    return "\n".join(out)


def _widgets(nb: nbformat.NotebookNode) -> dict[str, Any]:
    return nb.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state", {})


def _widget_text(nb: nbformat.NotebookNode, css: str) -> str:
    """The HTML values of every widget inside views carrying the CSS class ``css``."""
    state = _widgets(nb)
    roots = [s for s in state.values() if css in s["state"].get("_dom_classes", [])]
    seen, out = set(), []
    stack = [c for r in roots for c in r["state"].get("children", [])]
    while stack:
        ref = stack.pop()
        mid = ref.removeprefix("IPY_MODEL_")
        if mid in seen or mid not in state:
            continue
        seen.add(mid)
        s = state[mid]["state"]
        out.append(str(s.get("value", "")))
        out.extend(str(o) for o in s.get("_options_labels", []))
        stack.extend(s.get("children", []))
    return "\n".join(out)


def test_triage_runs_end_to_end(executed):
    nb = executed["01_triage.ipynb"]
    text = _text(nb)
    assert "ingested 4bf92f3577b34da6a3ce929d0e0e4736 (otlp): 14 events, 5 tool calls" in text
    rules = _widget_text(nb, "wb-rules")
    assert "5 finding(s)</b>: 4 error(s), 1 warning(s), 3 signature(s)" in rules
    shrink = _widget_text(nb, "wb-minimize")
    assert "minimized 4bf92f3577b3 from 14 to 3 events</b> in 3 oracle calls" in shrink
    diff = _widget_text(nb, "wb-diff")
    assert "findings new in B: 0, gone in B: 5" in diff
    assert "customer" not in diff      # the canon drops the contact only the incident has
    trace = _widget_text(nb, "wb-trace")
    assert "highlighted: 3 event(s), kept by minimize (approval-before-archive)" in trace
    assert _widget_text(nb, "wb-redact") and _widget_text(nb, "wb-promote")


def test_triage_redaction_step_shows_the_planted_secrets_and_personal_data(executed):
    """The bundled incident carries a bearer token (in the four HTTP spans' Authorization
    header), an API key (in the arguments of the tool call the model asked for) and a
    customer's name and email (a tool result):
    the redaction step names each kind, shows where it was, and never the value after."""
    planted = runpy.run_path(str(REPO / "scripts" / "make_examples.py"))
    redact = _widget_text(executed["01_triage.ipynb"], "wb-redact")
    assert ("7 value(s) replaced (bearer 4, email 1, openai-api-key 1, person-name 1)"
            in redact)
    assert "nothing to redact" not in redact
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td></tr>",
                      redact)
    where = {detector: [w for w, d, _, _ in rows if d == detector]
             for detector in ("bearer", "openai-api-key", "person", "email")}
    assert len(where["bearer"]) == 4 and all(
        w.endswith("arrayValue.values[0].stringValue") for w in where["bearer"])
    assert [w.rsplit("⟨json⟩", 1)[1] for w in where["openai-api-key"]] == [
        "[0].parts[0].arguments.api_key"]
    assert [w.rsplit("⟨json⟩", 1)[1] for w in where["person"]] == [
        ".items[0].customer.contact_name"]
    assert [w.rsplit("⟨json⟩", 1)[1] for w in where["email"]] == [".items[0].customer.email"]
    secrets = (planted["BEARER"], planted["API_KEY"], *planted["CUSTOMER"].values())
    for value in secrets:
        assert any(value in before for _, _, before, _ in rows), value   # shown, marked
        assert not any(value in after for _, _, _, after in rows), value  # never after


def test_shadow_diff_runs_end_to_end(executed):
    text = _text(executed["02_shadow_diff.ipynb"])
    assert "shadow: 12 fixture(s), 0 same, 12 changed, 0 failed" in text
    assert "failed[0].step: 7 → 8" in text
    diff = _widget_text(executed["02_shadow_diff.ipynb"], "wb-diff")
    assert "retry-without-key/good.jsonl</b>: changed" in diff   # the worst one, selected
    assert "rules-renamed-field-bad → B rules-renamed-field-good" in diff


def test_a_link_opens_its_trace_and_step(executed):
    """Without ``$WORKBENCH_OPEN`` the notebook opens the incident's step 8: the waterfall
    holds the trace, the detail shows the step and writes its link."""
    nb = executed["04_open.ipynb"]
    assert "opening 4bf92f3577b3:8" in _text(nb)
    trace = _widget_text(nb, "wb-trace")
    assert "step 8</b> · tool_call <b>archive_project" in trace
    assert "workbench lab --open 4bf92f3577b3:8" in trace


def test_store_queries_run_end_to_end(executed):
    nb = executed["03_store_queries.ipynb"]
    text = _text(nb)
    # the examples: the ops-agent HARs, the projects API's recording and the diff's
    # golden and candidate runs among them; the candidate archives p18 unapproved
    # (4 findings of its own, the golden run none)
    assert "18 new trace(s)" in text
    assert "rules.yaml: 20 finding(s): 18 error(s), 2 warning(s), 9 signature(s)" in text
    assert "archive-incident.rules.yaml: 13 finding(s)" in text
    charts = [s for s in _widgets(nb).values() if s["model_name"] == "AnyModel"
              and "spec" in s["state"]]
    assert len(charts) == 3
    titles = {c["state"]["spec"].get("title") for c in charts}
    assert titles == {"events per trace, by kind", "tool call durations",
                      "findings per run minute, by rule"}


CHARTS = {"01_triage.ipynb": 1, "02_shadow_diff.ipynb": 0, "03_store_queries.ipynb": 3,
          "04_open.ipynb": 1}


@pytest.mark.parametrize("name", NAMES)
def test_no_code_is_loaded_from_a_cdn(executed, name):
    nb = executed[name]
    outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
    state = json.dumps(nb.metadata.get("widgets", {}))
    assert REMOTE_CODE.search(outputs) is None, REMOTE_CODE.search(outputs)
    found = REMOTE_CODE.search(state)
    assert found is None, state[max(0, found.start() - 200): found.end() + 100]
    # every chart carries its JavaScript, bundled offline, in its own widget state
    widgets = [s["state"] for s in _widgets(nb).values() if s["model_name"] == "AnyModel"]
    charts = [s for s in widgets if "spec" in s]
    assert len(charts) == CHARTS[name]
    # the views' own anywidgets (the waterfall, the scrollers) carry their code inline
    own = [s for s in widgets if "spec" not in s]
    assert all("export default" in s["_esm"] and "import " not in s["_esm"] for s in own)
    for chart in charts:
        assert len(chart["_esm"]) > 100_000 and "vega.github.io/schema/vega/" in chart["_esm"]
