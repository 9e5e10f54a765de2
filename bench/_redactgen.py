"""A labeled corpus for ``bench/redact.py``: secrets, personal data and look-alikes that
must stay, each embedded in the places agent traces carry them.

    python bench/_redactgen.py [--seed 0] [--per-type 30] [--out FILE.jsonl]

Every value is made here from the provider's documented shape (prefix, alphabet, length,
checksum where one is public: GitHub's and npm's CRC32 tail, Luhn for cards, ISO 7064
mod 97 for IBANs); nothing is copied from a scanner's rule set. Each record is
``{id, kind: positive|negative, type, category, container: text|json, context, payload,
secret}``: ``secret`` is the part that must be gone after redaction (a DSN's password,
not the whole URL; a PEM block's body, not its armour lines), or for a negative the
look-alike that must stay. The same ``--seed`` gives the same corpus, and each type has
its own random stream, so adding a type does not change the others.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import string
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

__all__ = ["KINDS", "Kind", "generate"]

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
URLSAFE = B62 + "-_"
B64 = B62 + "+/"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _r(rng: Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64(data: bytes, url: bool = False, pad: bool = True) -> str:
    s = (base64.urlsafe_b64encode(data) if url else base64.b64encode(data)).decode()
    return s if pad else s.rstrip("=")


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


def _fixed(prefix: str, alphabet: str, n: int, suffix: str = "") -> Callable[[Random], str]:
    return lambda rng: prefix + _r(rng, alphabet, n) + suffix


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
    claims = {"iat": rng.randint(1.7e9, 1.8e9), "url": "https://sentry.io",
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


# --- personal data ----------------------------------------------------------------------

def _luhn_digit(partial: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(partial)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str(-total % 10)


def _card(prefixes: list[str], length: int, groups: tuple[int, ...],
          valid: bool = True) -> Callable[[Random], str]:
    def gen(rng: Random) -> str:
        head = rng.choice(prefixes)
        partial = head + _r(rng, string.digits, length - len(head) - 1)
        check = _luhn_digit(partial)
        if not valid:
            check = str((int(check) + rng.randint(1, 9)) % 10)
        number = partial + check
        sep = rng.choice(["", " ", "-"])
        if not sep:
            return number
        out, i = [], 0
        for g in groups:
            out.append(number[i:i + g])
            i += g
        return sep.join(out)
    return gen


def _mastercard_prefixes() -> list[str]:
    return [str(p) for p in range(51, 56)] + [str(p) for p in range(2221, 2721, 37)]


IBAN_BBAN = {  # country -> BBAN layout: "n" digit, "a" upper-case letter, "c" alphanumeric
    "DE": "n" * 18, "GB": "aaaa" + "n" * 14, "FR": "n" * 10 + "c" * 11 + "nn",
    "ES": "n" * 20, "NL": "aaaa" + "n" * 10, "IT": "a" + "n" * 10 + "c" * 12}


def _iban(country: str, valid: bool = True) -> Callable[[Random], str]:
    def gen(rng: Random) -> str:
        pools = {"n": string.digits, "a": string.ascii_uppercase,
                 "c": string.digits + string.ascii_uppercase}
        bban = "".join(rng.choice(pools[c]) for c in IBAN_BBAN[country])
        numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
        check = 98 - int(numeric) % 97
        if not valid:
            check = (check + rng.randint(1, 96) - 2) % 97 + 2
        iban = f"{country}{check:02d}{bban}"
        if rng.random() < 0.5:
            return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
        return iban
    return gen


def _email(rng: Random) -> str:
    first = rng.choice(["anna", "jose", "li.wei", "m.okafor", "sven", "priya", "j_smith"])
    tag = rng.choice(["", "", str(rng.randint(1, 99)), "+billing"])
    host = rng.choice(["gmail.com", "acme-corp.com", "mail.example.co.uk", "posteo.de",
                       "student.uni-heidelberg.de"])
    return f"{first}{tag}@{host}"


def _phone_e164(rng: Random) -> str:
    return rng.choice([
        f"+1{rng.randint(2, 9)}{_r(rng, string.digits, 2)}{rng.randint(2, 9)}"
        f"{_r(rng, string.digits, 6)}",
        f"+447{_r(rng, string.digits, 9)}", f"+4915{rng.randint(1, 9)}{_r(rng, string.digits, 8)}",
        f"+33{rng.choice('67')}{_r(rng, string.digits, 8)}",
        f"+91{rng.randint(6, 9)}{_r(rng, string.digits, 9)}",
        f"+55119{_r(rng, string.digits, 8)}"])


def _phone_us(rng: Random) -> str:
    a = f"{rng.randint(2, 9)}{_r(rng, string.digits, 2)}"
    b, c = f"{rng.randint(2, 9)}{_r(rng, string.digits, 2)}", _r(rng, string.digits, 4)
    return rng.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}"])


def _phone_uk(rng: Random) -> str:
    return rng.choice([f"07{_r(rng, string.digits, 3)} {_r(rng, string.digits, 6)}",
                       f"020 7{_r(rng, string.digits, 3)} {_r(rng, string.digits, 4)}"])


def _phone_de(rng: Random) -> str:
    return rng.choice([f"030 {rng.randint(2, 9)}{_r(rng, string.digits, 7)}",
                       f"01{rng.choice('567')}{rng.randint(0, 9)} {_r(rng, string.digits, 7)}",
                       f"089 / {_r(rng, string.digits, 3)} {_r(rng, string.digits, 4)}"])


def _phone_fr(rng: Random) -> str:
    return f"0{rng.choice('1234567')} " + " ".join(_r(rng, string.digits, 2) for _ in range(4))


def _ipv4(rng: Random) -> str:
    first = rng.choice([3, 13, 18, 34, 35, 52, 54, 81, 85, 91, 104, 142, 151, 185, 193, 212])
    return f"{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def _ipv6(rng: Random) -> str:
    groups = [rng.choice(["2a02", "2600", "2a01", "2001"]), rng.choice(["1f18", "8071", "4f8"])]
    groups += [f"{rng.randint(0, 0xffff):x}" for _ in range(6)]
    if rng.random() < 0.5:
        return ":".join(groups[:4]) + "::" + groups[7]
    return ":".join(groups)


# --- look-alikes that must stay ---------------------------------------------------------

def _uuid(rng: Random) -> str:
    h = _r(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _git_sha(rng: Random) -> str:
    return _r(rng, HEX, rng.choice([40, 40, 7, 12]))


def _data_uri(rng: Random) -> str:
    ihdr = b"\x00\x00\x00\rIHDR" + rng.randbytes(13) + rng.randbytes(4)
    png = b"\x89PNG\r\n\x1a\n" + ihdr + b"\x00\x00\x02\x00IDAT" + rng.randbytes(
        rng.randint(120, 900)) + b"\x00\x00\x00\x00IEND\xaeB`\x82"
    return "data:image/png;base64," + _b64(png)


def _timestamp(rng: Random) -> str:
    t = rng.randint(1_600_000_000, 1_900_000_000)
    if rng.random() < 0.3:
        return str(t * 1000 + rng.randint(0, 999))
    d = dt.datetime.fromtimestamp(t, dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{rng.randint(0, 999999):06d}Z"


def _semver(rng: Random) -> str:
    v = f"{rng.randint(0, 30)}.{rng.randint(0, 40)}.{rng.randint(0, 200)}"
    return rng.choice([v, v, f"{v}-rc.{rng.randint(1, 5)}", f"{v}+build.{rng.randint(1, 9999)}"])


def _version4(rng: Random) -> str:
    return f"v{rng.randint(1, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 60)}.{rng.randint(0, 99)}"


def _order(rng: Random) -> str:
    return rng.choice([f"ORD-{rng.randint(2019, 2026)}-{rng.randint(0, 999999):06d}",
                       f"#{rng.randint(10**8, 10**10)}", f"INV-{rng.randint(1000, 99999)}",
                       f"PO{rng.randint(10**6, 10**7)}"])


def _path(rng: Random) -> str:
    return rng.choice([
        f"/home/dev/src/acme-api/app/{rng.choice(['models', 'routes', 'jobs'])}/"
        f"{rng.choice(['billing', 'auth_tokens', 'secrets_manager'])}.py",
        f"C:\\Users\\dev\\AppData\\Local\\Temp\\tmp{_r(rng, string.ascii_lowercase, 6)}.json",
        "~/.config/gcloud/application_default_credentials.json",
        f"./node_modules/.cache/babel-loader/{_r(rng, HEX, 20)}.json",
        f"/var/log/nginx/access.log.{rng.randint(1, 9)}.gz"])


def _plain_url(rng: Random) -> str:
    return rng.choice([
        f"https://github.com/acme/api/pull/{rng.randint(1, 9999)}/files?diff=split",
        f"https://docs.acme.dev/guides/auth#{rng.choice(['tokens', 'api-keys', 'rotation'])}",
        f"https://console.cloud.google.com/logs/query?project=acme-prod-{rng.randint(100, 999)}",
        f"https://grafana.acme.dev/d/{_r(rng, B62, 9)}/latency?orgId=1&from=now-6h&to=now",
        f"https://www.youtube.com/watch?v={_r(rng, URLSAFE, 11)}"])


def _tool_call(rng: Random) -> dict[str, Any]:
    return rng.choice([
        {"tool": "read_file", "args": {"path": f"src/app/{rng.choice(['api', 'jobs'])}.py",
                                       "offset": rng.randint(0, 400), "limit": 80},
         "result": {"lines": rng.randint(1, 80), "truncated": False,
                    "content": "def handler(event):\n    return process(event['body'])\n"}},
        {"tool": "run_tests", "args": {"command": "pytest -q tests/unit", "timeout_s": 600},
         "result": {"exit_code": 1, "stdout": f"{rng.randint(10, 400)} passed, 1 failed in "
                                              f"{rng.random() * 30:.2f}s"}},
        {"tool": "search", "args": {"query": "token refresh race", "max_results": 5},
         "result": {"hits": [{"path": "src/auth/refresh.py", "line": rng.randint(1, 300),
                              "score": round(rng.random(), 3)} for _ in range(3)]}},
        {"tool": "http_get", "args": {"url": "https://api.acme.dev/v1/projects?limit=50"},
         "result": {"status": 200, "elapsed_ms": rng.randint(3, 900),
                    "body": {"items": [{"id": f"prj_{_r(rng, B62, 12)}", "name": "billing",
                                        "created_at": "2026-03-02T10:00:00Z"}]}}}])


# --- kinds ------------------------------------------------------------------------------

BEARER = ("Authorization", "Bearer {}")
TOKEN = ("env-dump", "dotenv", "yaml", "toml", "json-field", "json-in-json", "tool-stdout",
         "python-traceback", "java-trace", "chat", "headers", "har", "curl", "http-raw",
         "url-query")
CONN = ("env-dump", "dotenv", "yaml", "toml", "json-field", "json-in-json", "tool-stdout",
        "python-traceback", "java-trace", "chat", "log")
PEM = ("pem-file", "yaml-block", "json-field", "json-in-json", "tool-stdout", "chat")
HEADER = ("headers", "har", "curl", "http-raw", "json-in-json", "chat")
FIELD = ("env-dump", "dotenv", "yaml", "toml", "json-field", "json-in-json", "tool-stdout",
         "python-traceback", "chat")
PII = ("chat", "json-field", "log")
CONFIG = ("env-dump", "dotenv", "yaml", "toml", "json-field", "chat")


@dataclass(frozen=True)
class Kind:
    """One labeled type: how to make a value and the contexts it is embedded in.

    ``gen`` returns the value, or ``(secret, shown)`` when what must disappear is only
    part of what the trace shows (a DSN's password). ``name`` is the env/config/field
    name it travels under; ``vendor`` says a reader can tell it apart with no name next
    to it (a prefix or a structure), so the free-text contexts may show it bare."""

    type: str
    category: str
    gen: Callable[[Random], Any]
    name: str
    header: tuple[str, str] | None = None
    url: str | None = None
    vendor: bool = True
    contexts: tuple[str, ...] = TOKEN
    kind: str = "positive"

    def usable(self) -> tuple[str, ...]:
        drop = {"headers", "har", "curl", "http-raw"} if self.header is None else set()
        if self.url is None:
            drop.add("url-query")
        return tuple(c for c in self.contexts if c not in drop)


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

PERSONAL = [Kind(t, c, g, n, contexts=PII) for t, c, g, n in [
    ("email", "email", _email, "email"),
    ("phone-e164", "phone", _phone_e164, "phone"),
    ("phone-us", "phone", _phone_us, "phone"),
    ("phone-uk", "phone", _phone_uk, "phone"),
    ("phone-de", "phone", _phone_de, "phone"),
    ("phone-fr", "phone", _phone_fr, "phone"),
    ("card-visa", "card", _card(["4"], 16, (4, 4, 4, 4)), "card_number"),
    ("card-mastercard", "card", _card(_mastercard_prefixes(), 16, (4, 4, 4, 4)), "card_number"),
    ("card-amex", "card", _card(["34", "37"], 15, (4, 6, 5)), "card_number"),
    ("card-discover", "card", _card(["6011", "65", "644"], 16, (4, 4, 4, 4)), "card_number"),
    *[(f"iban-{c.lower()}", "iban", _iban(c), "iban") for c in IBAN_BBAN],
    ("ipv4", "ip", _ipv4, "client_ip"),
    ("ipv6", "ip", _ipv6, "client_ip"),
]]


def _neg(type_: str, category: str, gen: Callable[[Random], Any], name: str,
         contexts: tuple[str, ...] = PII, header: tuple[str, str] | None = None) -> Kind:
    return Kind(type_, category, gen, name, header, None, True, contexts, "negative")


NEGATIVES = [
    _neg("uuid", "secret", _uuid, "request_id", (*PII, "headers"), ("X-Request-Id", "{}")),
    _neg("git-sha", "secret", _git_sha, "commit"),
    _neg("trace-id", "secret", _fixed("", HEX, 32), "trace_id"),
    _neg("span-id", "secret", _fixed("", HEX, 16), "span_id"),
    _neg("traceparent", "secret", lambda r: f"00-{_r(r, HEX, 32)}-{_r(r, HEX, 16)}-01",
         "traceparent", ("headers", "har", "json-field", "log"), ("traceparent", "{}")),
    _neg("sha256", "secret", _fixed("", HEX, 64), "sha256"),
    _neg("sha512", "secret", lambda r: r.choice(["", "sha512:"]) + _r(r, HEX, 128), "checksum"),
    _neg("data-uri-png", "secret", _data_uri, "image"),
    _neg("npm-integrity", "secret", lambda r: "sha512-" + _b64(r.randbytes(64)), "integrity"),
    _neg("aws-example-key-id", "secret", lambda r: "AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID",
         CONFIG),
    _neg("aws-example-secret", "secret", lambda r: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
         "AWS_SECRET_ACCESS_KEY", CONFIG),
    _neg("stripe-publishable", "secret",
         lambda r: _stripe(r.choice(["pk_live_", "pk_test_"]))(r), "STRIPE_PUBLISHABLE_KEY",
         CONFIG),
    _neg("timestamp", "phone", _timestamp, "created_at"),
    _neg("semver", "ip", _semver, "version"),
    _neg("version-4part", "ip", _version4, "build"),
    _neg("order-number", "card", _order, "order_id"),
    _neg("luhn-invalid-16", "card", _card(["4", "51", "6011"], 16, (4, 4, 4, 4), valid=False),
         "reference"),
    _neg("iban-bad-checksum", "iban", lambda r: _iban(r.choice(list(IBAN_BBAN)), False)(r),
         "iban"),
    _neg("file-path", "secret", _path, "path"),
    _neg("plain-url", "secret", _plain_url, "url"),
    _neg("tool-call", "secret", _tool_call, "", ("tool-json", "tool-text")),
]

KINDS: list[Kind] = SECRETS + PERSONAL + NEGATIVES


# --- contexts: where a value sits in a trace ---------------------------------------------

ENV_LINES = ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/dev", "LANG=C.UTF-8",
             "SHELL=/bin/bash", "PWD=/workspace/app", "HOSTNAME=runner-7f9c2", "CI=true",
             "TERM=xterm-256color", "PYTHONUNBUFFERED=1", "GIT_BRANCH=main", "TZ=UTC"]
WHEN = "2026-11-30T10:15:02.114Z"


def _host_of(k: Kind) -> str:
    return f"api.{k.type.split('-')[0]}.example.com"


def _field(k: Kind) -> str:
    return (k.name or "token").lower()


def _scalar(v: str) -> str:
    """A YAML/TOML scalar: JSON's double-quoted string is valid in both."""
    return json.dumps(v) if not v[:1].isalnum() or ": " in v or " #" in v else v


def _header_value(k: Kind, shown: str) -> tuple[str, str]:
    assert k.header is not None
    return k.header[0], k.header[1].format(shown)


def _env_dump(rng: Random, k: Kind, shown: str) -> str:
    lines = rng.sample(ENV_LINES, 7)
    lines.insert(rng.randrange(len(lines) + 1), f"{k.name or 'TOKEN'}={shown}")
    return "\n".join(lines) + "\n"


def _named_text(k: Kind, shown: str) -> str:
    if k.header is not None and not k.name:
        return "{}: {}".format(*_header_value(k, shown))
    return f"{k.name}={shown}"


def _chat(rng: Random, k: Kind, shown: str) -> str:
    if k.kind == "negative" or k.category != "secret":
        label = k.name.replace("_", " ").lower()
        return rng.choice([f"Hi, my {label} is {shown}, can you check the order?",
                           f"Thanks! For the record the {label} was {shown}.",
                           f"ok so {label}: {shown} — does that look right to you?"])
    if "\n" in shown:
        return f"Here's the key the deploy uses:\n```\n{shown}```\nwhy does ssh reject it?"
    if not k.vendor:
        return f"my settings are\n{_named_text(k, shown)}\nand the API still says 401"
    return rng.choice([f"here is my key: {shown} can you check why the deploy fails?",
                       f"I pasted {shown} into the config but the API answers 401.",
                       f"use this one → {shown}"])


def _traceback(rng: Random, k: Kind, shown: str) -> str:
    code = f'client = connect({_field(k)}="{shown}")' if not k.vendor else \
        "client = connect(settings.credentials)"
    msg = f"rejected credentials {shown}" if k.vendor else "rejected credentials"
    return ("Traceback (most recent call last):\n"
            f'  File "/srv/app/worker.py", line {rng.randint(20, 400)}, in run\n'
            f"    {code}\n"
            '  File "/srv/app/client.py", line 42, in connect\n'
            "    raise PermissionError(f\"rejected credentials {creds}\")\n"
            f"PermissionError: {msg}\n")


def _java(rng: Random, k: Kind, shown: str) -> str:
    what = shown if k.vendor else f"{k.name}={shown}"
    return (f'Exception in thread "main" com.acme.client.AuthException: auth failed for {what}\n'
            f"\tat com.acme.client.Http.call(Http.java:{rng.randint(40, 300)})\n"
            "\tat com.acme.billing.Sync.run(Sync.java:87)\n"
            "\tat java.base/java.lang.Thread.run(Thread.java:1583)\n")


def _text_ctx(ctx: str, rng: Random, k: Kind, shown: str) -> str:
    host = _host_of(k)
    if ctx == "env-dump":
        return _env_dump(rng, k, shown)
    if ctx == "dotenv":
        q = rng.choice(['"', "", "'"])
        return f"# local settings\nAPP_ENV=production\nPORT=8080\n{k.name}={q}{shown}{q}\n" \
               "LOG_LEVEL=info\n"
    if ctx == "yaml":
        return f"service: billing-api\nreplicas: 3\nsecrets:\n  {_field(k)}: {_scalar(shown)}\n" \
               "  rotate_days: 30\n"
    if ctx == "toml":
        return f'[service]\nname = "billing-api"\n\n[credentials]\n{_field(k)} = ' \
               f"{json.dumps(shown)}\ntimeout = 30\n"
    if ctx == "python-traceback":
        return _traceback(rng, k, shown)
    if ctx == "java-trace":
        return _java(rng, k, shown)
    if ctx == "chat":
        return _chat(rng, k, shown)
    if ctx == "curl":
        name, value = _header_value(k, shown)
        return f"curl -sS -X POST https://{host}/v1/jobs -H '{name}: {value}' " \
               "-H 'Content-Type: application/json' -d '{\"limit\": 10}'"
    if ctx == "curl-url":
        return f"curl -sS -X POST -H 'Content-Type: application/json' " \
               f"-d '{{\"text\": \"deploy done\"}}' '{shown}'"
    if ctx == "http-raw":
        name, value = _header_value(k, shown)
        return f"POST /v1/messages HTTP/1.1\nHost: {host}\n{name}: {value}\n" \
               "Content-Type: application/json\nContent-Length: 17\n\n{\"model\": \"m-1\"}"
    if ctx == "url-query":
        assert k.url is not None
        return f"{WHEN} INFO http.client GET {k.url.format(shown)} -> 401 " \
               f"({rng.randint(3, 900)} ms)"
    if ctx == "log":
        if k.category == "secret" and k.kind == "positive":
            return f"{WHEN} ERROR app.db: could not connect to {shown}: timeout after 30s"
        return f"{WHEN} INFO app.events {_field(k) or 'value'}={shown} status=ok " \
               f"duration_ms={rng.randint(1, 900)}"
    if ctx == "pem-file":
        return shown
    if ctx == "yaml-block":
        body = "\n".join("    " + ln for ln in shown.rstrip("\n").split("\n"))
        return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\nstringData:\n" \
               f"  tls.key: |\n{body}\n"
    raise KeyError(ctx)


def _json_ctx(ctx: str, rng: Random, k: Kind, shown: str) -> Any:
    host = _host_of(k)
    if ctx == "headers":
        name, value = _header_value(k, shown)
        return {"method": "POST", "url": f"https://{host}/v1/jobs",
                "headers": {"Content-Type": "application/json", "User-Agent": "agent/1.4",
                            name: value, "Accept": "application/json"}}
    if ctx == "har":
        name, value = _header_value(k, shown)
        return {"request": {"method": "GET", "url": f"https://{host}/v1/me",
                            "httpVersion": "HTTP/1.1",
                            "headers": [{"name": "Accept", "value": "*/*"},
                                        {"name": name, "value": value}]},
                "response": {"status": 401, "statusText": "Unauthorized",
                             "headers": [{"name": "Content-Type", "value": "application/json"}]}}
    if ctx == "json-field":
        values = {_field(k) or "value": shown, "region": "eu-west-1"}
        if k.kind == "negative" or k.category != "secret":
            return {"event": "customer.updated", "data": values | {"plan": "pro"}}
        if rng.random() < 0.5:
            return {"id": f"call_{_r(rng, B62, 24)}", "name": "set_secret",
                    "arguments": {"key": k.name or "TOKEN", "value": shown}}
        return {"tool": "write_config", "args": {"path": "config/prod.json", "values": values}}
    if ctx == "json-in-json":
        if k.header is not None and not k.name:
            inner: Any = {"request": {"headers": dict([_header_value(k, shown)])}}
        elif k.vendor and rng.random() < 0.5:
            inner = {"ok": False, "error": f"401 Unauthorized: credential {shown} is revoked"}
        else:
            inner = {"status": "ok", "config": {_field(k): shown, "retries": 3}}
        return {"type": "tool_result", "tool_use_id": f"toolu_{_r(rng, B62, 22)}",
                "content": json.dumps(inner)}
    if ctx == "tool-stdout":
        if "\n" in shown:
            cmd, out = "cat ~/.ssh/deploy_key", shown
        else:
            cmd, out = "env | sort", _env_dump(rng, k, shown)
        return {"tool": "bash", "args": {"command": cmd},
                "result": {"exit_code": 0, "stdout": out, "stderr": ""}}
    raise KeyError(ctx)


def _sa_ctx(ctx: str, rng: Random, doc: dict[str, Any]) -> tuple[str, Any]:
    if ctx == "sa-json":
        return "json", {"tool": "read_file", "args": {"path": "secrets/sa.json"},
                        "result": {"content": doc}}
    if ctx == "sa-json-in-json":
        return "json", {"type": "tool_result", "tool_use_id": f"toolu_{_r(rng, B62, 22)}",
                        "content": json.dumps(doc, indent=2)}
    if ctx == "sa-text":
        return "text", json.dumps(doc, indent=2) + "\n"
    if ctx == "sa-env":
        return "text", f"CI=true\nGOOGLE_CREDENTIALS='{json.dumps(doc)}'\nREGION=eu-west-1\n"
    raise KeyError(ctx)


def _tool_ctx(ctx: str, call: dict[str, Any]) -> tuple[str, Any]:
    if ctx == "tool-json":
        return "json", call
    return "text", f"$ {call['tool']} {json.dumps(call['args'])}\n{json.dumps(call['result'])}\n"


JSON_CONTEXTS = {"headers", "har", "json-field", "json-in-json", "tool-stdout"}


def _record(k: Kind, i: int, rng: Random) -> dict[str, Any]:
    ctxs = k.usable()
    ctx = ctxs[i % len(ctxs)]
    value = k.gen(rng)
    secret, shown = value if isinstance(value, tuple) else (value, value)
    if ctx.startswith("sa-"):
        container, payload = _sa_ctx(ctx, rng, shown)
    elif ctx.startswith("tool-") and k.type == "tool-call":
        container, payload = _tool_ctx(ctx, shown)
        secret = json.dumps(shown)
    elif ctx in JSON_CONTEXTS:
        container, payload = "json", _json_ctx(ctx, rng, k, shown)
    else:
        container, payload = "text", _text_ctx(ctx, rng, k, shown)
    return {"id": f"{k.type}-{i:03d}", "kind": k.kind, "type": k.type, "category": k.category,
            "container": container, "context": ctx, "payload": payload, "secret": secret}


def generate(seed: int = 0, per_type: int = 30) -> list[dict[str, Any]]:
    """The corpus: ``per_type`` records of every kind, contexts taken in turn."""
    out = []
    for k in KINDS:
        rng = Random(f"{seed}:{k.type}")
        out.extend(_record(k, i, rng) for i in range(per_type))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-type", type=int, default=30)
    ap.add_argument("--out", help="a JSONL file (default: stdout)")
    args = ap.parse_args(argv)
    recs = generate(args.seed, args.per_type)
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(lines)
    else:
        sys.stdout.write(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
