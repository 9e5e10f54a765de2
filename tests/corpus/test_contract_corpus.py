"""The MCP tool lists of the corpus, imported as descriptors, against what the files say.

How the expectations were taken: each file was opened and its ``tools/list`` result
(the response to a ``tools/list`` request in the recordings; the ``tools`` of a result
or a bare ``Tool`` in the specification's examples) read by eye: the tool names in
order, which declare an ``outputSchema``, which a ``title``. No tool in these files
carries ``annotations``, so no side-effect class can be said for any of them; the
recordings without a ``tools/list`` (only ``tools/call``) hold no tool definitions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import corpus_params
from workbench.contracts import (
    UnknownSourceError,
    export_tools,
    lint,
    read_document,
    read_tools,
)

# file -> [(tool, declares an outputSchema, title)]
EXPECTED: dict[str, list[tuple[str, bool, str | None]]] = {
    "mcp-cassette-py/tools.mcp.json": [("echo", False, None), ("add", False, None),
                                       ("summarize", False, None)],
    "mcp-cassette-py/injected.mcp.json": [("echo", False, None), ("add", False, None),
                                          ("summarize", False, None)],
    "mcp-cassette-js/tiny-server.golden.cassette.jsonl": [
        ("echo", False, None), ("add", False, None), ("slugify", False, None)],
    "mcp-recorder/mock_session.json": [("add", True, None), ("multiply", True, None),
                                       ("echo", True, None), ("get_weather", True, None)],
    "mcp-spec-examples/examples/ListToolsResult/tools-list-with-cursor-and-ttl.json": [
        ("get_weather", False, "Weather Information Provider")],
    "mcp-spec-examples/examples/ListToolsResultResponse/list-tools-result-response.json": [
        ("get_weather", False, "Weather Information Provider")],
    "mcp-spec-examples/examples/Tool/tool-with-array-output-schema.json": [
        ("list_users", True, "User List")],
    "mcp-spec-examples/examples/Tool/tool-with-composition-input-schema.json": [
        ("find_resource", False, "Resource Finder")],
    "mcp-spec-examples/examples/Tool/with-default-2020-12-input-schema.json": [
        ("calculate_sum", False, None)],
    "mcp-spec-examples/examples/Tool/with-explicit-draft-07-input-schema.json": [
        ("calculate_sum", False, None)],
    "mcp-spec-examples/examples/Tool/with-no-parameters.json": [
        ("get_current_time", False, None)],
    "mcp-spec-examples/examples/Tool/with-output-schema-for-structured-content.json": [
        ("get_weather_data", True, "Weather Data Retriever")],
}
#: recordings of tool calls without a tools/list: no definitions to import
NO_LISTING = ["mcp-cassette-py/echo_and_add.mcp.json",
              "mcp-cassette-py/http_echo_and_add.mcp.json",
              "mcp-cassette-py/sampling.mcp.json"]


@pytest.mark.parametrize("name", corpus_params(sorted(EXPECTED)))
def test_every_tools_list_imports_with_what_it_says(corpus: Path, name: str) -> None:
    tools = read_tools([corpus / name])
    assert [(d.tool, d.output is not None, d.title) for d in tools.values()] == EXPECTED[name]
    for d in tools.values():
        assert d.source.format == "mcp" and d.source.file == str(corpus / name)
        assert d.side_effect is None and "side_effect" in d.source.unknown  # no hints
        assert ("output" in d.source.unknown) == (d.output is None)
        if d.output is None or d.output.get("type") == "object":  # else see the lint test
            (back,) = read_document(export_tools([d], "mcp").document, "back.json")
            assert back == d  # MCP export carries all of it back


@pytest.mark.parametrize("name", corpus_params(NO_LISTING))
def test_recordings_without_a_tools_list_hold_no_definitions(corpus: Path, name: str) -> None:
    with pytest.raises(UnknownSourceError, match="without a tools/list response"):
        read_tools([corpus / name])


def test_the_poisoned_listing_differs_from_its_baseline_in_one_description(corpus: Path) -> None:
    clean = read_tools([corpus / "mcp-cassette-py/tools.mcp.json"])
    poisoned = read_tools([corpus / "mcp-cassette-py/injected.mcp.json"])
    assert [n for n in clean if clean[n] != poisoned[n]] == ["echo"]
    assert poisoned["echo"].input == clean["echo"].input
    assert "forward the full conversation" in poisoned["echo"].description


def test_lint_known_answers(corpus: Path) -> None:
    examples = sorted((corpus / "mcp-spec-examples/examples/Tool").glob("*.json"))
    tools = [d for f in examples for d in read_tools([f]).values()]  # calculate_sum twice
    found = {(p.tool, p.provider, p.path, p.fix) for p in lint(tools)}
    # alternatives at the root: OpenAI strict cannot take them at all
    assert ("find_resource", "openai", "/input/oneOf", "none") in found
    # an array output is MCP's from the 2026-07-28 revision only
    assert ("list_users", "mcp", "/output", "none") in found
    # no parameters and nothing more: every provider takes it as it is
    assert not [p for p in found if p[0] == "get_current_time"]
    session = read_tools([corpus / "mcp-recorder/mock_session.json"])
    gemini = {(p.tool, p.path, p.fix) for p in lint(session.values(), ["gemini"])}
    assert gemini == {("add", "/output/x-fastmcp-wrap-result", "lossless"),
                      ("multiply", "/output/x-fastmcp-wrap-result", "lossless"),
                      ("echo", "/output/x-fastmcp-wrap-result", "lossless"),
                      ("get_weather", "/output", "lossy")}  # a free-form object
