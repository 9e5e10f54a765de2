"""Consumer contracts: read with their lines, checked against the tools they were written
for, and the dependencies a change touches."""

import pytest

from workbench.contracts import (
    ConsumerError,
    Dependency,
    ToolSet,
    consumer_findings,
    descriptor_from_dict,
    parse_consumer,
)

LIST = descriptor_from_dict({
    "version": 1, "tool": "projects.list", "side_effect": "read_only",
    "input": {"type": "object", "properties": {"owner": {"type": "string"},
                                               "cursor": {"type": "string"}}},
    "output": {"$defs": {"Project": {"type": "object", "properties": {
        "id": {"type": "string"}, "owner": {"type": "string"},
        "state": {"enum": ["active", "archived"]},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}},
        "type": "object", "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Project"}},
            "next_cursor": {"type": ["string", "null"]}}},
    "errors": {"codes": ["rate_limited", "forbidden"], "retryable": ["rate_limited"]}})
ARCHIVE = descriptor_from_dict({"version": 1, "tool": "projects.archive",
                                "side_effect": "destructive"})
TOOLS = ToolSet([LIST, ARCHIVE])

GOOD = """\
version: 1
consumer: triage
tools:
  projects.list:
    reads:
      - result.items[*].owner
      - result.items[*].labels.team
    sends: [args.owner]
    branches_on:
      result.items[*].state: [active, archived]
    retries_on: [rate_limited]
    paginates: {cursor: result.next_cursor, sends: args.cursor}
    assumes_order: "result.items[*].id"
  projects.archive:
"""


def test_a_consumer_contract_reads_into_dependencies_with_lines():
    c = parse_consumer(GOOD, "triage.yaml", TOOLS)
    assert c.name == "triage" and c.tools == ("projects.list", "projects.archive")
    got = [(d.tool, d.what, d.path, d.values, d.line) for d in c.dependencies]
    assert got == [
        ("projects.list", "calls", None, (), 4),
        ("projects.list", "reads", "result.items[*].owner", (), 6),
        ("projects.list", "reads", "result.items[*].labels.team", (), 7),
        ("projects.list", "sends", "args.owner", (), 8),
        ("projects.list", "branches_on", "result.items[*].state", ("active", "archived"), 10),
        ("projects.list", "retries_on", None, ("rate_limited",), 11),
        ("projects.list", "paginates", "result.next_cursor", (), 12),
        ("projects.list", "paginates", "args.cursor", (), 12),
        ("projects.list", "assumes_order", "result.items[*].id", (), 13),
        ("projects.archive", "calls", None, (), 14)]
    assert [d.what for d in c.on("projects.archive")] == ["calls"]


@pytest.mark.parametrize(("text", "words"), [
    ("version: 1\nconsumer: x\ntools:\n  projects.lst: {}\n",
     "x.yaml line 4, consumer x, tool projects.lst: the tools it was checked against do not describe"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    reads: [result.items.owner]\n",
     "x.yaml line 5, consumer x, tool projects.list, path result.items.owner: the tool's schema declares no such path"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    reads:\n      - result.owner\n",
     "x.yaml line 6, consumer x, tool projects.list, path result.owner"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    sends: [args.owner_id]\n",
     "path args.owner_id: the tool's schema declares no such path"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    reads: [args.owner]\n",
     "`reads` paths start with `result`"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    branches_on:\n      result.items[0].state: [deleted]\n",
     "value 'deleted' is not one the schema allows ('active', 'archived')"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    retries_on: [timeout]\n",
     "error code 'timeout' is not in the tool's error envelope"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    readz: []\n",
     "x.yaml line 5, consumer x, tool projects.list: unknown key 'readz'"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    reads: [result..x]\n", "bad path"),
    ("version: 2\nconsumer: x\ntools: {a: {}}\n", "x.yaml line 1, consumer x: `version` must be 1"),
    ("consumer: x\n", "a consumer contract is a mapping"),
    ("version: 1\nconsumer: x\ntools:\n  projects.list:\n    reads: [result.items[*].owner]\n",
     "x.yaml line 5: not valid YAML"),
])
def test_bad_consumer_contracts_name_file_line_tool_and_path(text, words):
    with pytest.raises(ConsumerError) as info:
        parse_consumer(text, "x.yaml", TOOLS)
    assert words in str(info.value)
    assert info.value.code == "CONSUMER_INVALID"


def test_a_path_under_a_schema_that_says_nothing_cannot_be_checked_and_is_accepted():
    text = "version: 1\nconsumer: x\ntools:\n  projects.archive:\n    reads: [result.anything]\n"
    assert parse_consumer(text, "x.yaml", TOOLS).tools == ("projects.archive",)


def test_a_missing_file_is_file_not_found(tmp_path):
    from workbench.contracts import load_consumer
    with pytest.raises(ConsumerError) as info:  # as every configuration file says it
        load_consumer(tmp_path / "nope.yaml")
    assert info.value.code == "FILE_NOT_FOUND"


class _C:
    def __init__(self, tool, kind, segments):
        self.tool, self.kind, self.segments = tool, kind, segments


@pytest.mark.parametrize(("change", "whats"), [
    (_C("projects.list", "field-renamed", ("result", "items", "*", "owner")), ["reads"]),
    (_C("projects.list", "type-changed", ("result", "items")), ["reads", "reads", "branches_on", "assumes_order"]),
    (_C("projects.list", "field-removed", ("args", "owner")), ["sends"]),
    (_C("projects.list", "field-removed", ("args", "limit")), []),
    (_C("projects.list", "enum-value-added", ("result", "items", "*", "state")), ["branches_on"]),
    (_C("projects.list", "description-changed", ("description",)), ["calls"]),
    (_C("projects.list", "timeout-changed", ("timeout_s",)), ["calls"]),
    (_C("projects.list", "error-code-removed", ("errors", "retryable", "rate_limited")), ["retries_on"]),
    (_C("projects.list", "error-code-added", ("errors", "codes", "conflict")), []),
    (_C("projects.archive", "tool-removed", ("tool",)), ["calls"]),
    (_C("projects.get", "tool-removed", ("tool",)), []),
])
def test_which_dependencies_a_change_touches(change, whats):
    from workbench.model import STAR
    segs = tuple(STAR if s == "*" else s for s in change.segments)
    change.segments = segs
    c = parse_consumer(GOOD, "triage.yaml", TOOLS)
    found = consumer_findings([change], [c])
    assert [f.dependency.what for f in found] == whats
    assert all(f.consumer == "triage" and f.change == 0 for f in found)


def test_an_index_in_a_consumer_path_matches_every_item():
    d = Dependency("c", "t", "reads", "result.items[0].id")
    from workbench.model import STAR
    assert d.touches("t", "field-removed", ("result", "items", STAR, "id"))
    assert not d.touches("t", "field-removed", ("result", "items", STAR, "name"))
