"""What docs/redact-detectors.md claims, for the places that used to slip through: an
address after ``адрес:`` with abbreviations, after ``地址：`` with no spaces, a Thai name
under a name key, house-number-first and lower-case street lines, base64 JSON carrying a
key, a YAML block scalar under a secret name; and beside each, look-alikes that must
stay (the precision the claim must not cost), with the unspecified and loopback
addresses that are never personal data."""

from __future__ import annotations

import base64
import json

import pytest

from workbench.redact import Redactor, find, scan_value

KEY = b"k" * 32


def _redacted(text: str) -> str:
    return Redactor(KEY).text(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("адрес: ул. Тверская, д. 7, кв. 12, Москва", "ул. Тверская, д. 7, кв. 12, Москва"),
    ("Адрес: пр. Мира, д. 15", "пр. Мира, д. 15"),
    ("地址：北京市朝阳区建国路88号", "北京市朝阳区建国路88号"),
    ("收货地址：上海市浦东新区世纪大道100号", "上海市浦东新区世纪大道100号"),
    ("Livraison au 12 rue de la Paix, 75002 Paris", "12 rue de la Paix, 75002 Paris"),
    ("12 rue de la Paix", "12 rue de la Paix"),
    ("3 bis avenue Foch, 75116 Paris", "3 bis avenue Foch, 75116 Paris"),
    ("consegna in via Roma 10, Milano", "via Roma 10, Milano"),
    ("via Roma 10", "via Roma 10"),
    ("via Roma 1, Milano", "via Roma 1, Milano"),
    ("calle Mayor 5, Madrid", "calle Mayor 5, Madrid"),
])
def test_addresses_the_docs_claim_are_found(text, secret):
    hits = [h for h in find(text) if h.category == "address"]
    assert [text[h.start:h.end] for h in hits] == [secret]
    assert secret not in _redacted(text)


@pytest.mark.parametrize("text", [
    "installed via Python 3",
    "sent via Slack 3 times",
    "via GPT 4",
    "routed via Cloudflare 12 ms",
    "pip install via PyPI 2024",
    "fetched via Requests 2.31",
    "I have 2 places To go",
    "12 rue",
    "address: 0.0.0.0 port 80",
    "listening on 0.0.0.0:8080, 127.0.0.1 and ::1",
    "Адрес сервера: 0.0.0.0",
])
def test_look_alikes_of_addresses_stay(text):
    assert [h for h in find(text) if h.category == "address"] == []
    assert _redacted(text) == text


@pytest.mark.parametrize("value", ["0.0.0.0 port 80", "0.0.0.0:8080, 127.0.0.1",
                                   "::1 port 22", "127.0.0.1 port 8080"])
def test_a_machine_address_under_an_address_key_stays(value):
    """An unspecified or loopback address (or any IP) is no postal address, even under
    ``address``: it says where a socket listens, not where someone lives."""
    doc = {"address": value, "bind_address": value, "server_address": value}
    assert Redactor(KEY).value(doc) is doc


def test_a_postal_address_under_an_address_key_is_still_found():
    doc = {"address": "221B Baker Street, London", "home_address": "ул. Ленина 5, кв. 3"}
    out = Redactor(KEY).value(doc)
    assert all(v.startswith("«address:") for v in out.values()), out


@pytest.mark.parametrize("key", ["recipient", "customer_name", "full_name", "contact"])
@pytest.mark.parametrize("name", ["สมชาย ใจดี", "นางสาวมาลี ศรีสุข", "राहुल शर्मा"])
def test_a_name_in_a_script_with_combining_marks_under_a_name_key(key, name):
    """Thai vowels and tone marks, Devanagari vowel signs are combining marks, not
    letters, to ``str.isalpha``: a name written with them is still a name."""
    out = Redactor(KEY).value({key: name})
    assert out[key].startswith("«person:"), out


@pytest.mark.parametrize("value", ["สมชาย 123", "ใจดี_ok", "กรุงเทพฯ-1"])
def test_a_thai_value_that_is_no_name_stays(value):
    doc = {"recipient": value}
    assert Redactor(KEY).value(doc) is doc


def _b64(doc: object, urlsafe: bool = False) -> str:
    raw = json.dumps(doc).encode()
    return (base64.urlsafe_b64encode(raw).decode().rstrip("=") if urlsafe
            else base64.b64encode(raw).decode())


@pytest.mark.parametrize("urlsafe", [False, True])
def test_base64_json_carrying_a_key_in_a_header_is_replaced_whole(urlsafe):
    secret = "a8f5f167f44f4964e6c998dee827110c"
    blob = _b64({"api_key": secret, "user": "bob"}, urlsafe)
    r = Redactor(KEY)
    for doc in ({"headers": {"X-Context": blob}},
                {"headers": [{"name": "X-Context", "value": blob}]}):
        out = json.dumps(r.value(doc), ensure_ascii=False)
        assert blob not in out and "«secret:named-secret:" in out, out
    assert blob not in r.text(f"X-Context: {blob}\r\nAccept: */*")
    assert scan_value({"h": blob}) == [("h", "named-secret")]


@pytest.mark.parametrize("text", [
    _b64({"user": "bob", "page": 2}),  # a cursor: nothing in it
    _b64([{"id": 1}, {"id": 2}]),
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
])
def test_base64_json_without_a_secret_stays(text):
    doc = {"X-Cursor": text} if "." not in text else {"note": "no secret here"}
    assert Redactor(KEY).value(doc) is doc


@pytest.mark.parametrize(("text", "secret"), [
    ("password: |\n  hunter2-very-secret\n", "hunter2-very-secret"),
    ("config:\n  password: >-\n    s3cr3tP4ssw0rd!\n  user: bob\n", "s3cr3tP4ssw0rd!"),
    ("- api_key: |2\n    a8f5f167f44f4964e6c998dee827110c\n  next: 1\n",
     "a8f5f167f44f4964e6c998dee827110c"),
])
def test_a_yaml_block_scalar_under_a_secret_name(text, secret):
    out = _redacted(text)
    assert secret not in out and "«secret:named-secret:" in out, out
    assert out.count("\n") == text.count("\n")  # the lines around it stay


@pytest.mark.parametrize("text", [
    "description: |\n  Password rules apply to every account\n",
    "password: |\n  {{ .Values.password }}\n",
    "password: |\nnot-indented\n",
    "token: |\n  abc\n",
])
def test_block_scalars_that_hold_no_secret_stay(text):
    assert _redacted(text) == text
