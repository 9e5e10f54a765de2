"""Personal data: emails, phones, cards, IBANs, IPs, and the machine-text look-alikes
(timestamps, versions, ids, durations, hashes) that must stay."""

from __future__ import annotations

import pytest

from workbench.redact._detect import find
from workbench.redact._pii import iban_ok, luhn_ok


def hits(text: str) -> list[tuple[str, str]]:
    return [(text[h.start:h.end], h.detector) for h in find(text)]


def luhn_complete(partial: str) -> str:
    for d in "0123456789":
        if luhn_ok(partial + d):
            return partial + d
    raise AssertionError(partial)


def iban(country: str, bban: str) -> str:
    for check in range(2, 99):
        cand = f"{country}{check:02d}{bban}"
        if iban_ok(cand):
            return cand
    raise AssertionError(bban)


# -- email --------------------------------------------------------------------------------

@pytest.mark.parametrize("email", ["anna@gmail.com", "li.wei+billing@student.uni-heidelberg.de",
                                   "j_smith@mail.example.co.uk", "ops-team@acme-corp.com"])
@pytest.mark.parametrize("context", ["Hi, my email is {e}, thanks", '{{"email": "{e}"}}',
                                     "mailto:{e}", "<{e}>", "user={e} status=ok"])
def test_emails(email: str, context: str) -> None:
    assert hits(context.format(e=email)) == [(email, "email")]


@pytest.mark.parametrize("text", [
    "git@github.com:org/repo.git", "git clone git@gitlab.com:group/proj.git",
    "icon@2x.png and logo@3x.webp", "npm i @types/node@18.2.0", "@app.route('/x')",
    "https://bob@example.com/path", "user@localhost", "version pkg@1.2.3",
])
def test_not_emails(text: str) -> None:
    assert hits(text) == [], text


# -- phone ---------------------------------------------------------------------------------

@pytest.mark.parametrize("phone", [
    "+14155552671", "+1 415 555 2671", "+44 20 7946 0958", "+4915112345678",
    "+33 6 12 34 56 78", "(415) 555-2671", "415-555-2671", "415.555.2671", "1-800-555-0199",
    "020 7946 0958", "07911 123456", "06 12 34 56 78", "030 21234567", "0151 1234567",
    "089 / 123 4567",
])
@pytest.mark.parametrize("context", ["call {p} now", '{{"phone": "{p}"}}', "phone={p} ok",
                                     "Hi, my phone is {p}, can you check?"])
def test_phones(phone: str, context: str) -> None:
    assert hits(context.format(p=phone)) == [(phone, "phone")]


@pytest.mark.parametrize("text", [
    "2026-03-02T10:00:00.123456Z", "1767225600123", "1700000000", "12:34:56", "v1.2.3",
    "took 1.234567s", "pi=3.14159265", "order ORD-2024-000123", "#1234567890",
    "PO1234567", "port 5432", "2024-01-15 10:23", "01.02.2024 10:30", "1e+10",
    "@@ -1,5 +1,7 @@", "id 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "ratio 0.25 0.50 0.75", "build 20241022", "+0530", "tz +05:30",
])
def test_not_phones(text: str) -> None:
    assert [h for h in hits(text) if h[1] == "phone"] == [], text


# -- cards ---------------------------------------------------------------------------------

VISA = luhn_complete("411111111111111")
AMEX = luhn_complete("37828224631000")
MC = luhn_complete("555555555555444")
DISCOVER = luhn_complete("601111111111111")


@pytest.mark.parametrize("card", [VISA, MC, DISCOVER, AMEX,
                                  " ".join(VISA[i:i + 4] for i in range(0, 16, 4)),
                                  "-".join(MC[i:i + 4] for i in range(0, 16, 4)),
                                  f"{AMEX[:4]} {AMEX[4:10]} {AMEX[10:]}"])
def test_cards(card: str) -> None:
    assert hits(f"card_number={card} status=ok") == [(card, "card")]
    assert hits(f'{{"card": "{card}"}}') == [(card, "card")]


def test_not_cards() -> None:
    bad = VISA[:-1] + str((int(VISA[-1]) + 1) % 10)
    assert not luhn_ok(bad)
    assert hits(f"reference {bad}") == []
    assert hits("ns 1700000000123456789 and ms 1767225600123") == []  # epochs: no issuer
    assert hits("1234 5678 9012 3456") == []                           # issuer 1


# -- IBAN --------------------------------------------------------------------------------------

DE = iban("DE", "370400440532013000")
GB = iban("GB", "WEST12345698765432")
FR = iban("FR", "30006000011234567890189")


@pytest.mark.parametrize("value", [DE, GB, FR, " ".join(DE[i:i + 4] for i in range(0, 22, 4)),
                                   " ".join(GB[i:i + 4] for i in range(0, 22, 4))])
def test_ibans(value: str) -> None:
    assert hits(f"Hi, my iban is {value}, can you check?") == [(value, "iban")]
    assert hits(f"iban={value} status=ok") == [(value, "iban")]


def test_two_ibans_in_a_row_and_bad_checksums() -> None:
    spaced = " ".join(DE[i:i + 4] for i in range(0, 22, 4))
    assert hits(f"{spaced} {GB}") == [(spaced, "iban"), (GB, "iban")]
    bad = DE[:2] + f"{(int(DE[2:4]) + 1) % 97:02d}" + DE[4:]
    assert hits(f"iban {bad}") == []


# -- IP ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("ip", "det"), [
    ("85.12.34.56", "ipv4"), ("10.0.0.5", "ipv4"), ("192.168.1.20", "ipv4"),
    ("2001:db8:85a3::8a2e:370:7334", "ipv6"), ("2a02:1f18:0:0:0:0:0:ff01", "ipv6"),
    ("fe80::1ff:fe23:4567:890a", "ipv6"), ("2001:db8::1", "ipv6"),
    ("::ffff:203.0.113.9", "ipv6"),
])
def test_ips(ip: str, det: str) -> None:
    assert hits(f"client {ip} connected") == [(ip, det)]
    assert hits(f"connect ECONNREFUSED {ip}:5432") == [(ip, det)] or ":" in ip


@pytest.mark.parametrize("text", [
    "127.0.0.1", "0.0.0.0", "255.255.255.255", "255.255.255.0", "::1", "::", "::ffff:127.0.0.1",
    "v1.2.3.4", "version 10.0.0.1", "Chrome/120.0.6099.109", "1.3.6.1.4.1.311",
    "12:34:56", "std::vec::Vec", "a[::2]", "Foo::Bar::baz", "00:1a:2b:3c:4d:5e", "1.2.3.4.5",
    "999.1.1.1", "01.02.03.04",
    # browser versions that happen to be valid dotted quads (a HAR file's User-Agent and
    # Sec-CH-UA-Full-Version-List headers)
    "Mozilla/5.0 (KHTML, like Gecko) Chrome/110.0.0.0 Safari/537.36",
    '"Not.A/Brand";v="8.0.0.0", "Chromium";v="114.0.5735.198"',
])
def test_not_ips(text: str) -> None:
    assert hits(text) == [], text
