"""No schema ends an import in an internal error: schemas mixing the keywords of drafts
4, 6, 7, 2019-09 and 2020-12 (with or without ``$schema``, their ``$ref``s local,
dangling or recursive, ``$recursiveRef`` and ``$dynamicRef`` among them), put in an MCP
tool list and in an OpenAPI 3.0 and 3.1 document, are imported, refused with a code
(exit 2), or imported in part (exit 4) — never exit 3. ``tests.support.run`` fails the
test on any ``INTERNAL``."""

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.support import run

DRAFTS = [None, "http://json-schema.org/draft-04/schema#",
          "http://json-schema.org/draft-06/schema#", "http://json-schema.org/draft-07/schema#",
          "https://json-schema.org/draft/2019-09/schema",
          "https://json-schema.org/draft/2020-12/schema", "https://example.com/unknown"]
names = st.sampled_from(["a", "b", "node", "x/y", "~t"])
numbers = st.one_of(st.integers(-5, 5), st.floats(-1e3, 1e3, allow_nan=False),
                    st.booleans())
refs = st.one_of(st.sampled_from(["#", "#/$defs/a", "#/$defs/b", "#/definitions/a",
                                  "#/$defs/missing", "#/properties/a", "#node", "other.json",
                                  "https://example.com/s.json", "#/$defs/x~1y",
                                  "#/components/schemas/A", "#/components/schemas/Nope"]),
                 st.text(max_size=6))
#: one keyword of some draft, and a value of a plausible (or not) shape
leaf_words = st.one_of(
    st.tuples(st.just("type"), st.one_of(
        st.sampled_from(["string", "integer", "number", "object", "array", "boolean",
                         "null", "any", "strnig"]),
        st.lists(st.sampled_from(["string", "null", "integer"]), max_size=3))),
    st.tuples(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                               "multipleOf", "minLength", "maxLength", "minItems",
                               "maxItems"]), numbers),
    st.tuples(st.sampled_from(["nullable", "uniqueItems", "readOnly", "deprecated",
                               "$recursiveAnchor"]), st.one_of(st.booleans(), numbers)),
    st.tuples(st.sampled_from(["required", "enum"]), st.lists(
        st.one_of(names, st.integers(0, 2), st.none()), max_size=4)),
    st.tuples(st.sampled_from(["$ref", "$recursiveRef", "$dynamicRef"]), refs),
    st.tuples(st.sampled_from(["$dynamicAnchor", "$anchor", "$id", "format", "pattern",
                               "example", "const", "$comment"]),
              st.one_of(names, st.sampled_from(["(", "^a+$", "date-time"]), numbers)),
)


def schemas(depth: int = 2) -> st.SearchStrategy:
    base = st.dictionaries(st.just("k"), st.just(0), max_size=0).flatmap(
        lambda _: st.lists(leaf_words, max_size=5).map(dict))
    if depth == 0:
        return st.one_of(base, st.booleans())
    inner = schemas(depth - 1)
    return st.one_of(
        base,
        st.tuples(base, st.sampled_from(["items", "additionalProperties", "not", "if",
                                         "then", "else", "contains", "additionalItems",
                                         "unevaluatedProperties", "propertyNames"]),
                  st.one_of(inner, st.lists(inner, max_size=2))).map(
            lambda t: {**t[0], t[1]: t[2]}),
        st.tuples(base, st.sampled_from(["properties", "$defs", "definitions",
                                         "patternProperties", "dependencies",
                                         "dependentSchemas"]),
                  st.dictionaries(names, inner, max_size=3)).map(
            lambda t: {**t[0], t[1]: t[2]}),
        st.tuples(base, st.sampled_from(["allOf", "anyOf", "oneOf", "prefixItems", "items"]),
                  st.lists(inner, max_size=3)).map(lambda t: {**t[0], t[1]: t[2]}),
    )


@st.composite
def documents(draw):
    schema = draw(schemas())
    draft = draw(st.sampled_from(DRAFTS))
    if isinstance(schema, dict) and draft is not None:
        schema = {"$schema": draft, **schema}
    kind = draw(st.sampled_from(["mcp", "openapi-3.0", "openapi-3.1"]))
    if kind == "mcp":
        other = {"name": "fine", "inputSchema": {"type": "object"}}
        return "tools.json", {"tools": [{"name": "t", "inputSchema": schema}, other]}
    components = draw(st.dictionaries(st.sampled_from(["A", "B"]), schemas(1), max_size=2))
    return "api.json", {
        "openapi": "3.0.3" if kind == "openapi-3.0" else "3.1.0",
        "info": {"title": "t", "version": "1"}, "components": {"schemas": components},
        "paths": {"/t": {"post": {"operationId": "t", "requestBody": {"content": {
            "application/json": {"schema": schema}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/A"}}}}}},
            "get": {"operationId": "fine", "responses": {"204": {"description": "ok"}}}}}}


@pytest.fixture(autouse=True)
def no_env_store(monkeypatch):
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(doc=documents())
def test_no_schema_of_any_draft_ends_an_import_in_an_internal_error(capsys, tmp_path, doc):
    name, content = doc
    path = tmp_path / name
    path.write_text(json.dumps(content))
    code, out, err = run(capsys, "contract", "import", path, "--json")
    assert code in (0, 2, 4), (code, err)
    event(f"exit {code}")
    result = json.loads(out)
    if code == 4:
        assert [t["tool"] for t in result["tools"]] == ["fine"] and result["refused"]
        assert all(r["code"] and r["hint"] and r["path"] for r in result["refused"])
    elif code == 0:
        assert {t["tool"] for t in result["tools"]} == {"t", "fine"}
    else:
        assert result["error"]["code"] != "INTERNAL"
