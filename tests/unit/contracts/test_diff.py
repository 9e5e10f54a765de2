"""``diff_tools``: tools matched by name, each change judged by the policy, fail-closed
for destructive tools, raised or lowered by consumer contracts."""

import json

import pytest

from workbench.contracts import (
    CHANGE_KINDS,
    ToolSet,
    descriptor_from_dict,
    diff_contracts,
    diff_tools,
    parse_consumer,
)
from workbench.contracts.diff._policy import change_class, class_severity
from workbench.contracts.diff._schema import SchemaChange


def d(tool, side_effect="read_only", **kw):
    return descriptor_from_dict({"version": 1, "tool": tool, "side_effect": side_effect, **kw})


LIST = d("projects.list", input={"type": "object", "properties": {"owner": {"type": "string"}}},
         output={"type": "object", "properties": {"items": {"type": "array", "items": {
             "type": "object", "properties": {"id": {"type": "string"}, "owner": {"type": "string"}}}}}})
LIST2 = d("projects.list", input={"type": "object", "properties": {"owner_id": {"type": "string"}}},
          output={"type": "object", "properties": {"items": {"type": "array", "items": {
              "type": "object", "properties": {"id": {"type": "string"}, "owner_id": {"type": "string"}}}}}})
ARCHIVE = d("projects.archive", "destructive", description="Archive one project.")
ARCHIVE2 = d("projects.archive", "destructive", description="Archive projects.")
GET = d("projects.get", description="Get one project.")
GET2 = d("projects.get", description="Get a project by id. Always call it before an archive.")


def test_the_same_tools_have_no_changes():
    r = diff_tools(ToolSet([LIST, ARCHIVE]), ToolSet([LIST, ARCHIVE]))
    assert r.changes == () and not r.breaking and not r.reaches("warn")
    assert r.to_dict() == {"breaking": False, "changes": [], "tools_old": 2, "tools_new": 2,
                           "counts": {"error": 0, "warn": 0, "info": 0}, "consumers": []}


def test_the_owner_rename_is_caught_in_both_directions():
    r = diff_tools(ToolSet([LIST]), ToolSet([LIST2]))
    assert [(c.kind, c.path, c.direction, c.severity) for c in r.changes] == [
        ("field-renamed", "args.owner", "input", "error"),
        ("field-renamed", "result.items[*].owner", "output", "error")]
    assert r.changes[1].message == ("projects.list renamed items[*].owner to items[*].owner_id "
                                    "in its result; an agent selecting by owner now sees none")
    doc = r.to_dict()
    assert doc["breaking"] is True and doc["counts"] == {"error": 2, "warn": 0, "info": 0}
    assert set(doc["changes"][0]) >= {"tool", "kind", "path", "direction", "severity",
                                      "message", "consumers"}
    json.dumps(doc)


def test_tools_are_matched_by_name_and_listed_old_order_first():
    r = diff_tools(ToolSet([GET, LIST]), ToolSet([d("projects.fetch"), LIST]))
    assert [(c.tool, c.kind) for c in r.changes] == [
        ("projects.get", "tool-removed"), ("projects.fetch", "tool-added")]


def test_destructive_tools_fail_closed_and_consumers_cannot_lower_them():
    old, new = ToolSet([ARCHIVE, GET]), ToolSet([ARCHIVE2, GET2])
    text = ("version: 1\nconsumer: c\ntools:\n  projects.archive: {}\n  projects.get:\n"
            "    reads: [result.x]\n")
    consumer = parse_consumer(text, "c.yaml", old)
    plain = diff_tools(old, new)
    assert [(c.tool, c.severity, c.reason, c.policy) for c in plain.changes] == [
        ("projects.archive", "error", "fail-closed", "info"),  # a rewording, but destructive
        ("projects.get", "warn", "policy", "warn")]
    judged = diff_tools(old, new, [consumer])
    assert [(c.tool, c.severity, c.reason, c.consumers) for c in judged.changes] == [
        ("projects.archive", "error", "fail-closed", ("c",)),
        ("projects.get", "error", "consumer", ("c",))]  # its model picks by the description


def test_consumers_lower_what_they_do_not_use_and_leave_unconsumed_tools_alone():
    old, new = ToolSet([LIST, GET]), ToolSet([LIST2, GET2])
    text = "version: 1\nconsumer: ids\ntools:\n  projects.list:\n    reads:\n      - result.items[*].id\n"
    r = diff_tools(old, new, [parse_consumer(text, "ids.yaml", old)])
    assert [(c.tool, c.path, c.severity, c.reason) for c in r.changes] == [
        ("projects.list", "args.owner", "info", "not-consumed"),
        ("projects.list", "result.items[*].owner", "info", "not-consumed"),
        ("projects.get", "description", "warn", "policy")]
    assert r.consumers == ("ids",) and r.to_dict()["consumers"] == ["ids"]


def test_a_relaxation_of_what_a_consumer_uses_stays_info():
    old = ToolSet([d("t", input={"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}}})])
    new = ToolSet([d("t", input={"type": "object", "properties": {"q": {"type": "string"}}})])
    text = "version: 1\nconsumer: c\ntools:\n  t:\n    sends: [args.q]\n"
    r = diff_tools(old, new, [parse_consumer(text, "c.yaml", old)])
    assert [(c.kind, c.severity, c.reason, c.consumers) for c in r.changes] == [
        ("required-removed", "info", "relaxes", ("c",))]


def test_reaches_and_fail_on_thresholds():
    r = diff_tools(ToolSet([GET]), ToolSet([GET2]))
    assert r.reaches("warn") and not r.reaches("error") and not r.breaking


@pytest.mark.parametrize("kind", CHANGE_KINDS)
def test_every_kind_has_a_class_in_both_directions(kind):
    for direction in ("input", "output"):
        for sense in (None, "up", "down", "set", "unset", "widen", "narrow", "moved"):
            cls = change_class(SchemaChange(kind, sense=sense), direction)
            assert class_severity(cls, True) in ("info", "warn", "error")


def test_diff_contracts_reads_both_sides_and_the_consumers(tmp_path):
    (tmp_path / "old.yaml").write_text(json.dumps({"version": 1, "tools": [LIST.to_dict()]}))
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "list.json").write_text(json.dumps(LIST2.to_dict()))
    (tmp_path / "c.yaml").write_text("version: 1\nconsumer: c\ntools:\n  projects.list:\n"
                                     "    sends: [args.owner]\n")
    r = diff_contracts(tmp_path / "old.yaml", tmp_path / "new", [tmp_path / "c.yaml"])
    assert [(c.path, c.severity, c.consumers) for c in r.changes] == [
        ("args.owner", "error", ("c",)), ("result.items[*].owner", "info", ())]
    assert r.new_files == {"projects.list": str(tmp_path / "new" / "list.json")}


def _removed(side_effect, required=(), closed=False, typ="string"):
    """`owner` and `x` removed from a tool's arguments, and `id` from its result."""
    def tool(args, result):
        schema = {"type": "object", "required": [r for r in required if r in args],
                  "properties": {a: {"type": typ if a == "owner" else "string"} for a in args}}
        if closed:
            schema["additionalProperties"] = False
        return d("t", side_effect, input=schema, output={
            "type": "object", "properties": {r: {"type": "string"} for r in result}})
    r = diff_tools(ToolSet([tool(["owner", "x"], ["id", "n"])]),
                   ToolSet([tool(["x"], ["n"])]))
    return {c.path: (c.role, c.side_effect, c.message) for c in r.changes}


def test_a_removed_field_is_worded_by_what_it_is_and_what_the_tool_does():
    """An optional argument of a read is a filter; an argument of a write is an input the
    write now goes ahead without; a result field is an output, missed differently by a
    read and by a write; an unknown side effect says so."""
    read = _removed("read_only")
    assert read["args.owner"] == ("filter", "read_only", (
        "t no longer takes the filter owner: an agent that still sends owner is silently "
        "ignored, so a filter on owner now filters by nothing: the read returns what it "
        "would without it"))
    assert read["result.id"] == ("output", "read_only", (
        "t no longer returns id in its result; an agent selecting by id now sees none"))
    assert _removed("read_only", required=["owner"])["args.owner"][:2] == ("input", "read_only")
    assert _removed("read_only", required=["owner"])["args.owner"][2].endswith(
        "so the read runs without it and may return something else")
    assert _removed("read_only", typ="boolean")["args.owner"][2] == (
        "t no longer takes the option owner: an agent that still sends owner is silently "
        "ignored: the read runs as if owner were not set")
    write = _removed("write")
    assert write["args.owner"] == ("input", "write", (
        "t no longer takes the argument owner: an agent that still sends owner is silently "
        "ignored, so the write goes ahead without owner"))
    assert write["result.id"][2] == (
        "t no longer returns id in its result; an agent that reads id to confirm the write or "
        "to make its next call finds nothing there, and may take the write as failed and "
        "repeat it")
    assert _removed("external_send")["args.owner"][2].endswith(
        "so the call goes ahead, and what it writes or sends goes out without owner")
    gone = _removed("destructive")["args.owner"][2]
    assert "so the destructive call goes ahead without it: if owner narrowed what is " \
           "destroyed, more is destroyed now [fail-closed: destructive tool]" in gone
    unknown = _removed(None)
    assert unknown["args.owner"][:2] == ("input", None)
    assert "what the tool then does is unknown (it has no side-effect class)" in \
        unknown["args.owner"][2]
    assert _removed("read_only", closed=True)["args.owner"][2] == (
        "t no longer takes the filter owner: an agent that still sends owner is refused: the "
        "arguments are closed")


def test_role_and_side_effect_are_in_the_json_and_tool_changes_have_no_role():
    r = diff_tools(ToolSet([LIST, GET]), ToolSet([LIST2]))
    doc = r.to_dict()["changes"]
    assert [(c["path"], c["role"], c["side_effect"]) for c in doc] == [
        ("args.owner", "filter", "read_only"), ("result.items[*].owner", "output", "read_only"),
        ("tool", None, "read_only")]


def test_a_changed_default_says_what_the_same_call_now_does():
    def tool(side, default):
        return d("t", side, input={"type": "object", "properties": {
            "private": {"type": "boolean", "default": default}}})
    for side, verb in (("read_only", "reads"), ("write", "writes"),
                       ("external_send", "sends"), ("destructive", "destroys"), (None, "runs")):
        [c] = diff_tools(ToolSet([tool(side, False)]), ToolSet([tool(side, True)])).changes
        assert f"a call that omits private now {verb} with private=true" in c.message, side
