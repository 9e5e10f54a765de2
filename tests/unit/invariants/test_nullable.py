"""``nullable: true`` in a document that declares OpenAPI 3.1 (OpenAI's does, 111 times)
allows ``null`` as the author meant, on a type, an enum, a ``$ref`` and an ``anyOf``."""

from __future__ import annotations

from workbench.invariants import Exchange, judge, parse_spec

ITEM = {"type": "object", "properties": {"n": {"type": "integer"}}}
DOC = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
       "components": {"schemas": {"Item": ITEM}},
       "paths": {"/x": {"get": {"responses": {"200": {"description": "x", "content": {
           "application/json": {"schema": {"type": "object", "properties": {
               "text": {"type": "string", "nullable": True},
               "reason": {"type": "string", "enum": ["stop"], "nullable": True},
               "item": {"$ref": "#/components/schemas/Item", "nullable": True},
               "either": {"anyOf": [{"type": "integer"}, {"type": "string"}],
                          "nullable": True},
               "plain": {"type": "string"}}}}}}}}}}}


def _shape(body):
    x = Exchange("t", "e", 0, "GET", "/x", status=200, resp_body=body, resp_has_body=True)
    return [f.message for f in judge([x], parse_spec(DOC)).findings]


def test_nullable_in_a_31_document_allows_null():
    assert _shape({"text": None, "reason": None, "item": None, "either": None}) == []
    assert _shape({"item": {"n": 1}, "reason": "stop", "either": "a"}) == []


def test_what_is_not_nullable_still_refuses_null():
    assert len(_shape({"plain": None})) == 1
    assert len(_shape({"item": {"n": "one"}})) == 1
    assert len(_shape({"reason": "length"})) == 1
