"""The shape of a vendor rule and the builders the catalog modules write rules with.

Two kinds, both written from the provider's documented token format:

- ``Rule``: a self-identifying token (``ghp_…``, ``AKIA…``, ``xoxb-…``). It carries
  ``keywords``, lowercase literals one of which occurs (in any case) in every match,
  and ``literals``, the same words in the exact case the rule's regex requires
  (``AKIA``, ``AIza``, ``eyJ``). ``find`` runs a rule only when the combined keyword
  scan saw one of its literals, a stricter test than the keywords', with the same
  answer for the rule. A format with no fixed word (Airtable's ``pat…``, Mailchimp's
  ``…-us6``, Discord bot tokens) gives an ``anchor`` instead: a regex over the reversed
  text that starts at a rare character. The rule's regex names the secret ``secret``
  and starts with the literal prefix, so a scan skips to candidates at C speed; the
  "not glued to a longer word" test sits right after the prefix.
- ``ContextRule``: a value with no prefix of its own (a 32-hex Algolia key, a UUID
  Heroku key) that is a credential because of the name it is assigned to. It is tried
  on each ``NAME = value`` / ``"name": "value"`` candidate whose name contains one of
  its ``keywords`` (the provider's name), against the value alone.

A rule's ``entropy`` is a floor in bits per character for the random part of the
secret (after a token's prefix), lowered for short parts to 0.7 * log2(length), the
most a short string can reach with room to spare: it keeps
``ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`` and other placeholders out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from ._hits import entropy, is_example, is_public
from ._lazyre import LazyPattern, lazy

__all__ = ["ALNUM", "ALNUM_END", "B64_END", "DOT_END", "STRICT", "WORD_END", "ContextRule",
           "Rule", "context_rule", "pattern_rule", "token_rule"]

#: what may not follow a token (it would be a longer word, not this token)
ALNUM_END = r"(?![\x00A-Za-z0-9])"
WORD_END = r"(?![\x00A-Za-z0-9_-])"
B64_END = r"(?![\x00A-Za-z0-9+/=])"
#: for a body that may hold dots: a dot that ends a sentence is not part of the token
DOT_END = r"(?<!\.)(?![\x00A-Za-z0-9_=-]|\.[A-Za-z0-9_=-])"

Check = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """A self-identifying vendor token format."""

    id: str
    keywords: tuple[str, ...]
    regex: LazyPattern  # compiled when the rule first runs
    entropy: float | None
    description: str
    check: Check | None = None
    literals: tuple[str, ...] = ()
    anchor: str | None = None
    #: the regex matches from the start of one of ``literals`` (a token's prefix)
    prefixed: bool = False

    def scan(self, text: str) -> Iterator[tuple[int, int]]:
        """Spans of this rule's secrets in ``text``."""
        for m in self.regex.finditer(text):
            start, end = m.span("secret")
            if self.accepts(text[start:end]):
                yield start, end

    def scan_at(self, text: str, starts: Iterable[int]) -> Iterator[tuple[int, int]]:
        """Spans of this rule's secrets that start at one of ``starts`` (where the scan
        saw one of its prefixes): a prefixed rule need not read the whole text."""
        for pos in starts:
            m = self.regex.match(text, pos)
            if m is not None:
                start, end = m.span("secret")
                if self.accepts(text[start:end]):
                    yield start, end

    def accepts(self, secret: str) -> bool:
        """The entropy floor applies to the random part: a token's prefix, fixed by the
        vendor, would lift ``FLWSECK_TEST-000xxx000xxx`` over any floor."""
        body = secret
        if self.prefixed:
            body = secret[max((len(p) for p in self.literals if secret.startswith(p)),
                              default=0):]
        floor = None if self.entropy is None else min(
            self.entropy, 0.7 * math.log2(max(len(body), 2)))
        return _accept(secret, body, floor, self.check)


@dataclass(frozen=True, slots=True)
class ContextRule:
    """A provider credential recognized by its shape under a name naming the provider."""

    id: str
    keywords: tuple[str, ...]
    regex: LazyPattern
    entropy: float | None
    description: str

    def accepts(self, value: str) -> bool:
        """Whether ``value`` (the whole assigned value) is this provider's secret."""
        return (self.regex.fullmatch(value) is not None
                and _accept(value, value, self.entropy, None))


def _accept(secret: str, body: str, floor: float | None, check: Check | None) -> bool:
    if floor is not None and entropy(body) < floor:
        return False
    if is_example(secret) or is_public(secret):
        return False
    return check is None or check(secret)


#: characters a token may not be glued to on its left (a weak prefix such as ``key-``
#: or ``test_`` also refuses ``_``, ``-`` and ``.``, so ``cache-key-<md5>`` is no token)
ALNUM = "\\x00A-Za-z0-9"
STRICT = "\\x00A-Za-z0-9_.-"


def _prefix_alternatives(prefixes: Sequence[str], glue: str) -> str:
    """``(?:p1<not glued>|p2<not glued>…)``: each literal prefix followed by a
    lookbehind saying the character before it is not in ``glue`` (or is the ``n`` of
    a ``\\n`` escape, as in JSON printed inside text)."""
    alts = []
    for p in sorted(prefixes, key=len, reverse=True):
        e = re.escape(p)
        alts.append(f"{e}(?:(?<![{glue}]{e})|(?<=\\\\[nrt]{e}))")
    return "(?:" + "|".join(alts) + ")"


def token_rule(rule_id: str, prefixes: Sequence[str], body: str, description: str, *,
               entropy: float | None = 3.0, end: str = ALNUM_END, glue: str = ALNUM,
               keywords: Sequence[str] | None = None, check: Check | None = None) -> Rule:
    """A token made of one of ``prefixes`` (literals) and ``body`` (a regex)."""
    pattern = f"(?P<secret>{_prefix_alternatives(prefixes, glue)}(?:{body})){end}"
    kws = tuple(keywords) if keywords is not None else tuple(p.lower() for p in prefixes)
    rule = _rule(rule_id, kws, tuple(prefixes), None, pattern, description, entropy, check)
    return replace(rule, prefixed=True)


def pattern_rule(rule_id: str, literals: Sequence[str], pattern: str, description: str, *,
                 keywords: Sequence[str] | None = None, anchor: str | None = None,
                 entropy: float | None = None, check: Check | None = None) -> Rule:
    """A rule from a whole regex with a ``(?P<secret>…)`` group; every match contains
    one of ``literals`` (exact case), or ``anchor`` finds it."""
    kws = tuple(keywords) if keywords is not None else tuple(k.lower() for k in literals)
    return _rule(rule_id, kws, tuple(literals), anchor, pattern, description, entropy, check)


def _rule(rule_id: str, keywords: tuple[str, ...], literals: tuple[str, ...],
          anchor: str | None, pattern: str, description: str, floor: float | None,
          check: Check | None) -> Rule:
    # compiled on the rule's first run: most rules never run in a given process (a
    # test compiles every one and checks its group)
    regex = lazy(pattern)
    if "(?P<secret>" not in pattern:
        raise ValueError(f"rule {rule_id}: no (?P<secret>...) group")
    if not keywords or any(k != k.lower() or not k for k in keywords):
        raise ValueError(f"rule {rule_id}: keywords must be non-empty lowercase literals")
    if not literals and anchor is None:
        raise ValueError(f"rule {rule_id}: needs literals or an anchor")
    return Rule(rule_id, keywords, regex, floor, description, check, literals, anchor)


def context_rule(rule_id: str, names: Sequence[str], value: str, description: str, *,
                 entropy: float | None = 3.0) -> ContextRule:
    """A value of shape ``value`` (a regex matched against the whole value) assigned
    to a name containing one of ``names`` (lowercase provider words)."""
    return ContextRule(rule_id, tuple(names), lazy(value), entropy, description)
