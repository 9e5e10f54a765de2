"""Whatever arguments an agent sends, every MCP tool answers: a document valid against
its output schema, or a tool error with one of our codes — never an exception out of
``call_tool`` and never ``INTERNAL`` (a bug). Arguments are drawn from each tool's own
argument names (and a stray one) with values an agent might send by mistake: paths in
and out of the folder, folders, the store itself, wrong types, empty and odd text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.mcp_support import TRACE, make_project
from workbench.mcp_server import TOOLS, ToolContext, call_tool

TEXTS = st.sampled_from([
    ".", "..", "../rules.yaml", "/etc/passwd", "store", "store/store.json", "rules.yaml",
    "broken.yaml", "openapi.yaml", "incident.otlp.json", "secret.jsonl", "missing.yaml",
    "file:///etc/passwd", "nul\x00", " ", "%", "'", "3a09", TRACE[:8], TRACE,
    "approval-before-archive", "status_declared", "open", "error", "ghp_x"]) | st.text(
    max_size=12)
SCALARS = st.none() | st.booleans() | st.integers(-3, 5000) | st.floats(
    allow_nan=False, allow_infinity=False, width=32) | TEXTS
VALUES = SCALARS | st.lists(SCALARS, max_size=3) | st.dictionaries(TEXTS, SCALARS,
                                                                   max_size=2)


@st.composite
def calls(draw):
    name = draw(st.sampled_from([*TOOLS, "no_such_tool"]))
    keys = list(TOOLS[name].input_schema["properties"]) if name in TOOLS else []
    args = draw(st.dictionaries(st.sampled_from([*keys, "stray"]), VALUES, max_size=4))
    return name, args


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzzed-project")
    return ToolContext(make_project(root), root)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=calls())
def test_every_call_is_answered_and_none_is_internal(ctx, call):
    name, args = call
    result = call_tool(TOOLS, ctx, name, args)
    if result.is_error:
        err = result.doc["error"]
        assert err["code"] != "INTERNAL", result.text
        assert result.text.startswith(f"error[{err['code']}]: ")
    else:
        Draft202012Validator(TOOLS[name].output_schema).validate(result.doc)
