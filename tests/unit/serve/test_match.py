"""Matching requests to exchanges, and the closest exchange when none matches."""

from __future__ import annotations

from workbench.serve._exchange import Exchange, Match
from workbench.serve._match import Matcher, Request, same_body, shape


def _ex(id, method="GET", path="/v1/items", query=None, headers=None, body=None,
        match=None):
    return Exchange(id=id, method=method, path=path, query=query or {},
                    headers=headers or {}, body=body, has_body=body is not None,
                    status=200, response_headers={}, response_body={"id": id},
                    has_response_body=True, source="t", match=match or Match())


def _req(method="GET", path="/v1/items", query=None, headers=None, body=None):
    return Request(method, path, query or {}, headers or {}, body, body is not None)


def test_method_path_and_query_must_match_by_default():
    m = Matcher([_ex("a", query={"owner": "x"})])
    assert m.find(_req(query={"owner": "x"})).id == "a"
    assert m.find(_req(query={"owner": "y"})) is None
    assert m.find(_req(query={"owner": "x", "limit": "5"})) is None
    assert m.find(_req("POST", query={"owner": "x"})) is None
    assert Matcher([_ex("b", match=Match(query=False))]).find(_req(query={"z": "1"})).id == "b"


def test_repeated_calls_are_answered_in_order_then_the_last_repeats():
    m = Matcher([_ex("p1"), _ex("p2"), _ex("other", path="/x")])
    assert [m.find(_req()).id for _ in range(4)] == ["p1", "p2", "p2", "p2"]


def test_headers_and_body_modes():
    hdr = Match(headers=("x-team",))
    m = Matcher([_ex("h", headers={"x-team": "a"}, match=hdr)])
    assert m.find(_req(headers={"x-team": "a", "x-other": "1"})) is not None
    assert m.find(_req(headers={"x-team": "b"})) is None
    assert m.find(_req()) is None
    exact = Matcher([_ex("e", "POST", body={"n": 1}, match=Match(body="exact"))])
    assert exact.find(_req("POST", body={"n": 1})) and not exact.find(_req("POST", body={"n": 2}))
    shaped = Matcher([_ex("s", "POST", body={"n": 1, "t": ["a"]}, match=Match(body="shape"))])
    assert shaped.find(_req("POST", body={"t": ["b", "c"], "n": 7}))
    assert not shaped.find(_req("POST", body={"n": "7", "t": []}))


def test_the_closest_exchange_weighs_method_and_path_most():
    m = Matcher([_ex("list", query={"owner": "a"}), _ex("archive", "POST", "/v1/items/1")])
    ex, diffs = m.closest(_req(query={"owner": "b", "limit": "2"}))
    assert ex.id == "list"
    assert [d.to_dict() for d in diffs] == [
        {"field": "query.limit", "recorded": None, "received": "2"},
        {"field": "query.owner", "recorded": "a", "received": "b"}]
    ex, diffs = m.closest(_req("POST", "/v1/items/2"))
    assert ex.id == "archive" and [d.field for d in diffs] == ["path"]


def test_shape():
    assert shape({"b": [1, 2.5, "x"], "a": None, "c": True}) == {
        "a": "null", "b": ["number", "string"], "c": "boolean"}
    assert shape([]) == [] and shape("s") == "string"


def test_an_exchange_whose_body_is_the_requests_answers_before_order():
    m = Matcher([_ex("created", "POST", body={"invoice": "i-7", "amount": 1200}),
                 _ex("conflict", "POST", body={"invoice": "i-7", "amount": 9900})])
    assert m.find(_req("POST", body={"amount": 9900, "invoice": "i-7"})).id == "conflict"
    assert m.find(_req("POST", body={"invoice": "i-7", "amount": 1200})).id == "created"
    assert m.find(_req("POST", body={"invoice": "i-7", "amount": 1200})).id == "created"
    assert m.find(_req("POST", body={"invoice": "i-8"})).id == "conflict"  # order: the last


def test_bodies_compare_canonically_for_json_and_byte_for_byte_otherwise():
    assert same_body(True, {"a": 1, "b": [1, {"c": None}]}, True,
                     {"b": [1.0, {"c": None}], "a": 1})
    assert not same_body(True, {"a": 1}, True, {"a": True})
    assert not same_body(True, {"a": "1"}, True, {"a": 1})
    assert not same_body(True, [1, 2], True, [2, 1])
    assert same_body(True, "a=1&b=2", True, "a=1&b=2")
    assert not same_body(True, "a=1&b=2", True, "b=2&a=1")
    assert not same_body(True, "", False, None) and same_body(False, None, False, None)
    exact = Matcher([_ex("e", "POST", body={"n": 1, "m": [True]}, match=Match(body="exact"))])
    assert exact.find(_req("POST", body={"m": [True], "n": 1.0}))
    assert not exact.find(_req("POST", body={"m": [1], "n": 1}))


def test_among_equal_bodies_the_same_idempotency_key_answers_first():
    body = {"invoice": "i-7"}
    m = Matcher([_ex("first", "POST", headers={"idempotency-key": "k-1"}, body=body),
                 _ex("second", "POST", headers={"idempotency-key": "k-2"}, body=body)])
    assert m.find(_req("POST", headers={"idempotency-key": "k-2"}, body=body)).id == "second"
    assert m.find(_req("POST", headers={"idempotency-key": "k-2"}, body=body)).id == "second"
    assert m.find(_req("POST", headers={"idempotency-key": "k-9"}, body=body)).id == "first"
