"""A prompt-injected agent over ``workbench mcp``: every tool's every argument given
numbers that are no numbers or out of range and strings holding control characters
(read from the tools' input schemas, so a new argument is covered), each a tool error
``BAD_ARGUMENTS`` naming the argument; and ``replay`` sending the server's environment
to a host of the agent's choosing, refused before any request leaves
(``TARGET_NOT_ALLOWED``, ``AUTH_ENV_NOT_ALLOWED``) unless the operator allowed both
when starting the server."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.support import run
from workbench.mcp_server import TOOLS, ToolContext, call_tool

BAD_NUMBERS: list[Any] = [float("nan"), float("inf"), float("-inf"), 1e308, -1, 10**30,
                          "1", True]
CONTROL = ["a\r\nb", "x\n", "\x1b[31m", "nul\x00", "tab\t"]
SECRET = "s3cr3t-value-of-the-server-environment-4f1c"


def _good(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return 1
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    return "x"


def _cases() -> Iterator[Any]:
    for tool in TOOLS.values():
        props = tool.input_schema["properties"]
        required = tool.input_schema.get("required", [])
        for name, schema in props.items():
            kind = schema.get("type")
            items = schema.get("items", {})
            if kind in ("integer", "number"):
                bad: list[Any] = BAD_NUMBERS
            elif kind == "string":
                bad = CONTROL
            elif kind == "array" and items.get("type") == "string":
                bad = [[v] for v in CONTROL]
            else:
                continue
            for value in bad:
                args = {k: _good(props[k]) for k in required if k != name}
                args[name] = value
                yield pytest.param(tool.name, name, args, id=f"{tool.name}.{name}={value!r}")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(tmp_path / "store", tmp_path)


@pytest.mark.parametrize(("tool", "name", "args"), list(_cases()))
def test_a_bad_argument_is_a_tool_error_naming_it(ctx, tool, name, args):
    r = call_tool(TOOLS, ctx, tool, args)
    assert r.is_error and r.doc["error"]["code"] == "BAD_ARGUMENTS", r.doc
    assert r.doc["error"]["details"]["path"].split("/")[0] == name
    assert r.text.startswith("error[BAD_ARGUMENTS]: ") and "\n  hint: " in r.text


class _Counting(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.seen.append(self.path + str(self.headers))
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Counting.seen.clear()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _replay(ctx: ToolContext, target: str, **more: Any) -> str:
    r = call_tool(TOOLS, ctx, "replay", {"finding": "0000", "target": target, **more})
    assert r.is_error and "\n  hint: " in r.text
    assert SECRET not in r.text
    return str(r.doc["error"]["code"])


def test_replay_sends_nowhere_the_operator_did_not_allow(tmp_path, server, monkeypatch):
    monkeypatch.setenv("WB_HOSTILE_SECRET", SECRET)
    bare = ToolContext(tmp_path / "store", tmp_path)
    assert _replay(bare, server, auth_env=["WB_HOSTILE_SECRET"]) == "TARGET_NOT_ALLOWED"
    assert _replay(bare, server) == "TARGET_NOT_ALLOWED"
    port = server.rsplit(":", 1)[1]
    ctx = ToolContext(tmp_path / "store", tmp_path, allow_targets=(server + "/api",),
                      allow_auth_env=frozenset({"WB_ALLOWED"}))
    for target in (server, server + "/apix", server + "/", f"http://localhost:{port}/api",
                   server + "/api/../admin", server + "/api/%2e%2e/admin",
                   server + "/api/%2E%2E", server + "/api/.%2e/x", server + "/api/a%2F..%2F..",
                   server.replace("http:", "https:") + "/api",
                   f"http://127.0.0.1:{int(port) + 1}/api", "http://198.51.100.7/api"):
        assert _replay(ctx, target) == "TARGET_NOT_ALLOWED", target
    for spec in ("WB_HOSTILE_SECRET", "x-api-key=WB_HOSTILE_SECRET", "PATH", "HOME"):
        assert _replay(ctx, server + "/api/v1", auth_env=[spec]) == "AUTH_ENV_NOT_ALLOWED"
    # allowed on both counts: the replay itself runs (and finds no such finding)
    assert _replay(ctx, server + "/api/v1", auth_env=["WB_ALLOWED"]) == "FINDING_NOT_FOUND"
    assert _Counting.seen == []


@pytest.mark.parametrize(("argv", "code"), [
    (["--allow-target", "ftp://127.0.0.1/"], "REPLAY_TARGET_INVALID"),
    (["--allow-target", "http://user:pw@127.0.0.1/"], "REPLAY_TARGET_INVALID"),
    (["--allow-auth-env", "X-Key=VAR"], "USAGE"),
    (["--allow-auth-env", "A\r\nB"], "USAGE"),
])
def test_the_server_refuses_a_bad_allow_list_at_start(capsys, tmp_path, argv, code):
    status, _, err = run(capsys, "mcp", "--store", tmp_path / "store", *argv)
    assert status == 2 and err.startswith(f"error[{code}]: ") and "hint:" in err
    assert "pw" not in err
