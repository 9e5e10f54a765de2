"""A value the schema allows is never called invalid: bodies and query parameters drawn
from the document's own schemas (hypothesis-jsonschema), sent and answered, draw no
``clean_refusal`` and no ``shape`` finding — the false positive users of negative-data
checks complain of most."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.invariants import Exchange, judge, parse_spec
from workbench.invariants._generate import Generator

THING = {
    "type": "object", "additionalProperties": False,
    "required": ["id", "when", "kind", "count"],
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "mail": {"type": "string", "format": "email"},
        "kind": {"type": "string", "enum": ["a", "b", "c-d"]},
        "count": {"type": "integer", "minimum": 0, "exclusiveMaximum": True, "maximum": 10},
        "ratio": {"type": "number", "minimum": -1.5, "maximum": 1.5},
        "big": {"type": "integer", "format": "int64"},
        "note": {"type": "string", "nullable": True, "maxLength": 20},
        "code": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "parent": {"$ref": "#/components/schemas/Ref"},
        "either": {"oneOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}]},
        "free": {"type": "object", "additionalProperties": {"type": "boolean"}},
    },
}
DOC: dict[str, Any] = {
    "openapi": "3.0.3", "info": {"title": "things", "version": "1"},
    "components": {"schemas": {"Thing": THING, "Ref": {
        "type": "object", "required": ["id"], "nullable": True,
        "properties": {"id": {"type": "integer", "minimum": 1}}}}},
    "paths": {"/things": {
        "get": {"parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1,
                                                         "maximum": 500}},
            {"name": "flag", "in": "query", "schema": {"type": "boolean"}},
            {"name": "kind", "in": "query", "schema": {"type": "string",
                                                        "enum": ["a", "b"]}},
            {"name": "ids", "in": "query", "schema": {"type": "array",
                                                       "items": {"type": "integer"}}},
            {"name": "score", "in": "query", "schema": {"type": "number"}},
            {"name": "since", "in": "query", "schema": {"type": "string",
                                                         "format": "date-time"}}],
            "responses": {"200": {"description": "ok"}}},
        "post": {"requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Thing"}}}},
            "responses": {"201": {"description": "made", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}}}}}},
}
SPEC = parse_spec(DOC, "things.yaml")
POST = next(o for o in SPEC.operations if o.method == "POST")
GET = next(o for o in SPEC.operations if o.method == "GET")
GEN = Generator(0)


def _text(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return [_text(i) for i in v]
    return str(v)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(GEN.strategy(POST.body))
def test_an_allowed_body_and_answer_are_never_called_invalid(thing):
    x = Exchange("t", "e0", 0, "POST", "/things", {}, {"content-type": "application/json"},
                 thing, True, 201, {"content-type": "application/json"}, thing, True)
    assert [f.message for f in judge([x], SPEC).findings] == []


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({}, optional={
    p.name: GEN.strategy(p.schema) for p in GET.params}))
def test_allowed_query_values_sent_as_text_are_never_called_invalid(query):
    x = Exchange("t", "e0", 0, "GET", "/things", {k: _text(v) for k, v in query.items()},
                 {}, None, False, 200)
    assert [f.message for f in judge([x], SPEC).findings] == []


@settings(max_examples=60)
@given(GEN.strategy(POST.body), st.sampled_from(["kind", "count", "when", "id"]))
def test_the_same_body_with_one_field_broken_is_called_invalid(thing, field):
    broken = {**thing, field: {"kind": 7, "count": -1, "when": "soon", "id": "x"}[field]}
    x = Exchange("t", "e0", 0, "POST", "/things", {}, {}, broken, True, 201, {}, None, False)
    [f] = judge([x], SPEC, only=["clean_refusal"]).findings
    assert f"body.{field}" in f.message
