"""``contract check``: recorded tool calls held to their descriptors and to what consumer
contracts read; findings worded, signed and recorded like rule findings."""

import json

import pytest

from workbench.contracts import (
    CONTRACT_RULES,
    Deprecation,
    Descriptor,
    ErrorEnvelope,
    Idempotency,
    ToolSet,
    check_contracts,
    parse_consumer,
)
from workbench.ingest import ingest
from workbench.store import Store

LIST = Descriptor("list_projects", side_effect="read_only", input={
    "type": "object", "properties": {"owner_id": {"type": "string"},
                                     "limit": {"type": "integer"}},
    "additionalProperties": False}, output={
    "type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {
        "type": "object", "required": ["id", "owner_id"],
        "properties": {"id": {"type": "string"}, "owner_id": {"type": "string"}}}}}})
ARCHIVE = Descriptor("archive_project", side_effect="destructive", input={
    "type": "object", "required": ["project_id"],
    "properties": {"project_id": {"type": "string"}}},
    output={"type": "object", "properties": {"state": {"enum": ["archived"]}}},
    errors=ErrorEnvelope(("not_found", "conflict"), ("conflict",)),
    idempotency=Idempotency("arg:request_id", True))
OLD = Descriptor("export_csv", side_effect="read_only",
                 deprecated=Deprecation("2026-10", "export_report"))
TOOLS = ToolSet([LIST, ARCHIVE, OLD])


def _event(i, name, args, result, status="ok", error=None):
    return {"trace_id": "t1", "event_id": f"e{i}", "parent_id": None, "seq": i,
            "kind": "tool_call", "name": name, "start_ns": None, "end_ns": None,
            "status": status, "args": args, "result": result, "error": error, "attrs": {},
            "refs": []}


@pytest.fixture
def store(tmp_path):
    events = [
        _event(0, "list_projects", {"owner": "team-a"},  # renamed filter: refused
               {"items": [{"id": "p1", "owner": "team-a"}]}),  # owner_id missing
        _event(1, "archive_project", {"project_id": "p1", "request_id": "r1"},
               {"state": "archived"}),  # clean
        _event(2, "archive_project", {"project_id": 17}, {"state": "gone"}),  # 3 findings
        _event(3, "archive_project", {"project_id": "p2", "request_id": "r2"}, None,
               status="error", error={"code": "forbidden", "message": "no"}),
        _event(4, "export_csv", {}, {"rows": 3}),
        _event(5, "delete_everything", {}, {}),
    ]
    src = tmp_path / "t.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in events))
    s = Store(tmp_path / "store")
    ingest([src], s, redact=False)
    return s


def test_each_kind_of_breach_is_a_finding_with_a_known_message(store):
    result = check_contracts(store, TOOLS, record=False)
    got = [(f.rule, f.seq, f.message) for f in result.findings]
    assert got == [
        ("contract/input", 0, "list_projects at step 0: args carries a property the "
                              "contract's closed model refuses"),
        ("contract/output", 0, "list_projects at step 0: result.items[0].owner_id is "
                               "missing (the contract requires it)"),
        ("contract/input", 2, "archive_project at step 2: args.project_id is int, the "
                              "contract says string"),
        ("contract/output", 2, "archive_project at step 2: result.state holds a value the "
                               "contract's enum does not allow"),
        ("contract/idempotency-key", 2, "archive_project at step 2 went out without its "
                                        "idempotency key (arg:request_id)"),
        ("contract/error-envelope", 3, "archive_project at step 3 failed with forbidden, "
                                       "which its error envelope does not list"),
        ("contract/deprecated", 4, "export_csv at step 4 is deprecated since 2026-10; use "
                                   "export_report"),
        ("contract/unknown-tool", 5, "delete_everything at step 5 is not a tool the "
                                     "contract describes"),
    ]
    assert result.calls_checked == 6 and result.traces_checked == 1
    assert result.errors == 7 and {f.severity for f in result.findings
                                    if f.rule == "contract/deprecated"} == {"warn"}
    assert all(f.rule in CONTRACT_RULES for f in result.findings)


def test_findings_quote_shapes_never_values(store):
    for f in check_contracts(store, TOOLS, record=False).findings:
        text = json.dumps([f.expected, f.actual])
        assert "team-a" not in text and "p1" not in text and '"gone"' not in text


def test_the_same_breach_at_other_steps_and_ids_has_one_signature(tmp_path):
    lines = []
    for trace, seq, pid in (("a", 2, "p9"), ("b", 7, "p12")):
        e = _event(seq, "archive_project", {"project_id": pid}, {"state": "archived"})
        lines.append(json.dumps({**e, "trace_id": trace}) + "\n")
    src = tmp_path / "two.jsonl"
    src.write_text("".join(lines))
    s = Store(tmp_path / "s")
    ingest([src], s, redact=False)
    found = check_contracts(s, TOOLS, record=False).findings
    assert [(f.trace_id, f.rule) for f in found] == [("a", "contract/idempotency-key"),
                                                     ("b", "contract/idempotency-key")]
    assert found[0].message != found[1].message
    assert found[0].signature == found[1].signature


def test_findings_are_recorded_like_rule_findings(store):
    result = check_contracts(store, TOOLS, source="tools/")
    assert result.recorded
    rows = store.sql("SELECT rule, count(*) AS n FROM findings GROUP BY rule ORDER BY rule"
                     ).to_pylist()
    assert rows == [{"rule": "contract/deprecated", "n": 1},
                    {"rule": "contract/error-envelope", "n": 1},
                    {"rule": "contract/idempotency-key", "n": 1},
                    {"rule": "contract/input", "n": 2}, {"rule": "contract/output", "n": 2},
                    {"rule": "contract/unknown-tool", "n": 1}]
    groups = store.sql("SELECT count(*) AS n FROM finding_groups").to_pylist()[0]["n"]
    assert groups == 8  # eight different breaches


def test_a_consumer_reading_a_field_no_result_carries(store):
    consumer = parse_consumer("""version: 1
consumer: triage
tools:
  list_projects:
    reads: ["result.items[*].owner_id", "result.items[*].id"]
""", "triage.yaml", TOOLS)
    result = check_contracts(store, ToolSet([LIST]), trace_ids=["t1"], consumers=[consumer],
                             record=False)
    reads = [f for f in result.findings if f.rule == "contract/consumer-reads"]
    assert [f.message for f in reads] == [
        "list_projects never returned result.items[*].owner_id in this trace (1 call(s), "
        "the first at step 0); triage reads it"]


def test_a_clean_trace_has_no_findings(tmp_path):
    src = tmp_path / "ok.jsonl"
    src.write_text(json.dumps(_event(0, "archive_project",
                                     {"project_id": "p1", "request_id": "r"},
                                     {"state": "archived"})) + "\n")
    s = Store(tmp_path / "s")
    ingest([src], s, redact=False)
    result = check_contracts(s, TOOLS)
    assert result.findings == [] and not result.recorded and result.calls_checked == 1


def test_an_argument_an_open_schema_does_not_declare_is_named(tmp_path):
    """The incident's own shape: the filter was renamed, the agent still sends the old
    name, JSON Schema lets it through an open model, and the tool filters by nothing."""
    v2 = Descriptor("list_projects", side_effect="read_only", input={
        "type": "object", "properties": {"owner_id": {"type": "string"},
                                         "stale": {"type": "boolean"}},
        "patternProperties": {"^x-": {}}})
    src = tmp_path / "t.jsonl"
    src.write_text(json.dumps(_event(2, "list_projects", {"owner": "team-a", "stale": True,
                                                          "x-trace": "1"}, {"items": []})) + "\n")
    s = Store(tmp_path / "s")
    ingest([src], s, redact=False)
    found = check_contracts(s, ToolSet([v2]), record=False).findings
    assert [(f.rule, f.message) for f in found] == [(
        "contract/undeclared-argument",
        "list_projects at step 2: args.owner is not an argument the contract declares, so "
        "the tool acts as if it were not sent (arguments: owner_id, stale)")]
    closed = Descriptor("list_projects", input={**v2.input, "additionalProperties": True})
    assert check_contracts(s, ToolSet([closed]), record=False).findings == []
