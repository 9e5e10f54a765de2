"""Personal data and look-alikes for ``_redactgen.py``: emails, phone numbers, cards
(Luhn), IBANs (ISO 7064 mod 97) and IP addresses, listed in ``PERSONAL``; and the values
that must stay although they look like a secret or personal data (UUIDs, git SHAs,
digests, base64 images, documented example keys, timestamps, versions, order numbers,
bad checksums, paths, URLs, ordinary tool calls), listed in ``NEGATIVES``.
"""

from __future__ import annotations

import datetime as dt
import string
from collections.abc import Callable
from random import Random
from typing import Any

from _redactgen_kind import B62, CONFIG, HEX, PII, URLSAFE, Kind, _b64, _fixed, _r
from _redactgen_secrets import _stripe

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


# --- personal and look-alike kinds ------------------------------------------------------

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
