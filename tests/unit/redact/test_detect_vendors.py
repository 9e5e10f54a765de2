"""Vendor rules: each format found in the places traces carry it, with the exact span
(the token only), and look-alikes left alone. Tokens are made at run time from a seeded
generator (this file holds no key-shaped literal a scanner would report)."""

from __future__ import annotations

import base64
import json
import random
import re
import string

import pytest

from workbench.redact._cat_rule import ContextRule, Rule
from workbench.redact._catalog import (
    CONTEXT_RULES,
    KEYWORDS,
    LITERAL_ANCHORS,
    RULES,
    best_anchor,
    rules_for,
)
from workbench.redact._detect import DETECTORS, find

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
URLSAFE = B62 + "-_"
B64 = B62 + "+/"


def tok(prefix: str, alphabet: str, n: int, suffix: str = "", seed: int = 0) -> str:
    rng = random.Random(f"{prefix}{n}{seed}")
    return prefix + "".join(rng.choice(alphabet) for _ in range(n)) + suffix


def hits(text: str) -> list[tuple[str, str]]:
    return [(text[h.start:h.end], h.detector) for h in find(text)]


# (detector, token) pairs: one per format, documented prefix + random body
TOKENS = [
    ("aws-access-key-id", tok("AK" + "IA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    ("aws-access-key-id", tok("AS" + "IA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    ("aws-session-token", tok("IQoJb3JpZ2luX2Vj", B64, 300, "=")),
    ("gcp-api-key", tok("AI" + "za", URLSAFE, 35)),
    ("gcp-oauth-client-secret", tok("GOCSPX-", URLSAFE, 28)),
    ("gcp-oauth-access-token", tok("ya29.a0", URLSAFE, 150)),
    ("azure-ad-client-secret", tok("", B62, 3) + "7Q~" + tok("", B62 + "_~.-", 34)),
    ("alibaba-access-key-id", tok("LT" + "AI", B62, 20)),
    ("digitalocean-pat", tok("dop_" + "v1_", HEX, 64)),
    ("heroku-api-key", tok("HRKU-AA", URLSAFE, 58)),
    ("vault-token", tok("hvs.", URLSAFE, 95)),
    ("terraform-cloud-token", tok("", B62, 14) + ".atlasv1." + tok("", B62, 67)),
    ("doppler-token", tok("dp.pt.", B62, 43)),
    ("pulumi-access-token", tok("pul-", HEX, 40)),
    ("databricks-token", tok("da" + "pi", HEX, 32)),
    ("supabase-token", tok("sbp_", HEX, 40)),
    ("planetscale-token", tok("pscale_tkn_", B62, 43)),
    ("github-pat", tok("gh" + "p_", B62, 36)),
    ("github-oauth-token", tok("gh" + "o_", B62, 36)),
    ("github-app-token", tok("gh" + "s_", B62, 36)),
    ("github-fine-grained-pat", tok("github_" + "pat_", B62, 22) + "_" + tok("", B62, 59)),
    ("gitlab-pat", tok("gl" + "pat-", URLSAFE, 20)),
    ("gitlab-runner-token", tok("gl" + "rt-", URLSAFE, 20)),
    ("atlassian-api-token", tok("ATATT3xFfGF0", URLSAFE, 170, "=0A1B2C3D")),
    ("bitbucket-app-password", tok("AT" + "BB", B62, 32)),
    ("npm-token", tok("np" + "m_", B62, 36)),
    ("pypi-token", tok("pypi-AgEIcHlwaS5vcmc", URLSAFE, 120)),
    ("rubygems-api-key", tok("rubygems_", HEX, 48)),
    ("nuget-api-key", tok("oy2", string.ascii_lowercase + string.digits, 43)),
    ("dockerhub-token", tok("dckr_" + "pat_", URLSAFE, 27)),
    ("slack-token", "xo" + "xb-" + tok("", string.digits, 12) + "-" + tok("", string.digits, 13)
     + "-" + tok("", B62, 24)),
    ("slack-app-token", "xa" + "pp-1-A" + tok("", "ABCDEF0123", 10) + "-"
     + tok("", string.digits, 13) + "-" + tok("", HEX, 64)),
    ("twilio-api-key", tok("S" + "K", HEX, 32)),
    ("sendgrid-api-key", tok("S" + "G.", URLSAFE, 22) + "." + tok("", URLSAFE, 43)),
    ("stripe-secret-key", tok("sk_" + "live_", B62, 99)),
    ("stripe-restricted-key", tok("rk_" + "live_", B62, 24)),
    ("stripe-webhook-secret", tok("wh" + "sec_", B62, 32)),
    ("square-token", tok("sq0" + "atp-", URLSAFE, 22)),
    ("shopify-token", tok("sh" + "pat_", HEX, 32)),
    ("openai-api-key", tok("sk-", B62, 20) + "T3Blbk" + "FJ" + tok("", B62, 20)),
    ("openai-api-key", tok("sk-" + "proj-", URLSAFE, 74) + "T3Blbk" + "FJ" + tok("", URLSAFE, 74)),
    ("anthropic-api-key", tok("sk-" + "ant-api03-", URLSAFE, 93, "AA")),
    ("anthropic-admin-key", tok("sk-" + "ant-admin01-", URLSAFE, 93, "AA")),
    ("huggingface-token", tok("h" + "f_", string.ascii_letters, 34)),
    ("groq-api-key", tok("gs" + "k_", B62, 52)),
    ("replicate-api-token", tok("r" + "8_", B62, 37)),
    ("perplexity-api-key", tok("pp" + "lx-", B62, 48)),
    ("xai-api-key", tok("x" + "ai-", B62, 80)),
    ("openrouter-api-key", tok("sk-" + "or-v1-", HEX, 64)),
    ("postman-api-key", tok("PM" + "AK-", HEX, 24) + "-" + tok("", HEX, 34)),
    ("sentry-token", tok("sn" + "tryu_", HEX, 64)),
    ("grafana-token", tok("gl" + "sa_", B62, 32) + "_" + tok("", HEX, 8)),
    ("new-relic-key", tok("NR" + "AK-", string.ascii_uppercase + string.digits, 27)),
    ("linear-api-key", tok("lin_" + "api_", B62, 40)),
    ("notion-token", "nt" + "n_" + tok("", string.digits, 11) + tok("", B62, 35)),
    ("dropbox-token", tok("sl" + ".B", URLSAFE, 134)),
    ("age-secret-key", tok("AGE-SECRET-" + "KEY-1", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
    ("brevo-api-key", tok("xkey" + "sib-", HEX, 64) + "-" + tok("", B62, 16)),
    ("easypost-api-key", tok("EZ" + "AK", B62, 54)),
]


@pytest.mark.parametrize(("detector", "token"), TOKENS, ids=[f"{d}-{i}" for i, (d, _) in
                                                           enumerate(TOKENS)])
@pytest.mark.parametrize("context", [
    "using {t} for the upload",                      # bare in a log line
    "export SERVICE_TOKEN={t}\n",                    # env dump
    '{{"config": {{"credential": "{t}", "retries": 3}}}}',  # JSON printed in text
    "curl -H 'Authorization: Bearer {t}' https://api.example.com",
    "Error: 401 Unauthorized for key {t}.",          # sentence end
    "<value>{t}</value>",
])
def test_vendor_token_found_exactly(detector: str, token: str, context: str) -> None:
    text = context.format(t=token)
    assert hits(text) == [(token, detector)]


def test_every_vendor_id_is_described() -> None:
    for rule in (*RULES, *CONTEXT_RULES):
        assert rule.id in DETECTORS and DETECTORS[rule.id][0] == "secret"
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule.id), rule.id


def test_catalog_size_and_providers() -> None:
    # at least 70 providers (an id's first word, e.g. "github" of "github-pat")
    providers = {r.id.split("-")[0] for r in (*RULES, *CONTEXT_RULES)}
    assert len(providers) >= 70
    assert len(RULES) >= 100


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_shape(rule: Rule) -> None:
    """Keywords are lowercase; a prefixed rule's literals are its prefixes and every
    keyword is in one of them; the scan looks for each literal's anchor."""
    assert rule.keywords and all(k == k.lower() for k in rule.keywords)
    assert "secret" in rule.regex.groupindex
    for lit in rule.literals:
        assert best_anchor(lit) in LITERAL_ANCHORS
        assert lit.startswith(best_anchor(lit))
    if rule.prefixed:
        assert all(any(k in lit.lower() for lit in rule.literals) for k in rule.keywords)


def test_keywords_are_the_lowercase_literals() -> None:
    assert "ghp_" in KEYWORDS and "akia" in KEYWORDS and "xox" in KEYWORDS


def test_best_anchor_ends_in_the_rarest_character() -> None:
    assert best_anchor("AI" + "za") == "AIz"
    assert best_anchor("da" + "pi") == "dap"
    assert best_anchor("gh" + "p_") == "ghp_"
    assert best_anchor("SK") == "SK"
    assert best_anchor("eyJrIjoi") == "eyJrI"


def test_rules_for_includes_the_rules_of_anchors_inside() -> None:
    ids = {r.id for r in rules_for([best_anchor("xoxe.xoxb-")])}
    assert "slack-token" in ids


@pytest.mark.parametrize("text", [
    "gh" + "p_" + "x" * 36,                          # a documentation placeholder
    "gh" + "p_" + "short1234",                       # too short
    "agh" + "p_" + tok("", B62, 36),                 # glued to a word
    "AK" + "IAIOSFODNN7EXAMPLE",                     # AWS's documented example
    "sk-" + "your-api-key-here",
    "pk_" + "live_" + tok("", B62, 24),              # Stripe publishable: public
    "cache-key-" + tok("", HEX, 32),                 # looks like Mailgun's key- but glued
    "task-" + tok("", B62, 40),                      # "sk-" inside a word
    "sha256:" + tok("", HEX, 64),                    # a digest
    "sha512-" + base64.b64encode(bytes(range(64))).decode(),  # npm integrity
])
def test_vendor_look_alikes_are_left(text: str) -> None:
    assert [h for h in find(text) if h.category == "secret"] == []


def test_vendor_token_in_json_with_escapes_and_urls() -> None:
    t = tok("gh" + "p_", B62, 36, seed=5)
    text = json.dumps({"log": f"push failed\nremote: token {t}\n"})
    assert hits(text) == [(t, "github-pat")]
    url = f"https://x-access-token:{t}@github.com/org/repo.git"
    assert hits(url) == [(t, "github-pat")]


@pytest.mark.parametrize(("name", "value", "detector"), [
    ("ALGOLIA_ADMIN_KEY", tok("", B62, 32, seed=1), "algolia-api-key"),
    ("DD_API_KEY", tok("", HEX, 32, seed=2), "datadog-key"),
    ("HEROKU_API_KEY", "3f2a7c1e-9b4d-4e8a-a1b2-c3d4e5f6a7b8", "heroku-api-key"),
    ("AWS_SECRET_ACCESS_KEY", tok("", B64, 40, seed=3), "aws-secret-access-key"),
    ("MISTRAL_API_KEY", tok("", B62, 32, seed=4), "mistral-api-key"),
    ("twilio_auth_token", tok("", HEX, 32, seed=5), "twilio-auth-token"),
])
def test_context_rules_name_the_provider(name: str, value: str, detector: str) -> None:
    for text in (f"{name}={value}\n", f'"{name.lower()}": "{value}"', f"{name}: {value}"):
        assert hits(text) == [(value, detector)], text


def test_context_rule_needs_the_shape() -> None:
    rule = next(r for r in CONTEXT_RULES if r.id == "algolia-api-key")
    assert isinstance(rule, ContextRule)
    assert rule.accepts(tok("", B62, 32, seed=9))
    assert not rule.accepts("short")
    assert not rule.accepts("a" * 32)  # no entropy
