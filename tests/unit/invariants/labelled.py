"""The labelled set of contract invariants: an orders service's OpenAPI document and
recordings, each labelled with the invariants it breaks (none for the look-alikes: a 409
for a reused key, a 404 after a delete, an empty last page, an optional field absent …).
``test_labelled.py`` judges every case and compares with its label."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.invariants import Exchange

ORDER = {"type": "object", "additionalProperties": False,
         "required": ["id", "sku", "quantity", "created_at"],
         "properties": {"id": {"type": "string"}, "sku": {"type": "string"},
                        "quantity": {"type": "integer", "minimum": 1, "maximum": 100},
                        "created_at": {"type": "string", "format": "date-time"},
                        "note": {"type": "string", "nullable": True},
                        "tags": {"type": "array", "items": {"type": "string"}}}}
NEW_ORDER = {"type": "object", "additionalProperties": False, "required": ["sku", "quantity"],
             "properties": {"sku": {"type": "string", "minLength": 1},
                            "quantity": {"type": "integer", "minimum": 1, "maximum": 100},
                            "note": {"type": "string", "nullable": True}}}


def _json(ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}},
            "description": ref}


def _page(ref: str, nxt: str = "next_cursor", items: str = "items") -> dict[str, Any]:
    return {"description": "a page", "content": {"application/json": {"schema": {
        "type": "object", "required": [items], "properties": {
            items: {"type": "array", "items": {"$ref": f"#/components/schemas/{ref}"}},
            nxt: {"type": "string", "nullable": True}}}}}}


NONE = {"description": "nothing"}
ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
DOC: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "orders", "version": "1"},
    "security": [{"bearer": []}],
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"},
                            "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}},
        "schemas": {"Order": ORDER, "NewOrder": NEW_ORDER,
                    "Error": {"type": "object", "properties": {"code": {"type": "string"}}},
                    "User": {"type": "object", "required": ["id", "name", "password"],
                             "properties": {"id": {"type": "string", "readOnly": True},
                                            "name": {"type": "string"},
                                            "password": {"type": "string",
                                                         "writeOnly": True}}},
                    "OrderEvent": {"type": "object", "required": ["order", "status"],
                                   "properties": {"order": {"type": "string"},
                                                  "status": {"type": "string",
                                                             "enum": ["open", "shipped"]}}},
                    "Line": {"type": "object", "required": ["id"],
                             "properties": {"id": {"type": "integer"}}}}},
    "paths": {
        "/orders": {
            "get": {"parameters": [
                {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                {"name": "status", "in": "query",
                 "schema": {"type": "string", "enum": ["open", "shipped"]}}],
                "responses": {"200": _page("Order"), "400": _json("Error"),
                              "401": _json("Error"), "500": _json("Error")}},
            "post": {"parameters": [{"name": "Idempotency-Key", "in": "header",
                                     "schema": {"type": "string"}}],
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": {"$ref": "#/components/schemas/NewOrder"}}}},
                     "responses": {"201": _json("Order"), "400": _json("Error"),
                                   "401": _json("Error"), "409": _json("Error"),
                                   "422": _json("Error")}}},
        "/orders/{id}": {
            "parameters": [ID],
            "get": {"responses": {"200": _json("Order"), "401": _json("Error"),
                                  "404": _json("Error"), "410": _json("Error")}},
            "delete": {"responses": {"204": NONE, "401": _json("Error"),
                                     "404": _json("Error")}, "x-dangerous": True}},
        "/health": {"get": {"security": [], "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"status": {"type": "string"}}}}}}}}},
        "/reports": {"get": {"security": [{"key": []}],
                             "responses": {"200": _json("Error"), "401": NONE}}},
        "/lines": {"get": {"x-pagination": {"cursor": "after", "next": "next", "items": "data"},
                           "parameters": [{"name": "after", "in": "query",
                                           "schema": {"type": "string"}}],
                           "responses": {"200": _page("Line", "next", "data")}}},
        "/users": {"post": {
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/User"}}}},
            "responses": {"201": _json("User"), "400": _json("Error")}}},
        "/orders/{id}/events": {"parameters": [ID], "get": {"responses": {"200": {
            "description": "the order's events as they happen", "content": {
                "text/event-stream": {"schema": {"$ref": "#/components/schemas/OrderEvent"}}}}}}},
        "/orders/{id}/feed": {"parameters": [ID], "get": {"responses": {"200": {
            "description": "the same, as OpenAPI 3.2 describes an event", "content": {
                "text/event-stream": {"itemSchema": {
                    "type": "object", "required": ["event", "data"],
                    "properties": {"event": {"type": "string", "enum": ["status"]},
                                   "data": {"type": "string",
                                            "contentMediaType": "application/json",
                                            "contentSchema": {
                                                "$ref": "#/components/schemas/OrderEvent"}}}}}}}}}},
        "/exports": {"get": {"responses": {"200": {"description": "every order, a line each",
                                                   "content": {"application/x-ndjson": {
                                                       "itemSchema": {"$ref": "#/components/schemas/Order"}}}}}}},
        "/logs": {"get": {"parameters": [{"name": "from", "in": "query",
                                          "schema": {"type": "string"}}],
                          "responses": {"200": {"description": "logs", "content": {
                              "application/json": {"schema": {"type": "object"}}}}}}},
    },
}

AUTH = {"authorization": "Bearer «secret:bearer:1a2b»"}
T0 = 1_700_000_000_000_000_000


def order(oid: str = "o1", **over: Any) -> dict[str, Any]:
    return {"id": oid, "sku": "SKU-1", "quantity": 2, "created_at": "2024-05-01T10:00:00Z",
            **over}


NEW = {"sku": "SKU-1", "quantity": 2}


def x(method: str, path: str, status: int | None, resp: Any = None, *, body: Any = None,
      query: dict[str, Any] | None = None, headers: dict[str, Any] | None = None,
      auth: bool = True, resp_headers: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"method": method, "path": path, "status": status, "resp": resp, "body": body,
            "query": query or {}, "headers": {"accept": "application/json",
                                              **(AUTH if auth else {}), **(headers or {})},
            "resp_headers": resp_headers or {}}


SSE = {"content-type": "text/event-stream; charset=utf-8"}


def events(*data: Any, event: str | None = None) -> dict[str, Any]:
    """An event-stream body as the HTTP adapters keep it."""
    return {"events": [{**({"event": event} if event else {}), "data": d} for d in data]}


def key(k: str = "k-1") -> dict[str, str]:
    return {"idempotency-key": k}


def page(ids: list[str], nxt: str | None) -> dict[str, Any]:
    return {"items": [order(i) for i in ids], "next_cursor": nxt}


@dataclass(frozen=True)
class Case:
    name: str
    steps: list[dict[str, Any]]
    expected: frozenset[str]

    def exchanges(self, trace_id: str = "t-") -> list[Exchange]:
        tid = trace_id + self.name
        return [Exchange(tid, f"e{i}", i, s["method"], s["path"], s["query"], s["headers"],
                         s["body"], s["body"] is not None, s["status"], s["resp_headers"],
                         s["resp"], s["resp"] is not None, T0 + i * 1_000_000,
                         T0 + i * 1_000_000 + 500_000)
                for i, s in enumerate(self.steps)]


def case(name: str, expected: set[str], *steps: dict[str, Any]) -> Case:
    return Case(name, list(steps), frozenset(expected))


def walk(*pages: tuple[list[str], str | None], first_query: dict[str, Any] | None = None
         ) -> list[dict[str, Any]]:
    out, cur = [], None
    for ids, nxt in pages:
        q = dict(first_query or {}) if cur is None else {"cursor": cur}
        out.append(x("GET", "/orders", 200, page(ids, nxt), query=q))
        cur = nxt
    return out


CASES = [
    # status_declared
    case("created-with-200", {"status_declared"}, x("POST", "/orders", 200, order(), body=NEW)),
    case("teapot", {"status_declared"}, x("GET", "/orders/o1", 418, {"code": "teapot"})),
    case("health-403", {"status_declared"}, x("GET", "/health", 403, {"status": "no"},
                                              auth=False)),
    case("delete-500", {"status_declared", "no_server_error"},
         x("DELETE", "/orders/o1", 500, {"code": "boom"})),
    # shape
    case("missing-created-at", {"shape"}, x("GET", "/orders/o1", 200, {
        k: v for k, v in order().items() if k != "created_at"})),
    case("renamed-field", {"shape"}, x("GET", "/orders/o1", 200, {
        **{k: v for k, v in order().items() if k != "quantity"}, "qty": 2})),
    case("quantity-as-text", {"shape"}, x("GET", "/orders/o1", 200, order(quantity="2"))),
    case("sku-null", {"shape"}, x("GET", "/orders/o1", 200, order(sku=None))),
    case("bad-date-time", {"shape"}, x("GET", "/orders/o1", 200, order(created_at="yesterday"))),
    case("list-item-without-id", {"shape"}, x("GET", "/orders", 200, {"items": [
        order("o1"), {k: v for k, v in order("o2").items() if k != "id"}]})),
    case("stream-event-without-status", {"shape"}, x("GET", "/orders/o1/events", 200, events(
        {"order": "o1", "status": "open"}, {"order": "o1"}, "[DONE]"), resp_headers=SSE)),
    case("stream-event-data-outside-enum", {"shape"}, x("GET", "/orders/o1/feed", 200, events(
        {"order": "o1", "status": "lost"}, event="status"), resp_headers=SSE)),
    case("stream-event-of-unknown-name", {"shape"}, x("GET", "/orders/o1/feed", 200, events(
        {"order": "o1", "status": "open"}, event="progress"), resp_headers=SSE)),
    case("ndjson-line-without-sku", {"shape"}, x("GET", "/exports", 200, "\n".join([
        '{"id": "o1", "sku": "S", "quantity": 1, "created_at": "2024-05-01T10:00:00Z"}',
        '{"id": "o2", "quantity": 1, "created_at": "2024-05-01T10:00:00Z"}', ""]),
        resp_headers={"content-type": "application/x-ndjson"})),
    # no_server_error
    case("list-500", {"no_server_error"}, x("GET", "/orders", 500, {"code": "db"})),
    case("create-503", {"no_server_error", "status_declared"},
         x("POST", "/orders", 503, None, body=NEW)),
    case("read-502", {"no_server_error", "status_declared"}, x("GET", "/orders/o1", 502)),
    # clean_refusal
    case("missing-quantity-accepted", {"clean_refusal"},
         x("POST", "/orders", 201, order(), body={"sku": "SKU-1"})),
    case("wrong-type-500", {"clean_refusal", "status_declared"},  # not no_server_error's
         x("POST", "/orders", 500, None, body={"sku": "SKU-1", "quantity": "three"})),
    case("out-of-range-accepted", {"clean_refusal"},
         x("POST", "/orders", 201, order(), body={"sku": "S", "quantity": 1000})),
    case("extra-property-accepted", {"clean_refusal"},
         x("POST", "/orders", 201, order(), body={**NEW, "discount": 5})),
    case("limit-not-a-number", {"clean_refusal"},
         x("GET", "/orders", 200, page(["o1"], None), query={"limit": "abc"})),
    case("enum-outside", {"clean_refusal"},
         x("GET", "/orders", 200, page([], None), query={"status": "lost"})),
    case("user-without-password-accepted", {"clean_refusal"},
         x("POST", "/users", 201, {"id": "u1", "name": "ann"}, body={"name": "ann"})),
    # idempotent_retry
    case("retry-second-order", {"idempotent_retry"},
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", 201, order("o2"), body=NEW, headers=key())),
    case("retry-other-status", {"idempotent_retry"},
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", 400, {"code": "dup"}, body=NEW, headers=key())),
    case("same-key-other-body-accepted", {"idempotent_retry"},
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", 201, order("o1"), body={**NEW, "quantity": 3}, headers=key())),
    case("retry-new-location", {"idempotent_retry", "shape"},
         x("POST", "/orders", 201, {"ok": True}, body=NEW, headers=key(),
           resp_headers={"location": "/orders/o1"}),
         x("POST", "/orders", 201, {"ok": True}, body=NEW, headers=key(),
           resp_headers={"location": "/orders/o9"})),
    # pagination
    case("walk-repeats", {"pagination"}, *walk((["o1", "o2"], "c1"), (["o2", "o3"], None))),
    case("walk-skips", {"pagination"}, *walk((["o1", "o2"], "c1"), (["o4"], None)),
         x("GET", "/orders", 200, page(["o1", "o2", "o3", "o4"], None), query={"limit": "10"})),
    case("declared-cursor-repeats", {"pagination"},
         x("GET", "/lines", 200, {"data": [{"id": 1}, {"id": 2}], "next": "n1"}),
         x("GET", "/lines", 200, {"data": [{"id": 2}], "next": None}, query={"after": "n1"})),
    case("inferred-cursor-repeats", {"pagination"},
         x("GET", "/logs", 200, {"entries": [{"id": "a"}, {"id": "b"}], "next": "p2"}),
         x("GET", "/logs", 200, {"entries": [{"id": "b"}, {"id": "c"}]}, query={"from": "p2"})),
    case("link-header-walk-repeats", {"pagination"},
         x("GET", "/orders", 200, {"items": [order("o1"), order("o2")]},
           resp_headers={"link": '</orders?cursor=c1&limit=2>; rel="next"'}),
         x("GET", "/orders", 200, {"items": [order("o2")]}, query={"cursor": "c1",
                                                                   "limit": "2"})),
    case("next-url-walk-skips", {"pagination"},
         x("GET", "/orders", 200, {"items": [order("o1")], "next_cursor": "/orders?cursor=c1"}),
         x("GET", "/orders", 200, page(["o3"], None), query={"cursor": "c1"}),
         x("GET", "/orders", 200, page(["o1", "o2", "o3"], None), query={"limit": "9"})),
    # refuses_unknown_caller
    # (another request of the trace carries a credential: the recorder keeps them)
    case("list-without-credential", {"refuses_unknown_caller"},
         x("GET", "/orders/o1", 200, order()),
         x("GET", "/orders", 200, page([], None), auth=False)),
    case("create-without-credential", {"refuses_unknown_caller"},
         x("POST", "/orders", 201, order(), body=NEW, auth=False),
         x("GET", "/orders/o1", 200, order())),
    case("report-without-api-key", {"refuses_unknown_caller"},
         x("GET", "/reports", 200, {"code": "r"}, auth=False, headers={"x-api-key": "k"}),
         x("GET", "/reports", 200, {"code": "r"}, auth=False)),
    # read_your_write
    case("created-then-404", {"read_your_write"},
         x("POST", "/orders", 201, order("o7"), body=NEW),
         x("GET", "/orders/o7", 404, {"code": "missing"})),
    case("created-then-410", {"read_your_write"},
         x("POST", "/orders", 201, order("o7"), body=NEW),
         x("GET", "/orders/o7", 410, {"code": "gone"})),
    case("created-then-404-after-others", {"read_your_write"},
         x("POST", "/orders", 201, order("o7"), body=NEW),
         x("GET", "/orders/zz", 404, {"code": "missing"}),
         x("GET", "/orders/o7", 200, order("o7")),
         x("GET", "/orders/o7", 404, {"code": "missing"})),
    # look-alikes: correct, however suspicious
    case("ok-409-reused-key", set(),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", 409, {"code": "in_progress"}, body=NEW, headers=key())),
    case("ok-retry-same-order", set(),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key())),
    case("ok-other-body-refused", set(),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", 422, {"code": "key_reused"}, body={**NEW, "quantity": 5},
           headers=key())),
    case("ok-other-keys", set(),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key("a")),
         x("POST", "/orders", 201, order("o2"), body=NEW, headers=key("b"))),
    case("ok-404-after-delete", set(),
         x("POST", "/orders", 201, order("o7"), body=NEW),
         x("DELETE", "/orders/o7", 204),
         x("GET", "/orders/o7", 404, {"code": "missing"})),
    case("ok-404-never-created", set(), x("GET", "/orders/o8", 404, {"code": "missing"})),
    case("ok-empty-last-page", set(), *walk((["o1", "o2"], "c1"), (["o3"], "c2"), ([], None))),
    case("ok-walk-equals-large-page", set(),
         *walk((["o1", "o2"], "c1"), (["o3"], None)),
         x("GET", "/orders", 200, page(["o1", "o2", "o3"], None), query={"limit": "50"})),
    case("ok-write-between-walk-and-page", set(),
         *walk((["o1", "o2"], "c1"), (["o3"], None)),
         x("POST", "/orders", 201, order("o4"), body=NEW),
         x("GET", "/orders", 200, page(["o1", "o2", "o3", "o4"], None), query={"limit": "50"})),
    case("ok-optional-field-absent", set(), x("GET", "/orders/o1", 200, order()),
         x("POST", "/orders", 201, order(), body=NEW)),
    case("ok-link-header-walk", set(),
         x("GET", "/orders", 200, {"items": [order("o1")]},
           resp_headers={"link": '<http://127.0.0.1/orders?cursor=c1>; rel="next", '
                                 '</orders>; rel="first"'}),
         x("GET", "/orders", 200, {"items": [order("o2")]}, query={"cursor": "c1"}),
         x("GET", "/orders", 200, page(["o1", "o2"], None), query={"limit": "9"})),
    case("ok-same-list-read-twice", set(),
         x("GET", "/orders", 200, page(["o1", "o2"], None)),
         x("GET", "/orders", 200, page(["o1", "o2"], None))),
    case("ok-read-only-and-write-only", set(),
         x("POST", "/users", 201, {"id": "u1", "name": "ann"},
           body={"name": "ann", "password": "«secret:password:9f1c»"})),
    case("ok-nullable-null", set(), x("GET", "/orders/o1", 200, order(note=None)),
         x("POST", "/orders", 201, order(), body={**NEW, "note": None})),
    case("ok-query-numbers-as-text", set(),
         x("GET", "/orders", 200, page([], None), query={"limit": "50", "status": "open"})),
    case("ok-invalid-refused", set(),
         x("POST", "/orders", 400, {"code": "bad"}, body={"sku": "S", "quantity": "x"}),
         x("POST", "/orders", 422, {"code": "bad"}, body={**NEW, "extra": 1})),
    case("ok-public-without-credential", set(),
         x("GET", "/health", 200, {"status": "up"}, auth=False)),
    case("ok-refused-without-credential", set(),
         x("GET", "/orders", 401, {"code": "auth"}, auth=False)),
    case("ok-credentials-stripped-by-the-recorder", set(),
         x("GET", "/orders", 200, page(["o1"], None), auth=False),
         x("POST", "/orders", 201, order("o2"), body=NEW, auth=False),
         x("GET", "/reports", 200, {"code": "r"}, auth=False)),
    case("ok-stream-per-event", set(), x("GET", "/orders/o1/events", 200, events(
        {"order": "o1", "status": "open"}, {"order": "o1", "status": "shipped"}, "[DONE]"),
        resp_headers=SSE), x("GET", "/orders/o1/feed", 200, events(
            {"order": "o1", "status": "open"}, event="status"), resp_headers=SSE),
        x("GET", "/exports", 200, order(), resp_headers={"content-type": "application/x-ndjson"})),
    case("ok-stream-where-only-json-is-declared", set(), x("GET", "/orders/o1", 200, events(
        {"order": "o1", "status": "open"}, "[DONE]"), resp_headers=SSE)),
    case("ok-html-error-page-not-judged", set(), x("GET", "/orders/o1", 404,
        "<html><body>Not Found</body></html>", resp_headers={"content-type": "text/html"})),
    case("ok-api-key-present", set(),
         x("GET", "/reports", 200, {"code": "r"}, auth=False, headers={"x-api-key": "k"})),
    case("ok-redacted-values", set(),
         x("GET", "/orders/o1", 200, order(created_at="«date:77aa»"))),
    case("ok-undocumented-not-judged", set(), x("GET", "/metrics", 500, {"x": 1})),
    case("ok-no-answer", set(), x("POST", "/orders", None, None, body={"sku": 1})),
    case("ok-retry-after-no-answer", set(),
         x("POST", "/orders", None, None, body=NEW, headers=key()),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key()),
         x("POST", "/orders", None, None, body=NEW, headers=key()),
         x("POST", "/orders", 201, order("o1"), body=NEW, headers=key())),
]
