"""RuleView shows what the store's last replay of a group observed: a replay whose steps
did not land (a ``--target`` one path segment off the orders service on 127.0.0.1, its
double-create bug still on) shows ``diverged`` with the first such step and the likely
cause, and the group stays ``open`` (docs/replay.md, "Did the steps land?")."""

from __future__ import annotations

import html

import pytest

from tests.e2e.conftest import KEY_VAR
from tests.e2e.test_cli_replay import record_run
from tests.unit.invariants.service import TOKEN, running
from workbench.ingest import ingest
from workbench.notebook import RuleView
from workbench.replay import run_replay
from workbench.store import Store

# two creates answered 201 under one Idempotency-Key: the recording breaks it
RULES = """version: 1
rules:
  one-create-per-key:
    count:
      event: {kind: http, name: POST /orders, where: {result.status: 201}}
      per: ["args.headers.idempotency-key"]
      max: 1
"""


@pytest.fixture
def found(tmp_path, monkeypatch):
    """The orders service (bug on), a recorded run in a store, RuleView's run over it
    recorded: ``(store, view, signature, url, rules file)`` while the service runs."""
    monkeypatch.setenv(KEY_VAR, TOKEN)
    rules = tmp_path / "orders.rules.yaml"
    rules.write_text(RULES)
    store = Store(tmp_path / "store")
    with running({"double_create"}) as (url, _):
        ingest([record_run(url, tmp_path / "run.har", key="k1")], store)
        trace = store.sql("SELECT trace_id FROM traces").column(0)[0].as_py()
        view = RuleView(store, trace, rules=str(rules), record=True)
        view.run()
        ((sig, status, last),) = [(g.signature, g.status, g.last_replay) for g in view.groups]
        assert (status, last) == ("open", "")
        yield store, view, sig, url, str(rules)


def test_a_replay_that_did_not_land_shows_as_diverged(found):
    store, view, sig, url, rules = found
    done = run_replay(store, sig, url + "/v1", auth_env=[KEY_VAR], rules=rules)
    want = ("step 1: POST /v1/orders answered 404 where the recording had 201: is "
            "--target's base path right?")
    assert [r.outcome for r in done.runs] == ["diverged"] * 3 and done.status == "open"
    view.run()
    (g,) = view.groups
    assert g.status == "open"
    assert g.last_replay.startswith("diverged ")
    assert g.last_replay.endswith(f" in default ({url}/v1): {want}")
    assert "<td>open</td>" in view.groups_html.value
    assert html.escape(f"({url}/v1): {want}") + "</td>" in view.groups_html.value


def test_a_replay_that_landed_shows_its_outcome_without_a_note(found):
    store, view, sig, url, rules = found
    done = run_replay(store, sig, url, auth_env=[KEY_VAR], rules=rules)
    view.run()
    (g,) = view.groups
    assert [r.outcome for r in done.runs] == ["reproduced"] * 3
    assert all(r.divergence is None for r in done.runs)
    assert g.last_replay.startswith("reproduced ") and g.last_replay.endswith(f"({url})")
