"""Every trace of the corpus, whatever its format, exported as ATIF-v1.7: valid against the
RFC's schema, and ingesting the export gives back the same tool calls (name, arguments,
result, status; a call without arguments is written as ATIF's required ``{}``)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import CORPUS, corpus_params
from workbench.fixtures import export_rows, trace_facts
from workbench.ingest import ingest
from workbench.store import Store

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "unit" / "formats" / "agents" /
                     "atif-v1.7.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
FOLDERS = corpus_params(sorted(p.name for p in CORPUS.iterdir()
                               if p.is_dir() and p.name != "secrets") if CORPUS.is_dir() else [])


def calls(store: Store, trace_id: str) -> list[tuple[Any, ...]]:
    rows = store.sql("SELECT name, args, result, status FROM events WHERE trace_id = ? AND "
                     "kind = 'tool_call' ORDER BY seq", [trace_id]).to_pylist()
    return [(r["name"], (json.loads(r["args"]) if r["args"] else None) or {},
             json.loads(r["result"]) if r["result"] else None, r["status"]) for r in rows]


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_trace_exports_as_valid_atif_and_reads_back(corpus: Path, tmp_path: Path,
                                                          folder: str) -> None:
    first = Store(tmp_path / "first")
    result = ingest([corpus / folder], first, workers=1, redact=False)
    out = tmp_path / "atif"
    out.mkdir()
    want = {}
    for n, trace in enumerate(result.traces):
        rows = first.sql("SELECT * FROM events WHERE trace_id = ? ORDER BY seq",
                         [trace.trace_id]).to_pylist()
        buf = io.BytesIO()
        export_rows(rows, "atif", buf, trace.trace_id, trace_facts(first, trace.trace_id))
        doc = json.loads(buf.getvalue())
        errors = [e.message for e in VALIDATOR.iter_errors(doc)]
        assert not errors, (trace.trace_id, errors[:3])
        (out / f"{n}.json").write_bytes(buf.getvalue())
        want[trace.trace_id] = calls(first, trace.trace_id)
    second = Store(tmp_path / "second")
    again = ingest([out], second, workers=1, redact=False)
    assert {t.format for t in again.traces} == {"atif"}
    got = {}
    for trace in again.traces:
        facts = trace_facts(second, trace.trace_id) or {}
        got[facts["attrs"]["atif.session_id"]] = calls(second, trace.trace_id)
    assert got == want
