"""Import tool by tool: a tool (an OpenAPI operation) that cannot be used is refused on
its own with its code, path and hint, the others imported; constructs real documents
hold (3.0 keywords in 3.1, ``$recursiveRef``, ``$dynamicRef``, a ``required`` name twice,
files beside the document) converted with a warning naming the place."""

from __future__ import annotations

import copy
import dataclasses
import gzip
import json

import jsonschema
import pytest
import yaml

from workbench.config import RefError
from workbench.contracts import (
    ContractError,
    SchemaInvalidError,
    import_contracts,
    nullable_31,
    read_tools,
)
from workbench.model import LIMITS, LimitExceededError

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {
    "$ref": "#/components/schemas/Item"}}}}}
DOC = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
       "components": {"schemas": {"Item": {"type": "object", "properties": {
           "id": {"type": "string"}}}}},
       "paths": {"/items": {"get": {"operationId": "listItems", "responses": OK},
                            "post": {"operationId": "addItem", "requestBody": {"content": {
                                "application/json": {"schema": {
                                    "$ref": "#/components/schemas/Gone"}}}},
                                "responses": OK}},
                 "/items/{id}": {"delete": {"operationId": "dropItem", "parameters": [
                     {"name": "id", "in": "path", "required": True,
                      "schema": {"type": "strnig"}}], "responses": {"204": {
                          "description": "gone"}}}}}}


def _write(tmp_path, doc, name="api.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if name.endswith(".json") else yaml.safe_dump(doc))
    return path


def test_an_unusable_operation_is_refused_alone_and_the_others_imported(tmp_path):
    result = import_contracts([_write(tmp_path, DOC)])
    assert list(result.tools) == ["listItems"] and result.partial
    refused = {r.operation: r for r in result.refused}
    assert set(refused) == {"POST /items", "DELETE /items/{id}"}
    post = refused["POST /items"]
    assert (post.tool, post.code) == ("addItem", "SCHEMA_INVALID")
    assert post.path == "paths./items.post.requestBody.content.application/json.schema"
    assert "'#/components/schemas/Gone' resolves to nothing" in post.message and post.hint
    delete = refused["DELETE /items/{id}"]
    assert delete.code == "SCHEMA_INVALID" and "'strnig' is not valid" in delete.message
    assert result.to_dict()["refused"][0].keys() == {"tool", "operation", "file", "path",
                                                     "code", "message", "hint"}


def test_strict_refuses_the_whole_document_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(SchemaInvalidError, match="addItem"):
        import_contracts([_write(tmp_path, DOC)], out=out, strict=True)
    assert not out.exists()


def test_read_tools_outside_an_import_still_raises_the_first_refusal(tmp_path):
    with pytest.raises(SchemaInvalidError):
        read_tools([_write(tmp_path, DOC)])


def test_a_duplicate_operation_id_refuses_the_second_operation_only(tmp_path):
    doc = copy.deepcopy(DOC)
    doc["paths"]["/items"]["post"] = {"operationId": "listItems", "responses": OK}
    del doc["paths"]["/items/{id}"]
    result = import_contracts([_write(tmp_path, doc)])
    assert list(result.tools) == ["listItems"]
    assert [(r.code, r.operation) for r in result.refused] == [("DUPLICATE_TOOL", "POST /items")]


def test_one_bad_mcp_tool_is_refused_and_the_rest_imported(tmp_path):
    tools = {"tools": [{"name": "a", "inputSchema": {"type": "object"}},
                       {"name": "b", "inputSchema": {"type": 3}},
                       {"name": "c", "inputSchema": {"$ref": "#/$defs/nowhere"}}]}
    result = import_contracts([_write(tmp_path, tools, "tools.json")])
    assert list(result.tools) == ["a"]
    assert [(r.tool, r.path, r.code) for r in result.refused] == [
        ("b", "tools[1] (input)", "SCHEMA_INVALID"), ("c", "tools[2] (input)", "SCHEMA_INVALID")]


THREE_ZERO_IN_31 = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "components": {"schemas": {"Page": {
        "type": "object", "required": ["limit", "limit", "cursor"],
        "properties": {"limit": {"type": "integer", "minimum": 0, "exclusiveMinimum": True,
                                 "maximum": 100, "exclusiveMaximum": False, "example": 10},
                       "cursor": {"type": "string", "nullable": True},
                       "item": {"$ref": "#/components/schemas/Item", "nullable": True}}},
        "Item": {"type": "object"}}},
    "paths": {"/page": {"post": {"operationId": "page", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Page"}}}},
        "responses": {"204": {"description": "ok"}}}}}}


def test_openapi_3_0_constructs_in_a_3_1_document_are_converted_and_named(tmp_path):
    result = import_contracts([_write(tmp_path, THREE_ZERO_IN_31)])
    assert not result.refused
    page = result.tools["page"].input["$defs"]["Page"]
    assert page["required"] == ["limit", "cursor"]
    assert page["properties"]["limit"] == {"type": "integer", "exclusiveMinimum": 0,
                                           "maximum": 100, "examples": [10]}
    assert page["properties"]["cursor"] == {"type": ["string", "null"]}
    assert page["properties"]["item"] == {"anyOf": [{"$ref": "#/$defs/Item"},
                                                    {"type": "null"}]}
    kinds = sorted((w.kind, w.path) for w in result.warnings)
    at = "components.schemas.Page"
    assert kinds == [("duplicate-required", at),
                     ("oas30-example", f"{at}.properties.limit"),
                     ("oas30-exclusive-bound", f"{at}.properties.limit"),
                     ("oas30-nullable", f"{at}.properties.cursor"),
                     ("oas30-nullable", f"{at}.properties.item")]
    assert "limit" in next(w.message for w in result.warnings
                           if w.kind == "duplicate-required")


def test_the_same_constructs_in_a_3_0_document_are_its_own_dialect_and_not_warned(tmp_path):
    doc = {**THREE_ZERO_IN_31, "openapi": "3.0.3"}
    result = import_contracts([_write(tmp_path, doc)])
    assert [w.kind for w in result.warnings] == ["duplicate-required"]
    assert result.tools["page"].input["$defs"]["Page"]["properties"]["cursor"] == {
        "type": ["string", "null"]}


def test_invariants_and_import_read_nullable_with_one_rule():
    node = {"$ref": "#/components/schemas/Item", "nullable": True}
    assert nullable_31({"x": node})["x"] == {"anyOf": [{"$ref": "#/components/schemas/Item"},
                                                       {"type": "null"}]}


FILTERS = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "components": {"schemas": {
        "Comparison": {"type": "object", "required": ["key"],
                       "properties": {"key": {"type": "string"}}},
        "Compound": {"$recursiveAnchor": True, "type": "object", "required": ["filters"],
                     "properties": {"filters": {"type": "array", "items": {"oneOf": [
                         {"$ref": "#/components/schemas/Comparison"},
                         {"$recursiveRef": "#"}]}}}},
        "Tree": {"$dynamicAnchor": "node", "type": "object", "properties": {
            "kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}}}},
    "paths": {"/search": {"post": {"operationId": "search", "requestBody": {"content": {
        "application/json": {"schema": {"type": "object", "properties": {
            "filter": {"$ref": "#/components/schemas/Compound"},
            "tree": {"$ref": "#/components/schemas/Tree"}}}}}},
        "responses": {"204": {"description": "ok"}}}}}}


def test_recursive_and_dynamic_references_resolve_to_their_component(tmp_path):
    result = import_contracts([_write(tmp_path, FILTERS)])
    assert not result.refused
    schema = result.tools["search"].input
    compound = schema["$defs"]["Compound"]
    assert "$recursiveAnchor" not in compound
    assert compound["properties"]["filters"]["items"]["oneOf"][1] == {"$ref": "#/$defs/Compound"}
    assert schema["$defs"]["Tree"]["properties"]["kids"]["items"] == {"$ref": "#/$defs/Tree"}
    assert sorted(w.kind for w in result.warnings) == ["dynamic-ref", "recursive-ref"]
    check = jsonschema.Draft202012Validator(schema)
    good = {"body": {"filter": {"filters": [{"key": "a"}, {"filters": [{"key": "b"}]}]},
                     "tree": {"kids": [{"kids": []}]}}}
    bad = {"body": {"filter": {"filters": [{"filters": [{"nokey": 1}]}]}}}
    assert check.is_valid(good) and not check.is_valid(bad)


def test_a_tool_list_with_recursive_keywords_imports(tmp_path):
    """The five-line tool list that used to end in an internal error."""
    tools = {"tools": [{"name": "t", "inputSchema": {
        "$recursiveAnchor": True, "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$recursiveRef": "#"}}}}}]}
    result = import_contracts([_write(tmp_path, tools, "tools.json")])
    assert result.tools["t"].input == {"type": "object", "properties": {
        "kids": {"type": "array", "items": {"$ref": "#"}}}}
    assert [(w.kind, w.tool) for w in result.warnings] == [("recursive-ref", "t")]
    as_2019 = {"$schema": "https://json-schema.org/draft/2019-09/schema",
               **tools["tools"][0]["inputSchema"]}
    kept = import_contracts([_write(tmp_path, {"tools": [
        {"name": "t", "inputSchema": as_2019}]}, "t2019.json")])
    assert kept.tools["t"].input == as_2019 and not kept.warnings


def test_files_beside_the_document_are_followed_inside_its_folder(tmp_path):
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "pet.yaml").write_text(yaml.safe_dump({
        "type": "object", "properties": {"owner": {"$ref": "../common.yaml#/Owner"},
                                         "tags": {"$ref": "#/$defs/Tags"}},
        "$defs": {"Tags": {"type": "array", "items": {"type": "string"}}}}))
    (tmp_path / "common.yaml").write_text(yaml.safe_dump({
        "Owner": {"type": "object", "properties": {"name": {"type": "string"}}},
        "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer"}}}))
    (tmp_path.parent / "secret.yaml").write_text("Secret: {type: string}\n")
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/pets": {"get": {"operationId": "listPets",
                          "parameters": [{"$ref": "common.yaml#/Limit"}],
                          "responses": {"200": {"description": "ok", "content": {
                              "application/json": {"schema": {
                                  "$ref": "./schemas/pet.yaml"}}}}}}},
        "/leak": {"get": {"operationId": "leak", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": {
                "$ref": "../secret.yaml#/Secret"}}}}}}}}}
    result = import_contracts([_write(tmp_path, doc, "api.yaml")])
    assert [(r.operation, r.code) for r in result.refused] == [("GET /leak", "REF_OUTSIDE")]
    pets = result.tools["listPets"]
    assert pets.input["properties"]["limit"] == {"type": "integer"}
    out = pets.output
    assert out["$ref"] == "#/$defs/schemas.pet.yaml"
    assert set(out["$defs"]) == {"schemas.pet.yaml", "common.yaml.Owner",
                                 "schemas.pet.yaml._defs.Tags"}
    check = jsonschema.Draft202012Validator(out)
    assert check.is_valid({"owner": {"name": "a"}, "tags": ["x"]})
    assert not check.is_valid({"owner": {"name": 1}})
    with pytest.raises(RefError):
        import_contracts([tmp_path / "api.yaml"], strict=True)


def test_a_ref_to_a_missing_file_refuses_that_operation(tmp_path):
    doc = copy.deepcopy(FILTERS)
    doc["paths"]["/gone"] = {"get": {"operationId": "gone", "responses": {"200": {
        "description": "ok", "content": {"application/json": {"schema": {
            "$ref": "nothere.yaml"}}}}}}}
    result = import_contracts([_write(tmp_path, doc)])
    assert [(r.tool, r.code) for r in result.refused] == [("gone", "FILE_NOT_FOUND")]
    assert list(result.tools) == ["search"]


def test_a_gzip_compressed_document_reads_as_the_plain_one(tmp_path):
    plain = _write(tmp_path, FILTERS, "api.yaml")
    packed = tmp_path / "api.yaml.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_tools([packed])["search"] == read_tools([plain])["search"]


def test_a_gzip_file_that_inflates_past_the_bound_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr("workbench.contracts._read._BYTES",
                        dataclasses.replace(LIMITS["contract_bytes"], value=10_000))
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b"[" + b"0," * 50_000 + b"0]"))
    assert bomb.stat().st_size < 10_000
    with pytest.raises(LimitExceededError, match="decompressed"):
        read_tools([bomb])
    broken = tmp_path / "broken.yaml.gz"
    broken.write_bytes(gzip.compress(b"a: 1\n")[:-6])
    with pytest.raises(ContractError, match="gzip"):
        read_tools([broken])


def test_an_operation_id_that_is_no_tool_name_is_spelled_as_one(tmp_path):
    doc = copy.deepcopy(FILTERS)
    doc["paths"]["/search"]["post"]["operationId"] = "find things#by filter"
    result = import_contracts([_write(tmp_path, doc)])
    assert list(result.tools) == ["find_things_by_filter"]
    assert [(w.kind, w.path) for w in result.warnings if w.kind == "operation-id-renamed"] == [
        ("operation-id-renamed", "paths./search.post.operationId")]


def test_a_component_named_by_its_id_or_anchor_is_its_local_ref(tmp_path):
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "components": {"schemas": {
               "Details": {"$id": "/schemas/details", "$vocabulary": "x",
                           "$schema": "https://json-schema.org/draft/2020-12/schema",
                           "properties": {"id": {"$anchor": "the_id", "type": "integer"},
                                          "more": {"$ref": "#/components/schemas/More"}}},
               "More": {"type": "string"}}},
           "paths": {"/d": {"get": {"operationId": "d", "responses": {"200": {
               "description": "ok", "content": {"application/json": {"schema": {
                   "properties": {"all": {"$ref": "/schemas/details"},
                                  "id": {"$ref": "/schemas/details#the_id"}}}}}}}}}}}
    result = import_contracts([_write(tmp_path, doc)])
    out = result.tools["d"].output
    assert out["properties"] == {"all": {"$ref": "#/$defs/Details"},
                                 "id": {"$ref": "#/$defs/Details/properties/id"}}
    assert set(out["$defs"]["Details"]) == {"properties"}  # $id, $schema, $vocabulary go
    assert sorted(w.kind for w in result.warnings) == ["id-ref", "id-ref"]
    check = jsonschema.Draft202012Validator(out)
    assert check.is_valid({"all": {"more": "x"}, "id": 3})
    assert not check.is_valid({"all": {"more": 1}})
