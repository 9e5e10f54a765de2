"""Sending a recorded trace's HTTP steps: targets and the writes allow-list, credentials
from variables only, ids from earlier answers substituted by the new answers' ids, and
idempotency keys kept within an attempt but not shared between attempts."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.unit.invariants.service import TOKEN, running
from workbench.invariants import Exchange
from workbench.replay import AuthEnvError, ReplayTargetError, credentials, parse_target
from workbench.replay._send import _Ids, play, steps_of


@pytest.mark.parametrize(("url", "host", "port", "base", "writes"), [
    ("http://127.0.0.1:8080", "127.0.0.1", 8080, "", True),
    ("http://localhost:8080/v1/", "localhost", 8080, "/v1", True),
    ("http://[::1]:9000/api", "::1", 9000, "/api", True),
    ("https://orders.example.com", "orders.example.com", 443, "", False),
    ("http://10.0.0.5", "10.0.0.5", 80, "", False),
])
def test_a_target_is_parsed_and_writes_go_only_to_loopback(url, host, port, base, writes):
    t = parse_target(url)
    assert (t.host, t.port, t.base, t.writes_allowed) == (host, port, base, writes)
    t.refuse_writes("GET")  # reads go anywhere the user names
    if not writes:
        with pytest.raises(ReplayTargetError) as e:
            t.refuse_writes("post")
        assert e.value.code == "REPLAY_TARGET_REFUSED"
        assert parse_target(url, [host.upper()]).writes_allowed


@pytest.mark.parametrize("url", ["127.0.0.1:8080", "ftp://127.0.0.1", "http://", "",
                                 "http://u:p@127.0.0.1", "http://127.0.0.1/?x=1",
                                 "http://127.0.0.1:99999", "not a url"])
def test_what_is_not_a_target(url):
    with pytest.raises(ReplayTargetError) as e:
        parse_target(url)
    assert e.value.code == "REPLAY_TARGET_INVALID"


def test_credentials_come_from_variables():
    env = {"TOK": "Bearer a", "KEY": "k-1", "EMPTY": ""}
    assert credentials(["TOK", "X-Api-Key=KEY"], env) == {"authorization": "Bearer a",
                                                          "x-api-key": "k-1"}
    for spec, code in (("MISSING", "AUTH_ENV_UNSET"), ("EMPTY", "AUTH_ENV_UNSET"),
                       ("=TOK", "AUTH_ENV_INVALID"), ("a b=TOK", "AUTH_ENV_INVALID"),
                       ("x=", "AUTH_ENV_INVALID")):
        with pytest.raises(AuthEnvError) as e:
            credentials([spec], env)
        assert e.value.code == code, spec


def _x(seq: int, method: str, path: str, *, body=None, headers=None, status=201,
       resp=None) -> Exchange:
    return Exchange("t", f"e{seq}", seq, method, path, {}, headers or {}, body,
                    body is not None, status, {}, resp, resp is not None)


AUTH = {"authorization": "«credential»"}


def test_ids_from_earlier_answers_are_the_new_answers_ids():
    # recorded against a service that had 7 orders: the create returned o8, read as o8
    recorded = [
        _x(0, "POST", "/orders", body={"sku": "A", "quantity": 1}, headers=AUTH,
           resp={"id": "o8", "sku": "A", "quantity": 1}),
        _x(1, "GET", "/orders/o8", headers=AUTH, status=200, resp={"id": "o8"}),
    ]
    with running() as (url, svc):
        svc.make({"sku": "other", "quantity": 1})  # this one has 8: the create makes o9
        got = play(steps_of((), recorded), parse_target(url), {"authorization": TOKEN},
                   "t1")
    assert got.error_code is None
    assert [(x.method, x.path, x.status) for x in got.exchanges] == [
        ("POST", "/orders", 201), ("GET", "/orders/o9", 200)]
    assert got.exchanges[1].resp_body["id"] == "o9"
    # never the credential as sent: what is kept says «credential»
    assert got.exchanges[0].headers["authorization"] == "«credential»"


def test_an_idempotency_key_repeats_within_an_attempt_not_across_attempts():
    body = {"sku": "A", "quantity": 1}
    key = {**AUTH, "idempotency-key": "k1"}
    recorded = [_x(0, "POST", "/orders", body=body, headers=key, resp={"id": "o8"}),
                _x(1, "POST", "/orders", body=body, headers=key, resp={"id": "o8"})]
    with running() as (url, svc):
        for tag in ("a", "b"):
            got = play(steps_of((), recorded), parse_target(url), {"authorization": TOKEN},
                       tag)
            ids = [x.resp_body["id"] for x in got.exchanges]
            assert ids[0] == ids[1]  # the retry found the first create
        assert len(svc.orders) == 7 + 2  # one create per attempt


def test_a_credential_header_without_a_variable_stops_before_sending():
    recorded = [_x(0, "GET", "/orders", headers=AUTH, status=200)]
    with running() as (url, _):
        got = play(steps_of((), recorded), parse_target(url), {}, "t")
    assert got.error_code == "CREDENTIAL_MISSING" and got.exchanges == []
    assert "authorization" in (got.error_message or "")


def test_a_refusal_of_the_credential_is_an_error():
    recorded = [_x(0, "GET", "/orders", headers=AUTH, status=200)]
    with running() as (url, _):
        got = play(steps_of((), recorded), parse_target(url), {"authorization": "Bearer x"},
                   "t")
    assert got.error_code == "REPLAY_UNAUTHORIZED" and len(got.exchanges) == 1


def test_a_call_without_a_credential_refused_is_observed_not_an_error():
    # refuses_unknown_caller replays a call made without one: its 401 is the answer
    recorded = [_x(0, "GET", "/orders", status=200)]
    with running() as (url, _):
        got = play(steps_of((), recorded), parse_target(url), {"authorization": TOKEN}, "t")
    assert got.error_code is None and got.exchanges[0].status == 401


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3), max_leaves=12)


@given(json_values, st.text(min_size=2, max_size=6), st.text(min_size=2, max_size=6))
@example({"a": [1, "o8", {"id": "o8"}], "b": True}, "o8", "o9")
@example({"n": 1, "flag": True}, "1", "2")
def test_substitution_replaces_exactly_the_learned_values(body, old, new):
    ids = _Ids()
    ids._add(old, new)
    out = ids.value(body)

    def walk(a, b):
        if isinstance(a, dict):
            assert isinstance(b, dict) and list(a) == list(b)
            for k in a:
                walk(a[k], b[k])
        elif isinstance(a, list):
            assert isinstance(b, list) and len(a) == len(b)
            for x, y in zip(a, b, strict=True):
                walk(x, y)
        elif isinstance(a, str) and a == old and old != new:
            assert b == new
        else:
            assert b == a and type(b) is type(a)  # 1 is never "1", True never 1

    walk(body, out)


def test_an_answer_past_the_limit_stops_the_attempt(monkeypatch):
    from workbench.model import LIMITS, Limit

    monkeypatch.setitem(LIMITS, "answer_bytes", Limit("answer_bytes", 100, "bytes", "x"))
    recorded = [_x(0, "GET", "/orders/o1", headers=AUTH, status=200),
                _x(1, "GET", "/orders", headers=AUTH, status=200)]
    with running() as (url, _):
        got = play(steps_of((), recorded), parse_target(url), {"authorization": TOKEN}, "t")
    assert got.error_code == "LIMIT_EXCEEDED" and len(got.exchanges) == 1  # o1 fits
    assert "step 2 (GET /orders)" in (got.error_message or "")
    assert "answer_bytes = 100 bytes" in (got.error_message or "")


@pytest.mark.parametrize(("path", "learned"), [
    (("id",), True), (("order_id",), True), (("orderId",), True), (("next_cursor",), True),
    (("items", 0, "id"), True), (("page_token",), True), (("Location",), True),
    (("valid",), False), (("width",), False), (("paid",), False), (("sku",), False),
    (("Id",), True), (("status",), False)])
def test_which_answer_fields_are_ids(path, learned):
    from workbench.replay._send import _id_like
    assert _id_like(path, "v-1", set()) is learned
    assert _id_like(path, True, set()) is False  # never a boolean
    assert _id_like(("sku",), "v-1", {"sku"}) is True  # a field the store's refs name
