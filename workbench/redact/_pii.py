"""Personal data in free text: emails, phone numbers, payment cards, IBANs, IP addresses.

Each finder validates what a regex proposes (Luhn for cards, ISO 7064 mod 97 and the
country's length for IBANs, ``ipaddress`` for IPv6), because machine text is full of
look-alikes: timestamps, version numbers, ids, durations, hashes. Kept on purpose
(they are evidence, not personal data): loopback (``127.0.0.0/8``, ``::1``), the
unspecified address (``0.0.0.0``, ``::``), broadcast (``255.255.255.255``) and netmasks,
``git@github.com:org/repo`` SSH remotes, and the user part of a URL (``https://bob@…``
keeps ``bob``, like ``user:password@`` keeps the user).
"""

from __future__ import annotations

import ipaddress
import re

from ._hits import Hit

__all__ = [
    "find_cards",
    "find_emails",
    "find_ibans",
    "find_ipv4",
    "find_ipv6",
    "find_phones",
    "iban_ok",
    "luhn_ok",
]

# -- email ------------------------------------------------------------------------------

_LOCAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._%+_-]{0,63}$")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
                     r"(?P<tld>[A-Za-z]{2,24})(?![\x00A-Za-z0-9-])")
# names that end like a domain but are files: image@2x.png, report@v2.pdf
_FILE_TLDS = frozenset({
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "pdf", "js", "mjs", "cjs",
    "ts", "tsx", "jsx", "css", "scss", "html", "htm", "json", "yaml", "yml", "toml", "txt",
    "lock", "log", "zip", "gz", "tgz", "tar", "whl", "exe", "dll", "mp3", "mp4", "wav",
    "csv", "tsv", "xml", "py", "md", "rb", "java", "kt", "swift", "cpp", "hpp", "sh", "rs",
    "map", "min", "wasm", "bin", "dat", "tmp", "bak", "orig", "patch", "diff",
})


_NOT_USERINFO = re.compile(r"[\s/@\"'<>]")


def find_emails(text: str) -> list[Hit]:
    """Email addresses (not SSH remotes, URL users or ``name@2x.png`` files)."""
    hits: list[Hit] = []
    at = text.find("@")
    while at != -1:
        local = _LOCAL.search(text, max(0, at - 64), at)
        dom = _DOMAIN.match(text, at + 1) if local else None
        if local and dom:
            start = local.start()
            end = dom.end()
            if _is_email(text, start, end, dom):
                hits.append(Hit(start, end, "email", "email"))
        at = text.find("@", at + 1)
    return hits


def _is_email(text: str, start: int, end: int, dom: re.Match[str]) -> bool:
    if dom.group("tld").lower() in _FILE_TLDS:
        return False
    seg = text[max(0, start - 128):start]
    scheme = seg.rfind("://")
    if scheme != -1 and _NOT_USERINFO.search(seg, scheme + 3) is None:
        return False  # https://bob@host, scheme://user:password@host: a URL's userinfo
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_\0"):
        return False
    if text[end:end + 1] == ":" and text[end + 1:end + 2] not in ("", " ", "\n", "\t"):
        return False  # git@github.com:org/repo.git
    if text[end:end + 1] == "@":
        return False
    return re.match(r"\d+x\.", dom.group()) is None


# -- phone ------------------------------------------------------------------------------

# each starts with a literal or a character class (never a lookbehind), so that the
# regex engine skips to candidates at C speed
_PHONE_INTL = re.compile(r"\+(?<![\x00\w+]\+)[1-9](?:[ .\-()/]{0,2}\d){7,14}(?![\x00\w-]|[.,]\d)")
# North American: (415) 555-2671, 415-555-2671, 415.555.2671, 1-800-555-0199
_PHONE_NANP = re.compile(
    r"[(2-9](?<!\d\d[ .-][(2-9])"
    r"(?:(?<![\x00\w+.\-/][(2-9])|(?<=[^\w+.\-/]1[ .-][(2-9])|(?<=\A1[ .-][(2-9]))"
    r"(?:(?<=\()[2-9]\d\d\) ?|(?<=[2-9])\d\d[ .-])[2-9]\d\d[ .-]\d{4}(?![\x00\w-]|[.,]\d)")
# national with a trunk 0: 020 7946 0958, 06 12 34 56 78, 0151 1234567, 089 / 123 4567
_PHONE_TRUNK = re.compile(
    r"0(?<![\x00\w+.\-/:]0)(?<!\d[ .\-/]0)\d{1,4}(?:\s?/\s?\d{2,8}(?: \d{2,8}){0,3}"
    r"|(?P<sep>[ .-])\d{2,8}(?:(?P=sep)\d{2,8}){0,3})(?![\x00\w-]|[.,]\d)")


def find_phones(text: str) -> list[Hit]:
    """Phone numbers: E.164 (``+4915112345678``, ``+1 415 555 2671``), North American
    (with an optional ``1-`` trunk) and trunk-0 national formats; 8-15 digits for
    international, 10 for North American, 9-12 for national."""
    hits: list[Hit] = []
    for rx, lo, hi in ((_PHONE_INTL, 8, 15), (_PHONE_NANP, 10, 10), (_PHONE_TRUNK, 9, 12)):
        for m in rx.finditer(text):
            start = m.start()
            if rx is _PHONE_NANP and text[start - 2:start - 1] == "1" and start >= 2:
                start -= 2  # 1-800-555-0199: the leading 1 and its separator
            digits = sum(c.isdigit() for c in text[m.start():m.end()])
            if rx is _PHONE_TRUNK and text.startswith("000", start):
                continue  # no country or area code is 00: 000-12-3456 is no phone
            if lo <= digits <= hi and not _in_blob(text, start, m.end()):
                hits.append(Hit(start, m.end(), "phone", "phone"))
    return hits


_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _in_blob(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` sits inside a long run of base64 characters (an
    encoded blob), where digit runs are noise, not numbers."""
    left = start
    while left > 0 and start - left < 64 and text[left - 1] in _B64_CHARS:
        left -= 1
    right = end
    while right < len(text) and right - end < 64 and text[right] in _B64_CHARS:
        right += 1
    return (start - left) + (right - end) >= 40


# -- cards ------------------------------------------------------------------------------

_CARDS = re.compile(
    r"[2-6](?<![\x00\w.+/-][2-6])(?<!\d[ -][2-6])(?:\d{12,18}"
    r"|\d{3}(?P<s1>[ -])\d{4}(?P=s1)\d{4}(?P=s1)\d{1,4}(?:(?P=s1)\d{1,3})?"
    r"|(?<=3)\d{3}(?P<s2>[ -])\d{6}(?P=s2)\d{4,5})(?![\x00\w-]|[.,]\d)")
# issuer prefixes (IIN ranges) of the major networks
_ISSUER = re.compile(
    r"4|5[1-5]|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[47]|30[0-5]|3[689]"
    r"|35(?:2[89]|[3-8]\d)|6011|64[4-9]|65|62|5[06-8]|6[37]")


def luhn_ok(digits: str) -> bool:
    """The Luhn (mod 10) check of a digit string."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def find_cards(text: str) -> list[Hit]:
    """Payment card numbers: 13-19 digits of a known issuer, Luhn-valid, written
    together or in the usual groups (4-4-4-4, 4-6-5) with spaces or dashes."""
    hits: list[Hit] = []
    for m in _CARDS.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if (13 <= len(digits) <= 19 and _ISSUER.match(digits) and luhn_ok(digits)
                and not _in_blob(text, m.start(), m.end())):
            hits.append(Hit(m.start(), m.end(), "card", "card"))
    return hits


# -- IBAN -------------------------------------------------------------------------------

#: country -> IBAN length (ISO 13616 registry)
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
    "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
    "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20,
    "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
    "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
}
_IBANS = re.compile(r"[A-Z](?<![\x00A-Za-z0-9][A-Z])[A-Z]\d{2}(?: ?[A-Z0-9]){11,30}")


def iban_ok(iban: str) -> bool:
    """ISO 7064 mod 97-10 check of a compact IBAN of the right length for its country."""
    if IBAN_LENGTHS.get(iban[:2]) != len(iban) or not iban.isalnum():
        return False
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def find_ibans(text: str) -> list[Hit]:
    """IBANs with a valid checksum, compact or printed in groups of four."""
    hits: list[Hit] = []
    m = _IBANS.search(text)
    while m is not None:
        want = IBAN_LENGTHS.get(m.group()[:2], 0)
        end, n = m.start(), 0
        while n < want and end < m.end():  # the first `want` characters, spaces skipped
            if text[end] != " ":
                n += 1
            end += 1
        if (n == want and not (end < len(text) and text[end].isalnum())
                and iban_ok(text[m.start():end].replace(" ", ""))):
            hits.append(Hit(m.start(), end, "iban", "iban"))
            m = _IBANS.search(text, end)  # the greedy match may have run into the next
        else:
            m = _IBANS.search(text, m.start() + 1)
    return hits


# -- IP addresses ---------------------------------------------------------------------------

_IPV4 = re.compile(r"\d(?<![\x00\w.]\d)\d{0,2}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\x00\w]|\.\d)")
# a version keyword (``v1.2.3.4``, ``version: 1.2.3.4``, ``v="8.0.0.0"`` in Sec-CH-UA
# headers) or a product token (``Chrome/110.0.0.0`` in User-Agent strings)
_VERSION_BEFORE = re.compile(
    r"(?i:\bv|\bversion|\bver\.?|\brelease|\bbuild)[\s:=#\"']*$|\b[A-Za-z][\w-]*/$")
_MASK_OCTETS = frozenset({"0", "128", "192", "224", "240", "248", "252", "254", "255"})


def _kept_ipv4(addr: str) -> bool:
    """Loopback, unspecified, broadcast and netmasks are evidence, not personal data."""
    octets = addr.split(".")
    if octets[0] in ("127", "0") or addr == "255.255.255.255":
        return True
    return octets[0] == "255" and all(o in _MASK_OCTETS for o in octets)


def find_ipv4(text: str) -> list[Hit]:
    """Dotted-quad IPv4 addresses; not version strings (``v1.2.3.4``, ``version
    1.2.3.4``, ``Chrome/110.0.0.0``) or parts of longer dotted numbers (OIDs,
    ``1.2.3.4.5``)."""
    hits: list[Hit] = []
    for m in _IPV4.finditer(text):
        octets = m.group().split(".")
        if any((len(o) > 1 and o[0] == "0") or int(o) > 255 for o in octets):
            continue
        if _kept_ipv4(m.group()):
            continue
        if _VERSION_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        hits.append(Hit(m.start(), m.end(), "ipv4", "ip"))
    return hits


_V6_SEED = re.compile(r"::|:[0-9A-Fa-f]{1,4}:")
_V6_CHARS = frozenset("0123456789abcdefABCDEF:.")


def find_ipv6(text: str) -> list[Hit]:
    """IPv6 addresses, full or ``::``-compressed (with an embedded IPv4 allowed);
    not ``::`` or ``::1``, not times (``12:34:56``), MACs or ``Foo::bar`` paths."""
    hits: list[Hit] = []
    done = -1
    for seed in _V6_SEED.finditer(text):
        if seed.start() < done:
            continue
        start, end = seed.start(), seed.end()
        while start > 0 and end - start < 45 and text[start - 1] in _V6_CHARS:
            start -= 1
        while end < len(text) and end - start < 45 and text[end] in _V6_CHARS:
            end += 1
        done = end
        while end > start and text[end - 1] == ".":
            end -= 1
        hit = _ipv6_hit(text, start, end)
        if hit is not None:
            hits.append(hit)
    return hits


def _ipv6_hit(text: str, start: int, end: int) -> Hit | None:
    if (start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_\0")) or (
            end < len(text) and (text[end].isalnum() or text[end] in "_\0")):
        return None  # glued to a word: std::vec, Foo::bar
    s = text[start:end]
    if "::" not in s and s.count(":") != 7 and not (s.count(":") == 6 and "." in s):
        return None
    try:
        addr = ipaddress.IPv6Address(s)
    except ValueError:
        return None
    mapped = addr.ipv4_mapped
    if addr.is_loopback or addr.is_unspecified or (mapped and _kept_ipv4(str(mapped))):
        return None
    if "::" in s and not _substantial(s):
        return None
    return Hit(start, end, "ipv6", "ip")


def _substantial(s: str) -> bool:
    """A compressed address needs a digit and (three groups or a group of three or more
    hex digits): ``fe80::1ff:fe23`` yes, ``a::b`` or ``1::2`` (slices, code) no."""
    groups = [g for g in re.split(r":+", s) if g]
    return any(c.isdigit() for c in s) and (len(groups) >= 3 or any(len(g) >= 3 for g in groups))
