"""``key_class``: what a key, header, env var or flag name says; ``looks_secret``: the
test for *maybe* names; ``is_placeholder``."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.redact import _keys
from workbench.redact._keys import (
    ENDINGS,
    is_placeholder,
    key_class,
    key_parts,
    looks_secret,
    parts_class,
)


@pytest.mark.parametrize(("name", "parts"), [
    ("X-Api-Key", ("x", "api", "key")), ("xApiKey", ("x", "api", "key")),
    ("X_API_KEY", ("x", "api", "key")), ("APIKey", ("api", "key")),
    ("clientSecret", ("client", "secret")), ("db.password", ("db", "password")),
    ("password2", ("password",)), ("api_key_v2", ("api", "key")), ("--api-key", ("api", "key")),
    ("OAuthToken", ("o", "auth", "token")), ("", ()),
])
def test_key_parts(name: str, parts: tuple[str, ...]) -> None:
    assert key_parts(name) == parts


SECRET = ["password", "Password", "PASSWORD", "passwd", "pass", "DB_PASSWORD", "dbPassword",
          "secret", "client_secret", "clientSecret", "app_secret", "authorization",
          "Proxy-Authorization", "cookie", "Set-Cookie", "x-api-key", "X-Api-Key", "api_key",
          "apikey", "apiKey", "private_key", "privateKey", "access_token", "refresh_token",
          "id_token", "auth_token", "session_token", "bearer", "credentials", "dsn",
          "connection_string", "secret_access_key", "aws_secret_access_key",
          "SecretAccessKey", "PRIVATE-TOKEN", "ocp-apim-subscription-key", "DD-API-KEY",
          "passphrase", "smtp_pass", "mnemonic", "auth", "_auth", "basic_auth",
          "X-Amz-Signature", "master_key", "github_token_secret",
          "encryption_key"]
MAYBE = ["token", "github_token", "GITHUB_TOKEN", "csrf_token", "key", "access_key",
         "license_plate_key", "signature", "sig", "session", "session_id", "sessionid", "otp",
         "pin", "salt", "jwt", "pwd", "PWD", "first_pass", "x-vault-token", "bot_key",
         "STORAGE_KEY", "client-key-data", "KeyData", "key_data", "clientKeyData",
         "tls_key_data"]
ORDINARY = ["max_tokens", "input_tokens", "output_tokens", "prompt_tokens", "total_tokens",
            "token_type", "tokenizer", "tokens", "token_count", "next_page_token",
            "idempotency_key", "Idempotency-Key", "cache_key", "public_key", "primary_key",
            "key_id", "api_key_id", "access_key_id", "secret_name", "secret_arn",
            "password_policy", "password_hash", "client_id", "name", "id", "description",
            "monkey", "keyboard", "sort_key", "partition_key", "i18n_key", "status_code",
            "otp_code", "database_url", "webhook_url", "", "x" * 100]


@pytest.mark.parametrize("name", SECRET)
def test_secret_names(name: str) -> None:
    assert key_class(name) == "secret"


@pytest.mark.parametrize("name", MAYBE)
def test_maybe_names(name: str) -> None:
    assert key_class(name) == "maybe"


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names(name: str) -> None:
    assert key_class(name) is None


def test_every_classified_name_ends_in_an_ending() -> None:
    """The gate finds assignments by ``ENDINGS``: a name the classifier calls secret or
    maybe must end (lowercased, digits dropped) with one of them."""
    for name in SECRET + MAYBE:
        low = name.lower().rstrip("0123456789")
        assert low.endswith(tuple(ENDINGS)), name


@pytest.mark.parametrize("value", [
    "", "   ", "****", "xxxxxxxx", "••••••", "${DB_PASSWORD}", "$API_KEY", "$(SECRET)",
    "{{ vault_password }}", "{% raw %}", "<your-api-key>", "<redacted>", "[REDACTED]",
    "{token}", "%(password)s", "%API_KEY%", "os.environ['X']", "process.env.TOKEN",
    "changeme", "change-me", "null", "None", "true", "false", "REDACTED", "your_api_key",
    "YOUR-TOKEN-HERE", "example", "dummy", "placeholder", "secret", "password", "...",
    "test_openai_api_key", "my-secret-token", "fake_password", "sk-…", "ghp_...",
])
def test_placeholders(value: str) -> None:
    assert is_placeholder(value)


@pytest.mark.parametrize("value", ["hunter2", "Harbor!violet1234", "s3cr3t", "abc123XYZ", "monkey",
                                   "correcthorsebatterystaple"])
def test_not_placeholders(value: str) -> None:
    assert not is_placeholder(value)


def _random(alphabet: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


@pytest.mark.parametrize("value", [
    _random(string.ascii_letters + string.digits, n, n) for n in (12, 16, 24, 32, 40, 64)
] + [_random(string.ascii_letters + string.digits + "+/", 40, 7) + "=",
     _random("0123456789abcdef", 24, 8), "Zk39fjsl3kdf93kd", "a1B2c3D4e5"])
def test_looks_secret(value: str) -> None:
    assert looks_secret(value)


@pytest.mark.parametrize("value", [
    "short1", "12345678901234", "3f2a7c1e-9b4d-4e8a-a1b2-c3d4e5f6a7b8",
    "9fceb02d0ae598e95dc970b74767f19372d61af8", "d41d8cd98f00b204e9800998ecf8427e",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "2026-03-02T10:00:00.123456Z", "2024-01-15 10:23:45", "1.2.3.4", "v1.22.3",
    "https://api.example.com/v1/items", "/home/dev/src/app/main.py", "C:\\Users\\dev\\x",
    "anna@example.com", "list_projects", "gpt-4o-mini-2024-07-18", "claude-3-5-sonnet-20241022",
    "user-profile-cache", "com.example.app.Main", "hello world foo", "pk_" + "live_" + "a" * 24,
    "AKIAIOSFODNN7EXAMPLE", "aaaaaaaaaaaaaaaa", "Bearer", "ae384d96703fbf0f",
    "call_ncddST557lslTouYqbpR65zl", "toolu_01YYLXwwdBLwtMmjr5Sfsieg",
    "chatcmpl-6bb9f175-c587-44b4-8c8d-f91fc4827590", '{"reservation_id":"GV1N64"}',
    "key1=value1&key2=value2", "#div-gpt-ad-box-1-0", "/usr/lib/python3.11/x.py",
])
def test_does_not_look_secret(value: str) -> None:
    assert not looks_secret(value)


_WORDS = sorted(_keys._SECRET_LAST | _keys._MAYBE_LAST | _keys._SECRET_NAMES | set(ENDINGS)
                | _keys._SECRET_TOKEN_QUALIFIERS | _keys._ORDINARY_TOKEN_QUALIFIERS
                | _keys._SECRET_KEY_QUALIFIERS | _keys._ORDINARY_KEY_QUALIFIERS
                | _keys._PASS_QUALIFIERS | {"id", "data", "string", "connection", "my"})


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4),
       st.sampled_from(["_", "-", ".", "", " ", "__"]),
       st.sampled_from(["lower", "upper", "title", "camel"]), st.sampled_from(["", "2", "_v3"]))
def test_the_word_filter_loses_no_secret_name(words: list[str], sep: str, case: str,
                                              tail: str) -> None:
    # key_class answers None at once for a name holding none of the class words; that
    # must never hide a name the rules would classify
    if case == "camel":
        name = words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    else:
        name = sep.join(getattr(w, case)() for w in words)
    name += tail
    if len(name) <= 80:
        assert key_class(name) == parts_class(key_parts(name))
