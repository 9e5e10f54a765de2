"""Generated inputs drawn again from the probe's seed (docs/replay.md): a value is put
back only when redacting it with the store's key gives exactly the recorded token — in
a body, a path segment, a query value or a header — and a step whose token cannot be
proved (another key, a tampered token, no draw record, no document) keeps it and is
named in ``tokens``."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import quote

import pytest

from workbench.invariants import DRAWS_ATTR, Redraw, exchange_of, parse_spec
from workbench.invariants._generate import Generator
from workbench.invariants._probe import header_text, path_value
from workbench.model import Event
from workbench.redact import TOKEN_RE, Redactor
from workbench.replay._regen import regenerate
from workbench.replay._send import steps_of

KEY = b"k" * 32
EMAIL = {"type": "string", "format": "email"}
NEW = {"type": "object", "required": ["email", "name"], "additionalProperties": False,
       "properties": {"email": EMAIL, "name": {"type": "string", "maxLength": 8}}}
SPEC = parse_spec({"openapi": "3.0.3", "info": {"title": "people", "version": "1"}, "paths": {
    "/people": {"post": {"requestBody": {"content": {"application/json": {"schema": NEW}}},
                         "responses": {"201": {"description": "made"}}}},
    "/people/{email}": {"get": {"parameters": [
        {"name": "email", "in": "path", "required": True, "schema": EMAIL},
        {"name": "contact", "in": "query", "required": True, "schema": EMAIL},
        {"name": "X-Contact", "in": "header", "required": True, "schema": EMAIL}],
        "responses": {"200": {"description": "one"}}}}}}, "people.yaml")


def _tokenized(seed: int, schema: Any, at: str, start: int = 1) -> int:
    """The first step from ``start`` whose draw the store would hold as a token."""
    gen, red = Generator(seed), Redactor(KEY)
    for step in range(start, start + 40):
        v = gen.draw(schema, step)
        leaf = v["email"] if at == "body" else v
        if TOKEN_RE.search(str(red.value({"x": leaf})["x"])):
            return step
    raise AssertionError("no draw in 40 steps was redacted")


def _event(n: int, args: dict[str, Any], record: dict[str, Any] | None,
           key: bytes = KEY) -> Event:
    attrs = {} if record is None else {DRAWS_ATTR: {"probe": record}}
    return Event("t", f"entry-{n}", None, n, "http", args["method"], None, None, "ok",
                 Redactor(key).value(args), {"status": 201}, None, attrs)


def _steps(events: list[Event]) -> Any:
    xs = [exchange_of(e.trace_id, e.event_id, e.seq, e.args, e.result) for e in events]
    return steps_of(events, [x for x in xs if x is not None])


def _post(seed: int, step: int, key: bytes = KEY) -> tuple[Event, dict[str, Any]]:
    body = Generator(seed).draw(NEW, step)
    args = {"method": "POST", "url": "http://127.0.0.1:1/people", "path": "/people",
            "query": {}, "headers": {"content-type": "application/json"}, "body": body}
    return _event(0, args, {"seed": seed, "operation": "POST /people",
                            "draws": [["body", None, step]]}, key), body


def test_a_redacted_body_field_is_drawn_again_and_proved():
    step = _tokenized(7, NEW, "body")
    ev, body = _post(7, step)
    assert TOKEN_RE.search(ev.args["body"]["email"])
    out = regenerate(_steps([ev]), [ev], lambda: SPEC, lambda: KEY)
    assert out.steps[0].exchange.body == body
    assert (out.values, out.tokens, out.draws) == (1, [], 1)


@pytest.mark.parametrize("spoil", ["key", "token", "record", "spec", "operation"])
def test_what_cannot_be_proved_is_sent_as_the_token(spoil):
    step = _tokenized(7, NEW, "body")
    ev, body = _post(7, step, key=b"o" * 32 if spoil == "key" else KEY)
    if spoil == "token":  # one digit of the recorded token changed
        email = ev.args["body"]["email"]
        i = email.index("»") - 1
        email = email[:i] + ("0" if email[i] != "0" else "1") + email[i + 1:]
        ev = dataclasses.replace(ev, args={**ev.args, "body": {**ev.args["body"],
                                                               "email": email}})
    if spoil == "record":
        ev = dataclasses.replace(ev, attrs={})
    if spoil == "operation":
        ev = dataclasses.replace(ev, attrs={DRAWS_ATTR: {"probe": {
            "seed": 7, "operation": "PUT /people", "draws": [["body", None, step]]}}})
    recorded = ev.args["body"]
    out = regenerate(_steps([ev]), [ev], lambda: None if spoil == "spec" else SPEC,
                     lambda: KEY)
    assert out.steps[0].exchange.body == recorded != body
    assert (out.values, out.tokens) == (0, [1])


def test_path_query_and_header_values_come_back_too():
    seed = 11
    p = _tokenized(seed, EMAIL, "path")
    q = _tokenized(seed, EMAIL, "query", p + 1)
    h = _tokenized(seed, EMAIL, "header", q + 1)
    gen = Generator(seed)
    pv, qv, hv = gen.draw(EMAIL, p), gen.draw(EMAIL, q), gen.draw(EMAIL, h)
    path = "/api/people/" + quote(str(path_value(pv)), safe="")
    args = {"method": "GET", "url": "http://127.0.0.1:1" + path, "path": path,
            "query": {"contact": qv}, "headers": {"x-contact": header_text(hv)}}
    ev = _event(0, args, {"seed": seed, "operation": "GET /people/{email}", "draws": [
        ["path", "email", p], ["query", "contact", q], ["header", "x-contact", h]]})
    held = ev.args
    assert all(TOKEN_RE.search(v) for v in (held["path"], held["query"]["contact"],
                                            held["headers"]["x-contact"]))
    # a step that carries no token is left alone and draws nothing
    plain = _event(1, {"method": "GET", "url": "http://127.0.0.1:1/people/x",
                       "path": "/people/x", "query": {}, "headers": {}}, None)
    out = regenerate(_steps([ev, plain]), [ev, plain], lambda: SPEC, lambda: KEY)
    x = out.steps[0].exchange
    assert (x.path, x.query, x.headers) == (path, {"contact": qv},
                                            {"x-contact": header_text(hv)})
    assert out.steps[1].exchange == _steps([plain])[0].exchange
    assert (out.tokens, out.values) == ([], 3)


def test_nothing_is_asked_for_when_no_step_carries_a_token():
    plain = _event(0, {"method": "GET", "url": "http://127.0.0.1:1/people/x",
                       "path": "/people/x", "query": {}, "headers": {}}, None)

    def never() -> Any:
        raise AssertionError("the key and the document are read only for a token")

    out = regenerate(_steps([plain]), [plain], never, never)
    assert (out.values, out.tokens, out.draws) == (0, [], 0)


# the values are drawn by Hypothesis itself, so the seeds are listed, not drawn (a
# Hypothesis test cannot run another inside it)
@pytest.mark.parametrize(("seed", "step"), [(s, 1 + 37 * s % 500) for s in range(1, 13)])
def test_any_probe_body_is_given_back_exactly(seed, step):
    ev, body = _post(seed, step)
    out = regenerate(_steps([ev]), [ev], lambda: SPEC, lambda: KEY)
    assert out.steps[0].exchange.body == body  # with or without a token to prove
    assert out.tokens == []


def test_redraw_refuses_a_malformed_record():
    r = Redraw(SPEC)
    for rec in (None, {}, {"probe": {"seed": "7", "operation": "POST /people", "draws": []}},
                {"probe": {"seed": 7, "operation": "POST /people", "draws": [["body"]]}},
                {"probe": {"seed": 7, "operation": "GET /people/{email}",
                           "draws": [["query", "nope", 1]]}}):
        assert r.values({DRAWS_ATTR: rec}) is None
    assert r.values({DRAWS_ATTR: {"probe": {"seed": 7, "operation": "POST /people",
                                            "draws": []}}}) == {}
