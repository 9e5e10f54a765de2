"""Lint: each provider's constraints, named with the tool, the JSON path and what export
does about them (known answers, one provider at a time)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.contracts import descriptor_from_dict, lint


def _tool(input=None, output=None, tool="find"):
    doc = {"version": 1, "tool": tool}
    if input is not None:
        doc["input"] = input
    if output is not None:
        doc["output"] = output
    return descriptor_from_dict(doc)


def _found(provider, d):
    return {(p.path, p.keyword, p.severity, p.fix) for p in lint([d], [provider])}


CLEAN_STRICT = {"type": "object", "additionalProperties": False, "required": ["q"],
                "properties": {"q": {"type": "string"}}}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mcp"])
def test_a_plain_strict_schema_passes_everywhere(provider):
    found = _found(provider, _tool(CLEAN_STRICT))
    if provider == "gemini":  # Gemini's Schema has no additionalProperties at all
        assert found == {("/input/additionalProperties", "additionalProperties", "reject",
                          "lossy")}
    else:
        assert found == set()


def test_openai_names_and_strict_objects():
    d = _tool({"type": "object", "properties": {
        "q": {"type": "string", "maxLength": 9},
        "limit": {"type": "integer"},
        "cursor": {"type": ["string", "null"]},
        "when": {"type": "string", "format": "date-time"},
        "where": {"type": "object", "properties": {"city": {"type": "string"}},
                  "required": ["city"], "additionalProperties": True},
        "filter": {"allOf": [{"type": "object"}], "not": {"required": ["x"]}},
        "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]}},
        "required": ["q", "when", "where", "filter", "kind"]}, tool="orders.find")
    assert _found("openai", d) == {
        ("/tool", "name", "reject", "none"),
        ("/input/additionalProperties", "additionalProperties", "reject", "lossless"),
        ("/input/properties/q/maxLength", "maxLength", "reject", "lossy"),
        ("/input/properties/limit", "required", "reject", "lossless"),
        ("/input/properties/cursor", "required", "reject", "lossy"),  # null and absent merge
        ("/input/properties/where/additionalProperties", "additionalProperties", "reject",
         "lossy"),
        ("/input/properties/filter/allOf", "allOf", "reject", "lossy"),
        ("/input/properties/filter/not", "not", "reject", "lossy"),
        ("/input/properties/kind/oneOf", "oneOf", "reject", "lossy"),
    }


def test_openai_root_and_limits():
    assert ("/input/anyOf", "anyOf", "reject", "none") in _found("openai", _tool(
        {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}))
    assert ("/input", "type", "reject", "none") in _found("openai", _tool({"type": "array"}))
    wide = {"type": "object", "additionalProperties": False, "required": ["e"],
            "properties": {"e": {"enum": list(range(1001))}}}
    assert ("/input", "enum", "reject", "none") in _found("openai", _tool(wide))
    deep = {"type": "string"}
    for _ in range(11):
        deep = {"type": "object", "properties": {"x": deep}, "required": ["x"],
                "additionalProperties": False}
    assert ("/input", "nesting", "reject", "none") in _found("openai", _tool(deep))
    assert ("/input", "input", "reject", "lossy") in _found("openai", _tool())


def test_anthropic_numbers_lengths_arrays_values_and_recursion():
    d = _tool({"type": "object", "additionalProperties": False, "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 9, "multipleOf": 2},
        "s": {"type": "string", "minLength": 1, "pattern": "^(?!tmp)"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 5},
        "one": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "shape": {"enum": [{"w": 1}, "plain"]},
        "when": {"type": "string", "format": "hostname"},
        "tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "additionalProperties": False,
                           "properties": {"kids": {"type": "array",
                                                   "items": {"$ref": "#/$defs/node"}}}}}})
    assert _found("anthropic", d) == {
        ("/input/properties/n/minimum", "minimum", "reject", "lossy"),
        ("/input/properties/n/maximum", "maximum", "reject", "lossy"),
        ("/input/properties/n/multipleOf", "multipleOf", "reject", "lossy"),
        ("/input/properties/s/minLength", "minLength", "reject", "lossy"),
        ("/input/properties/s/pattern", "pattern", "reject", "lossy"),
        ("/input/properties/tags/minItems", "minItems", "reject", "lossy"),
        ("/input/properties/tags/maxItems", "maxItems", "reject", "lossy"),
        ("/input/properties/shape/enum", "enum", "reject", "lossy"),
        ("/input/properties/when/format", "format", "reject", "lossy"),
        ("/input/properties/tree/$ref", "$ref", "reject", "none"),
        ("/input/$defs/node/properties/kids/items/$ref", "$ref", "reject", "none"),
    }


def test_anthropic_limits_per_request():
    tools = [_tool({"type": "object", "additionalProperties": False,
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
                   tool=f"t{i}") for i in range(21)]
    per_request = [p for p in lint(tools, ["anthropic"]) if p.fix == "per-request"]
    assert [(p.tool, p.keyword) for p in per_request] == [("t12", "required"),
                                                          ("t20", "strict")]


def test_gemini_subset():
    d = _tool({"type": "object", "required": ["kind"], "properties": {
        "kind": {"const": "order"},
        "level": {"const": 3},
        "size": {"type": "integer", "enum": [1, 2, 3]},
        "id": {"type": ["string", "integer"]},
        "maybe": {"type": ["string", "null"], "format": "email"},
        "total": {"$ref": "#/$defs/money"},
        "ratio": {"type": "number", "exclusiveMinimum": 0},
        "meta": {"type": "object"}},
        "$defs": {"money": {"type": "object", "properties": {"amount": {"type": "string"}}}}})
    assert _found("gemini", d) == {
        ("/input/properties/kind/const", "const", "reject", "lossless"),
        ("/input/properties/level/const", "const", "reject", "lossy"),
        ("/input/properties/size/enum", "enum", "reject", "lossy"),
        ("/input/properties/id/type", "type", "reject", "lossless"),
        ("/input/properties/maybe/format", "format", "reject", "lossy"),
        ("/input/properties/total/$ref", "$ref", "reject", "lossless"),
        ("/input/properties/ratio/exclusiveMinimum", "exclusiveMinimum", "reject", "lossy"),
        ("/input/properties/meta", "properties", "reject", "none"),
    }


def test_gemini_output_it_cannot_say_is_left_out_not_refused():
    d = _tool(CLEAN_STRICT | {"additionalProperties": True}, output={"type": "object"})
    assert _found("gemini", d) == {("/output", "properties", "reject", "lossy")}


def test_mcp_names_and_roots():
    assert _found("mcp", _tool(CLEAN_STRICT, tool="billing/refund")) == {
        ("/tool", "name", "reject", "none")}
    assert _found("mcp", _tool(CLEAN_STRICT, output={"type": "array"})) == {
        ("/output", "type", "reject", "none")}
    assert _found("mcp", _tool()) == {("/input", "input", "reject", "lossy")}


def test_gemini_extensions_go_without_loss_and_no_arguments_need_no_parameters():
    d = _tool({"type": "object", "additionalProperties": False},
              output={"type": "object", "properties": {"n": {"type": "integer"}},
                      "x-wrap": True})
    assert _found("gemini", d) == {("/output/x-wrap", "x-wrap", "reject", "lossless")}


def test_openai_names_the_root_keyword_it_refuses():
    d = _tool({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]})
    assert ("/input/oneOf", "oneOf", "reject", "none") in _found("openai", d)


def test_problems_group_by_rule_and_fix_with_decisions_first():
    """Each x- extension is one rule; lossless and lossy problems of one keyword are two
    groups; the groups needing a decision come first, then the largest."""
    from workbench.contracts import ProblemGroup  # noqa: F401 (public)
    from workbench.contracts._profile import group_problems

    d = _tool({"type": "object", "properties": {
        "a": {"type": "string", "x-a": 1}, "b": {"type": "string", "x-b": 2},
        "c": {"type": ["string", "null"]}}})
    problems = lint([d], ["openai", "gemini"])
    groups = [(g.rule, g.fix, g.count, g.tools, g.decision) for g in group_problems(problems)]
    assert groups == [
        ("openai/required", "lossy", 1, 1, True),
        ("gemini/x-*", "lossless", 2, 1, False),
        ("openai/required", "lossless", 2, 1, False),
        ("openai/additionalProperties", "lossless", 1, 1, False)]
    assert sum(g[2] for g in groups) == len(problems)


@given(st.lists(st.text("ab/", max_size=6), max_size=6), st.text("ab/", max_size=10))
def test_a_problem_inside_a_dropped_subschema_is_found_by_its_prefixes(drops, path):
    """The prefix lookup is the plain `startswith` scan it replaced, made linear."""
    from workbench.contracts._profile import _inside

    path = "/" + path
    dropped = {"/" + d + "/" for d in drops}
    assert _inside(path, dropped) == any(path.startswith(d) for d in dropped)
