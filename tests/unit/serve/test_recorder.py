"""What the contract server records: the request's credentials scrubbed wherever they
reappear (the 501's differences, the URL, the name), everything redacted before the
journal line is written; a JSON body past a limit refused, not parsed further."""

from __future__ import annotations

import uuid
from urllib.parse import quote, quote_plus, urlencode

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.model import loads
from workbench.redact import Redactor
from workbench.serve._failures import Answer
from workbench.serve._match import Request
from workbench.serve._recorder import Recorder, credentials_of
from workbench.serve._server import BODY_DEPTH, _depth, _request
from workbench.store import Store

HEADERS = {"authorization": "Bearer tok-Unshaped-1", "cookie": "sid=ck-Unshaped-2",
           "x-api-key": "ak-Unshaped-3", "idempotency-key": "idem-4", "accept": "x"}
QUERY = {"access_token": "at-Unshaped-5", "session": ["s-Unshaped-6", "s-Unshaped-7"],
         "owner": "team-a"}
BODY = {"user": "ops", "auth": {"password": "pw-Unshaped-8"}, "items": [{"key": "k-9xyz"}]}


def test_credentials_are_named_by_headers_parameters_and_fields_whatever_their_shape():
    req = Request("POST", "/x", QUERY, HEADERS, BODY, True)
    got = dict.fromkeys(v for _, v in credentials_of(req))
    assert list(got) == ["Bearer tok-Unshaped-1", "sid=ck-Unshaped-2", "ak-Unshaped-3",
                         "at-Unshaped-5", "s-Unshaped-6", "s-Unshaped-7", "k-9xyz",
                         "pw-Unshaped-8"]


def test_an_unmatched_request_is_journalled_without_what_it_carried(tmp_path):
    store = Store(tmp_path / "store")
    rec = Recorder(store, "serve-t", "scn")
    req = Request("POST", "/nomatch/at-Unshaped-5", QUERY, HEADERS, BODY, True)
    echoed = {"error": {"code": "no_matching_exchange", "message": "no recorded exchange "
                        "matches POST /nomatch/at-Unshaped-5", "closest": {"differences": [
                            {"field": f"query.{k}", "recorded": None, "received": v}
                            for k, v in QUERY.items()] + [
                            {"field": "body", "recorded": None, "received": BODY}]}}}
    rec.record(req, "http://127.0.0.1:1/nomatch/at-Unshaped-5?access_token=at-Unshaped-5",
               Answer(501, {"content-type": "application/json", "x-caller": "ak-Unshaped-3"},
                      echoed), exchange=None, failure=None, start_ns=1)
    line = rec.journal.path.read_bytes()
    for secret in ("tok-Unshaped-1", "ck-Unshaped-2", "ak-Unshaped-3", "at-Unshaped-5",
                   "s-Unshaped-6", "s-Unshaped-7", "pw-Unshaped-8", "k-9xyz"):
        assert secret.encode() not in line, secret
    ev = loads(line.splitlines()[1])
    token = Redactor(store.redaction_key()).token("secret", "at-Unshaped-5", "secret-field")
    assert ev["name"] == f"POST /nomatch/{token}"
    # the same credential, the same token: in the request and where the answer echoes it
    assert ev["args"]["query"]["access_token"] == token
    diffs = ev["result"]["body"]["error"]["closest"]["differences"]
    assert diffs[0]["received"] == token
    assert ev["args"]["headers"]["idempotency-key"] == "idem-4"  # not a credential
    assert ev["args"]["query"]["owner"] == "team-a"
    rec.commit()


def test_a_body_past_a_json_limit_is_refused_and_not_kept():
    deep = ("[" * (BODY_DEPTH.value + 1) + "]" * (BODY_DEPTH.value + 1)).encode()
    for raw, limit in ((b'{"n": ' + b"9" * 9000 + b"}", "integer_digits"),
                       (b"[" * 20000 + b"]" * 20000, "json_depth"),
                       (deep, "request_json_depth")):
        req, refused = _request("POST", "/x", [], raw)
        assert refused is not None and refused.details["limit"] == limit
        assert req.body == f"«refused: {len(raw)} bytes»"
    ok = ("[" * BODY_DEPTH.value + "]" * BODY_DEPTH.value).encode()
    assert _request("POST", "/x", [], ok)[1] is None
    assert _depth({"a": [1, {"b": []}]}) == 4 and _depth(7) == 0


_NAMES = st.sampled_from(["access_token", "session", "api_key", "password", "auth",
                          "client_secret", "sig", "x-api-key", "authorization", "cookie"])
_VALUES = st.builds(lambda s: "zq" + s, st.text(st.characters(
    min_codepoint=0x21, max_codepoint=0x7e, exclude_characters="«»"), min_size=2, max_size=24))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_NAMES, value=_VALUES, where=st.sampled_from(["query", "header", "body"]))
def test_no_credential_is_journalled_whatever_its_shape(tmp_path, name, value, where):
    rec = Recorder(Store(tmp_path / "store"), f"serve-{uuid.uuid4().hex[:8]}", "scn")
    query = {name: value} if where == "query" else {}
    headers = {name: value} if where == "header" else {}
    body = {"x": [{name: value}]} if where == "body" else None
    req = Request("POST", f"/p/{quote(value, safe='')}", query, headers, body, body is not None)
    echoed = {"error": {"message": f"no match {value}", "closest": {"differences": [
        {"field": "any", "recorded": None, "received": value}]}, "url": quote_plus(value)}}
    rec.record(req, f"http://127.0.0.1:1/p?{urlencode({name: value})}",
               Answer(501, {"x-echo": value}, echoed), exchange=None, failure=None,
               start_ns=1)
    line = rec.journal.path.read_bytes()
    rec.journal.close()
    for form in (value, quote(value, safe=""), quote_plus(value, safe="")):
        assert form.encode() not in line
