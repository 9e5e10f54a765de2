"""Person names: in values under name-like keys and in free text.

Evidence comes from three places, weakest last:

- **the key**: a value under ``full_name``, ``customer_name``, ``contact``,
  ``recipient``, ``author`` … is a name when it is *shaped* like one (one to five
  words, each a capitalised word of a cased script — ``Ana-Lucía``, ``O'Brien``,
  ``McDonald``, particles such as ``van``/``de``/``al`` in lower case — or a word of
  an uncased script: CJK, Arabic, Hebrew, Devanagari, Hangul, Thai …; no digits, no
  ``_``, ``/``, ``@``, no ``camelCase``). A bare ``name`` (tools, files, pods, models
  all have one) needs the gazetteer too;
- **a cue** in free text: ``my name is``, ``Mr.``/``Dr.``, ``Regards,``, ``меня
  зовут``, ``我叫`` … followed by a name-shaped run; a weak cue (``Dear``, ``Hi``,
  ``contact``) also needs the gazetteer, and a stop list keeps ``Dear Sir``, ``Hi
  Team`` and ``Hello World``;
- **the gazetteer** alone: a given name followed by a surname (``Elena Fischer``,
  ``Иван Петров``, ``محمد العلي``), both capitalised in a cased script.

The gazetteer is the given names and surnames that Faker ships for many locales
(Latin with diacritics, Cyrillic, Greek, CJK, Arabic, Hebrew, Indic), loaded once on
first use.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from functools import cache

from ._cache import cached_json
from ._hits import Hit, lower_same_length, words_pattern
from ._keys import key_parts
from ._lazyre import lazy

__all__ = ["CUE_WORDS", "KV", "PAIR_START", "SHAPE_PARTS", "UNCASED", "cue_gate", "cues",
           "find_names", "gate", "is_name_value", "kv_value", "name_key"]

_LOCALES = (
    "en_US", "en_GB", "en_IE", "en_IN", "en_NG", "en_KE", "de_DE", "de_AT", "fr_FR",
    "es_ES", "es_MX", "es_AR", "it_IT", "pt_BR", "pt_PT", "nl_NL", "pl_PL", "cs_CZ",
    "sk_SK", "sv_SE", "no_NO", "da_DK", "fi_FI", "hu_HU", "ro_RO", "hr_HR", "sl_SI",
    "tr_TR", "el_GR", "ru_RU", "uk_UA", "bg_BG", "ar_AA", "ar_SA", "fa_IR", "he_IL",
    "hi_IN", "zh_CN", "zh_TW", "ja_JP", "ko_KR", "vi_VN", "id_ID", "th_TH", "sw",
    "yo_NG", "ig_NG", "zu_ZA",
)
_GIVEN_ATTRS = ("first_names", "first_names_male", "first_names_female",
                "first_romanized_names", "first_names_unisex")
_SURNAME_ATTRS = ("last_names", "last_names_male", "last_names_female",
                  "last_romanized_names")

# words that Faker lists as names but that text uses as words far more often
_NOT_NAMES = frozenset({
    "sir", "madam", "team", "all", "world", "there", "friend", "friends", "customer",
    "user", "admin", "support", "sales", "china", "will", "may", "june", "april",
    "august", "long", "young", "little", "king", "black", "white", "green", "brown",
    "gray", "grey", "new", "north", "south", "east", "west", "street", "hill", "page",
    "code", "rose", "gold", "silver", "star", "summer", "winter", "spring", "autumn",
    "river", "lake", "wood", "stone", "field", "love", "hope", "faith", "joy", "grace",
    "price", "cash", "bill", "bond", "ring", "park", "ford", "cook", "baker", "major",
    "chase", "lane", "day", "hall", "home", "house", "case", "test", "sun", "city",
})


_ARABIC_FOLD = str.maketrans({"ة": "ه", "أ": "ا", "إ": "ا", "آ": "ا", "ى": "ي",
                              "\u064b": None, "\u064c": None, "\u064d": None,
                              "\u064e": None, "\u064f": None, "\u0650": None,
                              "\u0651": None, "\u0652": None})


def _fold(word: str) -> str:
    """Case-folded, and Arabic spelled one way (alef and teh marbuta variants, no
    vowel marks), so that فاطمة and فاطمه are one name."""
    return word.casefold().translate(_ARABIC_FOLD)


@cache
def _raw_given() -> frozenset[str]:
    """Every given name of the gazetteer, the stop list's words included."""
    return _gazetteer()[2]


@cache
def _gazetteer() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(given names, surnames, given names with the stop list's words), folded; kept in
    the user cache (building imports 48 Faker locales: a second of a process's start)."""
    sources = ("1", ("faker",), unicodedata.unidata_version, _LOCALES, _GIVEN_ATTRS,
               _SURNAME_ATTRS, sorted(_NOT_NAMES), sorted(_ARABIC_FOLD.items()))
    given, surnames, raw = cached_json("gazetteer", sources, lambda: [
        sorted(x) for x in _build_gazetteer()])
    return frozenset(given), frozenset(surnames), frozenset(raw)


def _build_gazetteer() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    raw_given: set[str] = set()
    raw_surnames: set[str] = set()
    for loc in _LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        except ImportError:  # a locale a future Faker drops
            continue
        for attrs, into in ((_GIVEN_ATTRS, raw_given), (_SURNAME_ATTRS, raw_surnames)):
            for attr in attrs:
                for name in getattr(provider, attr, ()) or ():
                    if isinstance(name, str):
                        into.update(name.split())
    # each distinct word folded once (the locales and lists repeat most names)
    given = {_fold(w) for w in raw_given if len(w) > 1 or not w.isascii()}
    surnames = {_fold(w) for w in raw_surnames if len(w) > 1 or not w.isascii()}
    return frozenset(given - _NOT_NAMES), frozenset(surnames - _NOT_NAMES), frozenset(given)


def _is_given(word: str) -> bool:
    return _fold(word) in _gazetteer()[0]


def _is_surname(word: str) -> bool:
    w = _fold(word)
    surnames = _gazetteer()[1]
    if w in surnames:
        return True
    # Slavic feminine forms: Петрова, Kowalska, Nováková
    for fem, masc in (("ова", "ов"), ("ева", "ев"), ("ина", "ин"), ("ская", "ский"),
                      ("ska", "ski"), ("cka", "cki"), ("ová", "")):
        if w.endswith(fem) and (w[: -len(fem)] + masc) in surnames:
            return True
    return False


# -- keys -------------------------------------------------------------------------------

# last key part -> a name whatever the value's words
_STRONG_LAST = frozenset({
    "fullname", "firstname", "lastname", "surname", "surnames", "givenname",
    "familyname", "forename", "forenames", "middlename", "maidenname", "recipient",
    "recipients", "addressee", "author", "authors", "contact", "customer", "patient",
    "passenger", "cardholder", "beneficiary", "assignee", "signatory", "attendee",
    "employee", "guest", "sender", "requester", "applicant", "holder",
})
# qualifier + "name" -> a person's name
_PERSON_QUALIFIERS = frozenset({
    "full", "first", "last", "given", "family", "middle", "maiden", "person", "customer",
    "contact", "client", "patient", "user", "display", "legal", "preferred", "real",
    "recipient", "sender", "author", "owner", "holder", "card", "cardholder", "account",
    "employee", "passenger", "guest", "member", "beneficiary", "billing", "shipping",
    "emergency", "spouse", "parent", "mother", "father", "applicant", "buyer", "seller",
    "signer", "nick", "birth", "christian", "sur", "fore", "student", "teacher", "doctor",
})


@cache
def name_key(key: str) -> str | None:
    """``"strong"`` (the value is a name if shaped like one), ``"weak"`` (a bare
    ``name``: the gazetteer must agree) or None."""
    if len(key) > 60:
        return None
    parts = key_parts(key)
    if not parts:
        return None
    last = parts[-1]
    joined = "".join(parts[-2:])
    if last in _STRONG_LAST or joined in _STRONG_LAST:
        return "strong"
    if last in ("name", "names"):
        if len(parts) == 1:
            return "weak"
        return "strong" if parts[-2] in _PERSON_QUALIFIERS else None
    return None


# -- the shape of a name ----------------------------------------------------------------

_PARTICLES = frozenset({"van", "von", "der", "den", "de", "da", "das", "do", "dos", "del",
                        "della", "di", "du", "la", "le", "bin", "binti", "ibn", "al", "el",
                        "y", "e", "zu", "ter", "ten", "af", "av", "bint", "ben"})
_PREFIXED = lazy(r"(?:Mc|Mac|O|D|Fitz|De|Di|La|Le|Van)[A-Z][a-z]+|[A-Z]\.")


def _letters(part: str) -> bool:
    """A run of letters, each perhaps with combining marks (Thai vowels and tone marks,
    Devanagari vowel signs, Arabic harakat are marks, not letters, to ``isalpha``)."""
    return part.isalpha() or (part[0].isalpha() and all(
        c.isalpha() or unicodedata.category(c).startswith("M") for c in part))


def _script_word(word: str) -> str | None:
    """``"cased"`` for a capitalised word (Latin, Cyrillic, Greek …), ``"uncased"`` for
    a word of an uncased script, None for anything else."""
    parts = re.split(r"[-'’]", word)
    if not all(p and _letters(p) for p in parts):
        return "cased" if _PREFIXED.fullmatch(word) else None
    if all(not (c.isupper() or c.islower()) for c in word if c.isalpha()):
        return "uncased"
    for i, p in enumerate(parts):
        if i and len(p) <= 2 and p.islower() and parts[0] in ("O", "D"):
            continue
        if p[0].isupper() and (len(p) == 1 or p[1:].islower()):
            continue
        if _PREFIXED.fullmatch(p):
            continue
        if i == 0 and p.lower() in ("al", "el", "ben", "bin", "abu") and len(parts) > 1:
            continue
        return None
    return "cased"


def _words(value: str) -> list[str] | None:
    """The words of a name-shaped value (particles dropped), else None."""
    s = value.strip()
    if not s or len(s) > 80 or s != value.strip("\n\t "):
        return None
    raw = s.replace(",", " ").split()
    if not 1 <= len(raw) <= 5:
        return None
    words = []
    for w in raw:
        if w in _PARTICLES:
            continue
        if _script_word(w) is None:
            return None
        words.append(w)
    return words or None


def _foreign(word: str) -> bool:
    """A capitalised Latin word with a letter outside ASCII (``Kjærgaard``,
    ``Ångström``): English words and product names have none, surnames often do."""
    return (not word.isascii() and _script_word(word) == "cased"
            and all(c.isascii() or unicodedata.name(c, "").startswith("LATIN") for c in word))


def _family(word: str) -> bool:
    return _is_surname(word) or _foreign(word)


def _evidence(words: list[str]) -> bool:
    """Whether the gazetteer agrees that ``words`` name a person: a given name and a
    surname (or a foreign-spelled word), a surname and a given name, or a CJK name."""
    if len(words) == 1:
        return _uncased_full(words[0])
    first, last = words[0], words[-1]
    if _is_given(first) and (_family(last) or _is_given(last)):
        return True
    if _fold(first) in _raw_given() and _is_surname(last):
        return True  # Grace Adeyemi: a word-like given name, and a surname
    if _is_surname(first) and _is_given(last) and len(words) <= 3:
        return True  # Петров Иван Сергеевич, Silva Omar
    return all(_script_word(w) == "uncased" for w in words) and any(
        _is_given(w) or _is_surname(w) for w in words)


def _uncased_full(word: str) -> bool:
    """A CJK/Hangul full name written as one word: a surname and a given name."""
    if _script_word(word) != "uncased" or not 2 <= len(word) <= 4:
        return False
    for cut in (1, 2):
        if _is_surname(word[:cut]) and (_is_given(word[cut:]) or (len(word) - cut == 1
                                        and _is_cjk(word))):
            return True
    return False


def _is_cjk(word: str) -> bool:
    return all(unicodedata.name(c, "").startswith(("CJK", "HANGUL")) for c in word)


def is_name_value(value: str, strength: str) -> bool:
    """Whether a whole field value under a name-like key is a person's name."""
    words = _words(value)
    if words is None:
        return False
    if strength == "strong":
        return not (len(words) == 1 and _fold(words[0]) in _NOT_NAMES)
    return _evidence(words)


# -- free text --------------------------------------------------------------------------

_CASED_WORD = r"[^\W\d_](?:[^\W\d_]|['’-](?=[^\W\d_]))*\.?"
_SCRIPTS = (r"\u0600-\u06ff\u0590-\u05ff\u0900-\u097f\u4e00-\u9fff\u3040-\u30ff"
            r"\uac00-\ud7af\u0e00-\u0e7f")
_UNCASED_RUN = f"[{_SCRIPTS}]+"
_UPPER = "".join(c for c in map(chr, range(0x41, 0x530)) if c.isupper())
_UPPER_RE = "[" + re.escape(_UPPER) + _SCRIPTS + "]"
_LOWER_RE = "[" + re.escape("".join(c for c in map(chr, range(0x61, 0x530))
                                    if c.islower())) + "]"
# where a run of two or more name-shaped words may start: a capital (or a letter of an
# uncased script) not glued to a word, a word, a space, an optional particle, a capital;
# the first character comes first, so that the engine skips to candidates at C speed
_PAIR_REST = (r"(?<![\w\x00./@-].)(?:" + _LOWER_RE + r"|(?<=[" + _SCRIPTS + r"]))"
              r"[^\W\d_]*(?:['’-][^\W\d_]+)*\.?[ \u00a0]"
              r"(?:(?:van|von|de|da|del|der|di|du|la|le|al|el|bin|ibn|dos|das|do|y) )?"
              + _UPPER_RE)
_PAIR_START = lazy(_UPPER_RE + _PAIR_REST)
#: (first character class, rest) of the shapes that open the name finders' gate: a pair
#: of name-shaped words, a letter of an uncased script
SHAPE_PARTS = ((_UPPER_RE[1:-1], _PAIR_REST), (_SCRIPTS, ""))
_WORD = f"(?:{_CASED_WORD}|{_UNCASED_RUN})(?![\\w\\x00])"
_RUN = lazy(rf"{_WORD}(?:[ \u00a0]{_WORD}){{0,3}}")
_STRONG_CUES = (
    r"my name is|my name's|name is|i am called|call me|mr\.?|mrs\.?|ms\.?|mx\.?|miss|"
    r"dr\.?|prof\.?|regards,?|sincerely,?|signed,?|best,|thanks,|attn:?|c/o|"
    r"me llamo|mi nombre es|je m'appelle|je suis|ich heiße|ich heisse|mein name ist|"
    r"mi chiamo|meu nome é|меня зовут|моё имя|мое имя|我叫|我的名字是|名叫|姓名|"
    r"私の名前は|제 이름은|اسمي|أنا|联系人|收件人"
)
_WEAK_CUES = (
    r"dear|hi|hello|hey|contact|customer|patient|recipient|assigned to|ask for|"
    r"talk to|spoke with|spoke to|i am|i'm|señor|señora|herr|frau|monsieur|madame|"
    r"господин|госпожа|客户"
)
_CUE = lazy(rf"(?i)(?<![\w\x00])(?:(?P<strong>{_STRONG_CUES})|(?P<weak>{_WEAK_CUES}))"
                  r"(?:[ \t\u00a0]*[:：,][ \t\u00a0]*\n?|[ \t\u00a0]+|(?<=[\u4e00-\u9fff]))")
KV = lazy(r"(?P<key>[A-Za-z][\w.-]{0,40}?)[\"']?[ \t]*[:=][ \t]*(?P<q>[\"']?)")
_TWO_CAPS = PAIR_START = _PAIR_START
_UNCASED = UNCASED = lazy(f"[{_SCRIPTS}]")
_CUE_CAP = lazy(_CUE.pattern + "(?=" + _UPPER_RE + ")")
# the first words of every cue, searched in the lower-cased text: where one stands,
# ``_CUE`` is tried
CUE_WORDS = (
    "my name", "name is", "i am", "call me", "mr", "mrs", "ms", "mx", "miss", "dr", "prof",
    "regards", "sincerely", "signed", "best,", "thanks,", "attn", "c/o", "me llamo",
    "mi nombre", "je m'appelle", "je suis", "ich hei", "mein name", "mi chiamo",
    "meu nome", "меня зовут", "моё имя", "мое имя", "我叫", "我的名字是", "名叫", "姓名",
    "私の名前は", "제 이름은", "اسمي", "أنا", "联系人", "收件人", "dear", "hi", "hello", "hey",
    "contact", "customer", "patient", "recipient", "assigned to", "ask for", "talk to",
    "spoke with", "spoke to", "i'm", "señor", "señora", "herr", "frau", "monsieur",
    "madame", "господин", "госпожа", "客户")
_CUE_WORDS = lazy(words_pattern(CUE_WORDS, bounded=True))


def cues(text: str, low: str) -> list[re.Match[str]]:
    """Each cue followed by a capital or a word of an uncased script."""
    out = []
    for w in _CUE_WORDS.finditer(low):
        m = _CUE_CAP.match(text, w.start())
        if m is not None:
            out.append(m)
    return out


# the only lower-case starts of a word that ``_script_word`` takes (al-Rashid, ben-…)
_LOWER_FIRSTS = ("al", "el", "ben", "bin", "abu")


def cue_gate(text: str, low: str, start: int = 0) -> bool:
    """False means ``_cue_hits(text, low) == []``. ``cues`` looks ahead for a capital
    case-insensitively (its regex is), so ``customer billing`` passes it; but a name's
    first word starts with a capital, a letter of an uncased script or one of
    ``_LOWER_FIRSTS`` (``_script_word``), so a cue before any other lower-case word
    opens nothing. Prose with a ``customer`` in it is common in traces. ``start``: no
    cue word starts before it (the caller has looked)."""
    for w in _CUE_WORDS.finditer(low, start):
        m = _CUE_CAP.match(text, w.start())
        if m is not None and (not text[m.end()].islower()
                              or low.startswith(_LOWER_FIRSTS, m.end())):
            return True
    return False


def gate(text: str, low: str) -> bool:
    """False means ``find_names(text) == []``: no two capitalised words, no word of an
    uncased script, no cue before a capital (``low``: the text lower-cased)."""
    return (_TWO_CAPS.search(text) is not None or _UNCASED.search(text) is not None
            or cue_gate(text, low))


def _run_words(text: str, start: int, limit: int = 4) -> tuple[int, list[str]] | None:
    """The name-shaped words starting at ``start``: (end, words)."""
    m = _RUN.match(text, start)
    if m is None:
        return None
    words: list[str] = []
    end = start
    pos = start
    for w in re.finditer(r"\S+", m.group()):
        token = w.group()
        bare = token.rstrip(".") if not re.fullmatch(r"[A-Z]\.", token) else token
        if bare.endswith(("'s", "’s")):
            bare = bare[:-2]  # Elena Fischer's: the name without the possessive
        if bare in _PARTICLES and words:
            continue
        kind = _script_word(bare)
        if kind is None or (kind == "cased" and bare.isupper() and len(bare) > 1):
            break
        words.append(bare)
        end = pos + w.start() + len(bare)
        if len(words) >= limit:
            break
    end = start + end - pos
    return (end, words) if words else None


def _glued(text: str, end: int) -> bool:
    """Whether a name-shaped run continues as a file name, a path or an address
    (``Elena Fischer.pdf``, ``Ana Lima/notes``, ``Ana@host``)."""
    if text[end:end + 1] in ("'", "’") and text[end + 1:end + 2] == "s" and not (
            text[end + 2:end + 3].isalnum()):
        return False  # Elena Fischer's order
    return ((end + 1 < len(text) and text[end] in "._/@\\-'’"
             and (text[end + 1].isalnum() or text[end + 1] == "\x00"))
            or (end < len(text) and (text[end].isalnum() or text[end] in "_\x00")))


def _cue_hits(text: str, low: str) -> list[Hit]:
    hits: list[Hit] = []
    for m in cues(text, low):
        got = _run_words(text, m.end(), 3)
        if got is None:
            continue
        end, words = got
        if _fold(words[0]) in _NOT_NAMES or _glued(text, end):
            continue
        strong = m.group("strong") is not None
        if strong or _evidence(words) or (len(words) >= 1 and (
                _is_given(words[0]) and (len(words) == 1 or _is_surname(words[-1])))):
            if strong and len(words) == 1 and _script_word(words[0]) == "cased" and (
                    m.group("strong").lower().startswith(("best", "thanks", "je suis",
                                                          "أنا"))
                    and not _is_given(words[0])):
                continue
            hits.append(Hit(m.end(), end, "person-name", "person"))
    return hits


def _gazetteer_hits(text: str) -> list[Hit]:
    hits: list[Hit] = []
    pos = 0
    while True:
        m = _PAIR_START.search(text, pos)
        if m is None:
            return hits
        got = _run_words(text, m.start())
        if got is None or len(got[1]) < 2:
            pos = m.start() + 1
            continue
        end, words = got
        pos = end
        if _glued(text, end):
            continue
        for i in range(len(words) - 1):  # the first given name that starts a name
            if _script_word(words[i]) == "cased" and _is_given(words[i]) and _fold(
                    words[i]) not in _NOT_NAMES:
                tail = words[i + 1:]
                if _family(tail[-1]) or (len(tail) > 1 and _is_surname(tail[0])):
                    start = text.index(words[i], m.start())
                    hits.append(Hit(start, end, "person-name", "person"))
                break
            if (_script_word(words[i]) == "uncased" and len(words) - i >= 2
                    and (_is_given(words[i]) or _is_surname(words[i]))
                    and _evidence(words[i:])):
                start = text.index(words[i], m.start())
                hits.append(Hit(start, end, "person-name", "person"))
                break


def kv_value(text: str, m: re.Match[str]) -> tuple[int, int]:
    """The span of the value after ``key=``/``key:`` (quoted, or to the end of the line
    or the next ``key=``)."""
    start = m.end()
    q = m.group("q")
    if q:
        end = text.find(q, start)
        if end == -1 or text.find("\x00", start, end) != -1:
            return start, start
        return start, end
    line_end = text.find("\n", start)
    line_end = len(text) if line_end == -1 else line_end
    nxt = re.compile(r"[ \t,;&|][\w.-]+[\"']?[ \t]*[=:]").search(text, start, line_end)
    end = nxt.start() if nxt else line_end
    if text.find("\x00", start, end) != -1:
        return start, start  # a value holding a token (masked) was judged before
    while end > start and text[end - 1] in " \t,;\r":
        end -= 1
    return start, end


def find_names(text: str, low: str | None = None, shaped: bool = True) -> list[Hit]:
    """Person names in free text (cues, the gazetteer; ``key: value`` pairs are
    ``_personal``'s); overlapping hits are resolved by the caller. ``shaped=False``:
    the caller knows that no pair of capitalised words and no word of an uncased
    script stands in the text, so the gazetteer has nothing to look at."""
    low = lower_same_length(text) if low is None else low
    hits = _cue_hits(text, low)
    if shaped and (_TWO_CAPS.search(text) is not None or _UNCASED.search(text) is not None):
        hits += _gazetteer_hits(text)
    return hits
