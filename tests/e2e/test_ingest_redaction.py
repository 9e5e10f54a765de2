"""Ingest redacts before anything is written: traces full of secrets leave none of them
anywhere under the store, data flow still links, and ``--no-redact`` keeps them."""

import base64
import json

import pyarrow.parquet as pq
import pytest

from tests.support import run
from workbench.redact import DETECTORS, TOKEN_RE

# Made-up credentials in their providers' formats (random bodies, valid checksums where
# the format has one) and made-up personal data: none of them is real.
S = {
    "github-pat": "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",
    "github-oauth": "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",
    "npm": "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",
    "aws-key-id": "AKIAT7V4SEH2KVJ72CEU",
    "aws-secret": "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",
    "openai": "sk-proj-DtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGST3BlbkFJMxEhh2FDEEtfjgVvVqE1",
    "anthropic": "sk-ant-api03-e8k0txeA4RHImuBXP_ekCk2DU3vy4JIw-qk4xHGyGCDo-i9o_4GXpj-2CYLmhnf2Uza3"
                 "iqXGWJ-0UrbNCUdy8EGyIoJtIAA",
    "slack": "xoxb-28038528084-1485253888539-ZYW2mZp0zVZomHFwUbbYrEqm",
    "stripe": "sk_live_SM9wCZ7Uw9xfogoEmvnEN5N1",
    "gitlab": "glpat-a9SkpXz9w3QlY7Zkuvqd",
    "google": "AIzat7s8Stqcbnr3yBdGBLEPH1qhT61qtc4xatw",
    "huggingface": "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",
    "sendgrid": "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",
    "bearer": "jI6GKFSufrdZSlB5er8bOfZqfM2oeq3hDavJA76r",
    "basic-password": "NicHTp8hkqdl",
    "jwt": "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAidS04MjkiLCAibmFtZSI6ICJEYW5hIiwg"
           "ImlhdCI6IDE3MTQ1NTc2MDB9.zNNAL5wIScGebcy8F5n3-YNBDRzrZSgqbjG3uhkWKFL",
    "pem-body": "ScwVyQuZm3crT8em/UyRShbbRwh1Kw8VRLg1wOcZCX36hwHpIy8h8oEmh3hpduv8wyf1kxdlJ0upgptEB"
                "vYf+Ikyb/qUku3u7jxmnyvyCJTqJ+aJxmtrJi5IhrhDjzm6",
    "db-password": "oF54Fzbka8FRCz",
    "password-field": "correct-Horse-battery-9",
    "cookie": "Qm9yaXMtc2Vzc2lvbi0xMjM0NTY3OA",
    "email": "dana.whitfield@example.org",
    "email-2": "ops-oncall@northwind-logistics.com",
    "phone": "+1 415 867 5309",
    "card": "4072 2470 4558 5306",
    "iban": "DE89435205617483380141",
    "ip": "81.2.69.160",
}
PEM = (f"-----BEGIN PRIVATE KEY-----\n{S['pem-body'][:64]}\n{S['pem-body'][64:]}\n"
       "-----END PRIVATE KEY-----\n")
BASIC = base64.b64encode(f"svc-deploy:{S['basic-password']}".encode()).decode()
#: what the files carry and must not survive (the PEM body in its two lines, the Basic
#: credential as encoded)
SECRETS = {**{k: v for k, v in S.items() if k not in ("pem-body", "basic-password")},
           "pem-line-1": S["pem-body"][:64],
           "pem-line-2": S["pem-body"][64:], "basic": BASIC}
#: nor any other spelling of them
NEVER = {**SECRETS, "pem-body": S["pem-body"], "basic-password": S["basic-password"],
         "card-digits": S["card"].replace(" ", "")}


def sv(v):
    return {"stringValue": v}


def attr(k, v):
    return {"key": k, "value": sv(v) if isinstance(v, str) else v}


def span(span_id, name, attrs, parent=None, start=1000, status=None, events=None):
    s = {"traceId": "7" * 32, "spanId": span_id, "name": name, "kind": 1,
         "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 500),
         "attributes": [attr(k, v) for k, v in attrs.items()]}
    if parent:
        s["parentSpanId"] = parent
    if status:
        s["status"] = status
    if events:
        s["events"] = events
    return s


def otlp():
    user_msg = [{"role": "user", "parts": [{"type": "text", "content":
                 f"Ship order 5521 to {S['email']}, call {S['phone']} if it bounces"}]}]
    tools = [{"name": "charge_card", "description": "Charge a card. Staging key for tests: "
              f"{S['stripe']}", "parameters": {"type": "object", "properties": {
                  "card": {"type": "string"}, "api_key": {"type": "string"}}}}]
    config = json.dumps({"service": "billing", "secrets": json.dumps(
        {"openai_api_key": S["openai"], "nested": json.dumps({"hf": S["huggingface"]})})})
    spans = [
        span("a" * 16, "invoke_agent shipper", {"gen_ai.operation.name": "invoke_agent",
             "gen_ai.agent.name": "shipper", "gen_ai.input.messages": json.dumps(user_msg)}),
        span("b" * 16, "chat", {"gen_ai.operation.name": "chat",
             "gen_ai.request.model": "gpt-4.1", "gen_ai.input.messages": json.dumps(user_msg),
             "gen_ai.tool.definitions": json.dumps(tools),
             "gen_ai.system_instructions": f"Use the Slack bot {S['slack']} for alerts"},
             parent="a" * 16, start=2000),
        span("c" * 16, "execute_tool login", {"gen_ai.operation.name": "execute_tool",
             "gen_ai.tool.name": "login",
             "gen_ai.tool.call.arguments": json.dumps({"user": S["email-2"],
                                                       "password": S["password-field"]}),
             "gen_ai.tool.call.result": json.dumps({"session_token": S["github-pat"]})},
             parent="a" * 16, start=3000),
        span("d" * 16, "execute_tool fetch_repo", {"gen_ai.operation.name": "execute_tool",
             "gen_ai.tool.name": "fetch_repo",
             "gen_ai.tool.call.arguments": json.dumps({"repo": "acme/shipper",
                                                       "token": S["github-pat"],
                                                       "config": config}),
             "gen_ai.tool.call.result": json.dumps({"ok": True, "dsn":
                 f"postgres://billing:{S['db-password']}@db.internal:5432/billing"})},
             parent="a" * 16, start=4000),
        span("e" * 16, "GET /v1/charges", {"http.request.method": "GET",
             "url.full": f"https://api.example.com/v1/charges?access_token={S['gitlab']}",
             "http.request.header.authorization": {"arrayValue": {"values": [
                 sv(f"Bearer {S['bearer']}")]}},
             "http.request.header.cookie": f"sid={S['cookie']}; theme=dark",
             "http.response.status_code": {"intValue": "200"}, "client.address": S["ip"]},
             parent="a" * 16, start=5000),
        span("f" * 16, "execute_tool deploy", {"gen_ai.operation.name": "execute_tool",
             "gen_ai.tool.name": "deploy", "error.type": "AuthError"}, parent="a" * 16,
             start=6000, status={"code": 2, "message": f"AccessDenied for key {S['aws-key-id']}"},
             events=[{"name": "exception", "timeUnixNano": "6100", "attributes": [
                 attr("exception.type", "AuthError"),
                 attr("exception.message", f"denied for {S['email']}"),
                 attr("exception.stacktrace", 'Traceback (most recent call last):\n  File '
                      '"/srv/deploy.py", line 9, in run\n    client.auth('
                      f'aws_secret_access_key="{S["aws-secret"]}")\nAuthError: denied')]}]),
    ]
    return {"resourceSpans": [{"resource": {"attributes": [
        attr("service.name", "shipper"), attr("deployment.owner", S["email-2"])]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}


def har():
    entry = {
        "startedDateTime": "2024-05-01T10:00:00.000Z", "time": 42,
        "request": {"method": "POST", "url": f"https://api.example.com/v2/payouts?api_key={S['google']}",
                    "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Authorization", "value": f"Basic {BASIC}"},
                                {"name": "Content-Type", "value": "application/json"},
                                {"name": "X-Npm-Token", "value": S["npm"]}],
                    "queryString": [{"name": "api_key", "value": S["google"]}],
                    "cookies": [{"name": "sid", "value": S["cookie"], "path": "/"}],
                    "postData": {"mimeType": "application/json", "text": json.dumps(
                        {"iban": S["iban"], "card": S["card"], "holder_email": S["email"]})},
                    "headersSize": -1, "bodySize": 120},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"}],
                     "cookies": [],
                     "content": {"size": 80, "mimeType": "application/json", "text": json.dumps(
                         {"id_token": S["jwt"], "client_ip": S["ip"], "payout": "po_8812"})},
                     "redirectURL": "", "headersSize": -1, "bodySize": 80},
        "cache": {}, "timings": {"send": 1, "wait": 40, "receive": 1},
        "serverIPAddress": S["ip"]}
    return {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
                    "entries": [entry]}}


def anthropic():
    tools = [{"name": "read_secret", "description": f"Reads a secret. Example: {S['sendgrid']}",
              "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}}}]
    request = {"model": "claude-sonnet-4-5", "max_tokens": 512, "tools": tools,
               "system": f"You deploy with the key {S['anthropic']}",
               "messages": [
                   {"role": "user", "content": f"Rotate the key of {S['email']} please"},
                   {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01",
                    "name": "read_secret", "input": {"name": "deploy", "password":
                                                      S["password-field"]}}]},
                   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                    "content": f"{PEM}\nold oauth token {S['github-oauth']}"}]}]}
    response = {"id": "msg_01", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": f"Done. Card {S['card']} was not used."}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}
    return [request, response]


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    d = tmp_path_factory.mktemp("incident")
    (d / "spans.otlp.json").write_text(json.dumps(otlp()))
    (d / "capture.har").write_text(json.dumps(har()))
    (d / "transcript.json").write_text(json.dumps(anthropic()))
    return d


def ingest(capsys, store, sources, *extra):
    code, out, err = run(capsys, "ingest", sources, "--store", store, "--json", *extra)
    assert code == 0, err
    doc = json.loads(out)
    assert sorted(t["format"] for t in doc["traces"]) == ["anthropic", "har", "otlp"]
    return doc


def texts_under(root):
    """Every file's bytes under ``root``, and every Parquet cell as text."""
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        data = p.read_bytes()
        yield str(p), data
        if p.suffix == ".parquet":
            table = pq.read_table(p)
            for name in table.column_names:
                yield f"{p}:{name}", json.dumps(table.column(name).to_pylist(), default=str,
                                                ensure_ascii=False).encode()


def leaked(root):
    return sorted({(kind, where) for where, data in texts_under(root)
                   for kind, secret in NEVER.items() if secret.encode() in data})


def test_the_trace_carries_every_secret(sources):
    raw = b"".join(p.read_bytes() for p in sources.iterdir())
    unescaped = raw.decode().replace("\\", "")
    assert [k for k, v in SECRETS.items() if v not in unescaped] == []


def test_nothing_secret_reaches_the_store(capsys, tmp_path, sources):
    store = tmp_path / "store"
    ingest(capsys, store, sources)
    assert leaked(store) == []
    assert sorted(p.name for p in store.iterdir()) == [
        ".lock", "_commits", "_staging", "events", "redaction.key", "store.json", "traces"]
    assert (store / "redaction.key").stat().st_mode & 0o777 == 0o600

    _, out, _ = run(capsys, "sql", "select trace_id, source_format, redaction from traces",
                       "--store", store, "--json")
    rows = {r["source_format"]: json.loads(r["redaction"]) for r in json.loads(out)["rows"]}
    for fmt, red in rows.items():
        assert red["ingest"] == "on" and red["detectors"] == len(DETECTORS), fmt
        assert sum(red["hits"].values()) > 0, fmt
    assert rows["otlp"]["hits"]["email"] >= 3


def test_redacted_values_still_link(capsys, tmp_path, sources):
    store = tmp_path / "store"
    ingest(capsys, store, sources)
    _, out, _ = run(capsys, "sql", "select name, args, result, refs from events where "
                       "kind = 'tool_call' and name in ('login', 'fetch_repo') order by seq",
                       "--store", store, "--json")
    login, fetch = json.loads(out)["rows"]
    token = json.loads(login["result"])["session_token"]
    assert TOKEN_RE.fullmatch(token) and json.loads(fetch["args"])["token"] == token
    assert {"event_id": "c" * 16, "path": "args.token", "from_path": "result.session_token"} in (
        fetch["refs"])


def test_the_export_of_a_redacted_store_scans_clean(capsys, tmp_path, sources):
    store = tmp_path / "store"
    doc = ingest(capsys, store, sources)
    out_dir = tmp_path / "export"
    out_dir.mkdir()
    for t in doc["traces"]:
        code, _, err = run(capsys, "export", t["trace_id"], "--out",
                           out_dir / f"{t['format']}.jsonl", "--store", store)
        assert code == 0, err
    code, out, err = run(capsys, "redact", "scan", out_dir, "--json")
    assert (code, json.loads(out)["hits"]) == (0, []), err
    assert json.loads(out)["files"] == 3


def test_no_redact_keeps_the_values_and_says_so(capsys, tmp_path, sources):
    store = tmp_path / "raw"
    ingest(capsys, store, sources, "--no-redact")
    kept = {k for k, _ in leaked(store)}
    assert {"github-pat", "email", "stripe", "password-field", "card"} <= kept
    assert not (store / "redaction.key").exists()
    _, out, _ = run(capsys, "sql", "select redaction from traces", "--store", store, "--json")
    assert [json.loads(r["redaction"]) for r in json.loads(out)["rows"]] == [{"ingest": "off"}] * 3


def test_a_redacted_copy_of_the_incident_gives_the_stores_tokens(capsys, tmp_path, sources):
    store = tmp_path / "store"
    ingest(capsys, store, sources)
    code, out, err = run(capsys, "redact", "apply", sources, "--out", tmp_path / "clean",
                         "--store", store)
    assert code == 0, err
    cleaned = "".join(p.read_text() for p in (tmp_path / "clean").iterdir())
    assert [k for k, v in SECRETS.items() if v in cleaned] == []
    _, out, _ = run(capsys, "sql", "select args from events where name = 'login'",
                       "--store", store, "--json")
    user_token = json.loads(json.loads(out)["rows"][0]["args"])["user"]
    assert user_token in cleaned
