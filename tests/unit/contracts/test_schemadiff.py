"""Schemas compared as what they accept: spellings of the same schema are not changes,
and each kind of change is found where it is."""

import pytest

from workbench.contracts import schema_changes
from workbench.model import STAR

OBJ = {"type": "object", "properties": {"name": {"type": "string"}}}


def kinds(old, new, direction="output"):
    return [(c.kind, c.path, c.sense) for c in schema_changes(old, new, direction)]


@pytest.mark.parametrize(("old", "new"), [
    ({"type": ["string", "null"]}, {"type": "string", "nullable": True}),
    ({"type": ["string", "null"]}, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    ({"oneOf": [{"type": "null"}, {"type": "string", "maxLength": 3}]},
     {"type": ["null", "string"], "maxLength": 3}),
    ({"type": ["string", "null"], "enum": ["a", "b"]},
     {"anyOf": [{"type": "string", "enum": ["b", "a"]}, {"type": "null"}]}),
    ({"enum": ["a", None]}, {"enum": ["a"], "nullable": True}),
    ({"const": 3}, {"enum": [3.0]}),
    ({"type": "object", "required": ["a", "b"], "properties": {"a": {}, "b": {}}},
     {"properties": {"b": {}, "a": {}}, "required": ["b", "a"], "type": "object"}),
    ({"type": "string", "minLength": 0}, {"type": "string"}),
    ({"type": "array", "uniqueItems": False, "items": True}, {"type": "array"}),
    ({"type": "object", "additionalProperties": True}, {"type": "object"}),
    ({"type": "object", "additionalProperties": {}}, {"type": "object"}),
    ({"properties": {"a": {"type": "integer"}}}, {"type": "object", "properties": {"a": {"type": "integer"}}}),
    ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, {"type": "number", "exclusiveMinimum": 0}),
    ({"allOf": [{"$ref": "#/$defs/Name"}], "description": "who", "$defs": {"Name": {"type": "string"}}},
     {"type": "string", "description": "who"}),
    ({"allOf": [{"type": "object", "properties": {"a": {}}}, {"properties": {"b": {}}, "required": ["b"]}]},
     {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["b"]}),
    ({"description": "A  list\nof  things. "}, {"description": "A list of things."}),
    ({"type": "string", "title": "Old", "examples": ["x"], "x-internal": 1, "readOnly": True},
     {"type": "string", "title": "New"}),
    (True, {}),
])
def test_spellings_of_one_schema_are_not_changes(old, new):
    assert schema_changes(old, new, "input") == []
    assert schema_changes(new, old, "output") == []


def test_refs_inline_or_under_defs_are_the_same_schema():
    inline = {"type": "object", "properties": {"items": {"type": "array", "items": OBJ}}}
    refs = {"$defs": {"Item": OBJ, "Items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}},
            "type": "object", "properties": {"items": {"$ref": "#/$defs/Items"}}}
    assert schema_changes(inline, refs, "output") == []


def test_a_change_behind_a_ref_is_found_at_every_path_that_uses_it():
    def doc(t):
        return {"$defs": {"Addr": {"type": "object", "properties": {"zip": {"type": t}}}},
                "type": "object", "properties": {"billing": {"$ref": "#/$defs/Addr"},
                                                 "shipping": {"$ref": "#/$defs/Addr"}}}
    found = kinds(doc("string"), doc("integer"))
    assert found == [("type-changed", ("billing", "zip"), "unknown"),
                     ("type-changed", ("shipping", "zip"), "unknown")]


def _tree(leaf_type):
    return {"$defs": {"node": {"type": "object", "properties": {
        "value": {"type": leaf_type},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"}


def test_a_recursive_schema_is_walked_once_round_and_ends():
    assert schema_changes(_tree("string"), _tree("string"), "output") == []
    found = kinds(_tree("string"), _tree("integer"))
    assert found == [("type-changed", ("value",), "unknown"),
                     ("type-changed", ("children", STAR, "value"), "unknown")]


def test_fields_removed_added_renamed_and_required():
    old = {"type": "object", "required": ["id"], "properties": {
        "id": {"type": "string"}, "owner": {"type": "string"}, "n": {"type": "integer"}}}
    new = {"type": "object", "required": ["id", "n", "token"], "properties": {
        "id": {"type": "string"}, "owner_id": {"type": "string"}, "n": {"type": "integer"},
        "token": {"type": "string"}}}
    assert kinds(old, new, "input") == [
        ("field-renamed", ("owner",), None), ("field-added", ("token",), None),
        ("required-added", ("n",), None), ("required-added", ("token",), None)]
    # in a result, a new field that is always there is just a new field
    assert kinds(old, new, "output") == [
        ("field-renamed", ("owner",), None), ("field-added", ("token",), None),
        ("required-added", ("n",), None)]


def test_a_removed_field_of_another_type_is_not_a_rename():
    old = {"type": "object", "properties": {"a": {"type": "string"}}}
    new = {"type": "object", "properties": {"b": {"type": "integer"}}}
    assert [k for k, *_ in kinds(old, new)] == ["field-removed", "field-added"]


def test_bounds_enum_default_and_content_model():
    old = {"type": "object", "properties": {
        "limit": {"type": "integer", "maximum": 100, "default": 100},
        "state": {"enum": ["a", "b"]}, "q": {"type": "string"}}}
    new = {"type": "object", "additionalProperties": False, "properties": {
        "limit": {"type": "integer", "maximum": 1000, "default": 1000, "minimum": 1},
        "state": {"enum": ["b", "c"]}, "q": {"type": "string", "pattern": "^[a-z]+$"}}}
    found = [(c.kind, c.path, c.keyword) for c in schema_changes(old, new, "input")]
    assert found == [
        ("default-changed", ("limit",), None),
        ("constraint-widened", ("limit",), "maximum"),
        ("constraint-narrowed", ("limit",), "minimum"),
        ("enum-value-added", ("state",), "enum"),
        ("enum-value-removed", ("state",), "enum"),
        ("constraint-narrowed", ("q",), "pattern"),
        ("additional-properties-closed", (), "additionalProperties")]


def test_a_change_that_cannot_be_placed_counts_as_the_worse_for_its_direction():
    old, new = {"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "^b"}
    assert kinds(old, new, "input") == [("constraint-narrowed", (), "narrow")]
    assert kinds(old, new, "output") == [("constraint-widened", (), "widen")]


def test_types_widen_narrow_or_neither():
    assert kinds({"type": "integer"}, {"type": "number"}) == [("type-changed", (), "widen")]
    assert kinds({"type": "number"}, {"type": "integer"}) == [("type-changed", (), "narrow")]
    assert kinds({"type": "string"}, {"type": ["string", "null"]}) == [("type-changed", (), "widen")]
    assert kinds({"type": "string"}, {"type": "boolean"}) == [("type-changed", (), "unknown")]


def test_null_let_into_an_enum_is_found():
    assert kinds({"enum": ["a", "b"]}, {"enum": ["a", "b", None]}) == [("type-changed", (), "widen")]
    assert kinds({"type": "object"}, {"type": "object", "nullable": True}) == [
        ("type-changed", (), "widen")]
    assert kinds({}, {"nullable": True}) == []  # any value was already allowed


def test_union_members_are_compared_one_by_one():
    old = {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"id": {"type": "string"}}}]}
    new = {"anyOf": [{"type": "object", "properties": {"id": {"type": "integer"}}},
                     {"type": "string"}, {"type": "array"}]}
    assert [(c.kind, c.keyword, c.sense) for c in schema_changes(old, new, "output")] == [
        ("type-changed", "type", "unknown"), ("type-changed", "anyOf", "widen")]


def test_plain_to_union_and_items_and_maps():
    assert kinds({"type": "string"}, {"oneOf": [{"type": "string"}, {"type": "integer"}]}) == [
        ("type-changed", (), "widen")]
    old = {"type": "object", "additionalProperties": {"type": "string"}}
    new = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert kinds(old, new) == [("type-changed", (STAR,), "unknown")]
    assert kinds({"type": "array", "items": {"type": "string"}},
                 {"type": "array", "items": {"type": "string", "maxLength": 5}}, "input") == [
        ("constraint-narrowed", (STAR,), "narrow")]


def test_descriptions_and_deprecation_of_fields():
    old = {"type": "object", "properties": {"a": {"type": "string", "description": "who owns it"}}}
    new = {"type": "object", "properties": {"a": {"type": "string", "description": "who created it",
                                                  "deprecated": True}}}
    assert [(c.kind, c.path) for c in schema_changes(old, new, "input")] == [
        ("description-changed", ("a",)), ("deprecated", ("a",))]
