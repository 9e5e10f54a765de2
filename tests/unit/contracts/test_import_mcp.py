"""Importing MCP tool lists: every shape a tools/list result comes in, recordings that
hold one, the annotations as side-effect classes, and the fields carried in _meta."""

import json

import pytest

from workbench.contracts import (
    SIDE_EFFECTS,
    DuplicateToolError,
    UnknownSourceError,
    annotations_for,
    read_document,
    read_tools,
    side_effect_of,
)

SEARCH = {"name": "orders.search", "title": "Search orders",
          "description": "Find orders by status.",
          "inputSchema": {"type": "object", "properties": {"status": {"enum": ["open", "paid"]}},
                          "required": ["status"]},
          "outputSchema": {"type": "object", "properties": {"ids": {"type": "array"}}},
          "annotations": {"readOnlyHint": True}}
REFUND = {"name": "orders.refund", "description": "Refund an order.",
          "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
          "annotations": {"title": "Refund", "destructiveHint": True, "openWorldHint": True}}


@pytest.mark.parametrize("doc", [
    {"jsonrpc": "2.0", "id": 7, "result": {"tools": [SEARCH, REFUND], "nextCursor": None}},
    {"tools": [SEARCH, REFUND]},
    [SEARCH, REFUND],
], ids=["json-rpc response", "bare result", "list of tools"])
def test_every_shape_of_a_tools_list_reads_the_same(doc):
    tools = read_document(doc, "tools.json")
    assert [d.tool for d in tools] == ["orders.search", "orders.refund"]
    search, refund = tools
    assert search.title == "Search orders" and refund.title == "Refund"  # annotations.title
    assert search.input == SEARCH["inputSchema"] and search.output == SEARCH["outputSchema"]
    assert (search.side_effect, refund.side_effect) == ("read_only", "destructive")
    assert search.source.format == "mcp" and search.source.file == "tools.json"
    # MCP has no place for these; the output is unknown where the server declared none
    assert search.source.unknown == ("revision", "errors", "timeout_s", "cancellable",
                                     "auth_scope", "idempotency", "deprecated")
    assert refund.source.unknown[:2] == ("revision", "output")


def test_one_tool_object_reads_as_one_descriptor():
    (d,) = read_document(SEARCH, "tool.json")
    assert d.tool == "orders.search"


def _exchange(i, tools):
    return [{"jsonrpc": "2.0", "id": i, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": i, "result": {"tools": tools}}]


def test_recordings_of_three_shapes_give_their_listed_tools(tmp_path):
    call = [{"jsonrpc": "2.0", "id": 9, "method": "tools/call",
             "params": {"name": "orders.search", "arguments": {"status": "open"}}},
            {"jsonrpc": "2.0", "id": 9, "result": {"content": [], "tools": ["not a list"]}}]
    messages = [*_exchange(1, [SEARCH]), *call]
    cassette = {"format_version": 2, "messages": [
        {"seq": i, "sender": "server" if "result" in m else "client", "payload": m}
        for i, m in enumerate(messages)]}
    recorder = {"version": "1.0", "interactions": [
        {"type": "jsonrpc_request", "request": messages[0], "response": messages[1]},
        {"type": "jsonrpc_request", "request": messages[2], "response": messages[3]}]}
    lines = tmp_path / "session.jsonl"
    lines.write_text("\n".join(json.dumps({"type": "frame", "t": i, "frame": m})
                               for i, m in enumerate(messages)) + "\n")
    for doc in (cassette, recorder):
        assert [d.tool for d in read_document(doc, "rec.json")] == ["orders.search"]
    assert list(read_tools([lines])) == ["orders.search"]


def test_a_list_fetched_twice_is_merged_but_never_contradicts_itself():
    same = [*_exchange(1, [SEARCH]), *_exchange(2, [SEARCH, REFUND])]
    assert [d.tool for d in read_document(same, "r.json")] == ["orders.search", "orders.refund"]
    changed = [*_exchange(1, [SEARCH]), *_exchange(2, [{**SEARCH, "description": "new"}])]
    with pytest.raises(DuplicateToolError, match=r"listed twice with different definitions"):
        read_document(changed, "r.json")


def test_a_name_twice_in_one_listing_is_refused():
    with pytest.raises(DuplicateToolError) as info:
        read_document({"tools": [SEARCH, SEARCH]}, "t.json")
    assert "tools[0] and tools[1]" in str(info.value) and info.value.code == "DUPLICATE_TOOL"


def test_a_recording_without_a_tools_list_says_so():
    call = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}]
    with pytest.raises(UnknownSourceError, match="without a tools/list response"):
        read_document(call, "calls.json")


# readOnly, destructive, idempotent, openWorld -> the class; None: the hint is absent
@pytest.mark.parametrize(("hints", "expected"), [
    ((None, None, None, None), None),                # nothing said: unknown, not guessed
    ((True, None, None, None), "read_only"),
    ((True, True, None, True), "read_only"),         # other hints mean nothing when read-only
    ((None, True, None, None), "destructive"),
    ((False, True, True, True), "destructive"),      # destroying outranks sending
    ((None, None, None, True), "external_send"),
    ((False, False, None, True), "external_send"),
    ((None, False, True, None), "idempotent_write"),
    ((None, False, None, None), "write"),
    ((None, False, False, False), "write"),
    ((False, None, None, None), None),               # not read-only says no more than that
    ((None, None, True, None), None),                # idempotent, but destroying? unsaid
    ((None, None, None, False), None),
])
def test_annotations_to_side_effect_known_answers(hints, expected):
    names = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    annotations = {n: v for n, v in zip(names, hints, strict=True) if v is not None}
    assert side_effect_of(annotations) == expected


@pytest.mark.parametrize("side_effect", [*SIDE_EFFECTS, None])
def test_each_class_written_as_hints_reads_back(side_effect):
    assert side_effect_of(annotations_for(side_effect)) == side_effect


def test_fields_mcp_has_no_place_for_come_from_meta():
    tool = {**REFUND, "_meta": {
        "workbench/revision": 3, "workbench/errors": {"codes": ["not_found"], "retryable": []},
        "workbench/auth_scope": ["orders:write"],
        "workbench/idempotency": {"key": "arg:request_id", "required": True},
        "workbench/deprecated": {"since": "2026-01", "replacement": "payments.refund"},
        "progressToken": "ignored"}}
    (d,) = read_document([tool], "t.json")
    assert d.revision == 3 and d.auth_scope == ("orders:write",)
    assert d.errors.codes == ("not_found",) and d.idempotency.required
    assert d.deprecated.replacement == "payments.refund"
    assert d.source.unknown == ("output", "timeout_s", "cancellable")
