"""The bundled example incident is what `scripts/make_examples.py` writes (the script is its
source: edit the script, then regenerate), and it carries the values planted for the
redaction step."""

from __future__ import annotations

import json
import runpy

from tests.support import REPO

EXAMPLE = REPO / "traces" / "examples" / "archive-incident.otlp.json"


def test_the_committed_incident_is_what_the_generator_writes():
    script = runpy.run_path(str(REPO / "scripts" / "make_examples.py"))
    written = json.dumps(script["archive_incident"](), indent=1) + "\n"
    assert EXAMPLE.read_text() == written


def test_the_incident_carries_the_planted_secrets_and_personal_data():
    script = runpy.run_path(str(REPO / "scripts" / "make_examples.py"))
    text = EXAMPLE.read_text()
    assert text.count(f"Bearer {script['BEARER']}") == 4      # every HTTP span's header
    assert text.count(script["API_KEY"]) == 1                  # the call the model asked for
    for value in script["CUSTOMER"].values():                  # p17's customer, in the result
        assert json.dumps(value)[1:-1] in text
