"""Checking schemas against the meta-schema one subschema at a time, against a flattened
2020-12 meta-schema, says what jsonschema's own check_schema says."""

import jsonschema
import pytest

from workbench.contracts import check_schema

SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x+$"}},
     "required": ["a"], "additionalProperties": False},
    {"$defs": {"n": {"type": "object", "properties": {"c": {"items": {"$ref": "#/$defs/n"}}}}},
     "$ref": "#/$defs/n"},
    {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "examples": [1]},
    {"prefixItems": [{"type": "string"}, True], "items": False, "minItems": 1},
    {"patternProperties": {"^x-": {"type": "string"}}, "dependentRequired": {"a": ["b"]}},
    {"if": {"properties": {"k": {"const": 1}}}, "then": {"required": ["v"]}, "else": False},
    {"type": "strnig"},
    {"properties": {"a": {"properties": {"b": {"minimum": "zero"}}}}},
    {"patternProperties": {"(": {"type": "string"}}},
    {"properties": {"a": {"pattern": "("}}},
    {"required": ["a", "a"]},
    {"allOf": []},
    {"$defs": {"x": 3}},
    {"items": {"enum": "not a list"}},
    {"anyOf": [{"type": "string"}, {"maxLength": -1}]},
    {"type": "object", "$schema": "http://json-schema.org/draft-07/schema#",
     "definitions": {"a": {"type": "strnig"}}},
    {"properties": {"old": {"$schema": "http://json-schema.org/draft-07/schema#",
                            "exclusiveMinimum": True}}},
]


def _reference(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return exc.message
    return None


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_the_verdict_is_jsonschemas(schema):
    mine = check_schema(schema)
    expected = _reference(schema)
    if expected is None:
        assert mine is None or "$ref" in mine  # the ref checks come after the meta-schema
    else:
        assert mine is not None, expected


def test_errors_name_the_path_of_the_bad_subschema():
    assert check_schema({"properties": {"a": {"properties": {"b": {"minimum": "zero"}}}}}) == (
        "at /properties/a/properties/b/minimum: 'zero' is not of type 'number'")
    assert check_schema({"type": "strnig"}).startswith("at /type: ")


def test_a_subschema_seen_before_is_not_checked_again_and_a_changed_one_is():
    shared = {"type": "object", "properties": {"x": {"type": "string"}}}
    assert check_schema({"$defs": {"s": shared}}) is None
    shared["properties"]["x"]["type"] = "strnig"  # the same object, now broken
    assert check_schema({"$defs": {"s": shared}}) is not None
