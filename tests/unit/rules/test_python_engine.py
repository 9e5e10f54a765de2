"""The per-trace engine on hand-built traces: each body's known answer, in words."""

from workbench.model import Event, Trace
from workbench.rules import check_trace, parse_rules


def ev(eid, seq, name, *, kind="tool_call", start=None, end=None, status="ok", args=None,
       result=None, parent=None):
    return Event("t", eid, parent, seq, kind, name, start, end, status,
                 args if args is not None else {}, result if result is not None else {})


def run(rules: str, events):
    return [(f.rule, f.seq, f.operation, f.message) for f in check_trace(
        Trace.from_events(events), parse_rules("version: 1\nrules:\n" + rules))]


ARCHIVE = [
    ev("l", 0, "list_projects", start=0, end=10, result={"items": [
        {"id": "p17", "owner": "team-a"}, {"id": "p18", "owner": "team-b"}]}),
    ev("a", 1, "request_approval", start=20, end=30, args={"project_id": "p17"},
       result={"approved": True}),
    ev("x", 2, "archive_project", start=40, end=50, args={"project_id": "p17"}),
    ev("y", 3, "archive_project", start=45, end=60, args={"project_id": "p18"}),
    ev("z", 4, "archive_project", start=25, end=28, args={"project_id": "p17"}),
]


def test_before_needs_an_earlier_first_with_the_same_values():
    rules = ("  approval-before-archive:\n    before: {first: {tool: request_approval, "
             "where: {result.approved: true}}, then: {tool: archive_project}, "
             "same: [args.project_id]}\n")
    assert run(rules, ARCHIVE) == [
        ("approval-before-archive", 3, "archive_project",
         "archive_project p18 at step 3 has no earlier request_approval for the same "
         "project_id"),
        # z overlaps the approval (20-30 vs 25-28): not earlier
        ("approval-before-archive", 4, "archive_project",
         "archive_project p17 at step 4 has no earlier request_approval for the same "
         "project_id")]


def test_never_after():
    events = [ev("g", 0, "get_job", start=0, end=1, args={"job_id": "j1"},
                 result={"retry_allowed": False}),
              ev("r", 1, "retry_job", start=2, end=3, args={"job_id": "j1"}),
              ev("s", 2, "retry_job", start=4, end=5, args={"job_id": "j2"})]
    rules = ("  no-retry:\n    never: {event: {tool: retry_job}, after: {tool: get_job, "
             "where: {result.retry_allowed: false}}, same: [args.job_id]}\n")
    assert run(rules, events) == [("no-retry", 1, "retry_job",
                                   "retry_job j1 at step 1 happens after get_job at step 0 "
                                   "for the same job_id")]


def test_count_per_group():
    events = [ev(f"c{i}", i, "charge", args={"cart_id": cart}, result={"status": st})
              for i, (cart, st) in enumerate([("c1", "captured"), ("c1", "declined"),
                                              ("c1", "captured"), ("c2", "captured")])]
    rules = ("  one-charge:\n    count: {event: {tool: charge, where: {result.status: "
             "captured}}, per: [args.cart_id], max: 1}\n")
    assert run(rules, events) == [(
        "one-charge", 2, "charge",
        "charge happens 2 times for cart_id c1, more than 1: the one at step 2 is one too many")]
    assert run("  need:\n    count: {event: {tool: refund}, min: 1}\n", events) == [
        ("need", None, "refund", "refund happens 0 times, fewer than 1")]


def test_every_where_and_schema():
    events = [ev("j1", 0, "get_job", result={"status": "running"}),
              ev("j2", 1, "get_job", result={"status": "paused_for_review"}),
              ev("h", 2, "GET /projects", kind="http", args={"query": {}}),
              ev("p", 3, "list_projects", result={"items": [{"id": 1}]})]
    rules = ("  known-status:\n    every: {event: {tool: get_job}, where: {result.status: "
             "{in: [queued, running, succeeded, failed]}}}\n"
             "  explicit-limit:\n    every: {event: {kind: http, name: GET /projects}, "
             "where: {args.query.limit: {exists: true}}}\n"
             "  list-shape:\n    every: {event: {tool: list_projects}, schema: {result: "
             "{type: object, properties: {items: {type: array, items: {properties: {id: "
             "{type: string}}}}}}}}\n")
    assert run(rules, events) == [
        ("known-status", 1, "get_job", "get_job at step 1: result.status is paused_for_review,"
         " which does not meet in [\"queued\",\"running\",\"succeeded\",\"failed\"]"),
        ("explicit-limit", 2, "GET /projects",
         "GET /projects at step 2: args.query.limit is missing"),
        ("list-shape", 3, "list_projects",
         "list_projects at step 3: result.items[0].id does not match the schema "
         "(1 is not of type 'string')")]


def test_exists_absent():
    assert run("  e:\n    exists: {tool: request_approval}\n", ARCHIVE[2:]) == [
        ("e", None, "request_approval", "no request_approval in the trace")]
    assert run("  d:\n    absent: {tool: archive_project, where: {args.project_id: p18}}\n",
               ARCHIVE) == [("d", 3, "archive_project", "archive_project at step 3 is not "
                             "allowed: archive_project must be absent")]


def test_order_is_a_partial_order_not_a_sequence():
    rules = ("  fix:\n    order: {steps: {s: {tool: search}, r: {tool: read_file}, "
             "t: {tool: run_tests}}, edges: [[s, r], [s, t]]}\n")
    ok = [ev("s", 0, "search"), ev("t", 1, "run_tests"), ev("r", 2, "read_file")]
    assert run(rules, ok) == []  # r and t unordered between themselves
    bad = [ev("r", 0, "read_file"), ev("s", 1, "search"), ev("t", 2, "run_tests")]
    [(rule, _, op, msg)] = run(rules, bad)
    assert (rule, op) == ("fix", "search") and msg.startswith("no choice of distinct events")
    missing = run(rules, [ev("s", 0, "search")])
    assert missing[0][3].startswith("no read_file in the trace")


def test_order_backtracks_over_shared_candidates():
    # steps a and b both match "x"; b must precede c; greedy a=x0 would leave b=x2 (too late)
    rules = ("  o:\n    order: {steps: {a: {tool: x}, b: {tool: x}, c: {tool: y}}, "
             "edges: [[b, c]]}\n")
    events = [ev("x0", 0, "x"), ev("y1", 1, "y"), ev("x2", 2, "x")]
    assert run(rules, events) == []


def test_flow_names_the_source_item_that_does_not_qualify():
    rules = ("  owned:\n    flow: {event: {tool: archive_project}, value: args.project_id, "
             "from: {tool: list_projects}, from_value: 'result.items[*].id', "
             "source_where: {owner: {in: [team-a]}}}\n")
    out = run(rules, ARCHIVE)
    assert out == [("owned", 3, "archive_project",
                    "archive_project p18 at step 3 came from list_projects at step 0 "
                    "(result.items[1]), whose owner does not qualify")]
    nowhere = [ev("x", 0, "archive_project", args={"project_id": "p99"})]
    assert run(rules, nowhere)[0][3] == (
        "archive_project p99 at step 0 did not come from an earlier list_projects")


def test_signatures_blank_ids_steps_and_quoted_values():
    rules = ("  approval:\n    before: {first: {tool: request_approval}, then: "
             "{tool: archive_project}, same: [args.project_id]}\n")
    t = Trace.from_events([ev("a", 0, "archive_project", args={"project_id": "billing"}),
                           ev("b", 5, "archive_project", args={"project_id": "search"})])
    f1, f2 = check_trace(t, parse_rules("version: 1\nrules:\n" + rules))
    assert f1.message != f2.message and f1.signature == f2.signature
    assert "billing" not in str(f1.actual) and f1.actual["args"] == {"project_id": "string(7)"}
