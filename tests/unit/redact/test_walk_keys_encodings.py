"""Secrets where the detectors did not look before: an object key that is a secret, and
a secret behind URL encoding (``%3Dghp_…``). Each case states what is replaced and what
must be kept (look-alikes)."""

import json
from urllib.parse import quote, quote_plus

import pytest

from workbench.redact import TOKEN_RE, Redactor, scan_value

KEY = bytes(range(32))
GHP = "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"
AKIA = "AKIAITOSTEYPZ4KNPFTC"
EMAIL = "dana.whitfield@example.org"
SLACK = "xoxb-2841750362-4702957183624-kGqW9rTnVbPzLx3mYcEdUa8h"


@pytest.fixture
def r():
    return Redactor(KEY)


def text(v):
    return json.dumps(v, ensure_ascii=False)


@pytest.mark.parametrize("secret", [GHP, AKIA, EMAIL, SLACK])
@pytest.mark.parametrize("shape", ["bare", "nested", "prefixed", "list", "otlp"])
def test_a_secret_used_as_an_object_key_is_replaced(r, secret, shape):
    value = {"bare": {secret: 1},
             "nested": {"a": {"b": {secret: {"x": True}}}},
             "prefixed": {f"cache:{secret}": None},
             "list": [{"ok": 1}, {secret: "v"}],
             "otlp": {"value": {secret: "v"}, "key": "k"}}[shape]
    out = r.value(value)
    assert secret not in text(out)
    assert TOKEN_RE.search(text(out))
    assert scan_value(out) == []
    assert r.value(out) == out  # redacting twice changes nothing


def test_a_key_and_a_value_holding_one_secret_share_its_token(r):
    out = r.value({GHP: GHP, "by_id": {GHP: 1}})
    [key] = [k for k in out if k != "by_id"]
    assert out[key] == key and list(out["by_id"]) == [key]


@pytest.mark.parametrize("keys", [
    ["token", "api_key", "password", "sessionId"],          # key names, not secrets
    ["ghp_", "sk-", "AKIA", "user@", "x@y"],                 # prefixes alone
    ["1f9a7c2e-4b1d-4c3e-9f2a-6d8e0b1c2a3f", "toolu_01A09q90qw90lq917835lq9"],  # ids
    ["p17", "team-a", "GET /projects", "résumé", ""],
])
def test_ordinary_keys_are_kept_with_their_order(r, keys):
    value = {k: i for i, k in enumerate(keys)}
    out = r.value(value)
    assert out is value and list(out) == keys


@pytest.mark.parametrize("make", [
    lambda s: "https://app.test/login?next=%2Fhome%3Ftoken%3D" + s,
    lambda s: "https://app.test/login?next=" + quote("/home?token=" + s, safe=""),
    lambda s: "redirect=" + quote(quote("/cb?auth=" + s, safe=""), safe=""),  # twice
    lambda s: "q=" + quote_plus("note token=" + s + " end"),
    lambda s: "%22" + s + "%22",
])
@pytest.mark.parametrize("secret", [GHP, AKIA, SLACK])
def test_url_encoded_secrets_are_found_and_replaced_where_they_stand(r, make, secret):
    raw = make(secret)
    assert secret in raw or quote(secret, safe="") in raw
    out = r.value({"url": raw})
    assert secret not in out["url"] and quote(secret, safe="") not in out["url"]
    assert TOKEN_RE.search(out["url"])
    assert out["url"].split("«")[0] == raw.split(secret)[0]  # the URL around it is kept
    assert scan_value(out) == []
    assert r.text(raw) == out["url"]


def test_an_encoded_secret_is_replaced_in_its_encoded_spelling(r):
    secret = "Zq8vT3mNp/K7RdLx2Wf9+Hs4Yb6Uc1Ej0Gk5Ai2o"
    raw = "aws_secret_access_key%3D" + quote(secret, safe="")
    out = r.value({"u": "https://s3.test/?x=" + raw, "plain": "aws_secret_access_key=" + secret})
    assert TOKEN_RE.search(out["plain"])  # the detector finds it in plain text …
    assert quote(secret, safe="") not in out["u"]  # … and so behind %2F and %2B


@pytest.mark.parametrize("value", [
    "https://app.test/search?q=%3Dhello%20world",
    "https://app.test/a%2Fb%3Fc%3Dd",
    "100%25 done, 50% off",
    "%ZZ not an escape %",
    "https://app.test/?next=%2Fprojects%2Fp17%3Ftab%3Dsettings",
])
def test_ordinary_encoded_text_is_kept(r, value):
    assert r.value({"url": value}) == {"url": value}
