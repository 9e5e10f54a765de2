"""The fast 2020-12 meta-schema check gives jsonschema's verdict, on hand-picked and on
generated schemas."""

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.contracts.schema._metaschema import is_schema


def _jsonschema_says(schema):
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


@pytest.mark.parametrize("schema", [
    {"type": "strnig"}, {"properties": {"a": {"type": "strnig"}}}, {"$defs": {"a": {"minimum": "x"}}},
    {"required": "a"}, {"pattern": "("}, {"items": [{"type": "string"}]},
    {"prefixItems": {"type": "string"}}, {"enum": "x"}, {"minLength": -1}, {"type": []},
    {"additionalProperties": 3}, {"anyOf": []}, 3, "x", None, {"$ref": 3},
    {"$anchor": "a b"}, {"dependentRequired": {"a": [1]}}, {"unevaluatedProperties": 1},
    {"format": 3}, {"definitions": {"a": {"type": "strnig"}}},
    {"x-custom": {"type": "strnig"}}, True, {}, {"type": ["string", "null"]},
    {"$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}}},
    {"items": {"type": "string"}, "prefixItems": [{"const": 1}], "minItems": 0},
    {"pattern": "^[a-z]+$", "format": "date-time", "maxLength": 3},
])
def test_hand_picked_schemas(schema):
    assert is_schema(schema) is _jsonschema_says(schema)


KEYWORDS = ["type", "properties", "items", "prefixItems", "required", "enum", "const",
            "minimum", "maxLength", "pattern", "additionalProperties", "anyOf", "oneOf",
            "allOf", "not", "$defs", "$ref", "format", "minItems", "uniqueItems",
            "dependentRequired", "patternProperties", "if", "then", "contains", "default",
            "description", "x-extra"]
VALUES = (st.none() | st.booleans() | st.integers(-2, 5) | st.sampled_from(
    ["string", "strnig", "object", "null", "integer", "(", "^a$", "#/$defs/a", "a b"])
          | st.lists(st.sampled_from(["string", "a", "null"]), max_size=3))


@st.composite
def schemas(draw, depth=0):
    if depth > 2:
        return draw(st.booleans() | st.just({}))
    out = {}
    for key in draw(st.lists(st.sampled_from(KEYWORDS), max_size=4, unique=True)):
        sub = schemas(depth + 1)
        if key in ("properties", "$defs", "patternProperties", "dependentRequired"):
            out[key] = draw(st.dictionaries(st.sampled_from(["a", "b", "^x"]), sub | VALUES,
                                            max_size=2))
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            out[key] = draw(st.lists(sub, max_size=2) | VALUES)
        elif key in ("items", "not", "if", "then", "contains", "additionalProperties"):
            out[key] = draw(sub | VALUES)
        else:
            out[key] = draw(VALUES)
    return out


@settings(max_examples=400)
@given(schemas())
def test_generated_schemas(schema):
    assert is_schema(schema) is _jsonschema_says(schema)
