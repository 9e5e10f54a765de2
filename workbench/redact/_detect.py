"""``find`` and ``maybe``: every detector behind one cheap gate.

The gate is one compiled regex over the text **reversed** (and a small one over the
text as it is). Reversed, because the anchors that must be cheap to look for end in
rare characters: a vendor prefix ends in ``_``, ``-``, ``.`` or a capital (``ghp_``,
``xoxb-``, ``hvs.``, ``AKIA``; ``_catalog.best_anchor`` picks the part to look for),
and a secret-named assignment ends in an operator (``password=``, ``"api_key":``). In
the reversed text the scan only stops at symbols, digits, capitals and a few rare
letters, and Python's regex engine skips the rest at C speed. The gate fires on:

- any vendor literal or structural keyword (``-----``, ``eyJ``, ``@``, ``::``, ``curl``);
- an assignment operator right after a secret-named name (``ENDINGS``) or a provider
  name (``password=``, ``"x-api-key":``, ``ALGOLIA_KEY=``), a quote right after one
  (``"authorization"`` as a JSON value), ``<password>``;
- digit shapes of phone numbers, cards, IBANs and IPv4, and full-form IPv6;
- the structure of formats with no fixed word (``Rule.anchor``);
- in the text as it is: a ``--secret-flag`` followed by a space, ``Bearer``/``Basic``
  followed by a space, ``password`` followed by a space (netrc).

``maybe(t)`` is "either regex finds something"; ``find`` scans the same anchors
(``finditer``) and runs only the finders and vendor rules whose anchors occurred, so
``maybe(t) is False`` implies ``find(t) == []`` by construction (and the property tests
check it). Overlapping hits are resolved by rank, then length (docs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from . import _pii, _textrules
from ._catalog import (
    ANCHORED,
    CONTEXT_RULES,
    LITERAL_ANCHORS,
    PROVIDER_WORDS,
    RULES,
    TOKEN_ANCHORS,
    best_anchor,
    scan_vendors,
)
from ._hits import Hit, mask_protected
from ._keys import ENDINGS
from ._lazyre import lazy
from ._personal import PERSONAL_DETECTORS, find_personal, maybe_personal

__all__ = ["DETECTORS", "find", "maybe"]


_Node = dict[str, "_Node"]


def _trie_node(words: Iterable[str]) -> _Node:
    root: _Node = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}
    return root


def _emit(node: _Node) -> str:
    """The regex of a trie node: its words, longest first at each position."""
    alts = [re.escape(ch) + _emit(sub) for ch, sub in sorted(node.items()) if ch]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    return f"(?:{body})?" if "" in node else body


def _trie(words: Iterable[str]) -> str:
    """A regex matching any of ``words``, as a trie: a position fails after one
    comparison per character instead of one per word."""
    return _emit(_trie_node(words))


def _by_first_char(alts: Iterable[tuple[str, str]]) -> str:
    """One alternative per first character, ``c(?:rest1|rest2)``, in a flat branch:
    when every alternative of a pattern starts with a literal character, Python's
    regex engine skips the characters that start none at C speed."""
    groups: dict[str, list[str]] = {}
    for first, rest in alts:
        groups.setdefault(first, []).append(rest)
    out = []
    for first, rests in groups.items():
        tail = rests[0] if len(rests) == 1 else "(?:" + "|".join(rests) + ")"
        out.append(re.escape(first) + tail)
    return "|".join(out)


def _trie_alts(words: Iterable[str]) -> list[tuple[str, str]]:
    return [(ch, _emit(sub)) for ch, sub in sorted(_trie_node(words).items()) if ch]


#: structural keyword -> the anchor the scan looks for
_STRUCT_ANCHORS = {best_anchor(k): k for k in _textrules.STRUCT_KEYWORDS}
_KW_ALTS = _trie_alts(a[::-1] for a in set(LITERAL_ANCHORS) | set(_STRUCT_ANCHORS))
_KW = re.compile(_by_first_char(_KW_ALTS))

_ENDS = _trie(w[::-1] for w in set(ENDINGS) | set(PROVIDER_WORDS))
_NAME_END = rf"(?i:(?:\d{{1,3}}v?[_.-]?)?(?:{_ENDS}))"
_OP_TO_NAME = rf"[ \t]{{0,4}}\]?(?:[\"'`]\\{{0,3}})?{_NAME_END}"
# at the start of a digit run in the reversed text (the end of a number): a card's
# tail (13+ digits, or three groups), a NANP tail (4 and 3 digits) or an IPv4 address;
# an IBAN's check digits, right before its country code
_DIGIT_SHAPES = (r"(?<!\d\d)(?=\d{12}|\d{0,4}[ -]\d{4,6}[ -]\d{4}|\d\d\d[ .-]\d{3}"
                 r"|\d{0,2}\.\d{1,3}\.\d{1,3}\.\d)")
_IBAN_DIGITS = r"(?=\d[A-Z]{2}(?![A-Za-z0-9]))"
_TRUNK0 = (r"(?![A-Za-z0-9_+.\-/:])(?:(?<=[ ./-]\d0)|(?<=[ ./-]\d\d0)|(?<=[ ./-]\d\d\d0)"
           r"|(?<=[ ./-]\d\d\d\d0))")

# The structural anchors, read on the reversed text ("(?=…)" looks *back* in the
# original): (first character, kind, the rest). An empty group named after the kind
# tells ``find`` what fired.
_STRUCT_ALTS: list[tuple[str, str, str]] = [
    # an assignment operator right after a secret-named name: = : := ?= =>
    ("=", "asg", rf"(?=[=:?]?{_OP_TO_NAME})"),
    (":", "asg", rf"(?={_OP_TO_NAME})"),
    (">", "asg", rf"(?=={_OP_TO_NAME})"),
    # <password>X</password>; a {"name": "X-Api-Key", "value": …} pair; kind: Secret
    (">", "words", rf"(?={_NAME_END}[A-Za-z0-9_:.-]*<)"),
    (":", "pair", r"(?=[ \t]*[\"']eulav[\"'])"),
    (":", "k8s", r"(?=[ \t]*[\"']?dnik(?![A-Za-z0-9_]))"),
    # digit shapes of personal data: +CC…, trunk-0 group, NANP, card, IBAN, IPv4; IPv6
    ("+", "pii", r"(?<=\d\+)"),
    ("0", "pii", _TRUNK0),
    *((d, "pii", _DIGIT_SHAPES) for d in "0123456789"),
    *((d, "pii", _IBAN_DIGITS) for d in "0123456789"),
    (":", "pii", r"(?=(?:[0-9A-Fa-f]{1,4}:){4})"),
]
for _i, _rule in enumerate(ANCHORED):
    if _rule.anchor is not None:
        _lit = 2 if _rule.anchor.startswith("\\") else 1
        _STRUCT_ALTS.append((re.sub(r"^\\", "", _rule.anchor[:_lit]), f"rule{_i}",
                             _rule.anchor[_lit:]))
_STRUCT_TAGGED = [(first, f"(?P<{kind}_{i}>){rest}")
                  for i, (first, kind, rest) in enumerate(_STRUCT_ALTS)]
_STRUCT = lazy(_by_first_char(_STRUCT_TAGGED))
_GATE = re.compile(_by_first_char(_KW_ALTS + [(f, r) for f, _, r in _STRUCT_ALTS]))

_FWD_ENDS = _trie(set(ENDINGS))
# Read on the text as it is: a secret-named --flag and a space, -u/--user/-p/-a after a
# space (curl, mysql, sshpass, redis-cli), Bearer/Basic and a space, netrc's
# "password" and a space. Literal-first alternatives again.
_FWD = re.compile(_by_first_char([
    ("-", rf"-(?P<flag_0>)[A-Za-z0-9_-]{{0,40}}?(?i:{_FWD_ENDS})\d{{0,3}}[ \t]"),
    ("-", r"(?<=[\s\"'=]-)(?:u|-user|p|a)(?P<cli_1>)"),
    # a Bearer credential has a capital or a digit (else it is prose: "bearer tokens")
    ("B", r"(?:earer|EARER)[ \t]+(?=[^\s\"'`]*[A-Z0-9])(?P<scheme_2>)"),
    ("b", r"earer[ \t]+(?=[^\s\"'`]*[A-Z0-9])(?P<scheme_3>)"),
    ("B", r"(?:asic|ASIC)[ \t](?P<scheme_6>)"),
    ("P", r"(?:assword|ASSWORD)(?P<netrc_4>)[ \t]"),
    ("p", r"assword(?P<netrc_5>)[ \t]"),
]))


#: reversed anchor -> its token rules, for the anchors that stand for nothing else
_TOKEN_ONLY = {a[::-1]: pairs for a, pairs in TOKEN_ANCHORS.items()
               if a not in _STRUCT_ANCHORS}


def maybe(text: str) -> bool:
    """A cheap gate: ``False`` means ``find(text) == []`` and that no secret-named key
    name stands in ``text`` in key position (before an operator, as a flag or an
    element). One regex search over the reversed text, one over the text.

    An anchor that stands only for token rules (``SK`` of a Twilio key, which ``SKU-``
    holds too) counts only where one of its rules matches; the search then goes on,
    after asking whether a structural anchor starts at the same place. A rule that
    matches nothing in the text matches nothing in ``find``'s masked copy of it either
    (NUL counts as a letter at a token's edges), so the promise holds."""
    if len(text) < 6:  # the shortest hit but a CJK name, an email a@b.co, has six
        return len(text) > 2 and maybe_personal(text)
    rev = text[::-1]
    m = _GATE.search(rev)
    first = -1 if m is None else m.start()
    while m is not None:
        pairs = _TOKEN_ONLY.get(m.group())
        if pairs is None:
            _keep(text, rev, first, _UNKNOWN)
            return True
        start = len(text) - m.end()
        for rule, offset in pairs:
            if next(rule.scan_at(text, (start + offset,)), None) is not None:
                _keep(text, rev, first, _UNKNOWN)
                return True
        if _STRUCT.match(rev, m.start()) is not None:
            _keep(text, rev, first, _UNKNOWN)
            return True
        m = _GATE.search(rev, m.start() + 1)
    fwd = _FWD.search(text)
    _keep(text, rev, first, fwd)
    return fwd is not None or maybe_personal(text)


# What ``maybe`` saw of the last text it read, for ``find`` on the same text (the walk
# calls ``find`` right after the gate passed a string): the reversed text, where the
# first anchor of the reversed text starts (-1: none; no anchor starts before it) and
# the forward match (``_UNKNOWN`` when the gate did not search). One tuple, replaced
# whole, so that a thread reads one text's answers or none.
_UNKNOWN = object()
_LAST: tuple[str | None, str, int, Any] = (None, "", -1, _UNKNOWN)
_KEEP_CHARS = 1 << 20  # a longer text is not held on to (nor its reversed copy)


def _keep(text: str, rev: str, first: int, fwd: Any) -> None:
    global _LAST
    _LAST = (text, rev, first, fwd) if len(text) <= _KEEP_CHARS else (None, "", -1, _UNKNOWN)


# -- find ------------------------------------------------------------------------------

_RANKS = {"private-key": 50, "putty-private-key": 50, "jwt": 35, "jwt-base64": 35,
          "discord-bot-token": 35, "okta-api-token": 35, "named-secret": 15,
          "secret-field": 15}
_VENDOR_IDS = frozenset(r.id for r in RULES)
_CONTEXT_IDS = frozenset(r.id for r in CONTEXT_RULES)


def _rank(h: Hit) -> int:
    """Who wins an overlap: a private key over what its body holds (50), a vendor format
    (40), a JWT (35), a provider's value by name (30), a structural rule (20), a value
    by its secret-named name alone (15), personal data (10)."""
    if h.category != "secret":
        return 10
    if h.detector in _RANKS:
        return _RANKS[h.detector]
    if h.detector in _VENDOR_IDS:
        return 40
    return 30 if h.detector in _CONTEXT_IDS else 20


def _op_span(text: str, last: int) -> tuple[int, int]:
    """The span of the operator whose last character is ``text[last]`` (``=``, ``:``,
    ``:=``, ``?=``, ``=>``)."""
    if last > 0 and text[last - 1] in (":?" if text[last] == "=" else "=" if
                                       text[last] == ">" else ""):
        return last - 1, last + 1
    return last, last + 1


def find(text: str) -> list[Hit]:
    """Every secret and personal datum in ``text``: non-overlapping hits sorted by
    start, never inside a token (``«…»``), a data: URI or an integrity string."""
    masked = mask_protected(text)
    last = _LAST
    if last[0] is masked:  # the gate just read this very text: its anchors start there
        rev, first, fwd = last[1], last[2], last[3]
        first_kw = None if first < 0 else _KW.search(rev, first)
        first_struct = None if first < 0 else _STRUCT.search(rev, first)
        first_fwd = _FWD.search(masked) if fwd is _UNKNOWN else fwd
    else:
        rev = masked[::-1]
        first_kw, first_struct = _KW.search(rev), _STRUCT.search(rev)
        first_fwd = _FWD.search(masked)
    personal = find_personal(masked)  # each of its finders has its own cheap gate
    if first_kw is None and first_struct is None and first_fwd is None and not personal:
        return []
    n = len(masked)
    found: dict[str, list[int]] = {}
    m = first_kw
    while m is not None:  # restart one past each match: anchors may overlap (zAI|ATL)
        found.setdefault(m.group()[::-1], []).append(n - m.end())
        m = _KW.search(rev, m.start() + 1)
    kinds: set[str] = set()
    ops: list[tuple[int, int]] = []
    if first_struct is not None:
        for m in _STRUCT.finditer(rev, first_struct.start()):
            kind = (m.lastgroup or "").rsplit("_", 1)[0]
            if kind == "asg":
                ops.append(_op_span(masked, n - 1 - m.start()))
            else:
                kinds.add(kind)
    if first_fwd is not None:
        kinds.update((m.lastgroup or "").rsplit("_", 1)[0]
                     for m in _FWD.finditer(masked, first_fwd.start()))
    keywords = {_STRUCT_ANCHORS[a] for a in found if a in _STRUCT_ANCHORS}
    hits = [Hit(s, e, rule.id, "secret") for rule, s, e in scan_vendors(masked, found)]
    hits += [Hit(s, e, rule.id, "secret") for i, rule in enumerate(ANCHORED)
             if f"rule{i}" in kinds for s, e in rule.scan(masked)]
    hits += _structural_hits(masked, keywords, kinds, ops)
    hits += _pii_hits(masked, keywords, kinds)
    hits += personal
    return _resolve(masked, hits)


def _structural_hits(text: str, keywords: set[str], kinds: set[str],
                     ops: list[tuple[int, int]]) -> list[Hit]:
    hits: list[Hit] = []
    if "-----" in keywords or "Private-Lines:" in keywords:
        hits += _textrules.find_private_keys(text)
    if "eyJ" in keywords or "ZXlK" in keywords:
        hits += _textrules.find_jwts(text)
    if "@" in keywords:
        hits += _textrules.find_url_passwords(text)
    if ops:
        hits += _textrules.find_assignments(text, ops)
    if "scheme" in kinds:
        hits += _textrules.find_auth_schemes(text)
    if ops or kinds & {"words", "pair", "netrc"}:
        hits += _textrules.find_xml(text)
    if kinds & {"flag", "cli"} or "pass:" in keywords:
        hits += _textrules.find_cli(text)
    if "k8s" in kinds:
        hits += _textrules.find_k8s_secrets(text)
    return hits


def _pii_hits(text: str, keywords: set[str], kinds: set[str]) -> list[Hit]:
    hits: list[Hit] = []
    if "@" in keywords:
        hits += _pii.find_emails(text)
    if "pii" in kinds:
        hits += _pii.find_phones(text)
        hits += _pii.find_cards(text)
        hits += _pii.find_ibans(text)
        hits += _pii.find_ipv4(text)
    if "pii" in kinds or "::" in keywords:
        hits += _pii.find_ipv6(text)
    return hits


#: detectors whose whole span is a secret because of where it stands (a value after a
#: secret name, a flag, a scheme): what a stronger hit inside it leaves is still secret
_VALUE_DETECTORS = frozenset({"named-secret", "cli-secret", "query-secret", "cookie",
                              "auth-header", "bearer", "basic-auth", "url-password",
                              "xml-secret", "netrc-password", "k8s-secret"})


# a left-over part glued to the winner, as part of one token (not "@host/path" or the
# armour of a PEM block, which a greedy value span may also hold)
_TOKEN_PIECE = lazy(r"[A-Za-z0-9_+/=.~-]*[A-Za-z0-9][A-Za-z0-9_+/=.~-]*")


def _resolve(text: str, hits: list[Hit]) -> list[Hit]:
    """Non-overlapping hits: a higher rank wins (a private key over what is inside it, a
    vendor format over a structural rule over personal data), then the longer span,
    then the earlier. A value-position hit that loses keeps the token-like parts nobody
    else covers (``--password ghp_xoxb-…``: the Slack token and ``ghp_`` are both
    secret), so that redacting twice changes nothing; any other loser is dropped.
    Hits touching a masked span are dropped."""
    order = sorted(set(hits), key=lambda h: (-_rank(h), h.start - h.end, h.start, h.detector))
    taken: list[Hit] = []
    for h in order:
        if h.end <= h.start or "\0" in text[h.start:h.end]:
            continue
        clashes = sorted((t for t in taken if t.start < h.end and h.start < t.end),
                         key=lambda t: t.start)
        if not clashes:
            taken.append(h)
        elif h.detector in _VALUE_DETECTORS:
            pos = h.start
            for t in [*clashes, Hit(h.end, h.end, "", "")]:
                if pos < t.start and _TOKEN_PIECE.fullmatch(text, pos, t.start):
                    taken.append(Hit(pos, t.start, h.detector, h.category))
                pos = max(pos, t.end)
    taken.sort(key=lambda h: h.start)
    return taken


# -- the catalogue -------------------------------------------------------------------------

_STRUCTURAL = {
    "private-key": "the body of a PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, "
                   "encrypted, PGP), also with \\n escapes or indented; armour lines stay",
    "putty-private-key": "the Private-Lines of a PuTTY key file",
    "jwt": "a JSON Web Token (3 or 5 base64url parts, header decodes to JSON with alg)",
    "jwt-base64": "a JWT base64-encoded once more (ZXlK…)",
    "url-password": "the password of scheme://user:password@host (URLs and DSNs; the user "
                    "stays)",
    "bearer": "the credential after Bearer (Authorization header, or bare when it looks "
              "like a credential)",
    "basic-auth": "the credential after Basic (Authorization header, or bare when it "
                  "decodes to user:password)",
    "auth-header": "the credential of an Authorization header with another scheme (token, "
                   "ApiKey …) or none",
    "cookie": "each cookie value of a Cookie header, the first pair of a Set-Cookie",
    "named-secret": "a value assigned to a secret-named name in text (NAME=value, name: "
                    "value, \"name\": \"value\", name = 'value' …)",
    "query-secret": "a URL query parameter value under a secret name (?api_key=…&token=…)",
    "cli-secret": "a command-line secret: --password X, --token=X, curl -u user:password, "
                  "mysql -pX, sshpass -p X, redis-cli -a X, openssl pass:X",
    "xml-secret": "<password>X</password> and other secret-named XML elements",
    "netrc-password": "the password of a .netrc machine entry",
    "k8s-secret": "a value of the data/stringData of a Kubernetes Secret manifest",
    "discord-bot-token": "Discord bot token (base64 bot id, timestamp, HMAC), bare or in an "
                         "Authorization: Bot header",
    "secret-field": "a JSON value under a secret-named key (written by the Redactor: the "
                    "key, not the value's shape, says it is a secret)",
}
_PII = {
    "email": ("email", "an email address (not git@host:repo remotes or URL users)"),
    "phone": ("phone", "a phone number: E.164, North American, or national with a trunk 0"),
    "card": ("card", "a Luhn-valid payment card number of a known issuer (13-19 digits)"),
    "iban": ("iban", "an IBAN with a valid mod-97 checksum and its country's length"),
    "ipv4": ("ip", "an IPv4 address (not loopback, 0.0.0.0, broadcast, netmasks, versions)"),
    "ipv6": ("ip", "an IPv6 address, full or compressed (not ::1 or ::)"),
}


def _detectors() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for rid, desc in [(r.id, r.description) for r in RULES] + [
            (r.id, r.description) for r in CONTEXT_RULES]:
        out.setdefault(rid, ("secret", desc))
    for rid, desc in _STRUCTURAL.items():
        out.setdefault(rid, ("secret", desc))
    out.update(_PII)
    out.update(PERSONAL_DETECTORS)
    return dict(sorted(out.items()))


#: detector id -> (category, description), every id ``find`` (or the Redactor) reports
DETECTORS: dict[str, tuple[str, str]] = _detectors()

