"""Generated inputs come back from their seed (docs/replay.md): `probe` draws a user's
email, `ingest` redacts it to a token, and `replay` draws it again from the seed, proves
it against the token with the store's key and sends the email, so the double create
reproduces. With another key (or a token that is not the one recorded) nothing is
proved: the token is sent, the service refuses it, and the run names the steps that
carried tokens: a clean answer to tokens is an `error` (`TOKENS_SENT`), never a pass."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import run
from tests.unit.replay.users import DOC, running
from workbench.redact import TOKEN_RE
from workbench.store import Store

SEED = 3


def _json(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, Any]:
    code, out, _ = run(capsys, *argv, "--json")
    return code, json.loads(out)


@pytest.fixture
def api(tmp_path: Path) -> Path:
    p = tmp_path / "users.yaml"
    p.write_text(yaml.safe_dump(DOC))
    return p


def _probed(capsys: pytest.CaptureFixture[str], tmp_path: Path, api: Path, url: str
            ) -> tuple[Path, str, list[dict[str, Any]]]:
    """The probe's trace in a store, judged: the double create's signature and the
    bodies of the create and its retry as the store holds them."""
    store = tmp_path / "store"
    code, doc = _json(capsys, "probe", api, "--target", url, "--writes", "--seed", SEED,
                      "--store", store)
    assert code == 1
    found = [f for f in doc["findings"] if f["rule"] == "idempotent_retry"
             and "created a second resource" in f["message"]]
    assert len(found) == 1
    pair = found[0]["event_ids"]
    rows = Store(store).sql("SELECT event_id, args FROM events WHERE trace_id = ? AND "
                            "list_contains(?, event_id) ORDER BY seq",
                            [doc["trace_id"], pair]).to_pylist()
    bodies = [json.loads(r["args"])["body"] for r in rows]
    return store, found[0]["signature"], bodies


def test_a_redacted_generated_email_is_drawn_again_and_the_finding_reproduces(
        capsys, tmp_path, api):
    with running({"double_create"}) as (url, svc):
        store, sig, bodies = _probed(capsys, tmp_path, api, url)
        # the store holds the create's email only as a token: sent as is, it is refused
        assert len(bodies) == 2 and bodies[0] == bodies[1]
        assert TOKEN_RE.search(bodies[0]["email"])
        created = len(svc.users)
        code, doc = _json(capsys, "replay", sig, "--target", url, "--attempts", 2,
                          "--store", store)
        assert code == 1 and doc["reproduced"] is True
        assert [(r["outcome"], r["signature"], r["tokens_sent"]) for r in doc["runs"]] == [
            ("reproduced", sig, [])] * 2
        assert doc["regenerated"] > 0
        # what was sent is a real email, and the probe's own: the same token under the key
        sent = [u for u in svc.users[created:] if u["name"] == bodies[0]["name"]]
        assert len(sent) == 4  # create and retry, twice
        assert all(TOKEN_RE.search(u["email"]) is None and "@" in u["email"] for u in sent)
        # the attempts' recordings are redacted like any: the email is a token again
        held = Store(store).sql("SELECT args FROM events WHERE trace_id = ?",
                                [doc["runs"][0]["trace_id"]]).to_pylist()
        assert not any(sent[0]["email"] in r["args"] for r in held)
        assert any(bodies[0]["email"] in r["args"] for r in held)


def test_another_store_key_proves_nothing_and_the_run_says_tokens_were_sent(
        capsys, tmp_path, api):
    with running({"double_create"}) as (url, svc):
        store, sig, bodies = _probed(capsys, tmp_path, api, url)
        key = store / "redaction.key"
        key.write_text(os.urandom(32).hex() + "\n")
        code, doc = _json(capsys, "replay", sig, "--target", url, "--attempts", 1,
                          "--store", store)
        # clean, but on tokens: an error that counts for nothing, never a pass
        assert code == 2 and doc["reproduced"] is None and doc["regenerated"] == 0
        run_ = doc["runs"][0]
        assert (run_["outcome"], run_["error"]["code"]) == ("error", "TOKENS_SENT")
        assert doc["error"]["code"] == "TOKENS_SENT" and doc["status"] == "open"
        row = Store(store).sql("SELECT outcome, reproduced, error_code FROM replays"
                               ).to_pylist()
        assert row == [{"outcome": "error", "reproduced": None, "error_code": "TOKENS_SENT"}]
        # the create and its retry carried tokens (steps are 1-based; their seq + 1)
        steps = Store(store).sql(
            "SELECT seq FROM events WHERE trace_id = ? AND list_contains(?, event_id)",
            [doc["source_trace"], ["entry-2", "entry-3"]]).column("seq").to_pylist()
        assert {s + 1 for s in steps} <= set(run_["tokens_sent"])
        assert bodies[0] in svc.refused  # the token itself reached the service
        code, out, err = run(capsys, "replay", sig, "--target", url, "--attempts", 3,
                             "--store", store)
        assert code == 2 and "redaction tokens" in out and "error[TOKENS_SENT]" in err
        assert out.count("error[TOKENS_SENT]") == 3  # every attempt ran, none counted


def test_the_document_named_with_invariants_is_the_one_values_are_drawn_from(
        capsys, tmp_path, api):
    with running({"double_create"}) as (url, _):
        store, sig, _ = _probed(capsys, tmp_path, api, url)
        # the document the finding was judged against is gone and none is named
        moved = tmp_path / "elsewhere.yaml"
        api.rename(moved)
        code, _, err = run(capsys, "replay", sig, "--target", url, "--store", store)
        assert code == 2 and "REPLAY_JUDGE_MISSING" in err
        code, doc = _json(capsys, "replay", sig, "--target", url, "--attempts", 1,
                          "--invariants", moved, "--store", store)
        assert code == 1 and doc["regenerated"] > 0


def test_minimize_against_the_service_draws_them_again_too(capsys, tmp_path, api):
    with running({"double_create"}) as (url, _):
        store, sig, _ = _probed(capsys, tmp_path, api, url)
        trace = Store(store).sql("SELECT trace_id FROM findings WHERE signature = ?",
                                 [sig]).column("trace_id").to_pylist()[0]
        code, mini = _json(capsys, "minimize", trace, "--invariants", api, "--rule",
                           "idempotent_retry", "--signature", sig, "--target", url,
                           "--store", store)
        assert code == 0 and mini["one_minimal"] and mini["kept_steps"] == [2, 3]
        # the minimized trace keeps the draw records: its replay draws them again
        code, doc = _json(capsys, "replay", sig, "--target", url, "--attempts", 1,
                          "--store", store)
        assert code == 1 and doc["source_trace"] == mini["trace_id"]
        assert (doc["regenerated"], doc["runs"][0]["tokens_sent"]) == (2, [])
