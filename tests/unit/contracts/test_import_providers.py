"""Importing provider tool lists: OpenAI (Chat Completions and Responses), Anthropic and
Gemini, bare or inside a request body; what each cannot say stays empty and listed."""

import pytest

from workbench.contracts import ContractError, DuplicateToolError, read_document

PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
NOT_SAID = ("revision", "title", "output", "errors", "side_effect", "timeout_s", "cancellable",
            "auth_scope", "idempotency", "deprecated")


@pytest.mark.parametrize("doc", [
    [{"type": "function", "function": {"name": "weather", "description": "Weather now.",
                                       "parameters": PARAMS, "strict": False}}],
    [{"type": "function", "name": "weather", "description": "Weather now.",
      "parameters": PARAMS, "strict": True}, {"type": "web_search"}],
    {"model": "gpt-x", "messages": [], "tools": [
        {"type": "function", "function": {"name": "weather", "description": "Weather now.",
                                          "parameters": PARAMS}}]},
], ids=["chat completions", "responses with a built-in tool", "request body"])
def test_openai_tools_in_both_apis(doc):
    (d,) = read_document(doc, "openai.json")
    assert (d.tool, d.description, d.input) == ("weather", "Weather now.", PARAMS)
    assert d.source.format == "openai" and d.source.unknown == NOT_SAID
    assert d.output is None and d.side_effect is None and d.errors is None


def test_an_openai_function_without_parameters_takes_none():
    (d,) = read_document([{"type": "function", "function": {"name": "now"}}], "o.json")
    assert d.input == {"type": "object", "properties": {}}


@pytest.mark.parametrize("doc", [
    [{"name": "weather", "description": "Weather now.", "input_schema": PARAMS}],
    {"model": "claude-x", "max_tokens": 10, "messages": [], "tools": [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
        {"type": "custom", "name": "weather", "description": "Weather now.",
         "input_schema": PARAMS, "cache_control": {"type": "ephemeral"}, "strict": True}]},
], ids=["tool list", "request body with a server tool"])
def test_anthropic_tools(doc):
    (d,) = read_document(doc, "anthropic.json")
    assert (d.tool, d.description, d.input) == ("weather", "Weather now.", PARAMS)
    assert d.source.format == "anthropic" and d.source.unknown == NOT_SAID


GEMINI_PARAMS = {
    "type": "OBJECT", "propertyOrdering": ["unit", "city"], "required": ["city"],
    "properties": {
        "city": {"type": "STRING", "description": "a city", "example": "Lyon"},
        "days": {"type": "INTEGER", "format": "int32", "minimum": 1, "maximum": 7,
                 "nullable": True},
        "unit": {"type": "STRING", "format": "enum", "enum": ["C", "F"], "nullable": True},
        "hours": {"type": "ARRAY", "items": {"type": "NUMBER"}, "minItems": "1",
                  "maxItems": "24"},
    }}
#: the same in JSON Schema 2020-12
CONVERTED = {
    "type": "object", "required": ["city"],
    "properties": {
        "unit": {"type": ["string", "null"], "enum": ["C", "F", None]},
        "city": {"type": "string", "description": "a city", "examples": ["Lyon"]},
        "days": {"type": ["integer", "null"], "format": "int32", "minimum": 1, "maximum": 7},
        "hours": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 24},
    }}


@pytest.mark.parametrize("doc", [
    [{"functionDeclarations": [{"name": "forecast", "description": "Forecast.",
                                "parameters": GEMINI_PARAMS}]}, {"googleSearch": {}}],
    {"contents": [], "tools": [{"function_declarations": [
        {"name": "forecast", "description": "Forecast.", "parameters": GEMINI_PARAMS}]}]},
    {"functionDeclarations": [{"name": "forecast", "description": "Forecast.",
                               "parameters": GEMINI_PARAMS}]},
], ids=["tools array", "request body, snake_case", "one tool"])
def test_gemini_parameters_become_json_schema(doc):
    (d,) = read_document(doc, "gemini.json")
    assert d.input == CONVERTED
    assert list(d.input["properties"]) == ["unit", "city", "days", "hours"]  # propertyOrdering
    assert d.source.format == "gemini"
    assert d.source.unknown == tuple(f for f in NOT_SAID)  # no response declared: output too


def test_gemini_json_schema_fields_are_taken_as_is():
    schema = {"type": "object", "properties": {"q": {"const": "x"}}, "additionalProperties": False}
    (d,) = read_document([{"functionDeclarations": [{
        "name": "find", "parametersJsonSchema": schema,
        "response": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}}]}], "g.json")
    assert d.input == schema
    assert d.output == {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert "output" not in d.source.unknown


def test_gemini_refuses_both_spellings_at_once():
    with pytest.raises(ContractError, match="`parameters` and `parametersJsonSchema` are both"):
        read_document([{"functionDeclarations": [{
            "name": "f", "parameters": GEMINI_PARAMS, "parametersJsonSchema": PARAMS}]}], "g.json")


@pytest.mark.parametrize("doc", [
    [{"type": "function", "function": {"name": "a"}}, {"type": "function", "name": "a"}],
    [{"name": "a", "input_schema": PARAMS}, {"name": "a", "input_schema": PARAMS}],
    [{"functionDeclarations": [{"name": "a"}]}, {"functionDeclarations": [{"name": "a"}]}],
])
def test_a_name_twice_in_one_provider_list_is_refused(doc):
    with pytest.raises(DuplicateToolError, match="tool a is described twice"):
        read_document(doc, "t.json")
