"""``Scrubber``: known credential values, in each spelling, replaced by the keyed token
the store's redactor gives them (what replay sent, what serve received)."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, quote_plus

from hypothesis import given
from hypothesis import strategies as st

from workbench.redact import TOKEN_RE, Redactor, Scrubber
from workbench.redact._scrub import MIN_FORM

KEY = bytes(range(32))


def _token(value: str, detector: str = "secret-field") -> str:
    return Redactor(KEY).token("secret", value, detector)


def test_each_spelling_of_a_bearer_credential_becomes_its_token():
    value, core = "Bearer k7-Unshaped/Cred+9", "k7-Unshaped/Cred+9"
    s = Scrubber(KEY, {"authorization": value}.items())
    # as the store's redactor spells the header, and its core as the token it gets there
    stored = Redactor(KEY).value({"authorization": value})["authorization"]
    assert s.text(value) == stored == f"Bearer {_token(core, 'bearer')}"
    assert s.text(f"invalid key {core}.") == f"invalid key {_token(core, 'bearer')}."
    for form in (quote(core, safe=""), quote_plus(core, safe=""), quote(core)):
        assert s.text(f"/login?next={form}") == f"/login?next={_token(core, 'bearer')}"
    # JSON strings and object keys too
    tok = _token(core, "bearer")
    assert s.value({"caller": [core], core: 1}) == {"caller": [tok], tok: 1}


def test_a_shapeless_header_value_is_the_token_the_store_gives_it():
    s = Scrubber(KEY, {"authorization": "Bearer probe-token"}.items())
    stored = Redactor(KEY).value({"authorization": "Bearer probe-token"})["authorization"]
    assert TOKEN_RE.fullmatch(stored) and s.text("Bearer probe-token") == stored
    assert s.text("probe-token") == _token("probe-token")


def test_a_basic_credential_is_found_encoded_decoded_and_as_its_password():
    b64 = base64.b64encode(b"ops:hunter2-xyz").decode()
    s = Scrubber(KEY, [("authorization", f"Basic {b64}")])
    tok = s.text(b64)
    assert TOKEN_RE.fullmatch(tok) and tok.startswith("«secret:basic-auth:")
    assert s.text("user ops:hunter2-xyz") == f"user {tok}"
    assert s.text("password hunter2-xyz") == f"password {tok}"
    assert "ops" in s.text("ops")  # the user name is no secret


def test_cookie_values_and_a_vendor_shaped_key_keep_the_store_detector():
    pat = "ghp_" + "A1b2C3d4E5" * 3 + "abcdef"
    cookie = "session=s3ss-Unshaped-1; theme=ab"
    s = Scrubber(KEY, {"cookie": cookie, "x-api-key": pat}.items())
    assert s.text("you are s3ss-Unshaped-1") == f"you are {_token('s3ss-Unshaped-1', 'cookie')}"
    assert s.text("theme ab") == "theme ab"  # shorter than MIN_FORM: left alone
    # the value as sent: each cookie's value its token, short ones too
    assert s.text(cookie) == (f"session={_token('s3ss-Unshaped-1', 'cookie')}; "
                              f"theme={_token('ab', 'cookie')}")
    assert s.text(pat) == Redactor(KEY).value({"x-api-key": pat})["x-api-key"]


def test_raw_bytes_are_scrubbed_even_when_spelt_with_json_escapes():
    s = Scrubber(KEY, {"x-api-key": "Unshaped-Key-42"}.items())
    raw = b'{"caller": "\\u0055nshaped-Key-42", "again": "Unshaped-Key-42"}'
    out = s.raw(raw)
    assert b"Unshaped-Key-42" not in out and b"nshaped-Key-42" not in out
    assert json.loads(out) == {"caller": _token("Unshaped-Key-42"),
                               "again": _token("Unshaped-Key-42")}
    assert s.raw(b"not json Unshaped-Key-42") == b"not json " + _token(
        "Unshaped-Key-42").encode()


_CHARS = st.characters(min_codepoint=0x21, max_codepoint=0x7e)


@given(cred=st.text(_CHARS, min_size=MIN_FORM, max_size=30),
       before=st.text(max_size=20), after=st.text(max_size=20))
def test_no_spelling_of_a_credential_survives(cred, before, after):
    s = Scrubber(KEY, {"x-api-key": cred}.items())
    for form in (cred, quote(cred, safe=""), quote_plus(cred, safe="")):
        out = s.text(before + form + after)
        assert _token(cred) in out
        # what is left of the text around the token never spells the credential whole
        assert cred not in out.replace(_token(cred), "\0")


def test_a_short_credential_is_replaced_only_where_a_string_is_exactly_it():
    s = Scrubber(KEY, [("session", "ab")])
    assert s.value({"received": "ab", "note": "a tab"}) == {
        "received": _token("ab"), "note": "a tab"}
    assert s.raw(b'{"received": "ab"}') == b'{"received":"' + _token("ab").encode() + b'"}'
