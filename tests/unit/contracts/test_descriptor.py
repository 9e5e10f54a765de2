"""The descriptor: read from its mapping, checked by the schema file and as JSON Schema,
written back in field order; a tool set refuses a name twice."""

import pytest

from workbench.contracts import (
    ContractError,
    ContractVersionError,
    Descriptor,
    DuplicateToolError,
    Idempotency,
    Provenance,
    SchemaInvalidError,
    ToolSet,
    descriptor_from_dict,
)

ARCHIVE = {
    "version": 1, "tool": "projects.archive", "revision": 4,
    "description": "Archive one project. Never call without an approval for the same project.",
    "input": {"type": "object", "required": ["project_id"],
              "properties": {"project_id": {"type": "string"}}},
    "output": {"type": "object", "required": ["project_id", "state"],
               "properties": {"state": {"enum": ["archived"]}}},
    "errors": {"codes": ["not_found", "forbidden", "conflict"], "retryable": ["conflict"]},
    "side_effect": "destructive", "timeout_s": 30, "cancellable": False,
    "auth_scope": ["projects:write"],
    "idempotency": {"key": "header:Idempotency-Key", "required": True},
    "deprecated": {"since": None, "replacement": None},
}


def test_the_design_example_reads_and_writes_back_unchanged():
    d = descriptor_from_dict(ARCHIVE, "archive.yaml")
    assert d.namespace == "projects" and d.danger == 4 and d.writes
    assert d.idempotency == Idempotency("header:Idempotency-Key", True)
    assert d.idempotency.where == "header" and d.idempotency.name == "Idempotency-Key"
    assert d.to_dict() == {**ARCHIVE, "timeout_s": 30.0}
    assert list(d.to_dict()) == list(ARCHIVE)


def test_empty_fields_stay_empty_and_the_source_lists_them():
    d = descriptor_from_dict({"version": 1, "tool": "search", "source": {
        "format": "openai", "file": "tools.json", "unknown": ["side_effect", "output"]}})
    assert d.side_effect is None and d.output is None and d.namespace is None
    assert d.source == Provenance("openai", "tools.json", ("side_effect", "output"))
    assert d.danger == 4  # unknown counts as the most dangerous
    assert d.to_dict() == {"version": 1, "tool": "search", "source": {
        "format": "openai", "file": "tools.json", "unknown": ["side_effect", "output"]}}


def test_equality_ignores_where_a_descriptor_came_from():
    a = Descriptor("t", source=Provenance("mcp", "a.json"))
    assert a == Descriptor("t", source=Provenance("openai", "b.json"))


@pytest.mark.parametrize(("doc", "error", "words"), [
    ({"version": 2, "tool": "x"}, ContractVersionError, "descriptor version 2 is newer"),
    ({"version": 1}, ContractError, "'tool' is a required property"),
    ([1, 2], ContractError, "a descriptor is a mapping"),
    ({"version": 1, "tool": "x", "side_effect": "nuke"}, ContractError, "side_effect: 'nuke'"),
    ({"version": 1, "tool": "x", "colour": "red"}, ContractError, "'colour' was unexpected"),
    ({"version": 1, "tool": "x", "idempotency": {"key": "Idempotency-Key"}}, ContractError,
     "idempotency.key"),
    ({"version": 1, "tool": "x", "input": {"type": "strnig"}}, SchemaInvalidError,
     "input at /type"),
    ({"version": 1, "tool": "x", "output": {"$ref": "#/$defs/Item"}}, SchemaInvalidError,
     "output at /: $ref '#/$defs/Item' resolves to nothing"),
    ({"version": 1, "tool": "x", "input": {"$ref": "https://example.com/s.json"}},
     SchemaInvalidError, "points outside the descriptor"),
    ({"version": 1, "tool": "x", "input": {"$defs": {"a": {"$ref": "#/$defs/b"},
                                                     "b": {"$ref": "#/$defs/a"}},
                                           "$ref": "#/$defs/a"}},
     SchemaInvalidError, "$ref cycle"),
])
def test_bad_descriptors_name_the_file_the_tool_and_the_path(doc, error, words):
    with pytest.raises(error) as info:
        descriptor_from_dict(doc, "tools/x.yaml")
    assert str(info.value).startswith("tools/x.yaml")
    assert words in str(info.value)
    if isinstance(doc, dict) and "tool" in doc:
        assert "tool x" in str(info.value) and info.value.details["tool"] == "x"


def test_a_recursive_schema_is_usable():
    node = {"$defs": {"node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"}
    assert descriptor_from_dict({"version": 1, "tool": "tree", "output": node}).output == node


def test_a_tool_set_refuses_a_name_twice_and_names_both_files():
    a = Descriptor("search", source=Provenance("mcp", "a.json"))
    b = Descriptor("search", source=Provenance("mcp", "b.json"))
    with pytest.raises(DuplicateToolError, match=r"search is described twice \(a.json and b.json\)"):
        ToolSet([a, b])
    s = ToolSet([a, Descriptor("fetch")])
    assert list(s) == ["search", "fetch"] and s["fetch"].tool == "fetch" and len(s) == 2
