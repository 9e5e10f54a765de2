"""An echoing service: whatever credential replay sends (``--auth-env``), shaped like no
vendor's key, comes back in the answers — a ``caller`` field, an ``x-caller`` header,
``invalid key …`` on a 401, URL-encoded in a link, a ``Basic`` credential decoded — and
none of it, in any spelling, reaches a byte under the store: the HAR replay ingests, the
trace, the ``replays`` rows. Where it stood, the store holds the keyed token the store's
redactor gives the credential, equal across attempts (docs/replay.md, "Credentials")."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
import yaml

from tests.e2e.test_cli_replay import record_run
from tests.hostile.on_disk import secrets_on_disk
from tests.support import run
from tests.unit.invariants.service import DOC, ECHO, TOKEN, running
from workbench.redact import Redactor
from workbench.store import Store

VAR = "WB_HOSTILE_REPLAY_CREDENTIAL"
BASIC = "ops-user:hunter2-Unshaped-77"


def _spellings(*values: str) -> list[str]:
    return [f(v) for v in values for f in (str, lambda s: quote(s, safe=""), quote_plus)]


def _found(capsys: pytest.CaptureFixture[str], tmp_path: Path, url: str) -> tuple[Path, str]:
    api = tmp_path / "openapi.yaml"
    api.write_text(yaml.safe_dump(DOC))
    store = tmp_path / "store"
    har = record_run(url, tmp_path / "run.har", key="k-echo")
    assert run(capsys, "ingest", har, "--env", "prod", "--store", store)[0] == 0
    code, out, _ = run(capsys, "invariants", api, "--store", store, "--json")
    assert code == 1
    sig = next(f["signature"] for f in json.loads(out)["findings"]
               if f["rule"] == "idempotent_retry" and "second resource" in f["message"])
    return store, sig


def _replay(capsys, monkeypatch, store: Path, sig: str, url: str, credential: str
            ) -> tuple[int, dict[str, Any], str]:
    monkeypatch.setenv(VAR, credential)
    code, out, err = run(capsys, "replay", sig[:8], "--target", url, "--auth-env", VAR,
                         "--attempts", "2", "--store", store, "--json")
    return code, json.loads(out), err


def test_a_credential_the_service_echoes_on_success_is_never_stored(
        capsys, tmp_path, monkeypatch):
    with running({"double_create"}) as (url, svc):
        store, sig = _found(capsys, tmp_path, url)
        svc.bugs.add(ECHO)
        code, doc, err = _replay(capsys, monkeypatch, store, sig, url, TOKEN)
    assert code == 1 and doc["reproduced"] is True, err
    core = TOKEN.split(" ", 1)[1]
    assert secrets_on_disk(store, _spellings(TOKEN, core)) == []
    assert core not in json.dumps(doc)
    # the echoed caller is the keyed token of what was sent: one value, one token
    key = Store(store).redaction_key()
    want = Redactor(key).token("secret", TOKEN, "secret-field")
    rows = Store(store).sql(
        "SELECT result FROM events WHERE trace_id IN "
        "(SELECT trace_id FROM replays WHERE trace_id IS NOT NULL)").to_pylist()
    callers = {json.loads(r["result"])["body"]["caller"] for r in rows}
    assert callers == {want}


@pytest.mark.parametrize("credential, secrets", [
    ("Bearer k7-Unshaped-Credential-9", ["k7-Unshaped-Credential-9"]),
    ("Basic " + base64.b64encode(BASIC.encode()).decode(),
     [base64.b64encode(BASIC.encode()).decode(), BASIC, BASIC.split(":", 1)[1]]),
    ("sk/Unshaped+Key=value 99", ["sk/Unshaped+Key=value 99"]),
])
def test_a_refused_credential_echoed_in_the_401_is_never_stored(
        capsys, tmp_path, monkeypatch, credential, secrets):
    with running({"double_create"}) as (url, svc):
        store, sig = _found(capsys, tmp_path, url)
        svc.bugs.add(ECHO)
        code, doc, err = _replay(capsys, monkeypatch, store, sig, url, credential)
    assert code == 2 and "REPLAY_UNAUTHORIZED" in err
    assert [r["error"]["code"] for r in doc["runs"]] == ["REPLAY_UNAUTHORIZED"] * 2
    # the 401 was recorded (its trace is there), with the credential scrubbed from it
    assert all(r["trace_id"] for r in doc["runs"])
    assert secrets_on_disk(store, _spellings(credential, *secrets)) == []
    assert not any(s in json.dumps(doc) for s in secrets)
