"""What every detector shares: the ``Hit``, the spans no detector may look into, the
values that are never secrets, and Shannon entropy.

A hit is the span of the secret *itself* (``Authorization: Bearer abc`` → ``abc``), so
a redacted text keeps the evidence around it: the header name, the scheme, the user of
``user:password@``. docs/redact-detectors.md lists every detector and its decisions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ._lazyre import lazy

__all__ = ["CATEGORIES", "EXAMPLE_VALUES", "Hit", "entropy", "is_example", "is_public",
           "lower_same_length", "mask_protected", "shapes_pattern", "shapes_re", "words_pattern",
           "words_re"]

#: the categories a hit may have (a token's first word)
CATEGORIES = ("secret", "email", "phone", "card", "iban", "ip", "person", "national-id",
              "address", "birth-date")


@dataclass(frozen=True, slots=True)
class Hit:
    """One secret or personal datum found in a text: ``text[start:end]`` is the value
    to replace, ``detector`` a stable kebab-case id (``DETECTORS`` describes it) and
    ``category`` one of ``CATEGORIES``."""

    start: int
    end: int
    detector: str
    category: str


# Spans that are already redacted or are content, never credentials:
#  - any token we (or the promotion policy, or a diff's symbols) write: «secret:x:ab12»,
#    «email:ab12», «str:12», «int», «id3»;
#  - a data: URI's base64 payload (an image is not a secret, and its random letters
#    would otherwise look like one);
#  - npm/SRI integrity strings: sha512-<base64>.
_PROTECTED = lazy(
    r"«[a-z][a-z0-9_-]{0,40}(?::[A-Za-z0-9_.-]{1,128}){0,3}»"
    r"|;base64,(?P<b64>[A-Za-z0-9+/=\s]{16,})"
    r"|sha(?<![A-Za-z0-9]sha)(?:1|256|384|512)-[A-Za-z0-9+/]{20,}={0,2}")


_Node = dict[str, "_Node"]


def _trie_re(node: _Node) -> str:
    """The regex of a trie node: its words as nested alternatives, the end of a word
    (``""``) last, so that the longest word wins."""
    alts = []
    for ch, sub in sorted(node.items()):
        if ch:
            alts.append(re.escape(ch) + _trie_re(sub))
    if "" in node:
        alts.append("(?![a-z0-9_])" if "\0end" in node[""] else "")
    if len(alts) == 1:
        return alts[0]
    return "(?:" + "|".join(alts) + ")"


def words_re(words: Iterable[str], *, bounded: bool = False) -> re.Pattern[str]:
    """``words_pattern`` compiled."""
    return re.compile(words_pattern(words, bounded=bounded))


def words_pattern(words: Iterable[str], *, bounded: bool = False) -> str:
    """A regex of literal words as a trie, one flat branch per first character: the
    regex engine skips the characters that start no word at C speed and compares one
    character per step (a plain alternation of many words tries each of them at every
    position). Search it in ``lower_same_length(text)`` for a case-insensitive search.
    ``bounded``: a word that starts (ends) with an ASCII letter is not found after
    (before) a letter, digit or ``_`` — the check comes after the first character, so
    that the skipping still works."""
    by_first: dict[str, _Node] = {}
    for w in set(words):
        node = by_first.setdefault(w[0], {})
        for ch in w[1:]:
            node = node.setdefault(ch, {})
        end: _Node = {}
        if bounded and w[-1].isascii() and w[-1].isalpha():
            end["\0end"] = {"": {}}
        node[""] = end
    branches = []
    for first, node in sorted(by_first.items()):
        head = re.escape(first)
        if bounded and first.isascii() and first.isalpha():
            head += f"(?<![a-z0-9_]{re.escape(first)})"
        branches.append(head + _trie_re(node))
    return "|".join(branches)


def lower_same_length(text: str) -> str:
    """``text.lower()``, with offsets kept (a character whose lower case is longer,
    such as ``İ``, keeps its first character)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c.lower()[:1] for c in text)


def mask_protected(text: str) -> str:
    """``text`` with every protected span replaced by as many NUL characters (same
    length, so spans found in the result are spans of ``text``). NUL is in no
    detector's alphabet, so nothing is found inside or across a token."""
    if "«" not in text and ";base64," not in text and "sha" not in text:
        return text
    parts: list[str] = []
    pos = 0
    for m in _PROTECTED.finditer(text):
        start, end = m.span("b64") if m.group("b64") is not None else m.span()
        parts += (text[pos:start], "\0" * (end - start))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def entropy(s: str) -> float:
    """Shannon entropy of ``s`` in bits per character (0.0 for the empty string)."""
    n = len(s)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


#: keys published in vendors' documentation (and copied into countless READMEs,
#: tests and tutorials): evidence of a copy-paste, not credentials.
EXAMPLE_VALUES = frozenset({
    # AWS
    "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AKIAI44QH8DHBEXAMPLE", "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    "ASIAIOSFODNN7EXAMPLE", "AKIAJIOSFODNN7EXAMPLE",
    # Stripe's documented test keys (spelled in two parts, so that a scanner reading
    # this file does not report them)
    "sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc", "sk_" + "test_BQokikJOvBiI2HlWgH4olfQ2",
    "rk_" + "test_4eC39HqLyjWDarjtT1zdp7dc",
    # Twilio's and Slack's documentation placeholders
    "SKXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "xoxb-not-a-real-token-this-will-not-work",
    # Google's sample API key of the Maps and Firebase documentation
    "AIza" + "SyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    # the JWT of jwt.io's debugger
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
    "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
})
# "EXAMPLE" in capitals marks AWS-style documentation keys (…EXAMPLE, …EXAMPLEKEY);
# random key material has a 1 in 10^11 chance of spelling it.
_EXAMPLE_MARK = lazy(r"EXAMPLE|(?i:your[_-]?(?:api[_-]?)?(?:key|token|secret))")


def is_example(value: str) -> bool:
    """Whether ``value`` is a documented example key (never a hit)."""
    return value in EXAMPLE_VALUES or _EXAMPLE_MARK.search(value) is not None


# Keys their vendors publish in client code on purpose (browser, mobile apps): Stripe
# and Langfuse publishable keys, Mapbox public tokens, Supabase publishable keys,
# Flutterwave and Lob public keys, Mailgun's public validation key.
_PUBLIC = lazy(
    r"(?:pk_(?:live|test)_|pk\.eyJ|pk-lf-|sb_publishable_|FLWPUBK(?:_TEST)?-"
    r"|(?:live|test)_pub_|pubkey-)")


def is_public(value: str) -> bool:
    """Whether ``value`` is a publishable (client-side, public by design) key."""
    return _PUBLIC.match(value) is not None


def shapes_re(parts: Iterable[tuple[str, str]]) -> re.Pattern[str]:
    """``shapes_pattern`` compiled."""
    return re.compile(shapes_pattern(parts))


def shapes_pattern(parts: Iterable[tuple[str, str]]) -> str:
    """One regex for ``X1 R1 | X2 R2 | …`` where each ``X`` is a character class (its
    inside, ``A-Z``), written as one class of every first character, then each rest
    behind a look-back at its own class. Python's regex engine skips to a candidate at
    C speed only when a pattern starts with one class or a branch of literals; an
    alternation of classes is tried, branch by branch, at every position."""
    parts = list(parts)
    first = "".join(dict.fromkeys(x for x, _ in parts))
    rests = "|".join(f"(?<=[{x}]){r}" for x, r in parts)
    return f"[{first}](?:{rests})"
