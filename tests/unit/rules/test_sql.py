"""The DuckDB engine on hand-built traces: each body's known answer (the primary event ids
of every violation), checked for the SQL engine and the Python engine alike, with the
awkward values: missing paths, the wrong JSON type, ``[*]`` over lists and objects,
numbers against text, flat dotted keys, -0.0 and integers wider than 64 bits."""

from __future__ import annotations

import json

import pytest

from workbench.formats import JSONL_HEADER
from workbench.ingest import ingest
from workbench.rules import parse_rules
from workbench.rules._python import violations
from workbench.rules._sql import sql_violations
from workbench.store import Store


def ev(trace, eid, name, start=None, end=None, *, kind="tool_call", **fields):
    return {"trace_id": trace, "event_id": eid, "kind": kind, "name": name,
            "start_ns": start, "end_ns": end, **fields}


EVENTS = [
    # t1: approvals and archives, with times
    ev("t1", "e0", "request_approval", 0, 10, args={"project_id": "p1"},
       result={"approved": True}),
    ev("t1", "e1", "archive_project", 20, 30, args={"project_id": "p1"}),
    ev("t1", "e2", "archive_project", 40, 50, args={"project_id": "p2"}),  # no approval
    ev("t1", "e3", "request_approval", 60, 100, args={"project_id": "p3"},
       result={"approved": "true"}),
    ev("t1", "e4", "archive_project", 70, 80, args={"project_id": "p3"}),  # approval running
    ev("t1", "e5", "archive_project", 81, 82, args={}),  # no project_id
    ev("t1", "e6", "request_approval", 110, 120, args={"project_id": 7}),
    ev("t1", "e7", "archive_project", 130, 140, args={"project_id": "7"}),  # text, not 7
    ev("t1", "e8", "archive_project", 150, 160, args={"project_id": 7.0}),  # 7.0 is 7
    # t2: jobs, no times (seq order)
    ev("t2", "j0", "get_job", args={"job_id": "j1"},
       result={"status": "running", "retry_allowed": False}),
    ev("t2", "j1", "retry_job", args={"job_id": "j1"}),  # after a refusal
    ev("t2", "j2", "retry_job", args={"job_id": "j2"}),
    ev("t2", "j3", "retry_job", args={}),  # no job_id: never correlates
    ev("t2", "j4", "get_job", args={"job_id": "j2"}, result={"status": "paused"}),
    ev("t2", "j5", "get_job", args={"job_id": "j3"},
       result={"status": 3, "retry_allowed": None}),
    ev("t2", "j6", "get_job", args={"job_id": "j4"}, result={}),
    # t3: charges
    ev("t3", "c0", "charge", args={"cart_id": "c1"}, result={"status": "captured"}),
    ev("t3", "c1", "charge", args={"cart_id": "c1"}, result={"status": "captured"}),
    ev("t3", "c2", "charge", args={"cart_id": "c2"}, result={"status": "captured"}),
    ev("t3", "c3", "charge", args={}, result={"status": "captured"}),
    ev("t3", "c4", "charge", args={"cart_id": "c1"}, result={"status": "duplicate"}),
    # t4: data flow, [*] over a list and over an object, flat dotted attribute keys
    ev("t4", "f0", "list_projects", 0, 1, result={"items": [
        {"id": "p9", "owner": "team-a"}, {"id": "p8", "owner": "team-b"},
        {"id": 5, "owner": "team-a"}]}),
    ev("t4", "f1", "archive_project", 2, 3, args={"project_id": "p9"},
       attrs={"gen_ai.system": "openai"}),
    ev("t4", "f2", "archive_project", 4, 5, args={"project_id": "p8"},
       attrs={"gen_ai": {"system": "anthropic"}}),
    ev("t4", "f3", "archive_project", 6, 7, args={"project_id": "p7"},
       attrs={"gen_ai": {}, "gen_ai.system": "shadowed"}),
    ev("t4", "f4", "archive_project", 8, 9, args={"project_id": 5.0}),
    ev("t4", "f5", "archive_project", 10, 11, args={"project_id": "5"}),
    ev("t4", "f6", "archive_project", 12, 13, args={}),
    ev("t4", "f7", "list_projects", 14, 15, result={"items": {"a": {"id": "p6",
                                                                    "owner": "team-a"}}}),
    ev("t4", "f8", "archive_project", 16, 17, args={"project_id": "p6"}),
    ev("t4", "f9", "list_projects", 18, 19, result={"meta.id": "p5", "owner": "team-a"}),
    ev("t4", "f10", "archive_project", 20, 21, args={"project_id": "p5"}),
    ev("t4", "f11", "list_projects", 22, 23, result={"meta": {"id": "p4", "owner": "team-b"},
                                                     "owner": "team-a"}),
    ev("t4", "f12", "archive_project", 24, 25, args={"project_id": "p4"}),
    # t5-t8: orders
    ev("t5", "o0", "search", 0, 10), ev("t5", "o1", "read_file", 5, 15),  # overlapping
    ev("t6", "o0", "search", 0, 10), ev("t6", "o1", "read_file", 5, 15),
    ev("t6", "o2", "read_file", 20, 30),
    ev("t7", "o0", "read_file"), ev("t7", "o1", "search"), ev("t7", "o2", "read_file"),
    ev("t8", "o0", "run_tests", 0, 1), ev("t8", "o1", "search", 5, 6),
    # t9: numbers as keys and types
    ev("t9", "b0", "a", args={"n": 0}),
    ev("t9", "b1", "b", args={"n": -0.0}),  # same_key: "-0.0" is not "0.0"
    ev("t9", "b2", "a", args={"n": 2**70}),
    ev("t9", "b3", "b", args={"n": float(2**70)}),
    ev("t9", "b4", "b", args={"n": 0}),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    d = tmp_path_factory.mktemp("sql")
    src = d / "events.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in [JSONL_HEADER, *EVENTS]))
    s = Store(d / "store")
    ingest([src], s)
    return s


def answer(store: Store, body: str, traces: list[str] | None = None
           ) -> list[tuple[str, tuple[str, ...]]]:
    """(trace, primaries) of rule ``r``, found by both engines, which must agree."""
    rules = parse_rules(f"version: 1\nrules:\n  r:\n    {body}\n")
    con = store.connect()
    try:
        got = sorted((t, p) for _, t, p in sql_violations(con, rules, traces, store.trace))
    finally:
        con.close()
    ids = sorted(store.trace_ids()) if traces is None else traces
    want = sorted((t, p) for t in ids for p in violations(rules.rules[0], store.trace(t)))
    assert got == want
    return got


def test_before_with_same_values(store: Store) -> None:
    body = ("before: {first: {tool: request_approval}, then: {tool: archive_project}, "
            "same: [args.project_id]}")
    assert answer(store, body, ["t1"]) == [("t1", ("e2",)), ("t1", ("e4",)),
                                           ("t1", ("e5",)), ("t1", ("e7",))]


def test_before_with_a_condition_on_the_first(store: Store) -> None:
    body = ("before: {first: {tool: request_approval, where: {result.approved: true}}, "
            "then: {tool: archive_project}}")
    # e0 (approved true, not "true") precedes every archive of t1
    assert answer(store, body, ["t1", "t4"]) == [("t4", (f"f{i}",)) for i in
                                                 (1, 10, 12, 2, 3, 4, 5, 6, 8)]


def test_never_after_with_same_values(store: Store) -> None:
    body = ("never: {event: {tool: retry_job}, after: {tool: get_job, "
            "where: {result.retry_allowed: false}}, same: [args.job_id]}")
    assert answer(store, body) == [("t2", ("j1",))]


def test_count_per_group_and_global(store: Store) -> None:
    body = ("count: {event: {tool: charge, where: {result.status: captured}}, "
            "per: [args.cart_id], max: 1}")
    assert answer(store, body) == [("t3", ("c0", "c1"))]  # c3 has no cart_id: not counted
    # a trace without any approval is a group of none
    assert answer(store, "count: {event: {tool: request_approval}, min: 1}",
                  ["t1", "t2", "t3"]) == [("t2", ()), ("t3", ())]
    assert answer(store, "count: {event: {tool: request_approval}, min: 4}", ["t1"]) == [
        ("t1", ("e0", "e3", "e6"))]


def test_every_where_with_wrong_types_and_missing_values(store: Store) -> None:
    body = ("every: {event: {tool: get_job}, where: {result.status: "
            "{in: [queued, running, succeeded, failed]}}}")
    # paused; 3 is a number; j6 has no status
    assert answer(store, body) == [("t2", ("j4",)), ("t2", ("j5",)), ("t2", ("j6",))]


def test_every_schema_and_schema_conditions(store: Store) -> None:
    body = ("every: {event: {tool: get_job}, schema: {result: {type: object, "
            "required: [status], properties: {status: {type: string}}}}}")
    assert answer(store, body) == [("t2", ("j5",)), ("t2", ("j6",))]
    body = "absent: {tool: get_job, where: {result.status: {schema: {enum: [paused, 3]}}}}"
    assert answer(store, body) == [("t2", ("j4",)), ("t2", ("j5",))]


def test_exists_and_absent(store: Store) -> None:
    assert answer(store, "exists: {tool: list_projects}", ["t1", "t4"]) == [("t1", ())]
    assert answer(store, "absent: {tool: charge, where: {result.status: duplicate}}") == [
        ("t3", ("c4",))]


@pytest.mark.parametrize(("where", "expected"), [
    # flat dotted key when there is no nested key; a nested gen_ai shadows the flat key
    ("{attrs.gen_ai.system: {exists: true}}", ["f1", "f2"]),
    ("{attrs.gen_ai.system: shadowed}", []),
    # [*] reads list items and object values
    ('{"result.items[*].owner": team-b}', ["f0"]),
    ('{"result.items[*].id": p6}', ["f7"]),
    ('{"result.items[*].id": {type: integer}}', ["f0"]),
    ('{"result.items[-1].owner": team-a}', ["f0"]),
    ('{"result.items[0].id": {exists: true}}', ["f0"]),  # not the object's first value
    ('{"args.project_id[*]": {exists: true}}', []),
    # text compares with text, numbers with numbers
    ('{"result.items[*].id": {gt: p8}}', ["f0"]),
    ("{args.project_id: {lt: 7.5}}", ["f4"]),
    ("{args.project_id: {ge: p7}}", ["f1", "f2", "f3"]),
    ("{args.project_id: 5}", ["f4"]),
    ("{args.project_id: {matches: '^[0-9]$'}}", ["f5"]),
    ("{args.project_id: {type: number}}", ["f4"]),
    ("{args.project_id: {type: integer}}", []),
    # a NaN operand: never equal, and by _conditions._order neither less nor greater
    ("{args.project_id: .nan}", []),
    ("{args.project_id: {lt: .nan}}", []),
    ("{args.project_id: {le: .nan}}", ["f4"]),
    # ne and not_in need a value
    ("{args.project_id: {ne: p9}}", ["f10", "f12", "f2", "f3", "f4", "f5", "f8"]),
    ("{args.project_id: {not_in: [p9, p8, 5, p5, p4]}}", ["f3", "f5", "f8"]),
    ("{args.project_id: {exists: false}}", ["f0", "f11", "f6", "f7", "f9"]),
    # a missing args is null: present, of type null
    ("{args: {type: 'null'}, result: {type: object}}", ["f0", "f11", "f7", "f9"]),
])
def test_conditions(store: Store, where: str, expected: list[str]) -> None:
    got = answer(store, f"absent: {{kind: tool_call, where: {where}}}", ["t4"])
    assert got == [("t4", (e,)) for e in expected]


def test_null_booleans_and_columns(store: Store) -> None:
    assert answer(store, "absent: {kind: tool_call, where: {result.retry_allowed: null}}") == [
        ("t2", ("j5",))]
    assert answer(store, "absent: {kind: tool_call, where: {result.approved: true}}") == [
        ("t1", ("e0",))]  # not the text "true"
    assert answer(store, "absent: {kind: tool_call, where: {seq: {ge: 2}, start_ns: null}}",
                  ["t7", "t8"]) == [("t7", ("o2",))]
    assert answer(store, "absent: {kind: tool_call, where: {name: {matches: '^run'}}}") == [
        ("t8", ("o0",))]


def test_numbers_as_keys_and_types(store: Store) -> None:
    body = "before: {first: {tool: a}, then: {tool: b}, same: [args.n]}"
    assert answer(store, body, ["t9"]) == [("t9", ("b1",))]  # 0 is "0.0", -0.0 is "-0.0"
    # an integer literal wider than 64 bits is still an integer, and equals its float
    assert answer(store, "absent: {tool: a, where: {args.n: {type: integer}}}", ["t9"]) == [
        ("t9", ("b0",)), ("t9", ("b2",))]
    assert answer(store, "absent: {kind: tool_call, where: {args.n: 0}}", ["t9"]) == [
        ("t9", ("b0",)), ("t9", ("b1",)), ("t9", ("b4",))]


def test_order(store: Store) -> None:
    body = ("order: {steps: {s: {tool: search}, r: {tool: read_file}}, edges: [[s, r]]}")
    # t5 overlaps; t6 has a later read_file; t7 has no times, so seq decides
    assert answer(store, body, ["t5", "t6", "t7"]) == [("t5", ())]
    # steps that share events: the earliest tool call is the only run_tests; a search on
    # the picks finds the other assignment
    body = "order: {steps: {x: {kind: tool_call}, y: {tool: run_tests}}, edges: []}"
    assert answer(store, body, ["t5", "t8"]) == [("t5", ())]


def test_flow(store: Store) -> None:
    body = ("flow: {event: {tool: archive_project}, value: args.project_id, "
            "from: {tool: list_projects}, from_value: 'result.items[*].id'")
    # p7 was never listed, "5" is not 5, f6 has no value; the rest came from f0 or f7
    plain = [("t4", (e,)) for e in ("f10", "f12", "f3", "f5", "f6")]
    assert answer(store, body + "}", ["t4"]) == plain
    # p8 belongs to team-b
    assert answer(store, body + ", source_where: {owner: team-a}}", ["t4"]) == sorted(
        [*plain, ("t4", ("f2",))])


def test_flow_through_a_flat_key_is_finished_in_python(store: Store) -> None:
    # result.meta.id reads the flat key "meta.id" of f9 (item: the result, team-a) and the
    # nested meta.id of f11 (item: meta, team-b)
    body = ("flow: {event: {tool: archive_project}, value: args.project_id, "
            "from: {tool: list_projects}, from_value: result.meta.id, "
            "source_where: {owner: team-a}}")
    got = answer(store, body, ["t4"])
    assert ("t4", ("f10",)) not in got
    assert ("t4", ("f12",)) in got


def test_no_traces(store: Store) -> None:
    con = store.connect()
    rules = parse_rules("version: 1\nrules:\n  r:\n    exists: {tool: x}\n")
    assert sql_violations(con, rules, [], store.trace) == []
    assert {t for _, t, _ in sql_violations(con, rules, None, store.trace)} == \
        store.trace_ids()


def test_the_schema_function_is_removed_after_the_call(store: Store) -> None:
    con = store.connect()
    rules = parse_rules("version: 1\nrules:\n  r:\n    absent: {tool: get_job, where: "
                        "{result: {schema: {type: object}}}}\n")
    sql_violations(con, rules, None, store.trace)
    sql_violations(con, rules, None, store.trace)
    assert con.execute("SELECT count(*) FROM duckdb_functions() "
                       "WHERE function_name = 'workbench_schema_holds'").fetchone() == (0,)
