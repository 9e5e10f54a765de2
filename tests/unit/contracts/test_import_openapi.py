"""Importing OpenAPI documents: one descriptor per operation, its input made from the
parameters and the body, its output from the 2xx responses, and every component it
uses under its own $defs."""

import copy

import jsonschema
import pytest

from workbench.config import RefError
from workbench.contracts import (
    DuplicateToolError,
    SchemaInvalidError,
    UnknownSourceError,
    read_document,
)

API = {
    "openapi": "3.0.3",
    "info": {"title": "Orders", "version": "2.1"},
    "security": [{"oauth": ["orders:read"]}],
    "paths": {
        "/orders/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}, "description": "the order"}],
            "get": {"operationId": "getOrder", "summary": "One order",
                    "parameters": [{"name": "id", "in": "query", "schema": {"type": "integer"}},
                                   {"name": "Accept", "in": "header",
                                    "schema": {"type": "string"}}],
                    "responses": {"200": {"$ref": "#/components/responses/Order"},
                                  "404": {"description": "no such order"}}},
            "delete": {"description": "Cancel an order.", "deprecated": True,
                       "security": [{"oauth": ["orders:write", "orders:read"]},
                                    {"apiKey": []}],
                       "responses": {"204": {"description": "gone"},
                                     "409": {"description": "already shipped"},
                                     "5XX": {"description": "try later"}}},
        },
        "/orders": {
            "post": {"operationId": "createOrder",
                     "parameters": [{"$ref": "#/components/parameters/IdemKey"}],
                     "requestBody": {"required": True, "content": {
                         "text/plain": {"schema": {"type": "string"}},
                         "application/json": {"schema": {"$ref": "#/components/schemas/New"}}}},
                     "responses": {"201": {"$ref": "#/components/responses/Order"},
                                   "202": {"description": "queued", "content": {
                                       "application/json": {"schema": {"type": "object"}}}}}},
            "put": {"operationId": "replaceOrders", "security": [],
                    "responses": {"200": {"description": "ok"}}},
        },
    },
    "components": {
        "schemas": {
            "Money": {"type": "object", "required": ["amount"], "properties": {
                "amount": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                "note": {"type": "string", "nullable": True, "example": "gift"}}},
            "New": {"type": "object", "properties": {"total": {"$ref": "#/components/schemas/Money"}}},
            "Order": {"type": "object", "properties": {
                "id": {"type": "string"}, "total": {"$ref": "#/components/schemas/Money"},
                "state": {"type": "string", "enum": ["open", "paid"], "nullable": True}}},
            "Unused": {"type": "boolean"},
        },
        "parameters": {"IdemKey": {"name": "Idempotency-Key", "in": "header", "required": True,
                                   "schema": {"type": "string"}}},
        "responses": {"Order": {"description": "an order", "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}}},
    },
}
MONEY = {"type": "object", "required": ["amount"], "properties": {
    "amount": {"type": "number", "exclusiveMinimum": 0},
    "note": {"type": ["string", "null"], "examples": ["gift"]}}}
ORDER = {"type": "object", "properties": {
    "id": {"type": "string"}, "total": {"$ref": "#/$defs/Money"},
    "state": {"type": ["string", "null"], "enum": ["open", "paid", None]}}}


def _read(doc=API):
    return {d.tool: d for d in read_document(doc, "api.json")}


def test_one_descriptor_per_operation_named_by_operation_id_or_method_and_path():
    assert list(_read()) == ["getOrder", "delete_orders_id", "createOrder", "replaceOrders"]


def test_the_input_is_the_parameters_and_the_body():
    tools = _read()
    assert tools["getOrder"].input == {
        "type": "object", "additionalProperties": False, "required": ["path:id"],
        "properties": {"path:id": {"type": "string", "description": "the order"},
                       "query:id": {"type": "integer"}}}  # a shared name says where; no Accept
    create = tools["createOrder"].input
    assert create["properties"] == {"Idempotency-Key": {"type": "string"},
                                    "body": {"$ref": "#/$defs/New"}}  # JSON beats text/plain
    assert create["required"] == ["Idempotency-Key", "body"]
    assert create["$defs"] == {"Money": MONEY, "New": API["components"]["schemas"]["New"] | {
        "properties": {"total": {"$ref": "#/$defs/Money"}}}}
    assert tools["replaceOrders"].input == {"type": "object", "properties": {},
                                            "additionalProperties": False}


def test_the_output_errors_and_the_rest():
    tools = _read()
    get, delete, create, put = tools.values()
    assert get.output == {"$ref": "#/$defs/Order", "$defs": {"Money": MONEY, "Order": ORDER}}
    assert create.output["anyOf"] == [{"$ref": "#/$defs/Order"}, {"type": "object"}]
    assert delete.output == {"type": "null"}  # 204: no body
    assert get.errors.codes == ("404",) and delete.errors.codes == ("409", "5XX")
    assert put.errors is None and "errors" in put.source.unknown
    assert [d.side_effect for d in tools.values()] == ["read_only", "destructive", "write",
                                                       "idempotent_write"]
    assert get.auth_scope == ("orders:read",)  # the document's
    assert delete.auth_scope == ("orders:write", "orders:read")  # the operation's, merged
    assert put.auth_scope == ()  # `security: []`: no auth
    assert create.idempotency.key == "header:Idempotency-Key" and create.idempotency.required
    assert get.idempotency is None and "idempotency" not in get.source.unknown
    assert delete.deprecated is not None and get.deprecated is None
    assert (get.title, delete.description) == ("One order", "Cancel an order.")
    assert get.source.unknown == ("revision", "errors.retryable", "timeout_s", "cancellable")
    assert get.source.format == "openapi"


def test_a_recursive_component_stays_recursive_and_validates():
    doc = copy.deepcopy(API)
    doc["components"]["schemas"]["Node"] = {"type": "object", "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}
    doc["paths"]["/tree"] = {"get": {"operationId": "tree", "responses": {"200": {
        "description": "t", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Node"}}}}}}}
    out = _read(doc)["tree"].output
    assert out["$ref"] == "#/$defs/Node" and list(out["$defs"]) == ["Node"]
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}
    errors = list(jsonschema.Draft202012Validator(out).iter_errors(tree))
    assert [list(e.absolute_path) for e in errors] == [["children", 0, "children", 0, "name"]]


@pytest.mark.parametrize(("edit", "error", "words"), [
    (lambda d: d["components"]["schemas"]["Order"]["properties"].update(
        id={"$ref": "#/components/schemas/Nope"}), SchemaInvalidError,
     "tool getOrder, components.schemas.Order.properties.id: $ref "
     "'#/components/schemas/Nope' resolves to nothing"),
    (lambda d: d["components"]["schemas"]["Money"].update(
        properties={"amount": {"$ref": "https://example.com/money.yaml#/Amount"}}), RefError,
     "is a URL; only files inside the folder are read"),
    (lambda d: d["components"]["schemas"]["Money"].update(type="strnig"), SchemaInvalidError,
     "tool getOrder, output at /$defs/Money/type"),
    (lambda d: d["paths"]["/orders"]["put"].update(operationId="getOrder"), DuplicateToolError,
     "tool getOrder is described twice (GET /orders/{id} and PUT /orders)"),
    (lambda d: d["paths"]["/orders"]["post"].update(
        parameters=[{"$ref": "#/components/parameters/Gone"}]), SchemaInvalidError,
     "paths./orders.post.parameters[0]: $ref '#/components/parameters/Gone' resolves to "
     "nothing"),
])
def test_bad_documents_name_the_file_the_tool_and_the_path(edit, error, words):
    doc = copy.deepcopy(API)
    edit(doc)
    with pytest.raises(error) as info:
        read_document(doc, "api.json")
    assert "api.json" in str(info.value) and words in str(info.value), str(info.value)


def test_swagger_2_is_named_not_guessed():
    with pytest.raises(UnknownSourceError, match=r"Swagger 2\.0 is not read"):
        read_document({"swagger": "2.0", "paths": {}}, "old.json")


def test_openapi_3_1_schemas_are_taken_as_json_schema():
    doc = {"openapi": "3.1.0", "paths": {"/n": {"get": {"operationId": "n", "responses": {
        "200": {"description": "n", "content": {"application/json": {"schema": {
            "type": ["integer", "null"], "exclusiveMinimum": 0, "$comment": "kept",
            "discriminator": {"propertyName": "x"}}}}}}}}}}
    assert _read(doc)["n"].output == {"type": ["integer", "null"], "exclusiveMinimum": 0,
                                      "$comment": "kept"}
