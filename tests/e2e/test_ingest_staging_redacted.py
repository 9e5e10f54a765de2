"""Nothing unredacted is written on the way into the store: every work file ingest
stages (the only thing its DuckDB sort reads, so the only thing that sort could spill)
is checked as it is written, for secrets planted in a span's attributes, tool
arguments, tool result, events, links, status and resource."""

import json

import pyarrow.parquet as pq
import pytest

from tests.e2e.test_ingest_redaction import S, attr, span
from workbench.ingest import ingest
from workbench.store import Store
from workbench.store._batch import Scratch

#: where each planted secret stands
PLANTED = {
    "attribute": S["github-pat"],
    "args": S["stripe"],
    "result": S["openai"],
    "event": S["aws-secret"],
    "link": S["slack"],
    "status": S["gitlab"],
    "resource": S["email-2"],
}


def _document():
    tool = span("c" * 16, "execute_tool charge", {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "charge",
        "deploy.token": PLANTED["attribute"],
        "gen_ai.tool.call.arguments": json.dumps({"amount": 12, "key": PLANTED["args"]}),
        "gen_ai.tool.call.result": json.dumps({"ok": False,
                                               "echo": f"used {PLANTED['result']}"})},
        parent="a" * 16, start=3000,
        status={"code": 2, "message": f"rejected token {PLANTED['status']}"},
        events=[{"name": "exception", "timeUnixNano": "3100", "attributes": [
            attr("exception.type", "AuthError"),
            attr("exception.stacktrace",
                 f'client.auth(aws_secret_access_key="{PLANTED["event"]}")')]}])
    tool["links"] = [{"traceId": "9" * 32, "spanId": "1" * 16, "attributes": [
        attr("link.note", f"bot {PLANTED['link']}")]}]
    root = span("a" * 16, "invoke_agent biller", {"gen_ai.operation.name": "invoke_agent",
                                                  "gen_ai.agent.name": "biller"})
    return {"resourceSpans": [{"resource": {"attributes": [
        attr("service.name", "biller"), attr("deployment.owner", PLANTED["resource"])]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": [root, tool]}]}]}


def _cells(path):
    table = pq.read_table(path)
    return json.dumps(table.to_pylist(), default=str, ensure_ascii=False)


@pytest.fixture
def watched(monkeypatch):
    """Every work file staged during the test: (path, its bytes, its cells as text)."""
    seen = []
    write = Scratch.write

    def checked(self, name, data, **options):
        path = write(self, name, data, **options)
        seen.append((path, path.read_bytes(), _cells(path)))
        return path

    monkeypatch.setattr(Scratch, "write", checked)
    return seen


def test_the_document_carries_every_planted_secret(tmp_path):
    text = json.dumps(_document())
    assert [where for where, v in PLANTED.items() if v not in text] == []


def test_no_staged_file_holds_a_planted_secret(tmp_path, watched):
    src = tmp_path / "spans.otlp.json"
    src.write_text(json.dumps(_document()))
    store = Store(tmp_path / "store")
    result = ingest([src], store, workers=1)
    assert result.events == 2
    assert watched, "ingest staged nothing: the check saw no file"
    leaks = sorted({(where, str(path.name)) for path, raw, cells in watched
                    for where, secret in PLANTED.items()
                    if secret.encode() in raw or secret in cells})
    assert leaks == []
    # and the store after the commit: every byte of every file
    on_disk = [(p, p.read_bytes()) for p in (tmp_path / "store").rglob("*") if p.is_file()]
    assert sorted({(where, p.name) for p, raw in on_disk for where, secret in PLANTED.items()
                   if secret.encode() in raw
                   or (p.suffix == ".parquet" and secret in _cells(p))}) == []
    # the values were there to redact: each place left a token behind
    events = store.sql("SELECT args, result, error, attrs FROM events "
                       "WHERE kind = 'tool_call'").to_pylist()
    assert len(events) == 1
    args, res, error, attrs = (events[0][k] for k in ("args", "result", "error", "attrs"))
    assert "«secret:" in args and "«secret:" in res and "«secret:" in error
    assert json.loads(attrs)["otel.links"][0]["attrs"]["link.note"].startswith(
        "bot «secret:slack-token:")


def test_no_redact_stages_the_values_as_they_are(tmp_path, watched):
    """The check above can fail: without redaction the same watch sees the secrets."""
    src = tmp_path / "spans.otlp.json"
    src.write_text(json.dumps(_document()))
    ingest([src], Store(tmp_path / "store"), workers=1, redact=False)
    found = {where for _, raw, cells in watched for where, secret in PLANTED.items()
             if secret in cells}
    # the resource's attributes go to the trace's row, written at the commit, not staged
    assert found == set(PLANTED) - {"resource"}
    stored = "".join(_cells(p) for p in (tmp_path / "store").rglob("*.parquet"))
    assert PLANTED["resource"] in stored
