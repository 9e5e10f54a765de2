"""Secret formats for ``_redactgen.py``: vendor tokens made from each provider's
documented shape (prefix, alphabet, length; GitHub's and npm's CRC32 tail), AWS keys,
JWTs, PEM blocks, a GCP service-account JSON, connection strings and webhook URLs,
header credentials and secret-named fields. ``SECRETS`` lists them as ``Kind``s.
"""

from __future__ import annotations

import json
import string
import zlib
from collections.abc import Callable
from random import Random
from typing import Any

from _redactgen_kind import (
    B32,
    B62,
    B64,
    BECH32,
    CONN,
    FIELD,
    HEADER,
    HEX,
    PEM,
    TOKEN,
    URLSAFE,
    Kind,
    _b64,
    _fixed,
    _r,
)


def _crc_b62(body: str) -> str:
    """GitHub's and npm's token tail: CRC32 of the random part in base 62, 6 digits."""
    n, out = zlib.crc32(body.encode()), ""
    while n:
        n, d = divmod(n, 62)
        out = B62[d] + out
    return out.rjust(6, "0")


def _checksummed(prefix: str) -> Callable[[Random], str]:
    def gen(rng: Random) -> str:
        body = _r(rng, B62, 30)
        return prefix + body + _crc_b62(body)
    return gen


def _digits(rng: Random, lo: int, hi: int) -> str:
    return str(rng.randrange(1, 10)) + _r(rng, string.digits, rng.randint(lo, hi) - 1)


# --- generators that need more than prefix + alphabet ---------------------------------

def _aws_key_id(rng: Random) -> str:
    return rng.choice(["AKIA", "AKIA", "ASIA"]) + _r(rng, B32, 16)


def _aws_session_token(rng: Random) -> str:
    return "IQoJb3JpZ2luX2VjE" + _r(rng, B64, rng.randint(280, 360)) + "="


def _discord_bot(rng: Random) -> str:
    snowflake = "1" + _r(rng, string.digits, 17)
    return f"{_b64(snowflake.encode(), pad=False)}.{_r(rng, URLSAFE, 6)}.{_r(rng, URLSAFE, 38)}"


def _slack_bot(rng: Random) -> str:
    return f"xoxb-{_digits(rng, 10, 13)}-{_digits(rng, 10, 13)}-{_r(rng, B62, 24)}"


def _slack_user(rng: Random) -> str:
    ids = "-".join(_digits(rng, 10, 13) for _ in range(3))
    return f"xoxp-{ids}-{_r(rng, HEX, 32)}"


def _slack_app(rng: Random) -> str:
    return f"xapp-1-A{_r(rng, B32[:26] + string.digits, 10)}-{_digits(rng, 13, 13)}-" \
           f"{_r(rng, HEX, 64)}"


def _stripe(prefix: str) -> Callable[[Random], str]:
    def gen(rng: Random) -> str:
        if rng.random() < 0.5:
            return prefix + _r(rng, B62, 24)
        return prefix + "51" + _r(rng, B62, 97)
    return gen


def _openai_legacy(rng: Random) -> str:
    return f"sk-{_r(rng, B62, 20)}T3BlbkFJ{_r(rng, B62, 20)}"


def _openai_project(rng: Random) -> str:
    return f"sk-proj-{_r(rng, URLSAFE, 74)}T3BlbkFJ{_r(rng, URLSAFE, 74)}"


def _pypi(rng: Random) -> str:
    return "pypi-AgEIcHlwaS5vcmc" + _b64(rng.randbytes(rng.randint(90, 140)), url=True,
                                         pad=False)


def _sentry_org(rng: Random) -> str:
    claims = {"iat": rng.randint(1_700_000_000, 1_800_000_000), "url": "https://sentry.io",
              "region_url": "https://us.sentry.io", "org": rng.choice(["acme", "globex"])}
    return f"sntrys_{_b64(json.dumps(claims).encode(), pad=False)}_{_r(rng, B64, 43)}"


def _grafana_cloud(rng: Random) -> str:
    claims = {"o": str(rng.randint(10**5, 10**6)), "n": "stack-token",
              "k": _r(rng, B62, 24), "m": {"r": "prod-us-east-0"}}
    return "glc_" + _b64(json.dumps(claims, separators=(",", ":")).encode())


def _mapbox(rng: Random) -> str:
    claims = {"u": rng.choice(["acme-maps", "jdoe"]), "a": _r(rng, string.ascii_lowercase
                                                                + string.digits, 25)}
    return f"sk.{_b64(json.dumps(claims, separators=(',', ':')).encode(), url=True, pad=False)}" \
           f".{_r(rng, URLSAFE, 22)}"


def _atlassian(rng: Random) -> str:
    return f"ATATT3xFfGF0{_r(rng, URLSAFE, 170)}={_r(rng, HEX.upper(), 8)}"


def _jwt(rng: Random) -> str:
    alg = rng.choice(["HS256", "RS256", "ES256"])
    head = {"alg": alg, "typ": "JWT"} | ({"kid": _r(rng, URLSAFE, 16)} if alg != "HS256" else {})
    iat = rng.randint(1_700_000_000, 1_800_000_000)
    body = {"sub": _r(rng, HEX, 24), "iss": "https://auth.acme.dev/", "aud": "api",
            "iat": iat, "exp": iat + 3600, "scope": "read:projects write:jobs"}
    sig = rng.randbytes({"HS256": 32, "RS256": 256, "ES256": 64}[alg])
    return ".".join(_b64(json.dumps(p, separators=(",", ":")).encode(), url=True, pad=False)
                    for p in (head, body)) + "." + _b64(sig, url=True, pad=False)


def _password(rng: Random) -> str:
    if rng.random() < 0.5:
        return _r(rng, B62 + "-_.~!*", rng.randint(14, 26))
    words = ["harbor", "violet", "quantum", "maple", "falcon", "ember", "glacier", "orbit"]
    return f"{rng.choice(words).title()}{rng.choice('!#$%&*')}{rng.choice(words)}" \
           f"{rng.randint(10, 9999)}"


def _url_password(rng: Random) -> str:
    """A password as it appears in a URL: unreserved characters, sometimes %-escapes."""
    pw = _r(rng, B62 + "-_.~", rng.randint(14, 28))
    if rng.random() < 0.3:
        cut = rng.randrange(4, len(pw) - 4)
        pw = pw[:cut] + rng.choice(["%40", "%23", "%21", "%2F"]) + pw[cut:]
    return pw


# --- PEM blocks -------------------------------------------------------------------------

def _pem(label: str, der_head: bytes, n_random: int, width: int = 64) -> Callable[
        [Random], tuple[str, str]]:
    def gen(rng: Random) -> tuple[str, str]:
        body = _b64(der_head + rng.randbytes(n_random))
        lines = "\n".join(body[i:i + width] for i in range(0, len(body), width))
        return lines, f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"
    return gen


PKCS8_HEAD = bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8")
_pem_rsa = _pem("RSA PRIVATE KEY", bytes.fromhex("308204a40201000282010100"), 1180)
_pem_ec = _pem("EC PRIVATE KEY", bytes.fromhex("30770201010420"), 114)
_pem_openssh = _pem("OPENSSH PRIVATE KEY", b"openssh-key-v1\x00\x00\x00\x00\x04none",
                    360, width=70)
_pem_pkcs8 = _pem("PRIVATE KEY", PKCS8_HEAD, 1190)


def _gcp_service_account(rng: Random) -> tuple[str, dict[str, Any]]:
    body, pem = _pem_pkcs8(rng)
    project = f"acme-{rng.choice(['prod', 'staging', 'data'])}-{rng.randint(100, 999)}"
    sa = rng.choice(["deployer", "etl-runner", "ci"])
    return body, {
        "type": "service_account", "project_id": project,
        "private_key_id": _r(rng, HEX, 40), "private_key": pem,
        "client_email": f"{sa}@{project}.iam.gserviceaccount.com",
        "client_id": _r(rng, string.digits, 21),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "universe_domain": "googleapis.com"}


# --- connection strings: (secret, shown) ----------------------------------------------

def _host(rng: Random, kind: str) -> str:
    return rng.choice([f"{kind}.internal.acme.dev", f"{kind}-primary.prod.svc.cluster.local",
                       f"{kind}01.eu-west-1.rds.amazonaws.com", f"db.{kind}.example.net"])


def _dsn(scheme: str, port: int) -> Callable[[Random], tuple[str, str]]:
    def gen(rng: Random) -> tuple[str, str]:
        pw = _url_password(rng)
        user = rng.choice(["app", "billing_rw", "svc-orders", "admin", "etl"])
        if scheme.startswith("mongodb+srv"):
            host = f"cluster0.{_r(rng, string.ascii_lowercase + string.digits, 5)}.mongodb.net"
            return pw, f"{scheme}://{user}:{pw}@{host}/orders?retryWrites=true&w=majority"
        if scheme.startswith("redis"):
            user = rng.choice(["", "default"])
            return pw, f"{scheme}://{user}:{pw}@{_host(rng, 'cache')}:{port}/0"
        db = rng.choice(["orders", "billing", "analytics"])
        tail = "?sslmode=require" if scheme.startswith("postgres") and rng.random() < .5 else ""
        return pw, f"{scheme}://{user}:{pw}@{_host(rng, scheme.split(':')[0])}:{port}/{db}{tail}"
    return gen


def _url_userinfo(rng: Random) -> tuple[str, str]:
    pw = _url_password(rng)
    return pw, rng.choice([
        f"https://oauth2:{pw}@gitlab.acme.dev/platform/api.git",
        f"https://__token__:{pw}@pypi.acme.dev/simple/",
        f"http://build:{pw}@proxy.corp.acme.dev:3128",
        f"https://deploy:{pw}@registry.acme.dev/v2/"])


def _azure_storage(rng: Random) -> tuple[str, str]:
    key = _b64(rng.randbytes(64))
    acct = rng.choice(["acmeprodlogs", "stbillingeu", "globexdata"])
    return key, (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};"
                 "EndpointSuffix=core.windows.net")


def _slack_webhook(rng: Random) -> tuple[str, str]:
    tok = _r(rng, B62, 24)
    return tok, (f"https://hooks.slack.com/services/T{_r(rng, B32[:26] + '0123456789', 8)}/"
                 f"B{_r(rng, B32[:26] + '0123456789', 10)}/{tok}")


def _discord_webhook(rng: Random) -> tuple[str, str]:
    tok = _r(rng, URLSAFE, 68)
    return tok, f"https://discord.com/api/webhooks/1{_r(rng, string.digits, 18)}/{tok}"


def _basic(rng: Random) -> str:
    user = rng.choice(["api", "ci-bot", "jdoe", "admin"])
    return _b64(f"{user}:{_password(rng)}".encode())


# --- secret kinds -----------------------------------------------------------------------

BEARER = ("Authorization", "Bearer {}")


def _tok(type_: str, gen: Callable[[Random], Any], name: str,
         header: tuple[str, str] | None = BEARER, url: str | None = None,
         vendor: bool = True, contexts: tuple[str, ...] = TOKEN) -> Kind:
    return Kind(type_, "secret", gen, name, header, url, vendor, contexts)


SECRETS = [
    _tok("github-pat", _checksummed("ghp_"), "GITHUB_TOKEN", ("Authorization", "token {}"),
         "https://api.github.com/user?access_token={}"),
    _tok("github-oauth", _checksummed("gho_"), "GH_OAUTH_TOKEN"),
    _tok("github-app-user", _checksummed("ghu_"), "GITHUB_APP_USER_TOKEN"),
    _tok("github-app-installation", _checksummed("ghs_"), "GITHUB_INSTALLATION_TOKEN"),
    _tok("github-fine-grained", lambda r: f"github_pat_{_r(r, B62, 22)}_{_r(r, B62, 59)}",
         "GH_PAT"),
    _tok("gitlab-pat", _fixed("glpat-", URLSAFE, 20), "GITLAB_TOKEN", ("PRIVATE-TOKEN", "{}"),
         "https://gitlab.acme.dev/api/v4/projects?private_token={}"),
    _tok("gitlab-pipeline-trigger", _fixed("glptt-", HEX, 40), "CI_TRIGGER_TOKEN", None,
         "https://gitlab.acme.dev/api/v4/projects/42/trigger/pipeline?token={}&ref=main"),
    _tok("gitlab-runner", _fixed("glrt-", URLSAFE, 20), "RUNNER_TOKEN", None),
    _tok("aws-access-key-id", _aws_key_id, "AWS_ACCESS_KEY_ID", None),
    _tok("aws-secret-access-key", _fixed("", B64, 40), "AWS_SECRET_ACCESS_KEY", None,
         vendor=False),
    _tok("aws-session-token", _aws_session_token, "AWS_SESSION_TOKEN",
         ("X-Amz-Security-Token", "{}"), vendor=False),
    _tok("gcp-api-key", _fixed("AIza", URLSAFE, 35), "GOOGLE_API_KEY", ("X-Goog-Api-Key", "{}"),
         "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={}"),
    _tok("gcp-oauth-client-secret", _fixed("GOCSPX-", URLSAFE, 28), "GOOGLE_CLIENT_SECRET",
         None),
    _tok("gcp-oauth-access-token", lambda r: "ya29.a0" + _r(r, URLSAFE, r.randint(120, 200)),
         "GOOGLE_ACCESS_TOKEN", url="https://oauth2.googleapis.com/tokeninfo?access_token={}"),
    Kind("gcp-service-account", "secret", _gcp_service_account, "GOOGLE_CREDENTIALS",
         contexts=("sa-json", "sa-json-in-json", "sa-text", "sa-env")),
    _tok("azure-storage-connection-string", _azure_storage, "AZURE_STORAGE_CONNECTION_STRING",
         None, contexts=CONN),
    _tok("azure-ad-client-secret",
         lambda r: f"{_r(r, B62, 3)}{r.randint(0, 9)}Q~{_r(r, B62 + '_~.-', 34)}",
         "AZURE_CLIENT_SECRET", None),
    _tok("slack-bot", _slack_bot, "SLACK_BOT_TOKEN", url="https://slack.com/api/auth.test?token={}"),
    _tok("slack-user", _slack_user, "SLACK_USER_TOKEN"),
    _tok("slack-app", _slack_app, "SLACK_APP_TOKEN"),
    _tok("slack-webhook", _slack_webhook, "SLACK_WEBHOOK_URL", None, contexts=(*CONN, "curl-url")),
    _tok("discord-bot", _discord_bot, "DISCORD_TOKEN", ("Authorization", "Bot {}")),
    _tok("discord-webhook", _discord_webhook, "DISCORD_WEBHOOK", None,
         contexts=(*CONN, "curl-url")),
    _tok("telegram-bot", lambda r: f"{_digits(r, 8, 10)}:AA{_r(r, URLSAFE, 33)}",
         "TELEGRAM_BOT_TOKEN", None, "https://api.telegram.org/bot{}/getUpdates?offset=1"),
    _tok("twilio-api-key", _fixed("SK", HEX, 32), "TWILIO_API_KEY", None),
    _tok("stripe-live-secret", _stripe("sk_live_"), "STRIPE_SECRET_KEY"),
    _tok("stripe-test-secret", _stripe("sk_test_"), "STRIPE_API_KEY"),
    _tok("stripe-restricted", _stripe("rk_live_"), "STRIPE_RESTRICTED_KEY"),
    _tok("stripe-webhook-secret", _fixed("whsec_", B62, 32), "STRIPE_WEBHOOK_SECRET", None),
    _tok("shopify-access-token", _fixed("shpat_", HEX, 32), "SHOPIFY_ACCESS_TOKEN",
         ("X-Shopify-Access-Token", "{}")),
    _tok("shopify-shared-secret", _fixed("shpss_", HEX, 32), "SHOPIFY_API_SECRET", None),
    _tok("openai-legacy", _openai_legacy, "OPENAI_API_KEY"),
    _tok("openai-project", _openai_project, "OPENAI_API_KEY"),
    _tok("anthropic", _fixed("sk-ant-api03-", URLSAFE, 93, "AA"), "ANTHROPIC_API_KEY",
         ("x-api-key", "{}")),
    _tok("anthropic-admin", _fixed("sk-ant-admin01-", URLSAFE, 93, "AA"), "ANTHROPIC_ADMIN_KEY",
         ("x-api-key", "{}")),
    _tok("huggingface", _fixed("hf_", string.ascii_letters, 34), "HF_TOKEN"),
    _tok("groq", _fixed("gsk_", B62, 52), "GROQ_API_KEY"),
    _tok("replicate", _fixed("r8_", B62, 37), "REPLICATE_API_TOKEN", ("Authorization", "Token {}")),
    _tok("perplexity", _fixed("pplx-", B62, 48), "PERPLEXITY_API_KEY"),
    _tok("xai", _fixed("xai-", B62, 80), "XAI_API_KEY"),
    _tok("npm", _checksummed("npm_"), "NPM_TOKEN"),
    _tok("pypi", _pypi, "PYPI_API_TOKEN", None),
    _tok("dockerhub", _fixed("dckr_pat_", URLSAFE, 27), "DOCKERHUB_TOKEN"),
    _tok("rubygems", _fixed("rubygems_", HEX, 48), "GEM_HOST_API_KEY", ("Authorization", "{}")),
    _tok("nuget", _fixed("oy2", string.ascii_lowercase + string.digits, 43), "NUGET_API_KEY",
         ("X-NuGet-ApiKey", "{}")),
    _tok("sendgrid", lambda r: f"SG.{_r(r, URLSAFE, 22)}.{_r(r, URLSAFE, 43)}",
         "SENDGRID_API_KEY"),
    _tok("mailgun", _fixed("key-", HEX, 32), "MAILGUN_API_KEY", None),
    _tok("mailchimp", lambda r: f"{_r(r, HEX, 32)}-us{r.randint(1, 21)}", "MAILCHIMP_API_KEY",
         None, vendor=False),
    _tok("postman", lambda r: f"PMAK-{_r(r, HEX, 24)}-{_r(r, HEX, 34)}", "POSTMAN_API_KEY",
         ("X-Api-Key", "{}")),
    _tok("sentry-user-token", _fixed("sntryu_", HEX, 64), "SENTRY_AUTH_TOKEN"),
    _tok("sentry-org-token", _sentry_org, "SENTRY_ORG_TOKEN"),
    _tok("datadog-api-key", _fixed("", HEX, 32), "DD_API_KEY", ("DD-API-KEY", "{}"),
         vendor=False),
    _tok("newrelic-user-key", _fixed("NRAK-", string.ascii_uppercase + string.digits, 27),
         "NEW_RELIC_API_KEY", ("Api-Key", "{}")),
    _tok("newrelic-license-key", _fixed("", HEX, 36, "NRAL"), "NEW_RELIC_LICENSE_KEY",
         ("X-License-Key", "{}"), vendor=False),
    _tok("grafana-service-account", lambda r: f"glsa_{_r(r, B62, 32)}_{_r(r, HEX, 8)}",
         "GRAFANA_TOKEN"),
    _tok("grafana-cloud", _grafana_cloud, "GRAFANA_CLOUD_TOKEN"),
    _tok("vault", _fixed("hvs.CAESI", URLSAFE, 86), "VAULT_TOKEN", ("X-Vault-Token", "{}")),
    _tok("doppler", _fixed("dp.pt.", B62, 43), "DOPPLER_TOKEN"),
    _tok("databricks", lambda r: f"dapi{_r(r, HEX, 32)}" + r.choice(["", "-2"]),
         "DATABRICKS_TOKEN"),
    _tok("digitalocean", _fixed("dop_v1_", HEX, 64), "DIGITALOCEAN_TOKEN"),
    _tok("heroku", _fixed("HRKU-AA", URLSAFE, 58), "HEROKU_API_KEY"),
    _tok("linear", _fixed("lin_api_", B62, 40), "LINEAR_API_KEY", ("Authorization", "{}")),
    _tok("notion", lambda r: f"ntn_{_digits(r, 11, 11)}{_r(r, B62, 35)}", "NOTION_TOKEN"),
    _tok("dropbox", _fixed("sl.B", URLSAFE, 134), "DROPBOX_ACCESS_TOKEN"),
    _tok("mapbox", _mapbox, "MAPBOX_SECRET_TOKEN", None,
         "https://api.mapbox.com/uploads/v1/acme?access_token={}"),
    _tok("atlassian", _atlassian, "JIRA_API_TOKEN", None),
    _tok("bitbucket-app-password", lambda r: f"ATBB{_r(r, B62, 32)}{_r(r, HEX.upper(), 8)}",
         "BITBUCKET_APP_PASSWORD", None),
    _tok("okta", _fixed("00", URLSAFE, 40), "OKTA_API_TOKEN", ("Authorization", "SSWS {}"),
         vendor=False),
    _tok("supabase", _fixed("sbp_", HEX, 40), "SUPABASE_ACCESS_TOKEN"),
    _tok("pulumi", _fixed("pul-", HEX, 40), "PULUMI_ACCESS_TOKEN", ("Authorization", "token {}")),
    _tok("terraform-cloud", lambda r: f"{_r(r, B62, 14)}.atlasv1.{_r(r, B62, 67)}", "TFE_TOKEN"),
    _tok("age-secret-key", _fixed("AGE-SECRET-KEY-1", BECH32, 58), "SOPS_AGE_KEY", None),
    _tok("square", _fixed("sq0atp-", URLSAFE, 22), "SQUARE_ACCESS_TOKEN"),
    _tok("airtable", lambda r: f"pat{_r(r, B62, 14)}.{_r(r, HEX, 64)}", "AIRTABLE_API_KEY"),
    _tok("jwt", _jwt, "ID_TOKEN", url="https://app.acme.dev/callback?id_token={}"),
    _tok("private-key-rsa", _pem_rsa, "private_key", None, contexts=PEM),
    _tok("private-key-ec", _pem_ec, "private_key", None, contexts=PEM),
    _tok("private-key-openssh", _pem_openssh, "private_key", None, contexts=PEM),
    _tok("private-key-pkcs8", _pem_pkcs8, "private_key", None, contexts=PEM),
    _tok("dsn-postgres", _dsn("postgresql", 5432), "DATABASE_URL", None, contexts=CONN),
    _tok("dsn-mysql", _dsn("mysql", 3306), "MYSQL_URL", None, contexts=CONN),
    _tok("dsn-mongodb-srv", _dsn("mongodb+srv", 0), "MONGODB_URI", None, contexts=CONN),
    _tok("dsn-redis", _dsn("redis", 6379), "REDIS_URL", None, contexts=CONN),
    _tok("dsn-amqp", _dsn("amqp", 5672), "CELERY_BROKER_URL", None, contexts=CONN),
    _tok("url-password", _url_userinfo, "PIP_INDEX_URL", None, contexts=(*CONN, "curl-url")),
    _tok("basic-auth", _basic, "", ("Authorization", "Basic {}"), vendor=False, contexts=HEADER),
    _tok("bearer-opaque", lambda r: _r(r, URLSAFE + ".~", r.randint(32, 64)), "",
         BEARER, vendor=False, contexts=HEADER),
    _tok("cookie-session", lambda r: _r(r, URLSAFE, r.randint(32, 48)), "",
         ("Cookie", "theme=dark; sessionid={}; lang=en"), vendor=False, contexts=HEADER),
    _tok("secret-field-password", _password, "password", None, vendor=False, contexts=FIELD),
    _tok("secret-field-random", lambda r: _r(r, B62, r.randint(24, 48)), "client_secret", None,
         vendor=False, contexts=FIELD),
]
