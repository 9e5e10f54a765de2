"""The contract server answers a request with the recorded exchange whose body is the
request's before order decides: a real ``workbench serve`` process serving a VCR
cassette that recorded a create (201) and the same idempotency key reused with another
body (409), asked in an order other than the recording's."""

from __future__ import annotations

from tests.serve_support import call

# recorded in this order: a create under key k-1, then k-1 reused with another amount
CASSETTE = """interactions:
- request:
    method: POST
    uri: https://api.example.test/v1/charges
    body: '{"invoice_id": "inv-7", "amount_cents": 1200}'
    headers: {Content-Type: [application/json], Idempotency-Key: [k-1]}
  response:
    status: {code: 201, message: Created}
    headers: {Content-Type: [application/json]}
    body: {string: '{"charge_id": "ch-1", "state": "succeeded"}'}
- request:
    method: POST
    uri: https://api.example.test/v1/charges
    body: '{"invoice_id": "inv-7", "amount_cents": 9900}'
    headers: {Content-Type: [application/json], Idempotency-Key: [k-1]}
  response:
    status: {code: 409, message: Conflict}
    headers: {Content-Type: [application/json]}
    body: {string: '{"error": {"code": "idempotency_key_reused", "message": "Keys are for
      retries of one request; this key was used with other parameters."}}'}
version: 1
"""
KEY = {"Idempotency-Key": "k-1"}


def test_the_exchange_whose_body_is_the_requests_answers_before_order(contract_server,
                                                                      tmp_path):
    (tmp_path / "charges.yaml").write_text(CASSETTE)
    server = contract_server(tmp_path / "charges.yaml")
    # the conflicting body first: the recorded 409, though the 201 was recorded first
    status, _, body = call(server.url, "POST", "/v1/charges",
                           {"amount_cents": 9900, "invoice_id": "inv-7"}, KEY)
    assert (status, body["error"]["code"]) == (409, "idempotency_key_reused")
    # the create, then its retry: the 201 both times (its own body, whatever the order)
    for _ in range(2):
        status, _, body = call(server.url, "POST", "/v1/charges",
                               {"invoice_id": "inv-7", "amount_cents": 1200}, KEY)
        assert (status, body) == (201, {"charge_id": "ch-1", "state": "succeeded"})
    # a body no exchange recorded: order decides, as before (the last one repeats)
    assert call(server.url, "POST", "/v1/charges", {"invoice_id": "inv-8"}, KEY)[0] == 409
    assert [r["status"] for r in server.requests()] == [409, 201, 201, 409]
