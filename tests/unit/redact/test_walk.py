"""``Redactor.value`` / ``.text`` and ``scan_value``: what is replaced, what is kept."""

import json
import re

import pytest

from workbench.redact import TOKEN_RE, Redactor, scan_value

KEY = bytes(range(32))
GHP = "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"
GHP2 = "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"
AKIA = "AKIAITOSTEYPZ4KNPFTC"
ANT = ("sk-ant-api03-e8k0txeA4RHImuBXP_ekCk2DU3vy4JIw-qk4xHGyGCDo-i9o_4GXpj-2CYLmhnf2Uza3iqXGWJ"
       "-0UrbNCUdy8EGyIoJtIAA")
RANDOM = "AC00pdGCY56mhlC5dBRf1m0cHeYTfNpE"  # 32 random alphanumerics, no vendor prefix
EMAIL = "dana.whitfield@example.org"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
       "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
       "-----END RSA PRIVATE KEY-----")


@pytest.fixture
def r():
    return Redactor(KEY)


def tokens(s):
    return TOKEN_RE.findall(s)


def category(token):
    return token[1:].split(":")[0]


def leaks(value, *secrets):
    text = json.dumps(value, ensure_ascii=False)
    return [s for s in secrets if s in text]


def test_clean_values_come_back_as_the_same_object(r):
    v = {"project_id": "p-17", "items": [{"id": 3, "status": "active"}], "ok": True,
         "note": "uuid 0b3c7a9e-4a8e-4c4f-9d7e-2f4f1b6c8a10, sha 9fceb02d0ae598e95dc970b74767f19372d61af8"}
    assert r.value(v) is v
    assert r.text("nothing to see here") == "nothing to see here"
    assert not r.hits


def test_har_header_list_keeps_the_scheme_and_the_names(r):
    headers = [{"name": "Authorization", "value": f"Bearer {RANDOM}"},
               {"name": "Accept", "value": "application/json"},
               {"name": "X-Api-Key", "value": "Zq8v2LmN4pR7tW1y"}]
    out = r.value(headers)
    assert [h["name"] for h in out] == ["Authorization", "Accept", "X-Api-Key"]
    assert out[0]["value"].startswith("Bearer «secret:")
    assert out[1] is headers[1]
    assert TOKEN_RE.fullmatch(out[2]["value"])
    assert not leaks(out, RANDOM, "Zq8v2LmN4pR7tW1y")


def test_otlp_attribute_list_redacts_inside_the_value_wrapper(r):
    attrs = [{"key": "http.request.header.authorization",
              "value": {"stringValue": "Basic ZGFuYTpjb3JyZWN0LWhvcnNl"}},
             {"key": "http.route", "value": {"stringValue": "/v1/orders"}},
             {"key": "db.password", "value": {"stringValue": "Tr0ub4dor&3"}}]
    out = r.value(attrs)
    assert out[0]["key"] == "http.request.header.authorization"
    assert tokens(out[0]["value"]["stringValue"])
    assert out[1] is attrs[1]
    assert TOKEN_RE.fullmatch(out[2]["value"]["stringValue"])
    assert not leaks(out, "ZGFuYTpjb3JyZWN0LWhvcnNl", "Tr0ub4dor&3")


def test_json_in_json_in_json(r):
    inner = json.dumps({"user": {"email": EMAIL, "age": 41}})
    middle = json.dumps({"body": inner, "status": 200})
    v = {"result": json.dumps({"response": middle})}
    out = r.value(v)
    assert not leaks(out, EMAIL)
    decoded = json.loads(json.loads(json.loads(out["result"])["response"])["body"])
    assert decoded["user"]["age"] == 41
    assert category(decoded["user"]["email"]) == "email"
    assert r.value(out) == out  # nothing left to change on a second pass


def test_json_strings_are_only_re_encoded_when_something_changed(r):
    pretty = json.dumps({"a": 1, "b": [1, 2]}, indent=2)
    assert r.value({"doc": pretty})["doc"] is pretty
    assert r.value("[not json") == "[not json"


def test_cookie_strings_keep_cookie_names_and_attributes(r):
    v = {"headers": {"Cookie": "sid=Qm9yaXMtc2Vzc2lvbi0xMjM0; theme=dark",
                     "Set-Cookie": "id=a3fWa8Kx; Expires=Thu, 21 Oct 2027 07:28:00 GMT; Path=/; "
                                   "Secure; HttpOnly"}}
    out = r.value(v)["headers"]
    assert re.fullmatch(r"sid=«secret:[a-z0-9-]+:[0-9a-f]{12}»; theme=«secret:[a-z0-9-]+:[0-9a-f]{12}»",
                        out["Cookie"])
    assert re.fullmatch(r"id=«secret:[a-z0-9-]+:[0-9a-f]{12}»; Expires=Thu, 21 Oct 2027 07:28:00 GMT; "
                        r"Path=/; Secure; HttpOnly", out["Set-Cookie"])


def test_har_cookie_lists_redact_values_whatever_the_cookie_name(r):
    v = {"har.request.cookies": [{"name": "sid", "value": "Qm9yaXMtc2Vzc2lvbi0xMjM0", "path": "/",
                                  "httpOnly": True}]}
    [c] = r.value(v)["har.request.cookies"]
    assert TOKEN_RE.fullmatch(c["value"])
    assert (c["name"], c["path"], c["httpOnly"]) == ("sid", "/", True)


def test_urls_keep_everything_but_the_password(r):
    out = r.value({"target": "postgres://app:pa55-Wd9xQz@db.internal:5432/orders",
                   "link": "https://example.com/orders?page=2"})
    assert out["target"].startswith("postgres://app:«secret:")
    assert out["target"].endswith("»@db.internal:5432/orders")
    assert "pa55-Wd9xQz" not in out["target"]
    assert out["link"] == "https://example.com/orders?page=2"


def test_stack_traces_keep_their_frames(r):
    trace = ("Traceback (most recent call last):\n"
             '  File "/srv/app/client.py", line 88, in fetch\n'
             "    raise AuthError(token)\n"
             f"AuthError: token {GHP} rejected for {EMAIL}\n")
    out = r.value({"stderr": trace})["stderr"]
    assert not leaks(out, GHP, EMAIL)
    assert [category(t) for t in tokens(out)] == ["secret", "email"]
    assert out.startswith('Traceback (most recent call last):\n  File "/srv/app/client.py", line 88')


def test_secret_named_keys(r):
    v = {"password": "hunter2", "client_secret": "not-a-vendor-format", "pin": 1234,
         "enabled": True, "password_hint": None, "list": {"password": ["a-first-one", "b-second-one"]},
         "empty": {"password": ""}, "masked": {"password": "********"},
         "template": {"password": "${DB_PASSWORD}"}, "again": {"password": "«secret:secret-field:0123456789ab»"}}
    out = r.value(v)
    assert TOKEN_RE.fullmatch(out["password"]) and category(out["password"]) == "secret"
    assert TOKEN_RE.fullmatch(out["client_secret"])
    assert out["pin"] == 1234 and out["enabled"] is True and out["password_hint"] is None
    assert all(TOKEN_RE.fullmatch(p) for p in out["list"]["password"])
    for k in ("empty", "masked", "template", "again"):
        assert out[k] is v[k], k


def test_maybe_keys_are_redacted_only_when_the_value_looks_secret(r):
    v = {"session_token": RANDOM, "request_token": "0b3c7a9e-4a8e-4c4f-9d7e-2f4f1b6c8a10",
         "max_tokens": 1024, "token_type": "bearer"}
    out = r.value(v)
    assert TOKEN_RE.fullmatch(out["session_token"])
    assert out["request_token"] == v["request_token"]
    assert out["max_tokens"] == 1024 and out["token_type"] == "bearer"


KEY_MATERIAL = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZMUEhD"


@pytest.mark.parametrize(("name", "value"), [
    ("KeyData", "01"), ("key_data", "true"), ("client-key-data", "see the secret"),
    ("keyData", "v2"), ("KeyData", "HKLM\\Software\\Vendor"), ("tls_key_data", "none"),
    ("clientKeyData", "2024-05-01"), ("key_data", "0b3c7a9e-4a8e-4c4f-9d7e-2f4f1b6c8a10"),
])
def test_key_material_names_keep_values_that_are_no_key_material(r, name, value):
    """``*_key_data`` names kubeconfig's key material, but also registry values, flags
    and counters: a short, worded or structured value under it is evidence, kept."""
    v = {name: value}
    assert r.value(v) is v


@pytest.mark.parametrize("name", ["client-key-data", "KeyData", "key_data", "clientKeyData",
                                  "private_key_data"])
@pytest.mark.parametrize("value", [KEY_MATERIAL, RANDOM, "q8Zt3VbX0pL2mWc9"])
def test_key_material_under_key_material_names_is_redacted(r, name, value):
    out = r.value({name: value})
    assert TOKEN_RE.fullmatch(out[name]) and category(out[name]) == "secret", out


def test_env_style_name_value_pairs(r):
    env = [{"name": "DB_PASSWORD", "value": "x9!kQv77"}, {"name": "LOG_LEVEL", "value": "debug"},
           {"Key": "STRIPE_SECRET", "Value": "plain-words-here"}]
    out = r.value(env)
    assert TOKEN_RE.fullmatch(out[0]["value"]) and out[1] is env[1]
    assert TOKEN_RE.fullmatch(out[2]["Value"]) and out[2]["Key"] == "STRIPE_SECRET"


def test_vendor_keys_and_pem_blocks_anywhere(r):
    v = {"cmd": f"export AWS_ACCESS_KEY_ID={AKIA}", "note": f"use {ANT} for claude",
         "files": [{"path": "id_rsa", "content": PEM}]}
    out = r.value(v)
    assert not leaks(out, AKIA, ANT, "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun")
    assert out["files"][0]["path"] == "id_rsa"
    assert out["cmd"].startswith("export AWS_ACCESS_KEY_ID=«secret:")


def test_structure_is_kept(r):
    v = {"a": [1, 2.5, None, True, GHP, {"email": EMAIL, "n": [EMAIL, EMAIL]}], "b": {}, "c": []}
    out = r.value(v)

    def shape(x):
        if isinstance(x, dict):
            return {k: shape(y) for k, y in x.items()}
        if isinstance(x, list):
            return [shape(y) for y in x]
        return type(x).__name__

    assert shape(out) == shape(v)
    assert out["a"][5]["n"][0] == out["a"][5]["n"][1] == out["a"][5]["email"]


def test_equal_values_give_equal_tokens_everywhere(r):
    out = r.value({"args": {"token": GHP}, "result": f"got {GHP}", "other": GHP2})
    t = tokens(out["result"])[0]
    assert out["args"]["token"] == t != out["other"]


def test_hits_count_replacements_by_detector(r):
    r.value({"a": EMAIL, "b": [EMAIL, "x"], "password": "hunter2"})
    assert r.hits["email"] == 2 and r.hits["secret-field"] == 1


def test_redaction_is_idempotent(r):
    v = {"headers": [{"name": "Authorization", "value": f"Bearer {RANDOM}"}],
         "Cookie": "a=Qm9yaXMtc2Vzc2lvbi0xMjM0", "password": "hunter2", "t": f"{EMAIL} {GHP}",
         "body": json.dumps({"api_key": RANDOM})}
    once = r.value(v)
    assert r.value(once) == once
    assert r.text(r.text(f"mail {EMAIL}")) == r.text(f"mail {EMAIL}")


def test_too_deep_json_is_a_clear_error(r):
    from workbench.model import InputError
    v: object = EMAIL
    for _ in range(5000):
        v = [v]
    with pytest.raises(InputError) as e:
        r.value(v)
    assert e.value.code == "TOO_DEEP"


# -- scan_value --------------------------------------------------------------------------

def test_scan_names_paths_and_detectors_never_values():
    v = {"args": {"headers": {"authorization": f"Bearer {RANDOM}"}, "password": "hunter2"},
         "items": [{"note": f"mail {EMAIL}"}], "body": json.dumps({"inner": {"key": GHP}})}
    hits = scan_value(v)
    paths = {p for p, _ in hits}
    assert paths == {"args.headers.authorization", "args.password", "items[0].note",
                     "body.inner.key"}
    assert ("args.password", "secret-field") in hits and ("items[0].note", "email") in hits
    assert not any(s in repr(hits) for s in (RANDOM, "hunter2", EMAIL, GHP))


def test_scan_reports_secrets_in_keys_without_repeating_them():
    hits = scan_value({"users": {EMAIL: {"name": "Dana"}}})
    assert hits == [('users["«email»"] (key)', "email")]


def test_scan_of_a_redacted_value_is_empty(r):
    v = {"h": [{"name": "Cookie", "value": "sid=Qm9yaXMtc2Vzc2lvbi0xMjM0"}], "x": f"{GHP} {EMAIL}",
         "password": "hunter2", "session_token": RANDOM}
    assert scan_value(v)
    assert scan_value(r.value(v)) == []


def test_values_under_classed_keys_are_remembered(monkeypatch) -> None:
    from workbench.redact import _walk

    calls = []
    real = _walk._plan
    monkeypatch.setattr(_walk, "_plan", lambda *a: calls.append(a[0]) or real(*a))
    r = Redactor(bytes(range(32)))
    doc = {"name": "Ana Lee", "password": "hunter2", "contact": "not a person"}
    first = r.value(doc)
    planned = len(calls)
    second = r.value(dict(doc))
    assert first == second == {"name": first["name"], "password": first["password"],
                               "contact": "not a person"}
    assert first["name"].startswith("«person:") and first["password"].startswith("«secret:")
    assert {"Ana Lee", "hunter2", "not a person"} <= set(calls)
    assert len(calls) == planned  # the second time, all three from memory
    assert r.hits == {"person-name": 2, "secret-field": 2}  # counted every time
    # the same string under another key is judged again
    assert r.value({"note": "hunter2"}) == {"note": "hunter2"}


def test_ident_is_redacted_but_not_counted() -> None:
    r = Redactor(bytes(range(32)))
    token = "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"
    assert r.ident("span-1") == "span-1"
    got = r.ident(f"run-{token}")
    assert token not in got and got.startswith("run-«secret:github-pat:")
    assert r.ident(f"run-{token}") == got and not r.hits
    assert r.value(f"run-{token}") == got and r.hits == {"github-pat": 1}
