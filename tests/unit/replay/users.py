"""A small users service on 127.0.0.1 whose requests carry personal data: a new user has
an ``email`` (``format: email``, checked: anything else is refused with 400, a redaction
token included) and a ``name``. The seeded bug ``double_create``: a retry under the same
Idempotency-Key creates a second user. With no bug it keeps its contract (``DOC``)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

NEW_USER: dict[str, Any] = {
    "type": "object", "required": ["email", "name"], "additionalProperties": False,
    "properties": {"email": {"type": "string", "format": "email"},
                   "name": {"type": "string", "minLength": 1, "maxLength": 12}}}
USER: dict[str, Any] = {
    "type": "object", "required": ["id", "email", "name"],
    "properties": {"id": {"type": "string"}, "email": {"type": "string"},
                   "name": {"type": "string"}}}
_ERROR = {"description": "an error", "content": {"application/json": {"schema": {
    "type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}}}}}
_ONE = {"description": "a user", "content": {"application/json": {"schema": USER}}}

DOC: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "users", "version": "1"},
    "paths": {
        "/users": {"post": {
            "parameters": [{"name": "Idempotency-Key", "in": "header",
                            "schema": {"type": "string"}}],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": NEW_USER}}},
            "responses": {"201": _ONE, "400": _ERROR, "422": _ERROR}}},
        "/users/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": _ONE, "404": _ERROR}}},
    },
}
_EMAIL = re.compile(r"[^@\s«»]+@[^@\s«»]+\.[^@\s«»]+")


class Users:
    def __init__(self, bugs: set[str]) -> None:
        self.bugs = bugs
        self.lock = threading.Lock()
        self.users: list[dict[str, Any]] = []
        self.keys: dict[str, tuple[str, Any]] = {}
        self.refused: list[Any] = []  # bodies answered 400, for the tests to inspect


class Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        svc: Users = self.server.svc
        path = urlsplit(self.path).path
        if path.startswith("/users/") and path.count("/") == 2:
            uid = path.rsplit("/", 1)[1]
            found = next((u for u in svc.users if u["id"] == uid), None)
            return self.reply(200, found) if found else self.reply(404, {"code": "missing"})
        return self.reply(404, {"code": "no_route"})

    def do_POST(self) -> None:
        svc: Users = self.server.svc
        if urlsplit(self.path).path != "/users":
            return self.reply(404, {"code": "no_route"})
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            return self.reply(400, {"code": "not_json"})
        ok = (isinstance(body, dict) and set(body) == {"email", "name"}
              and isinstance(body["email"], str) and _EMAIL.fullmatch(body["email"])
              and isinstance(body["name"], str) and 1 <= len(body["name"]) <= 12)
        if not ok:
            svc.refused.append(body)
            return self.reply(400, {"code": "invalid"})
        key = self.headers.get("idempotency-key")
        with svc.lock:
            if key and key in svc.keys and "double_create" not in svc.bugs:
                uid, first = svc.keys[key]
                if first != body:
                    return self.reply(422, {"code": "key_reused"})
                return self.reply(201, next(u for u in svc.users if u["id"] == uid))
            user = {"id": f"u{len(svc.users) + 1}", **body}
            svc.users.append(user)
            if key:
                svc.keys.setdefault(key, (user["id"], body))
        return self.reply(201, user)


@contextmanager
def running(bugs: set[str] | frozenset[str] = frozenset()) -> Iterator[tuple[str, Users]]:
    """The service and its state (``svc.bugs`` can change while it runs)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    svc = server.svc = Users(set(bugs))  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", svc
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)
