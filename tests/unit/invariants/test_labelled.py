"""Every case of the labelled set is judged exactly as labelled; findings quote no ids."""

from __future__ import annotations

import pytest

from tests.unit.invariants.labelled import CASES, DOC, SSE, Case, events, x
from workbench.invariants import INVARIANTS, judge, parse_spec

SPEC = parse_spec(DOC, "orders.yaml")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_judged_as_labelled(case: Case) -> None:
    found = judge(case.exchanges(), SPEC).findings
    assert {f.rule for f in found} == case.expected


def test_each_invariant_broken_three_ways_and_look_alikes_present() -> None:
    for name in INVARIANTS:
        assert sum(name in c.expected for c in CASES) >= 3, name
    assert sum(not c.expected for c in CASES) >= 10


def test_messages_refer_to_steps_never_to_ids() -> None:
    case = next(c for c in CASES if c.name == "retry-second-order")
    [f] = judge(case.exchanges(), SPEC).findings
    assert f.message == ("POST /orders retried with the same Idempotency-Key created a second "
                         "resource (the id from step 1 differs from the id from step 0)")
    assert "o1" not in str(f.to_dict()) and "o2" not in str(f.to_dict())
    assert [s["step"] for s in f.actual["steps"]] == [0, 1]
    assert f.actual["steps"][0]["params"] == ["header.idempotency-key", "body"]
    assert f.actual["steps"][0]["status"] == 201
    assert f.event_ids == ("e0", "e1") and f.seq == 1


def test_same_failure_on_other_ids_signs_the_same() -> None:
    case = next(c for c in CASES if c.name == "created-then-404")
    a = judge(case.exchanges("a-"), SPEC).findings[0]
    steps = [dict(s) for s in case.steps]
    steps.insert(0, steps[1])  # one more step before: other step numbers
    b = judge(Case("x", steps, case.expected).exchanges("b-"), SPEC).findings
    assert a.message != b[-1].message and a.signature == b[-1].signature


def test_undocumented_paths_counted_once_not_judged() -> None:
    case = next(c for c in CASES if c.name == "ok-undocumented-not-judged")
    judged = judge(case.exchanges() * 3, SPEC)
    assert judged.undocumented == {"GET /metrics": 3} and judged.judged == 0


def test_only_limits_the_invariants() -> None:
    case = next(c for c in CASES if c.name == "wrong-type-500")
    found = judge(case.exchanges(), SPEC, only=["clean_refusal"]).findings
    assert [f.rule for f in found] == ["clean_refusal"]
    assert "body.quantity is string, the contract says integer" in found[0].message


def test_fault_window_excuses_server_errors_inside_it() -> None:
    case = next(c for c in CASES if c.name == "list-500")
    xs = case.exchanges()
    t = xs[0].start_ns
    assert judge(xs, SPEC, windows=[(t - 1, t + 1)]).findings == []
    assert len(judge(xs, SPEC, windows=[(t + 10, t + 20)]).findings) == 1


def test_inferred_cursor_is_said() -> None:
    case = next(c for c in CASES if c.name == "inferred-cursor-repeats")
    [f] = judge(case.exchanges(), SPEC).findings
    assert "cursor parameter from inferred from the traffic" in f.message


def test_a_recorder_that_cannot_see_bodies_is_not_called_wrong() -> None:
    """OTel HTTP spans carry ``body: null`` when they hold no body attribute: neither a
    missing request body nor a null answer is judged."""
    from workbench.invariants import exchange_of

    span = exchange_of("t", "s1", 0, {"method": "POST", "path": "/orders", "query": {},
                                      "headers": {"authorization": "x"}, "body": None},
                       {"status": 201, "headers": {}, "body": None})
    har = exchange_of("t", "h1", 1, {"method": "POST", "path": "/orders", "query": {},
                                     "headers": {"authorization": "x"}},
                      {"status": 201, "headers": {}})
    assert span is not None and har is not None
    assert judge([span], SPEC).findings == []
    bare = exchange_of("t", "s2", 0, {"method": "GET", "path": "/orders", "body": None},
                       {"status": 200, "body": None})
    assert bare is not None and judge([bare], SPEC).findings == []  # no headers recorded
    [f] = judge([har], SPEC).findings  # a HAR without postData sent no body
    assert f.rule == "clean_refusal" and "the body is missing" in f.message


def test_a_key_header_of_another_name_is_read_from_the_document() -> None:
    from workbench.invariants import Exchange

    doc = {"openapi": "3.1.0", "paths": {"/pay": {"post": {
        "parameters": [{"name": "X-Request-Idempotency", "in": "header",
                        "schema": {"type": "string"}}],
        "responses": {"201": {"description": "paid", "content": {"application/json": {
            "schema": {"type": "object"}}}}}}}}}
    spec = parse_spec(doc, "pay.yaml")
    assert spec.operations[0].idempotency == "x-request-idempotency"
    xs = [Exchange("t", f"e{i}", i, "POST", "/pay", {}, {"x-request-idempotency": "k"},
                   {"n": 1}, True, 201, {}, {"id": f"p{i}"}, True) for i in range(2)]
    assert [f.rule for f in judge(xs, spec).findings] == ["idempotent_retry"]


def _judged(name: str):
    return judge(next(c for c in CASES if c.name == name).exchanges(), SPEC)


def test_a_stream_is_judged_event_by_event_and_says_where() -> None:
    [f] = _judged("stream-event-without-status").findings
    assert f.message == ("GET /orders/{id}/events at step 0 answered 200 with a body that "
                         "breaks its schema: body.events[1].data.status is missing (the "
                         "contract requires it); in 1 of the stream's 2 items")
    assert f.expected == {"schema": {"body.events[1].data": {"required": ["order", "status"]}}}
    [f] = _judged("ndjson-line-without-sku").findings
    assert ("body[1].sku is missing (the contract requires it); in 1 of the stream's 2 "
            "items") in f.message
    assert [f.expected for f in _judged("stream-event-of-unknown-name").findings] == [
        {"schema": {"body.events[0].event": {"enum": "enum(1)"}}}]


def test_answers_not_judged_are_counted_with_the_reason() -> None:
    assert _judged("ok-stream-where-only-json-is-declared").not_judged == {
        ("shape", "no schema declared for text/event-stream answers"): 1}
    assert _judged("ok-html-error-page-not-judged").not_judged == {
        ("shape", "no schema declared for text/html answers"): 1}
    assert _judged("ok-stream-per-event").not_judged == {}
    text_only = Case("text-only-stream", [x("GET", "/orders/o1/events", 200, events(
        "hello", "[DONE]"), resp_headers=SSE)], frozenset())
    assert judge(text_only.exchanges(), SPEC).not_judged == {
        ("shape", "a text/event-stream answer with no item to judge (no event data is "
                  "JSON)"): 1}


def test_a_server_error_to_a_refused_request_is_clean_refusals_alone() -> None:
    judged = _judged("wrong-type-500")
    assert [f.rule for f in judged.findings] == ["status_declared", "clean_refusal"]
    assert judged.not_judged == {("no_server_error", "the contract refuses the request "
                                                     "(clean_refusal judges its answer)"): 1}
    only = judge(next(c for c in CASES if c.name == "wrong-type-500").exchanges(), SPEC,
                 ["no_server_error"])
    assert only.findings == [] and sum(only.not_judged.values()) == 1


def test_credentials_a_recorder_stripped_are_named_not_called_a_break() -> None:
    judged = _judged("ok-credentials-stripped-by-the-recorder")
    assert judged.findings == []
    assert judged.not_judged == {
        ("refuses_unknown_caller", "credential stripped by the recorder: no request of the "
                                   "trace carries authorization"): 2,
        ("refuses_unknown_caller", "credential stripped by the recorder: no request of the "
                                   "trace carries x-api-key"): 1}
    [f] = _judged("list-without-credential").findings
    assert f.message.endswith("(other requests of the trace carry one)")
