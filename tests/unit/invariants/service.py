"""A small orders service on 127.0.0.1 for probing, with bugs that can be switched on:
``double_create`` (a retry under the same Idempotency-Key creates a second order),
``repeat_cursor`` (the second page repeats the last item of the first), ``500_on_type``
(a quantity of the wrong type crashes the handler) and ``ignore_auth`` (listing answers
without a credential). With none switched on it keeps its contract (``DOC``).
``ECHO`` (not a bug of the contract, so not in ``BUGS``) makes it an echoing service:
each answer repeats the credentials it was sent, as services do ("invalid key …", a
``caller`` field, a header), spelt as sent, URL-encoded, and for ``Basic`` decoded."""

from __future__ import annotations

import base64
import datetime as dt
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import jsonschema

from tests.unit.invariants.labelled import NEW_ORDER, ORDER

BUGS = ("double_create", "repeat_cursor", "500_on_type", "ignore_auth")
ECHO = "echo_credentials"
TOKEN = "Bearer probe-token"

DOC: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "orders", "version": "1"},
    "security": [{"bearer": []}],
    "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
                   "schemas": {"Order": ORDER, "NewOrder": NEW_ORDER,
                               "Error": {"type": "object", "required": ["code"],
                                         "properties": {"code": {"type": "string"}}}}},
    "paths": {
        "/orders": {
            "get": {"parameters": [
                {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "minimum": 1, "maximum": 50}}],
                "responses": {
                    "200": {"description": "a page", "content": {"application/json": {
                        "schema": {"type": "object", "required": ["items"], "properties": {
                            "items": {"type": "array",
                                      "items": {"$ref": "#/components/schemas/Order"}},
                            "next_cursor": {"type": "string", "nullable": True}}}}}},
                    "400": {"$ref": "#/components/responses/Error"},
                    "401": {"$ref": "#/components/responses/Error"}}},
            "post": {"parameters": [{"name": "Idempotency-Key", "in": "header",
                                     "schema": {"type": "string"}}],
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": {"$ref": "#/components/schemas/NewOrder"}}}},
                     "responses": {
                         "201": {"description": "made", "content": {"application/json": {
                             "schema": {"$ref": "#/components/schemas/Order"}}}},
                         "400": {"$ref": "#/components/responses/Error"},
                         "401": {"$ref": "#/components/responses/Error"},
                         "422": {"$ref": "#/components/responses/Error"}}}},
        "/orders/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": {"description": "one", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Order"}}}},
                "401": {"$ref": "#/components/responses/Error"},
                "404": {"$ref": "#/components/responses/Error"}}}},
    },
}
DOC["components"]["responses"] = {"Error": {"description": "an error", "content": {
    "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}
_NEW = jsonschema.Draft202012Validator({**NEW_ORDER, "properties": {
    **NEW_ORDER["properties"], "note": {"type": ["string", "null"]}}})


class Orders:
    def __init__(self, bugs: set[str]) -> None:
        self.bugs = bugs
        self.lock = threading.Lock()
        self.orders: list[dict[str, Any]] = []
        self.keys: dict[str, tuple[str, dict[str, Any]]] = {}
        for _ in range(7):
            self.make({"sku": "SEED", "quantity": 1})

    def make(self, body: dict[str, Any]) -> dict[str, Any]:
        o = {"id": f"o{len(self.orders) + 1}", "sku": body["sku"],
             "quantity": body["quantity"],
             "created_at": dt.datetime(2024, 5, 1, tzinfo=dt.UTC).isoformat()}
        if "note" in body:
            o["note"] = body["note"]
        self.orders.append(o)
        return o


class Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def reply(self, status: int, body: Any) -> None:
        echo = ECHO in self.server.svc.bugs
        if echo and isinstance(body, dict):
            body = {**body, **self.echoed(status)}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        if echo:
            self.send_header("x-caller", self.headers.get("authorization") or "-")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def echoed(self, status: int) -> dict[str, Any]:
        auth = self.headers.get("authorization") or ""
        key = self.headers.get("x-api-key") or ""
        out: dict[str, Any] = {"caller": auth, "api_key": key,
                               "retry": "/login?next=" + quote(auth, safe="")}
        scheme, _, cred = auth.partition(" ")
        if scheme.lower() == "basic":
            with suppress(ValueError):
                out["user"] = base64.b64decode(cred).decode()
        if status in (401, 403):
            out["message"] = f"invalid key {cred or key}"
        return out

    def authed(self) -> bool:
        return self.headers.get("authorization") == TOKEN

    def do_GET(self) -> None:
        svc: Orders = self.server.svc
        url = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if url.path == "/orders":
            if not self.authed() and "ignore_auth" not in svc.bugs:
                return self.reply(401, {"code": "auth"})
            try:
                limit = int(q.get("limit", "3"))
                start = int(q["cursor"][1:]) if "cursor" in q else 0
            except ValueError:
                return self.reply(400, {"code": "bad_query"})
            if not 1 <= limit <= 50 or start < 0:
                return self.reply(400, {"code": "bad_query"})
            if "repeat_cursor" in svc.bugs and start > 0:
                start -= 1
            page = svc.orders[start:start + limit]
            end = start + len(page)
            nxt = f"c{end}" if end < len(svc.orders) else None
            return self.reply(200, {"items": page, "next_cursor": nxt})
        if url.path.startswith("/orders/") and url.path.count("/") == 2:
            if not self.authed():
                return self.reply(401, {"code": "auth"})
            oid = url.path.rsplit("/", 1)[1]
            found = next((o for o in svc.orders if o["id"] == oid), None)
            return self.reply(200, found) if found else self.reply(404, {"code": "missing"})
        return self.reply(404, {"code": "no_route"})

    def do_POST(self) -> None:
        svc: Orders = self.server.svc
        if urlsplit(self.path).path != "/orders":
            return self.reply(404, {"code": "no_route"})
        if not self.authed():
            return self.reply(401, {"code": "auth"})
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            return self.reply(400, {"code": "not_json"})
        if "500_on_type" in svc.bugs and isinstance(body, dict) and "quantity" in body and (
                not isinstance(body["quantity"], int) or isinstance(body["quantity"], bool)):
            return self.reply(500, {"code": "crash"})
        if not _NEW.is_valid(body):
            return self.reply(400, {"code": "invalid"})
        key = self.headers.get("idempotency-key")
        with svc.lock:
            if key and key in svc.keys and "double_create" not in svc.bugs:
                oid, first = svc.keys[key]
                if first != body:
                    return self.reply(422, {"code": "key_reused"})
                return self.reply(201, next(o for o in svc.orders if o["id"] == oid))
            o = svc.make(body)
            if key:
                svc.keys.setdefault(key, (o["id"], body))
        return self.reply(201, o)


@contextmanager
def serve(bugs: set[str] | frozenset[str] = frozenset()) -> Iterator[str]:
    with running(bugs) as (url, _):
        yield url


@contextmanager
def running(bugs: set[str] | frozenset[str] = frozenset()) -> Iterator[tuple[str, Orders]]:
    """The service and its state: ``svc.bugs`` can be changed while it runs (a fix
    deployed at the same URL)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    svc = server.svc = Orders(set(bugs))  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", svc
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)
