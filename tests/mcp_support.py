"""A small project for the MCP server's tests: the bundled example incident, its rules,
an OpenAPI document of the projects API it called and a trace file holding a secret,
in one folder (the server's working directory), with a store the example is ingested
into and checked against the rules."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support import EXAMPLES
from workbench.cli import main

GHP = "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"

OPENAPI = """openapi: 3.1.0
info: {title: projects, version: "1"}
paths:
  /v1/projects:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, required: [items], properties: {items: {type: array}}}
  /v1/projects/{id}/archive:
    post:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok}
"""

SECRET_TRACE = (
    '{"format": "workbench-events", "version": 1}\n'
    '{"trace_id": "with-a-secret", "event_id": "e0", "kind": "tool_call", '
    '"name": "deploy", "start_ns": 1, "end_ns": 2, "status": "ok", '
    '"args": {"token": "' + GHP + '"}, "result": {"ok": true}}\n')

#: the example's findings under its rules: (rule, seq, signature)
FINDINGS = [("approval-before-archive", 8, "3a099b3e98e81f00"),
            ("approval-before-archive", 9, "3a099b3e98e81f00"),
            ("archive-owned-only", 8, "e3cd8e366278883f"),
            ("archive-owned-only", 9, "e3cd8e366278883f"),
            ("list-filters-by-owner-id", 2, "c2b6622ff1d556fb")]
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def make_project(root: Path, *, check: bool = True) -> Path:
    """The project folder at ``root``; its store is ``root/store``."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "archive-incident.otlp.json", root / "incident.otlp.json")
    shutil.copy(EXAMPLES / "archive-incident.rules.yaml", root / "rules.yaml")
    (root / "openapi.yaml").write_text(OPENAPI)
    (root / "secret.jsonl").write_text(SECRET_TRACE)
    (root / "broken.yaml").write_text("version: 1\nrules:\n  a: [unclosed\n")
    store = root / "store"
    assert main(["ingest", str(root / "incident.otlp.json"), "--store", str(store)]) == 0
    if check:
        assert main(["check", str(root / "rules.yaml"), "--store", str(store)]) == 1
    return store
