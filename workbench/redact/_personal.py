"""Personal data that is not machine-shaped, in one place for ``find`` and the walk.

``maybe_personal`` and ``find_personal`` run the free-text detectors of person names
(``_names``), national ids (``_natid``), postal addresses and birth dates
(``_postal``). ``field_kind`` and ``field_hit`` judge a whole value by the key it sits
under (``customer_name``, ``ssn``, ``shipping_address``, ``date_of_birth`` …), as the
Redactor and the scanner do for JSON, Parquet columns and ``{"field": K, "value":
V}`` pairs. docs/redact-detectors.md lists every decision.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import _names, _natid, _postal
from ._hits import Hit, lower_same_length, shapes_re, words_re
from ._keys import key_parts
from ._prefilter import WordStarts, word_starts

__all__ = ["PERSONAL_DETECTORS", "field_hit", "field_kind", "find_personal",
           "maybe_personal"]

PERSONAL_DETECTORS: dict[str, tuple[str, str]] = {
    "person-name": ("person", "a person's name: under a name-like key (full_name, "
                              "contact, recipient …), after a cue (my name is, Dear, Mr.) "
                              "or a given name and a surname of the gazetteer"),
    "postal-address": ("address", "a postal address under an address key, after a "
                                  "context word (address:, lives at, ship to) or a "
                                  "street line (221B Baker Street)"),
    "birth-date": ("birth-date", "a date under a birth-date key or after born, DOB, "
                                 "date of birth"),
    **{det: ("national-id", desc) for det, desc in _natid.ID_DETECTORS.items()},
}

_ID_KEYS: dict[tuple[str, ...], str | None] = {
    ("ssn",): "us-ssn", ("social", "security", "number"): "us-ssn",
    ("social", "security", "no"): "us-ssn", ("nino",): "uk-nino",
    ("national", "insurance", "number"): "uk-nino", ("ni", "number"): "uk-nino",
    ("dni",): None, ("nie",): None, ("nif",): None, ("codice", "fiscale"): "it-codice-fiscale",
    ("codicefiscale",): "it-codice-fiscale", ("cpf",): "br-cpf", ("aadhaar",): "in-aadhaar",
    ("aadhar",): "in-aadhaar", ("aadhaar", "number"): "in-aadhaar", ("uid", "number"): None,
    ("national", "id"): None, ("national", "id", "number"): None, ("nationalid",): None,
    ("national", "identifier"): None, ("tax", "id"): None, ("id", "card", "number"): None,
    ("passport",): "passport", ("passport", "number"): "passport",
    ("passport", "no"): "passport", ("passport", "id"): "passport",
}


@lru_cache(maxsize=8192)
def field_kind(key: str) -> str | None:
    """What a key says its value is: ``"person"``/``"person?"`` (a bare ``name``),
    ``"address"``, ``"birth-date"``, ``"id:<detector>"`` or ``"id:"`` (any national
    id), or None."""
    if len(key) > 60:
        return None
    strength = _names.name_key(key)
    if strength is not None:
        return "person" if strength == "strong" else "person?"
    if _postal.address_key(key):
        return "address"
    if _postal.birth_key(key):
        return "birth-date"
    parts = key_parts(key)
    for i in range(len(parts)):
        if parts[i:] in _ID_KEYS:
            return "id:" + (_ID_KEYS[parts[i:]] or "")
    return None


def _id_hit(det: str, value: str) -> str | None:
    dets = [det] if det else [d for d in _natid.ID_DETECTORS if d != "passport"]
    for d in dets:
        if _natid.id_value_ok(d, value.strip()):
            return d
    return None


@lru_cache(maxsize=1 << 15)
def field_hit(kind: str, value: str) -> tuple[str, str] | None:
    """``(category, detector)`` when a whole value under a key of ``kind`` is personal
    data, else None."""
    if kind == "person" or kind == "person?":
        if _names.is_name_value(value, "strong" if kind == "person" else "weak"):
            return "person", "person-name"
        return None
    if kind == "address":
        return ("address", "postal-address") if _postal.is_address_value(value) else None
    if kind == "birth-date":
        return ("birth-date", "birth-date") if _postal.is_date_value(value) else None
    if kind.startswith("id:"):
        det = _id_hit(kind[3:], value)
        return ("national-id", det) if det else None
    return None


# the words a personal key holds (name, contact, ssn, address, birth …), searched in the
# lower-cased text; where one stands, the rest of a key and an operator are looked for
KEY_WORDS = (
    "name", "contact", "recipient", "author", "customer", "patient", "passenger", "holder",
    "assignee", "sender", "attendee", "guest", "employee", "addressee", "beneficiary",
    "signatory", "requester", "applicant", "address", "addr", "street", "residence",
    "domicile", "dob", "birth", "born", "ssn", "nino", "insurance", "dni", "nie", "nif",
    "fiscale", "cpf", "aadhaar", "aadhar", "uid", "passport", "national", "tax")
_KEY_WORDS = words_re(KEY_WORDS)
_KEY_HEAD = re.compile(r"[A-Za-z][\w.-]{0,60}$")
_KEY_TAIL = re.compile(r"[\w.-]{0,30}?[\"']?[ \t]*[:=][ \t]*(?P<q>[\"']?)")


def _pairs(text: str, low: str, start: int = 0) -> list[tuple[str, re.Match[str]]]:
    """``(key, the match of the operator and opening quote)`` of each ``key: value`` /
    ``key=value`` whose key holds a personal key word (``start``: no key word starts
    before it)."""
    out = []
    done = -1
    for w in _KEY_WORDS.finditer(low, start):
        if w.start() < done:
            continue
        tail = _KEY_TAIL.match(text, w.end())
        if tail is None:
            continue
        head = _KEY_HEAD.search(text, max(0, w.start() - 60), w.start() + 1)
        if head is None:
            continue
        start = head.start()
        while start < w.start() and not text[start].isalpha():
            start += 1
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue
        key = text[start:tail.start() + len(tail.group().split(":")[0].split("=")[0])]
        done = tail.end()
        key = key.rstrip(" \t\"'")
        if field_kind(key) is not None:
            out.append((key, tail))
    return out


def _kv_hits(text: str, low: str, start: int = 0) -> list[Hit]:
    """Values after a personal key in text: ``person_name=Omar Silva``, ``ssn: …``,
    ``"contact": "…"``, ``X-Customer-Name: …``, ``billing_address: …`` (YAML)."""
    hits: list[Hit] = []
    for key, m in _pairs(text, low, start):
        kind = field_kind(key)
        if kind is None:
            continue  # (never: _pairs keeps personal keys only)
        start, end = _names.kv_value(text, m)
        got = field_hit(kind, text[start:end]) if end > start else None
        if got is not None:
            hits.append(Hit(start, end, got[1], got[0]))
    return hits


# every word any personal-data gate looks for, in one trie: most strings hold none, and
# for them one search replaces one per word list
_WORDS = [*_names.CUE_WORDS, *KEY_WORDS, *_postal.ADDRESS_WORDS_LIST,
          *_postal.BIRTH_WORDS_LIST, *_postal.EURO_WORDS_LIST,
          *(w for ws in _natid.CONTEXT.values() for w in ws)]
_ANY_WORD = words_re(_WORDS)


# the same words, as the gates read them: the cue words only as words (``ms`` in
# ``items``, ``hi`` in ``this`` open nothing), the others anywhere (``customerName``);
# searched only where ``_ANY_WORD`` found one, from there on
_GATE_WORDS = re.compile(
    words_re([*KEY_WORDS, *_postal.ADDRESS_WORDS_LIST, *_postal.BIRTH_WORDS_LIST,
              *_postal.EURO_WORDS_LIST, *(w for ws in _natid.CONTEXT.values() for w in ws)]
             ).pattern + "|" + words_re(_names.CUE_WORDS, bounded=True).pattern)


# the shape gates in one regex that starts with one class of all their first characters
# (one scan instead of four, and the engine skips to candidates at C speed)
_SHAPES = shapes_re((*_names.SHAPE_PARTS, *_natid.SHAPE_PARTS, *_postal.SHAPE_PARTS))


class _Memo:
    """What the gate and the finders said of the strings seen last, keyed by the
    string: prompt histories repeat the same texts in every later model call, and
    ids, tool names and short values repeat in every event. Bounded by entries and
    by characters (a full memo starts over); longer strings are not remembered. Shared
    by every Redactor of a process: its answers depend on the string alone. Threads may
    race on it only as far as one answer computed twice or a count off by a string."""

    MAX_ENTRIES = 1 << 14
    MAX_CHARS = 1 << 21
    MAX_STRING = 1 << 12

    def __init__(self) -> None:
        self.gate: dict[str, bool] = {}
        self.found: dict[str, tuple[Hit, ...]] = {}
        self.chars = 0

    def room(self, text: str) -> bool:
        """Whether ``text`` may be remembered (making room when the memo is full)."""
        if len(text) > self.MAX_STRING:
            return False
        if (self.chars + len(text) > self.MAX_CHARS
                or len(self.gate) + len(self.found) >= self.MAX_ENTRIES):
            self.gate.clear()
            self.found.clear()
            self.chars = 0
        self.chars += len(text)
        return True


_MEMO = _Memo()


def maybe_personal(text: str) -> bool:
    """A cheap gate: False means ``find_personal(text) == []``. The shapes first (a
    pair of capitalised words, a word of an uncased script, an id shape, a house
    number), then, only when a word of some list stands in the text, the word gates."""
    got = _MEMO.gate.get(text)
    if got is None:
        got = _maybe(text)
        if _MEMO.room(text):
            _MEMO.gate[text] = got
    return got


def _maybe(text: str) -> bool:
    if _SHAPES.search(text) is not None:
        return True
    low = lower_same_length(text)
    # no shape stands in the text, so of each finder's gate only its words are left,
    # and none of them starts before the first word of all the lists
    at = _first_gate_word(low) if text.isascii() else _first_gate_word_re(low)
    if at < 0:
        return False
    return (_names.cue_gate(text, low, at) or _natid.WORDS.search(low, at) is not None
            or _postal.word_gate(text, low, at)
            or (("=" in text or ":" in text) and bool(_kv_hits(text, low, at))))


def _first_gate_word_re(low: str) -> int:
    """Where the first of ``_GATE_WORDS`` starts in ``low`` (-1: nowhere)."""
    first = _ANY_WORD.search(low)
    if first is None:
        return -1
    first = _GATE_WORDS.search(low, first.start())
    return -1 if first is None else first.start()


def _first_gate_word(low: str) -> int:
    """``_first_gate_word_re`` of ASCII text, with the words' starts found by one
    compiled scan: every place ``_GATE_WORDS`` matches is the start of one of the
    words, so the first such start where it matches is the answer."""
    finder = _FINDER[0] if _FINDER else _first_finder()
    if finder is None:
        return _first_gate_word_re(low)
    match = _GATE_WORDS.match
    for at in finder(low):
        if match(low, at) is not None:
            return at
    return -1


_FINDER: list[WordStarts | None] = []


def _first_finder() -> WordStarts | None:
    _FINDER.append(word_starts(_WORDS))
    return _FINDER[0]


def find_personal(text: str) -> list[Hit]:
    """Names, national ids, addresses and birth dates in free text (overlaps are
    resolved by ``find``)."""
    got = _MEMO.found.get(text)
    if got is None:
        got = tuple(_find(text))
        if _MEMO.room(text):
            _MEMO.found[text] = got
    return list(got)


def _find(text: str) -> list[Hit]:
    # the gate first: ``find`` calls this on every text the secret anchors let
    # through, and the gate, which shuts on most of them, costs less than the finders
    if not maybe_personal(text):
        return []
    shaped = _SHAPES.search(text) is not None
    low = lower_same_length(text)
    if not shaped and _ANY_WORD.search(low) is None:
        return []
    return _union(_kv_hits(text, low) + _names.find_names(text, low, shaped)
                  + _natid.find_national_ids(text, low) + _postal.find_addresses(text, low)
                  + _postal.find_birth_dates(text, low))


def _union(hits: list[Hit]) -> list[Hit]:
    """Overlapping hits of one category as one hit over their union (a street line
    inside an address after ``address:``; a cue's name and the gazetteer's), so that
    what one pass leaves, the next does not find."""
    out: list[Hit] = []
    for h in sorted(hits, key=lambda h: (h.category, h.start, -h.end)):
        last = out[-1] if out else None
        if last is not None and last.category == h.category and h.start < last.end:
            if h.end > last.end:
                out[-1] = Hit(last.start, h.end, last.detector, last.category)
            continue
        out.append(h)
    return out
