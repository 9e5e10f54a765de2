"""Did a replayed step land (``replay/_landing.py``; docs/replay.md, "Did the steps
land?"): the known answer for each kind of answer, and a property — a step answered with
its recorded status always landed, and only steps whose status changed can diverge."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.invariants import Exchange
from workbench.replay._landing import divergences

BASE = "is --target's base path right?"


def _x(status: int | None, path: str = "/orders", method: str = "POST", body: Any = None,
       headers: dict[str, Any] | None = None) -> Exchange:
    return Exchange("t", f"e-{path}", 0, method, path, status=status,
                    resp_headers=headers or {}, resp_body=body,
                    resp_has_body=body is not None)


def _miss(*diffs: tuple[str, Any, Any]) -> dict[str, Any]:
    """A ``workbench serve`` 501 body (serve/_server.py)."""
    return {"error": {"code": "no_matching_exchange",
                      "message": "no recorded exchange matches POST /v1/orders",
                      "closest": {"exchange": "e1", "request": "POST /orders",
                                  "source": "run.har",
                                  "differences": [{"field": f, "recorded": r, "received": v}
                                                  for f, r, v in diffs]}}}


@pytest.mark.parametrize(("recorded", "answered", "message"), [
    # no such route or method there
    (_x(201), _x(404, "/v1/orders"),
     f"POST /v1/orders answered 404 where the recording had 201: {BASE}"),
    (_x(200, method="GET"), _x(405, "/v1/orders", "GET"),
     f"GET /v1/orders answered 405 where the recording had 200: {BASE}"),
    (_x(500), _x(404, "/v1/orders"),          # the bug's 5xx is not what came back
     f"POST /v1/orders answered 404 where the recording had 500: {BASE}"),
    (_x(None), _x(404, "/v1/orders"),
     f"POST /v1/orders answered 404 where the recording had no answer: {BASE}"),
    (_x(201), _x(501, "/v1/orders", body=_miss(("path", "/orders", "/v1/orders"))),
     "POST /v1/orders answered 501 where the recording had 201 (the contract server holds "
     f"no recorded exchange for it; the closest, POST /orders, differs in path): {BASE}"),
    (_x(201), _x(501, body=_miss(("query.dry_run", None, "1"))),
     "POST /orders answered 501 where the recording had 201 (the contract server holds no "
     "recorded exchange for it; the closest, POST /orders, differs in query.dry_run): does "
     "the contract server hold the recording these steps came from?"),
    (_x(201), _x(501),                        # a 501 of any other server
     f"POST /orders answered 501 where the recording had 201: {BASE}"),
    (_x(501), _x(501, body=_miss(("path", "/orders", "/orders/"))),  # a miss, even so
     "POST /orders answered 501 where the recording had 501 (the contract server holds "
     f"no recorded exchange for it; the closest, POST /orders, differs in path): {BASE}"),
    # a gateway without its service; a redirect
    (_x(201), _x(503),
     "POST /orders answered 503 where the recording had 201: the target answered for a "
     "service it could not reach; is that service up, and is --target the service itself?"),
    (_x(201), _x(308, headers={"location": "https://127.0.0.1:8443/orders"}),
     "POST /orders answered 308 where the recording had 201 (a redirect to "
     "https://127.0.0.1:8443/orders): is --target's scheme, host and base path right?"),
])
def test_a_step_that_did_not_land_is_named_with_its_likely_cause(recorded, answered,
                                                                  message):
    (d,) = divergences([recorded], [answered])
    assert (d.step, d.recorded, d.answered, d.message) == (
        1, recorded.status, answered.status, message)
    assert d.to_json() == {"step": 1, "method": answered.method, "path": answered.path,
                           "recorded": recorded.status, "answered": answered.status,
                           "message": message}


@pytest.mark.parametrize(("recorded", "answered"), [
    (201, 400), (201, 422), (201, 409),  # refused now: maybe the fix
    (500, 201), (500, 400),              # the server error gone
    (200, 401), (200, 403),              # a caller without a credential refused: the fix
    (404, 200), (410, 200),              # a read that failed succeeds
    (404, 404), (501, 501), (503, 503),  # as recorded
    (302, 301),                          # a redirect where one was recorded
    (201, 500), (200, 410),              # reached the operation, whatever it said
])
def test_other_answers_landed(recorded, answered):
    assert divergences([_x(recorded)], [_x(answered)]) == []


def test_every_step_that_did_not_land_is_listed_in_order():
    got = divergences([_x(201), _x(201), _x(200, "/orders/o8", "GET")],
                      [_x(201), _x(404), _x(404, "/orders/o9", "GET")])
    assert [(d.step, d.path) for d in got] == [(2, "/orders"), (3, "/orders/o9")]
    # an attempt that stopped early: only the steps answered are compared
    assert divergences([_x(201), _x(201)], [_x(404)])[0].step == 1


STATUS = st.sampled_from([None, 200, 201, 204, 301, 302, 308, 400, 401, 403, 404, 405,
                          409, 410, 422, 500, 501, 502, 503, 504])


@given(st.lists(st.tuples(STATUS, STATUS), max_size=8))
def test_only_a_changed_status_can_diverge(pairs):
    recorded = [_x(r) for r, _ in pairs]
    got = divergences(recorded, [_x(r) for r, _ in pairs])
    assert got == []  # the recording's own answers all land
    answered = [_x(a) for _, a in pairs]
    for d in divergences(recorded, answered):
        old, new = pairs[d.step - 1]
        assert old != new and new in (301, 302, 308, 404, 405, 501, 502, 503, 504)
        assert d.message.startswith(f"POST /orders answered {new} where the recording had ")
