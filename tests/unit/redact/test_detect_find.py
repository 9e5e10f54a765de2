"""``find`` and ``maybe`` as a whole: overlaps, what is never a hit, the gate, the
catalogue of detector ids."""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import random
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.redact._catalog import TOKEN_ANCHORS
from workbench.redact._detect import DETECTORS, find, maybe
from workbench.redact._hits import CATEGORIES, Hit, entropy, is_example, mask_protected

B62 = string.ascii_letters + string.digits


def rand(n: int, seed: int = 0, alphabet: str = B62) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


def hits(text: str) -> list[tuple[str, str]]:
    return [(text[h.start:h.end], h.detector) for h in find(text)]


GHP = "gh" + "p_" + rand(36, 1)


# -- overlaps -------------------------------------------------------------------------------

def test_vendor_wins_over_the_structure_around_it() -> None:
    assert hits(f"Authorization: Bearer {GHP}") == [(GHP, "github-pat")]
    assert hits(f"GITHUB_TOKEN={GHP}") == [(GHP, "github-pat")]
    assert hits(f"https://user:{GHP}@github.com/o/r.git") == [(GHP, "github-pat")]
    assert hits(f"--token {GHP}") == [(GHP, "github-pat")]


def test_a_secret_wins_over_personal_data_inside_it() -> None:
    pw = "s3cr3t-" + rand(10, 2)
    # "s3cr3t-…@db.internal" would read as an email: the URL password wins
    assert hits(f"postgres://app:{pw}@db.internal/orders") == [(pw, "url-password")]


def test_private_key_wins_over_what_its_body_holds() -> None:
    body = "AKIA" + rand(16, 3, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") + rand(60, 4)
    text = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    assert hits(text) == [(body, "private-key")]


def test_hits_are_sorted_and_disjoint() -> None:
    text = (f"a@b.co then {GHP} then 85.12.34.56 then password=hunter2x "
            "then +14155552671 then card 4111111111111111")
    found = find(text)
    assert [h.detector for h in found] == ["email", "github-pat", "ipv4", "named-secret",
                                           "phone", "card"]
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))


# -- never hits -------------------------------------------------------------------------------

PNG = base64.b64encode(bytes(range(256)) * 4).decode()


@pytest.mark.parametrize("text", [
    "request 3f2a7c1e-9b4d-4e8a-a1b2-c3d4e5f6a7b8 done",             # UUID
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",                # git SHA
    "trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
    "sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    f"<img src=\"data:image/png;base64,{PNG}\">",                     # base64 image
    "\"integrity\": \"sha512-" + base64.b64encode(bytes(range(64))).decode() + "\"",
    "AWS_ACCESS_KEY_ID=AK" + "IAIOSFODNN7EXAMPLE",                    # documented example
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "STRIPE_PUBLISHABLE_KEY=pk_" + "live_" + rand(24, 5),            # publishable
    "created_at: 2026-03-02T10:00:00.123456Z, version: 1.22.3",
    "path=/home/dev/src/acme-api/app/routes/auth_tokens.py",
    "see https://docs.example.com/guides/auth#api-keys?tab=tokens",
    "Authorization: Bearer «secret:bearer:7f3a9c01d2e4»",            # already a token
    "«email:1c9e02ab77aa» wrote «str:12» «int» «id3»",
    "The quick brown fox jumps over the lazy dog.",
    "def handler(event):\n    return process(event['body'])\n",
    "",
])
def test_never_hits(text: str) -> None:
    assert find(text) == [], text


def test_mask_protected_keeps_length() -> None:
    text = f"x «secret:a:1» y data:image/png;base64,{PNG[:40]} z"
    masked = mask_protected(text)
    assert len(masked) == len(text) and "«" not in masked and masked.startswith("x ")
    assert mask_protected("plain text") == "plain text"


# -- maybe --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "GET", "ok", "list_projects", "2026-03-02T10:00:00Z", "The quick brown fox.",
    "function total(a, b) { return a + b; }", "/home/dev/project/main.py", "v1.2.3",
    "max_tokens", "{\"max_tokens\": 100, \"model\": \"m-1\"}",
])
def test_maybe_is_false_on_ordinary_text(text: str) -> None:
    assert not maybe(text)
    assert find(text) == []


@pytest.mark.parametrize("text", [
    GHP, f"x {GHP} y", "password=hunter22", "{\"api_key\": \"x\"}", "Authorization: x",
    "a@b.co", "+14155552671", "-----BEGIN RSA PRIVATE KEY-----", "fe80::1",
    "--password hunter2", "<password>x</password>", "Bearer abc123", "85.12.34.56",
    '{"name": "X-Api-Key", "value": "abc"}', "kind: Secret",
])
def test_maybe_fires_on_anchors(text: str) -> None:
    assert maybe(text)


def test_maybe_false_implies_find_empty_on_samples() -> None:
    for text in ["hello", "tokens counted: 12", "key points", "passed 3 tests"]:
        assert maybe(text) or find(text) == []


@pytest.mark.parametrize("text", [
    "SKU-88164", "order SKU-0042 shipped", "call_64b1bd5a189f737af055b2f7",
    "cart_e7954b1128cd", "chatcmpl-0a17aeb844b1c2",
])
def test_a_token_prefix_without_its_token_does_not_open_the_gate(text: str) -> None:
    # "SK" (Twilio) and "4b1d" (ClickHouse) count only where their token follows
    assert not maybe(text)


@pytest.mark.parametrize("text", [
    "SK" + "0123456789abcdef" * 2, "key=SK" + "a1b2c3d4e5f6a7b8" * 2 + ";",
    "4b1d" + rand(38, 7),
])
def test_a_token_prefix_with_its_token_opens_the_gate(text: str) -> None:
    assert maybe(text) and find(text)


_PIECES = [*sorted(TOKEN_ANCHORS), "SKU-", "4b1d", "0123456789abcdef", "«secret:x:0a1b»",
           "data:image/png;base64,", "sha512-", "\\n", "_", "-", " ", "\n", "=", ":", "\"",
           "@", "a@b.co", "xoxb-"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(B62 + "+/=._-", max_size=40)),
                max_size=12))
def test_maybe_false_implies_find_empty(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert maybe(text) or find(text) == []


def test_non_ascii_text() -> None:
    text = f"İstanbul ßtraße → {GHP} — Ünïcödé «x»"
    assert hits(text) == [(GHP, "github-pat")]
    assert maybe(text)


# -- the catalogue --------------------------------------------------------------------------------

def test_detector_ids_and_categories() -> None:
    assert len(DETECTORS) >= 150
    for det, (category, description) in DETECTORS.items():
        assert category in CATEGORIES and description
        assert det == det.lower() and " " not in det
    for det in ("github-pat", "aws-access-key-id", "jwt", "private-key", "url-password",
                "bearer", "basic-auth", "email", "phone", "card", "iban", "ipv4", "ipv6",
                "named-secret", "secret-field", "cookie"):
        assert det in DETECTORS


def test_every_reported_detector_is_in_the_catalogue() -> None:
    jwt = ".".join(base64.urlsafe_b64encode(json.dumps(x).encode()).decode().rstrip("=")
                   for x in ({"alg": "HS256"}, {"s": 1})) + "." + rand(20, 9)
    text = (f"{GHP} {jwt} a@b.co +14155552671 4111111111111111 85.12.34.56 fe80::1ff:fe23:1 "
            "password=hunter2x Cookie: a=b\n--api-key Zk39fjsl3kdf93kd\n")
    for h in find(text):
        assert h.detector in DETECTORS
        assert DETECTORS[h.detector][0] == h.category


def test_hit_is_frozen() -> None:
    h = Hit(0, 3, "email", "email")
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.start = 1  # type: ignore[misc]


def test_entropy_and_examples() -> None:
    assert entropy("") == 0.0 and entropy("aaaa") == 0.0
    assert entropy("abcd") == pytest.approx(2.0)
    assert is_example("AK" + "IAIOSFODNN7EXAMPLE") and is_example("sk-your-api-key")
    assert not is_example(GHP)


def test_the_catalogue_page_lists_every_detector() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "redact-detectors.md").read_text()
    missing = [det for det in DETECTORS if f"`{det}`" not in page]
    assert missing == []
