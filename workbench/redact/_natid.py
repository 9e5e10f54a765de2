"""National identity numbers: checked by their checksum or validity rules, and by the
words around them.

Each kind is a pattern that proposes candidates and a validator from python-stdnum
that disposes of them (the check digits, the allocation rules). A shape that is
specific enough and carries a check (``123-45-6789`` under the SSN rules, a Spanish
DNI's check letter, an Italian codice fiscale, a formatted Brazilian CPF, an Aadhaar
number in its 4-4-4 groups) is found anywhere; a bare digit run that a checksum passes
by chance one time in ten or eleven (nine SSN digits, eleven CPF digits, twelve Aadhaar
digits), a UK NINO (rules, no check digit) and a passport number (no rule at all) only
after a context word (``SSN``, ``CPF``, ``passport no.`` …) or under a key that names
the kind. docs/redact-detectors.md lists the decisions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from stdnum.br import cpf
from stdnum.es import dni, nie
from stdnum.in_ import aadhaar
from stdnum.it import codicefiscale
from stdnum.us import ssn

from ._hits import Hit, lower_same_length, shapes_pattern, words_pattern
from ._lazyre import LazyPattern, lazy

__all__ = ["CONTEXT", "ID_DETECTORS", "SHAPES", "SHAPE_PARTS", "WORDS", "find_national_ids",
           "gate", "id_value_ok"]


def _ok(check: Callable[[str], bool]) -> Callable[[str], bool]:
    def run(value: str) -> bool:
        try:
            return bool(check(value))
        except Exception:  # a validator may raise on odd input
            return False
    return run


def _aadhaar_ok(value: str) -> bool:
    digits = re.sub(r"[ -]", "", value)
    return _ok(aadhaar.is_valid)(digits)


_NINO = lazy(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\d{6}[A-D]")
_NINO_UNUSED = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def _nino_ok(value: str) -> bool:
    """HMRC's allocation rules (python-stdnum has no NINO): the first letter not D, F,
    I, Q, U or V, the second not those or O, not an unallocated prefix, suffix A-D."""
    compact = value.replace(" ", "").upper()
    return _NINO.fullmatch(compact) is not None and compact[:2] not in _NINO_UNUSED


def _passport_ok(value: str) -> bool:
    compact = value.replace(" ", "")
    return (6 <= len(compact) <= 9 and any(c.isdigit() for c in compact)
            and compact.isalnum() and compact.upper() == compact)


#: detector id -> validator of a candidate
_VALID: dict[str, Callable[[str], bool]] = {
    "us-ssn": lambda v: _ok(ssn.is_valid)(re.sub(r"\D", "", v)),
    "uk-nino": _nino_ok,
    "es-dni": _ok(dni.is_valid),
    "es-nie": _ok(nie.is_valid),
    "it-codice-fiscale": _ok(codicefiscale.is_valid),
    "br-cpf": _ok(cpf.is_valid),
    "in-aadhaar": _aadhaar_ok,
    "passport": _passport_ok,
}
ID_DETECTORS: dict[str, str] = {
    "us-ssn": "a US Social Security number under the SSA rules (area not 000, 666 or "
              "9xx, group and serial not zero): 123-45-6789 anywhere, bare or spaced after "
              "a context word",
    "uk-nino": "a UK National Insurance number (valid prefix, suffix A-D) after a context "
               "word or printed in its QQ 12 34 56 C groups",
    "es-dni": "a Spanish DNI with its mod-23 check letter",
    "es-nie": "a Spanish NIE (X/Y/Z, seven digits, check letter)",
    "it-codice-fiscale": "an Italian codice fiscale with its check character",
    "br-cpf": "a Brazilian CPF with its two check digits: 123.456.789-09 anywhere, "
              "eleven bare digits after a context word",
    "in-aadhaar": "an Indian Aadhaar number with its Verhoeff check: in 4-4-4 groups "
                  "anywhere, twelve bare digits after a context word",
    "passport": "a passport-like number (6-9 capitals and digits) after a passport context "
                "word only",
}

# nothing glued before or after, and no digit group continuing (an IBAN or a card
# printed in groups of four holds 4-4-4 runs)
_B = r"(?<![\w\x00.+/-])"
_E = r"(?![\w\x00-]|[.,/]\w)"
_BD = _B + r"(?<!\d[ -])"  # for ids that start and end with digits
_ED = r"(?![\w\x00-]|[.,/]\w|[ -]\d)"

# (detector, pattern, needs context)
_PATTERNS: list[tuple[str, LazyPattern, bool]] = [
    ("us-ssn", lazy(_BD + r"\d{3}-\d{2}-\d{4}" + _ED), False),
    ("us-ssn", lazy(_BD + r"\d{3}(?: \d{2} \d{4}|\d{6})" + _ED), True),
    ("uk-nino", lazy(_B + r"[A-Z]{2} \d{2} \d{2} \d{2} [A-D]" + _E), False),
    ("uk-nino", lazy(_B + r"[A-Z]{2}\d{6}[A-D]" + _E), True),
    ("es-dni", lazy(_B + r"\d{8}-?[A-Z]" + _E), False),
    ("es-nie", lazy(_B + r"[XYZ]-?\d{7}-?[A-Z]" + _E), False),
    ("it-codice-fiscale", lazy(
        _B + r"[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z]"
        r"[0-9LMNPQRSTUV]{3}[A-Z]" + _E), False),
    ("br-cpf", lazy(_BD + r"\d{3}\.\d{3}\.\d{3}-\d{2}" + _ED), False),
    ("br-cpf", lazy(_BD + r"\d{11}" + _ED), True),
    ("in-aadhaar", lazy(_BD + r"[2-9]\d{3} \d{4} \d{4}" + _ED), False),
    ("in-aadhaar", lazy(_BD + r"[2-9]\d{3}(?:-\d{4}-\d{4}|\d{8})" + _ED), True),
    ("passport", lazy(_B + r"[A-Z0-9]{1,3} ?[0-9]{5,8}[A-Z0-9]?" + _E), True),
]

#: context words: a bare number right after one of them (within a few words) is an id
CONTEXT: dict[str, tuple[str, ...]] = {
    "us-ssn": ("ssn", "social security", "social-security", "ss#", "ss no"),
    "uk-nino": ("nino", "national insurance", "ni number", "ni no"),
    "es-dni": ("dni", "nif", "documento nacional"),
    "es-nie": ("nie", "nif"),
    "it-codice-fiscale": ("codice fiscale", "c.f."),
    "br-cpf": ("cpf", "cadastro de pessoas"),
    "in-aadhaar": ("aadhaar", "aadhar", "uidai", "uid no"),
    "passport": ("passport", "pasaporte", "passeport", "reisepass", "passaporto",
                 "passaporte", "паспорт", "护照", "旅券"),
}
_CONTEXT_RE = {
    det: lazy(r"(?i)(?<![a-z])(?:" + "|".join(re.escape(w) for w in words)
                    + r")(?![a-z])[^\n]{0,24}$")
    for det, words in CONTEXT.items()
}
#: the shapes found without context
#: (one digit or capital first, the rest factored, not inside a digit or capital run:
#: the regex engine skips to candidates at C speed and tries few alternatives there)
SHAPE_PARTS = (
    (r"\d", r"(?<!\d\d)\d\d(?:-\d\d-\d{4}|\.\d{3}\.\d{3}-|\d(?: \d{4} \d{4}|\d{4}-?[A-Z]))"),
    ("A-Z", r"(?<![A-Z][A-Z])(?:[A-Z](?: \d\d \d\d \d\d|[A-Z]{4}[0-9LMNPQRSTUV]{2}"
            r"[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z])|(?<=[XYZ])-?\d{7})"),
)
SHAPES = lazy(shapes_pattern(SHAPE_PARTS))
#: every context word, on the lower-cased text
WORDS = lazy(words_pattern(w for words in CONTEXT.values() for w in words))


def _has_context(text: str, det: str, start: int) -> bool:
    return _CONTEXT_RE[det].search(text, max(0, start - 48), start) is not None


def id_value_ok(det: str, value: str) -> bool:
    """Whether ``value`` (a whole field value) is a valid id of kind ``det``."""
    return _VALID[det](value)


def gate(text: str, low: str) -> bool:
    """False means ``find_national_ids(text) == []`` (``low``: the text lower-cased)."""
    return SHAPES.search(text) is not None or WORDS.search(low) is not None


def find_national_ids(text: str, low: str | None = None) -> list[Hit]:
    """National ids in free text (see the module docstring). An id is not one when a
    digit group follows it (``123-45-6789 1234`` is part of a longer number), unless
    what follows is itself an id: those are found first and masked, then the text is
    read again, so redacting twice finds nothing new (``123-45-6789 12345678Z``)."""
    hits = _national_ids(text, low)
    while hits:
        masked = list(text)
        for h in hits:
            masked[h.start:h.end] = "«" + "·" * (h.end - h.start - 2) + "»"
        more = [h for h in _national_ids("".join(masked), None)
                if not any(h.start < o.end and o.start < h.end for o in hits)]
        if not more:
            break
        hits = sorted(hits + more, key=lambda h: h.start)
    return hits


def _national_ids(text: str, low: str | None) -> list[Hit]:
    low = lower_same_length(text) if low is None else low
    shapes = SHAPES.search(text) is not None
    words = {m.group() for m in WORDS.finditer(low)}
    if not shapes and not words:
        return []
    contexts = {det for det, ws in CONTEXT.items() if words.intersection(ws)}
    hits: list[Hit] = []
    for det, rx, needs_context in _PATTERNS:
        if not (det in contexts if needs_context else shapes or det in contexts):
            continue
        for m in rx.finditer(text):
            if needs_context and not _has_context(text, det, m.start()):
                continue
            if _VALID[det](m.group()):
                hits.append(Hit(m.start(), m.end(), det, "national-id"))
    return hits
