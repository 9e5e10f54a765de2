"""Export: a provider's tool JSON; rewrites that keep the meaning are made, loss is
refused unless asked for, and what the provider cannot take is refused."""

import jsonschema
import pytest

from workbench.contracts import (
    ExportError,
    descriptor_from_dict,
    export_tools,
    hoist_root,
    lint,
    read_document,
)

FULL = {"version": 1, "tool": "orders.refund", "revision": 2, "title": "Refund",
        "description": "Refund an order once it is paid.",
        "input": {"type": "object", "required": ["order_id"], "properties": {
            "order_id": {"type": "string"},
            "reason": {"type": "string", "enum": ["damaged", "late"]},
            "note": {"type": "string"}}},
        "output": {"type": "object", "properties": {"state": {"enum": ["refunded"]}}},
        "errors": {"codes": ["not_found", "conflict"], "retryable": ["conflict"]},
        "side_effect": "external_send", "timeout_s": 30, "cancellable": False,
        "auth_scope": ["orders:write"],
        "idempotency": {"key": "header:Idempotency-Key", "required": True},
        "deprecated": {"since": "2026-03", "replacement": "payments.refund"}}


def _d(doc=FULL, **edit):
    return descriptor_from_dict({**doc, **edit})


def test_mcp_carries_every_field():
    result = export_tools([_d()], "mcp")
    (tool,) = result.document["tools"]
    assert tool["annotations"] == {"readOnlyHint": False, "destructiveHint": False,
                                   "openWorldHint": True}
    assert tool["_meta"]["workbench/auth_scope"] == ["orders:write"]
    (back,) = read_document(result.document, "back.json")
    assert back == _d() and back.source.unknown == ()
    assert result.omitted == {"orders.refund": ()}


def test_openai_strict_rewrites_without_loss_and_lists_what_it_cannot_carry():
    result = export_tools([_d(tool="refund")], "openai")
    (tool,) = result.document
    params = tool["function"]["parameters"]
    assert tool["function"]["strict"] is True and params["additionalProperties"] is False
    assert params["required"] == ["order_id", "reason", "note"]
    assert params["properties"]["reason"] == {"type": ["string", "null"],
                                              "enum": ["damaged", "late", None]}
    assert {p.path for p in result.transformed} == {
        "/input/additionalProperties", "/input/properties/reason", "/input/properties/note"}
    assert result.dropped == ()
    assert result.omitted["refund"] == ("revision", "title", "output", "errors",
                                        "side_effect", "timeout_s", "cancellable",
                                        "auth_scope", "idempotency", "deprecated")
    # what the tool accepted, with absent optional fields sent as null, is still accepted
    original = jsonschema.Draft202012Validator(FULL["input"])
    strict = jsonschema.Draft202012Validator(params)
    for args in ({"order_id": "o1"}, {"order_id": "o1", "reason": "late"}):
        assert original.is_valid(args)
        assert strict.is_valid({"reason": None, "note": None, **args})
    assert not strict.is_valid({"order_id": "o1", "reason": None, "note": None, "x": 1})


def test_loss_is_refused_then_listed_when_asked_for():
    d = _d(tool="refund", input={"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1}}, "additionalProperties": False})
    with pytest.raises(ExportError) as info:
        export_tools([d], "anthropic")
    assert info.value.code == "EXPORT_LOSSY"
    assert "refund /input/properties/n/minimum" in str(info.value)
    assert info.value.details["problems"][0]["keyword"] == "minimum"
    result = export_tools([d], "anthropic", lossy=True)
    assert [p.keyword for p in result.dropped] == ["minimum"]
    assert result.document[0]["input_schema"]["properties"]["n"] == {"type": "integer"}


def test_what_the_provider_cannot_take_is_refused_even_lossy():
    with pytest.raises(ExportError) as info:
        export_tools([_d()], "openai", lossy=True)  # a dotted name
    assert info.value.code == "EXPORT_UNSUPPORTED" and "orders.refund /tool" in str(info.value)


def test_gemini_inlines_refs_and_spells_the_subset():
    d = descriptor_from_dict({"version": 1, "tool": "quote", "input": {
        "type": "object", "required": ["total"],
        "properties": {"total": {"$ref": "#/$defs/money"},
                       "kind": {"const": "net"},
                       "memo": {"type": ["string", "null"]}},
        "$defs": {"money": {"type": "object", "properties": {
            "amount": {"type": "string"}, "currency": {"enum": ["EUR", "USD"]}}}}}})
    result = export_tools([d], "gemini")
    (decl,) = result.document[0]["functionDeclarations"]
    assert decl["parameters"] == {
        "type": "OBJECT", "required": ["total"], "propertyOrdering": ["total", "kind", "memo"],
        "properties": {
            "total": {"type": "OBJECT", "propertyOrdering": ["amount", "currency"],
                      "properties": {"amount": {"type": "STRING"},
                                     "currency": {"type": "STRING", "enum": ["EUR", "USD"]}}},
            "kind": {"type": "STRING", "enum": ["net"]},
            "memo": {"type": "STRING", "nullable": True}}}
    assert {p.keyword for p in result.transformed} == {"$ref", "const"}


def test_a_function_without_arguments_is_one_without_parameters():
    d = descriptor_from_dict({"version": 1, "tool": "now", "input": {"type": "object"}})
    (decl,) = export_tools([d], "gemini").document[0]["functionDeclarations"]
    assert decl == {"name": "now"}
    (back,) = read_document(export_tools([d], "gemini").document, "g.json")
    assert back.input == {"type": "object", "properties": {}}


REF_ROOT = {"$ref": "#/$defs/Approval", "$defs": {
    "Approval": {"type": "object", "required": ["id"], "properties": {
        "id": {"type": "string"}, "next": {"$ref": "#/$defs/Approval"}}}}}


@pytest.mark.parametrize("provider", ["mcp", "openai", "anthropic", "gemini"])
def test_a_root_that_points_into_its_definitions_is_an_object_to_every_provider(provider):
    # as an OpenAPI import writes a response component: the root is a $ref
    d = _d(tool="get_approval", input=REF_ROOT, output=REF_ROOT)
    problems = [p for p in lint([d], [provider]) if p.path in ("/input", "/output")]
    assert problems == []
    if provider == "mcp":  # MCP keeps JSON Schema: the hoisted root, definitions beside
        (tool,) = export_tools([d], "mcp").document["tools"]
        assert tool["outputSchema"]["type"] == "object"
        assert tool["outputSchema"]["$defs"] == REF_ROOT["$defs"]
        jsonschema.validate({"id": "a", "next": {"id": "b"}}, tool["outputSchema"])
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"next": {"id": 1}}, tool["outputSchema"])


@pytest.mark.parametrize("schema", [
    {"$ref": "#/$defs/X", "$defs": {"X": {"type": "string"}}, "type": "object"},  # a sibling
    {"$ref": "#/$defs/X", "$defs": {"X": {"$ref": "#/$defs/Y"}, "Y": {}}},  # a chain
    {"$ref": "#/$defs/missing", "$defs": {}},
    {"$ref": "https://example.test/s.json"},
    {"$ref": "#/$defs/X", "$defs": {"X": {"type": "object", "description": "a"}},
     "description": "b"},  # words that disagree
])
def test_only_a_bare_root_reference_is_hoisted(schema):
    assert hoist_root(schema) is schema


#: a tool whose input the descriptor leaves unknown, as each provider's export declares it
UNKNOWN_INPUT = {
    "openai": [{"type": "function", "function": {
        "name": "ping", "description": "Ping.", "strict": True,
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}}],
    "anthropic": [{"name": "ping", "description": "Ping.", "strict": True, "input_schema": {
        "type": "object", "properties": {}, "additionalProperties": False}}],
    "gemini": [{"functionDeclarations": [{"name": "ping", "description": "Ping."}]}],
    "mcp": {"tools": [{"name": "ping", "title": "Ping", "description": "Ping.",
                       "inputSchema": {"type": "object"}}]},
}


@pytest.mark.parametrize("provider", sorted(UNKNOWN_INPUT))
def test_an_unknown_input_is_a_loss_and_a_root_that_is_no_object_is_refused(provider):
    d = descriptor_from_dict({"version": 1, "tool": "ping", "title": "Ping",
                              "description": "Ping."})
    with pytest.raises(ExportError) as info:
        export_tools([d], provider)
    assert info.value.code == "EXPORT_LOSSY" and "ping /input" in str(info.value)
    result = export_tools([d], provider, lossy=True)
    assert [(p.path, p.keyword) for p in result.dropped] == [("/input", "input")]
    assert result.document == UNKNOWN_INPUT[provider]
    if provider == "mcp":  # the stand-in written as it is: each export holds its own
        result.document["tools"][0]["inputSchema"]["title"] = "changed"
    assert export_tools([d], provider, lossy=True).document == UNKNOWN_INPUT[provider]
    listed = _d(tool="ping", input={"type": "array", "items": {"type": "string"}})
    assert ("/input", "type", "reject", "none") in {
        (p.path, p.keyword, p.severity, p.fix) for p in lint([listed], [provider])}
