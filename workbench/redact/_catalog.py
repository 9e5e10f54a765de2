"""The vendor rule catalog: every provider rule in one place, indexed by keyword.

The rules themselves live in ``_cat_cloud`` (cloud and infrastructure), ``_cat_code``
(code hosting, CI/CD, registries, developer tools), ``_cat_apps`` (chat, email,
payments, SaaS) and ``_cat_ai`` (LLM APIs); ``_cat_rule`` says what a rule is.

The keyword pre-filter: ``find`` runs one combined scan that reports which of the
rules' literals occur in a text (``_detect``), and only their rules run
(``rules_for``). The scan reads the text reversed and looks for each literal's
``best_anchor``, a prefix ending in a rare character, so that it stops at few places.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import _cat_ai, _cat_apps, _cat_cloud, _cat_code
from ._cat_rule import ContextRule, Rule
from ._lazyre import lazy

__all__ = ["ANCHORED", "CONTEXT_RULES", "KEYWORDS", "LITERAL_ANCHORS", "PROVIDER_WORDS",
           "RULES", "TOKEN_ANCHORS", "best_anchor", "context_rules_for", "rules_for",
           "scan_vendors"]

RULES: tuple[Rule, ...] = (*_cat_cloud.RULES, *_cat_code.RULES, *_cat_ai.RULES,
                           *_cat_apps.RULES)
CONTEXT_RULES: tuple[ContextRule, ...] = (*_cat_cloud.CONTEXT_RULES, *_cat_code.CONTEXT_RULES,
                                          *_cat_ai.CONTEXT_RULES, *_cat_apps.CONTEXT_RULES)

#: every keyword of a self-identifying rule (lowercase literals)
KEYWORDS: tuple[str, ...] = tuple(sorted({k for r in RULES for k in r.keywords}))
#: every provider word of a context rule (lowercase): a name ending in one is an
#: assignment worth looking at
PROVIDER_WORDS: tuple[str, ...] = tuple(sorted({k for r in CONTEXT_RULES for k in r.keywords}))
#: the rules found by a structural anchor instead of a literal
ANCHORED: tuple[Rule, ...] = tuple(r for r in RULES if r.anchor is not None)

# How often a character starts a candidate in the reversed scan: symbols, digits and
# capitals are rare in agent traces; lower-case letters by English frequency.
_LOWER_BY_RARITY = "zqxjkvbpygwfmucldrhsnioate"


def _rarity(ch: str) -> int:
    if not ch.isalpha() or ch.isupper():
        return 0
    i = _LOWER_BY_RARITY.find(ch)
    return 1 + (i if i >= 0 else len(_LOWER_BY_RARITY))


def best_anchor(literal: str) -> str:
    """The part of ``literal`` the reversed scan looks for: the longest prefix (of 3
    characters or more, or the whole of a shorter literal) ending in its rarest
    character, so the scan stops at as few places as it can (``AIza`` -> ``AIz``,
    ``dapi`` -> ``dap``, ``ghp_`` -> ``ghp_``)."""
    if len(literal) <= 3:
        return literal
    ends = range(2, len(literal))
    best = min(ends, key=lambda i: (_rarity(literal[i]), -i))
    return literal[:best + 1]


def _index() -> dict[str, tuple[tuple[Rule, int], ...]]:
    """anchor -> (rule, offset of the rule's literal from the anchor's start)."""
    by_anchor: dict[str, list[Rule]] = {}
    for rule in RULES:
        for lit in rule.literals:
            rules = by_anchor.setdefault(best_anchor(lit), [])
            if rule not in rules:
                rules.append(rule)
    # an anchor found also stands for every anchor inside it: the scan reports the
    # longest match at a place, so "xoxe.xoxb-" hides the "xoxb-" it holds
    out: dict[str, tuple[tuple[Rule, int], ...]] = {}
    for a in by_anchor:
        pairs: list[tuple[Rule, int]] = []
        for inner, inner_rules in by_anchor.items():
            at = a.find(inner)
            while at != -1:
                pairs += [(r, at) for r in inner_rules]
                at = a.find(inner, at + 1)
        out[a] = tuple(pairs)
    return out


_BY_ANCHOR = _index()
#: what the combined scan looks for, each mapped to the rules it triggers
LITERAL_ANCHORS: tuple[str, ...] = tuple(sorted(_BY_ANCHOR))
#: anchor -> (rule, offset) for the anchors that stand only for token rules (a literal
#: prefix and a body): such an anchor means something only where one of its rules
#: matches (``Rule.scan_at``), which is cheap to ask at one place
TOKEN_ANCHORS: dict[str, tuple[tuple[Rule, int], ...]] = {
    a: pairs for a, pairs in _BY_ANCHOR.items() if all(r.prefixed for r, _ in pairs)}
_ORDER = {id(r): i for i, r in enumerate(RULES)}


def rules_for(anchors: Iterable[str]) -> list[Rule]:
    """The rules to run when ``anchors`` occurred, in catalog order, each once."""
    seen: dict[int, Rule] = {}
    for a in anchors:
        for rule, _ in _BY_ANCHOR.get(a, ()):
            seen.setdefault(id(rule), rule)
    return sorted(seen.values(), key=lambda r: _ORDER[id(r)])


def scan_vendors(text: str, found: dict[str, list[int]]) -> list[tuple[Rule, int, int]]:
    """The vendor secrets in ``text``, given where the scan found which anchors
    (``found``: anchor -> start positions). A token rule is matched only where its
    prefix starts; any other rule reads the whole text once."""
    starts: dict[int, tuple[Rule, set[int]]] = {}
    for a, positions in found.items():
        for rule, offset in _BY_ANCHOR.get(a, ()):
            entry = starts.setdefault(id(rule), (rule, set()))
            entry[1].update(p + offset for p in positions)
    out: list[tuple[Rule, int, int]] = []
    for rule, at in sorted(starts.values(), key=lambda e: _ORDER[id(e[0])]):
        spans = rule.scan_at(text, sorted(at)) if rule.prefixed else rule.scan(text)
        out += [(rule, s, e) for s, e in spans]
    return out


_PROVIDER_RE = lazy("|".join(re.escape(w) for w in
                                   sorted(PROVIDER_WORDS, key=len, reverse=True)))
_BY_PROVIDER = {w: [r for r in CONTEXT_RULES if w in r.keywords] for w in PROVIDER_WORDS}
_CONTEXT_ORDER = {id(r): i for i, r in enumerate(CONTEXT_RULES)}


def context_rules_for(name: str) -> list[ContextRule]:
    """The context rules whose provider word occurs in ``name`` (any case)."""
    low = name.lower()
    if _PROVIDER_RE.search(low) is None:
        return []
    seen: dict[int, ContextRule] = {}
    for word in PROVIDER_WORDS:
        if word in low:
            for rule in _BY_PROVIDER[word]:
                seen.setdefault(id(rule), rule)
    return sorted(seen.values(), key=lambda r: _CONTEXT_ORDER[id(r)])
