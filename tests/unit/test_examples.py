"""The bundled examples are what `scripts/make_examples.py` writes (the script is their
source: edit the script, then regenerate) — the example incident, the HAR recorded from
the projects service, the golden and candidate runs, the shadow fixtures — and they carry
the values planted for the redaction step."""

from __future__ import annotations

import json
import runpy
from typing import Any

import pytest

from tests.support import EXAMPLES, REPO

EXAMPLE = EXAMPLES / "archive-incident.otlp.json"


@pytest.fixture(scope="module")
def script() -> dict[str, Any]:
    return runpy.run_path(str(REPO / "scripts" / "make_examples.py"))


@pytest.fixture(scope="module")
def written(script) -> dict[str, str]:
    return script["examples"]()


def test_the_committed_incident_is_what_the_generator_writes(script):
    written = json.dumps(script["archive_incident"](), indent=1) + "\n"
    assert EXAMPLE.read_text() == written


def test_every_generated_example_is_committed_as_written(written):
    assert {"archive-incident.otlp.json", "projects-api/run.har", "diff/golden.jsonl",
            "diff/candidate.jsonl", "shadow/fixtures/orders/refund.json"} <= set(written)
    for name, text in written.items():
        assert (EXAMPLES / name).read_text() == text, f"regenerate {name}"
    # and nothing in the generated folders that the script does not write
    fixtures = {str(p.relative_to(EXAMPLES)) for p in (EXAMPLES / "shadow" / "fixtures").rglob("*")
                if p.is_file()}
    assert fixtures == {n for n in written if n.startswith("shadow/fixtures/")}


def test_the_incident_carries_the_planted_secrets_and_personal_data(script):
    text = EXAMPLE.read_text()
    assert text.count(f"Bearer {script['BEARER']}") == 4      # every HTTP span's header
    assert text.count(script["API_KEY"]) == 1                  # the call the model asked for
    for value in script["CUSTOMER"].values():                  # p17's customer, in the result
        assert json.dumps(value)[1:-1] in text


def test_the_recorded_run_holds_the_double_write_and_what_redaction_has_to_find(written):
    entries = json.loads(written["projects-api/run.har"])["log"]["entries"]
    calls = [(e["request"]["method"], e["request"]["url"].removeprefix("http://127.0.0.1:8080"),
              e["response"]["status"]) for e in entries]
    assert calls == [
        ("GET", "/v1/projects?owner_id=team-a&stale=true&limit=2", 200),
        ("GET", "/v1/projects?owner_id=team-a&stale=true&limit=2&cursor=c2", 200),
        ("POST", "/v1/approvals", 201), ("POST", "/v1/approvals", 201),
        ("GET", "/v1/approvals/apr_7732", 200), ("POST", "/v1/projects/p17/archive", 200)]
    answers = [json.loads(e["response"]["content"]["text"]) for e in entries]
    # the retry under the same key wrote a second approval: the bug the tour closes
    assert [a["approval_id"] for a in answers[2:4]] == ["apr_7731", "apr_7732"]
    assert entries[2]["request"]["postData"] == entries[3]["request"]["postData"]
    # a bearer token in every request; names, emails and phones in answers only
    for e in entries:
        assert {"name": "Authorization", "value": "Bearer tour-9Kq4Zr7Wm2"} in e["request"][
            "headers"]
        sent = json.dumps(e["request"].get("postData", {}))
        assert "@" not in sent and "full_name" not in sent
    got = "".join(e["response"]["content"]["text"] for e in entries)
    for planted in ("Marta Quillfeather", "marta.quillfeather@fernhollow-outfitters.test",
                    "+44 7700 183 594", "Ines Marrowby", "+49 1522 3489174"):
        assert planted in got
