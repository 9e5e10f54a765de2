"""Where ``_redactgen.py`` embeds a value, as traces carry it: text (env dumps,
``.env``, YAML, TOML, Python and Java stack traces, chat, curl, raw HTTP, URLs in log
lines, PEM files) and JSON (headers, HAR, fields, JSON inside a JSON string, tool
output), plus the service-account document's and the ordinary tool calls' own contexts.
"""

from __future__ import annotations

import json
from random import Random
from typing import Any

from _redactgen_kind import B62, Kind, _r

# --- contexts: where a value sits in a trace ---------------------------------------------

ENV_LINES = ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/dev", "LANG=C.UTF-8",
             "SHELL=/bin/bash", "PWD=/workspace/app", "HOSTNAME=runner-7f9c2", "CI=true",
             "TERM=xterm-256color", "PYTHONUNBUFFERED=1", "GIT_BRANCH=main", "TZ=UTC"]
WHEN = "2026-11-30T10:15:02.114Z"


def _host_of(k: Kind) -> str:
    return f"api.{k.type.split('-')[0]}.example.com"


def _field(k: Kind) -> str:
    return (k.name or "token").lower()


def _scalar(v: str) -> str:
    """A YAML/TOML scalar: JSON's double-quoted string is valid in both."""
    return json.dumps(v) if not v[:1].isalnum() or ": " in v or " #" in v else v


def _header_value(k: Kind, shown: str) -> tuple[str, str]:
    assert k.header is not None
    return k.header[0], k.header[1].format(shown)


def _env_dump(rng: Random, k: Kind, shown: str) -> str:
    lines = rng.sample(ENV_LINES, 7)
    lines.insert(rng.randrange(len(lines) + 1), f"{k.name or 'TOKEN'}={shown}")
    return "\n".join(lines) + "\n"


def _named_text(k: Kind, shown: str) -> str:
    if k.header is not None and not k.name:
        return "{}: {}".format(*_header_value(k, shown))
    return f"{k.name}={shown}"


def _chat(rng: Random, k: Kind, shown: str) -> str:
    if k.kind == "negative" or k.category != "secret":
        label = k.name.replace("_", " ").lower()
        return rng.choice([f"Hi, my {label} is {shown}, can you check the order?",
                           f"Thanks! For the record the {label} was {shown}.",
                           f"ok so {label}: {shown} — does that look right to you?"])
    if "\n" in shown:
        return f"Here's the key the deploy uses:\n```\n{shown}```\nwhy does ssh reject it?"
    if not k.vendor:
        return f"my settings are\n{_named_text(k, shown)}\nand the API still says 401"
    return rng.choice([f"here is my key: {shown} can you check why the deploy fails?",
                       f"I pasted {shown} into the config but the API answers 401.",
                       f"use this one → {shown}"])


def _traceback(rng: Random, k: Kind, shown: str) -> str:
    code = f'client = connect({_field(k)}="{shown}")' if not k.vendor else \
        "client = connect(settings.credentials)"
    msg = f"rejected credentials {shown}" if k.vendor else "rejected credentials"
    return ("Traceback (most recent call last):\n"
            f'  File "/srv/app/worker.py", line {rng.randint(20, 400)}, in run\n'
            f"    {code}\n"
            '  File "/srv/app/client.py", line 42, in connect\n'
            "    raise PermissionError(f\"rejected credentials {creds}\")\n"
            f"PermissionError: {msg}\n")


def _java(rng: Random, k: Kind, shown: str) -> str:
    what = shown if k.vendor else f"{k.name}={shown}"
    return (f'Exception in thread "main" com.acme.client.AuthException: auth failed for {what}\n'
            f"\tat com.acme.client.Http.call(Http.java:{rng.randint(40, 300)})\n"
            "\tat com.acme.billing.Sync.run(Sync.java:87)\n"
            "\tat java.base/java.lang.Thread.run(Thread.java:1583)\n")


def _text_ctx(ctx: str, rng: Random, k: Kind, shown: str) -> str:
    host = _host_of(k)
    if ctx == "env-dump":
        return _env_dump(rng, k, shown)
    if ctx == "dotenv":
        q = rng.choice(['"', "", "'"])
        return f"# local settings\nAPP_ENV=production\nPORT=8080\n{k.name}={q}{shown}{q}\n" \
               "LOG_LEVEL=info\n"
    if ctx == "yaml":
        return f"service: billing-api\nreplicas: 3\nsecrets:\n  {_field(k)}: {_scalar(shown)}\n" \
               "  rotate_days: 30\n"
    if ctx == "toml":
        return f'[service]\nname = "billing-api"\n\n[credentials]\n{_field(k)} = ' \
               f"{json.dumps(shown)}\ntimeout = 30\n"
    if ctx == "python-traceback":
        return _traceback(rng, k, shown)
    if ctx == "java-trace":
        return _java(rng, k, shown)
    if ctx == "chat":
        return _chat(rng, k, shown)
    if ctx == "curl":
        name, value = _header_value(k, shown)
        return f"curl -sS -X POST https://{host}/v1/jobs -H '{name}: {value}' " \
               "-H 'Content-Type: application/json' -d '{\"limit\": 10}'"
    if ctx == "curl-url":
        return f"curl -sS -X POST -H 'Content-Type: application/json' " \
               f"-d '{{\"text\": \"deploy done\"}}' '{shown}'"
    if ctx == "http-raw":
        name, value = _header_value(k, shown)
        return f"POST /v1/messages HTTP/1.1\nHost: {host}\n{name}: {value}\n" \
               "Content-Type: application/json\nContent-Length: 17\n\n{\"model\": \"m-1\"}"
    if ctx == "url-query":
        assert k.url is not None
        return f"{WHEN} INFO http.client GET {k.url.format(shown)} -> 401 " \
               f"({rng.randint(3, 900)} ms)"
    if ctx == "log":
        if k.category == "secret" and k.kind == "positive":
            return f"{WHEN} ERROR app.db: could not connect to {shown}: timeout after 30s"
        return f"{WHEN} INFO app.events {_field(k) or 'value'}={shown} status=ok " \
               f"duration_ms={rng.randint(1, 900)}"
    if ctx == "pem-file":
        return shown
    if ctx == "yaml-block":
        body = "\n".join("    " + ln for ln in shown.rstrip("\n").split("\n"))
        return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\nstringData:\n" \
               f"  tls.key: |\n{body}\n"
    raise KeyError(ctx)


def _json_ctx(ctx: str, rng: Random, k: Kind, shown: str) -> Any:
    host = _host_of(k)
    if ctx == "headers":
        name, value = _header_value(k, shown)
        return {"method": "POST", "url": f"https://{host}/v1/jobs",
                "headers": {"Content-Type": "application/json", "User-Agent": "agent/1.4",
                            name: value, "Accept": "application/json"}}
    if ctx == "har":
        name, value = _header_value(k, shown)
        return {"request": {"method": "GET", "url": f"https://{host}/v1/me",
                            "httpVersion": "HTTP/1.1",
                            "headers": [{"name": "Accept", "value": "*/*"},
                                        {"name": name, "value": value}]},
                "response": {"status": 401, "statusText": "Unauthorized",
                             "headers": [{"name": "Content-Type", "value": "application/json"}]}}
    if ctx == "json-field":
        values = {_field(k) or "value": shown, "region": "eu-west-1"}
        if k.kind == "negative" or k.category != "secret":
            return {"event": "customer.updated", "data": values | {"plan": "pro"}}
        if rng.random() < 0.5:
            return {"id": f"call_{_r(rng, B62, 24)}", "name": "set_secret",
                    "arguments": {"key": k.name or "TOKEN", "value": shown}}
        return {"tool": "write_config", "args": {"path": "config/prod.json", "values": values}}
    if ctx == "json-in-json":
        if k.header is not None and not k.name:
            inner: Any = {"request": {"headers": dict([_header_value(k, shown)])}}
        elif k.vendor and rng.random() < 0.5:
            inner = {"ok": False, "error": f"401 Unauthorized: credential {shown} is revoked"}
        else:
            inner = {"status": "ok", "config": {_field(k): shown, "retries": 3}}
        return {"type": "tool_result", "tool_use_id": f"toolu_{_r(rng, B62, 22)}",
                "content": json.dumps(inner)}
    if ctx == "tool-stdout":
        if "\n" in shown:
            cmd, out = "cat ~/.ssh/deploy_key", shown
        else:
            cmd, out = "env | sort", _env_dump(rng, k, shown)
        return {"tool": "bash", "args": {"command": cmd},
                "result": {"exit_code": 0, "stdout": out, "stderr": ""}}
    raise KeyError(ctx)


def _sa_ctx(ctx: str, rng: Random, doc: dict[str, Any]) -> tuple[str, Any]:
    if ctx == "sa-json":
        return "json", {"tool": "read_file", "args": {"path": "secrets/sa.json"},
                        "result": {"content": doc}}
    if ctx == "sa-json-in-json":
        return "json", {"type": "tool_result", "tool_use_id": f"toolu_{_r(rng, B62, 22)}",
                        "content": json.dumps(doc, indent=2)}
    if ctx == "sa-text":
        return "text", json.dumps(doc, indent=2) + "\n"
    if ctx == "sa-env":
        return "text", f"CI=true\nGOOGLE_CREDENTIALS='{json.dumps(doc)}'\nREGION=eu-west-1\n"
    raise KeyError(ctx)


def _tool_ctx(ctx: str, call: dict[str, Any]) -> tuple[str, Any]:
    if ctx == "tool-json":
        return "json", call
    return "text", f"$ {call['tool']} {json.dumps(call['args'])}\n{json.dumps(call['result'])}\n"


JSON_CONTEXTS = {"headers", "har", "json-field", "json-in-json", "tool-stdout"}
