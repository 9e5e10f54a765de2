"""Postal addresses and dates of birth: under their keys and after their context words.

Neither has a shape of its own (an address is words and numbers, a birth date is a
date like any other), so both need evidence from around them:

- a value under ``address``, ``street``, ``home_address``, ``shipping_address``,
  ``address_line1`` … is an address when it holds a letter and a digit and is not a
  machine address (an IP, ``host:port``, a URL, an email, a hex wallet); keys such as
  ``ip_address``, ``email_address``, ``server_address`` are not postal. ``city``,
  ``country`` and ``zip`` alone are kept: a city is a tool argument far more often
  than a part of someone's address;
- in free text, an address after ``address:``, ``lives at``, ``ship to``, ``deliver
  to``, ``адрес`` … up to the end of the line or sentence (past an abbreviation's full
  stop: ``ул. Тверская, д. 7``), or a street line (a house number, capitalised words
  and a street type: ``221B Baker Street``, ``1600 Amphitheatre Parkway``; a European
  street type before or after its name: ``12 rue de la Paix``, ``via Roma 10``)
  anywhere; a value holding an IP address (``0.0.0.0 port 80``) is never postal;
- a date (ISO, ``12/04/1990``, ``12.04.1990``, ``April 12, 1990``, ``12 April
  1990``) under ``dob``, ``date_of_birth``, ``birthday`` … or after ``born``,
  ``DOB``, ``date of birth``, ``geboren``, ``née`` …; an ISO date anywhere else is
  kept (most dates in a trace are timestamps).
"""

from __future__ import annotations

import ipaddress
import re
from functools import cache

from ._hits import Hit, lower_same_length, words_pattern
from ._keys import key_parts
from ._lazyre import LazyPattern, lazy

__all__ = ["ADDRESS_WORDS_LIST", "BIRTH_WORDS_LIST", "EURO_WORDS_LIST", "HOUSE", "SHAPE_PARTS",
           "address_key", "birth_key", "find_addresses", "find_birth_dates", "gate",
           "is_address_value", "is_date_value", "word_gate"]

_ADDRESS_LAST = frozenset({"address", "addresses", "addr", "street", "streetaddress",
                           "residence", "domicile", "addressline"})
_NOT_POSTAL = frozenset({
    "ip", "ipv4", "ipv6", "email", "mail", "mac", "wallet", "server", "remote", "local",
    "host", "listen", "bind", "contract", "bitcoin", "btc", "eth", "memory", "base",
    "return", "web", "url", "socket", "peer", "node", "network", "net", "broadcast",
    "gateway", "proxy", "source", "src", "destination", "dst", "target", "public",
    "private", "physical", "virtual", "link", "multicast", "hardware", "to", "from",
    "reply", "cc", "bcc", "sender", "recipient", "forwarded", "pod", "service", "endpoint",
    "advertise", "external", "internal", "client", "x", "smtp", "dns", "vpc", "subnet",
})
_BIRTH_KEYS = frozenset({("dob",), ("birthday",), ("birthdate",), ("born",),
                         ("date", "of", "birth"), ("birth", "date"), ("born", "on"),
                         ("birth", "day"), ("d", "o", "b"), ("fecha", "nacimiento"),
                         ("geburtsdatum",), ("data", "nascita"), ("date", "naissance")})


@cache
def address_key(key: str) -> bool:
    """Whether a key names a postal address."""
    parts = key_parts(key)
    if not parts or len(key) > 60:
        return False
    last = parts[-1]
    if len(parts) >= 2 and parts[-2] == "address" and re.fullmatch(r"line\d*", last):
        return True
    if last not in _ADDRESS_LAST and "".join(parts[-2:]) not in _ADDRESS_LAST:
        return False
    return not any(p in _NOT_POSTAL for p in parts[:-1])


@cache
def birth_key(key: str) -> bool:
    """Whether a key names a date of birth."""
    parts = key_parts(key)
    return any(parts[i:] in _BIRTH_KEYS for i in range(len(parts)))


_MACHINE = lazy(r"^(?:[\d.:]+|[0-9a-fA-Fx]{20,}|\S+@\S+|[a-z][a-z0-9+.-]*://\S*"
                      r"|[\w.-]+:\d+|(?a:[\w./-]+))$")


#: a run that may be an IP address inside a value (``ipaddress`` decides)
_IP_LIKE = lazy(r"(?<![\w.:])[0-9a-fA-F]*[.:][0-9a-fA-F.:]*(?![\w.:])")


def _holds_ip(s: str) -> bool:
    """Whether ``s`` holds an IPv4 or IPv6 address: a postal address never does."""
    for m in _IP_LIKE.finditer(s):
        try:
            ipaddress.ip_address(m.group())
        except ValueError:
            continue
        return True
    return False


#: scripts written without spaces between words (CJK, kana, Hangul, Thai)
_UNSPACED = lazy(r"[\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af\u0e00-\u0e7f]")


def is_address_value(value: str) -> bool:
    """Whether a value under an address key is a postal address: a letter, a digit,
    a space or a comma (none needed in a script written without spaces:
    ``北京市朝阳区建国路88号``), and no machine address (``0.0.0.0 port 80`` is a socket,
    not a street)."""
    s = value.strip()
    return (4 <= len(s) <= 300 and any(c.isdigit() for c in s)
            and any(c.isalpha() for c in s)
            and (" " in s or "," in s or _UNSPACED.search(s) is not None)
            and _MACHINE.match(s) is None and "«" not in s
            and not _holds_ip(s))


_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
           r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DATE = (r"(?:(?:19|20)\d\d-[01]\d-[0-3]\d|[0-3]?\d[./-][01]?\d[./-](?:19|20)\d\d"
         rf"|[01]?\d/[0-3]?\d/(?:19|20)\d\d|{_MONTHS} [0-3]?\d(?:st|nd|rd|th)?,? (?:19|20)\d\d"
         rf"|[0-3]?\d(?:st|nd|rd|th)?\.? (?:of )?{_MONTHS},? (?:19|20)\d\d"
         r"|(?:19|20)\d\d年[01]?\d月[0-3]?\d日)")
_DATE_RE = lazy(rf"(?i){_DATE}")
_BIRTH_CONTEXT = lazy(
    r"(?i)(?<![A-Za-z0-9\x00])(?:born(?: on| in)?|dob|d\.o\.b\.?|date[ _]of[ _]birth"
    r"|birth[ _]?date|birthday|geboren(?: am)?|geburtsdatum|née?(?: le)?"
    r"|fecha de nacimiento|nacid[oa](?: el)?|data di nascita|nato il|nata il"
    r"|data de nascimento|дата рождения|родил(?:ся|ась)|出生日期|生年月日|تاريخ الميلاد)"
    r"(?: is| was| on)?[\"']?[ \t]*[:=：]?[ \t]*[\"']?")


def is_date_value(value: str) -> bool:
    """Whether a value under a birth-date key is a date (time of day allowed)."""
    m = _DATE_RE.match(value.strip())
    return m is not None and "«" not in value


BIRTH_WORDS_LIST = (
    "born", "dob", "d.o.b", "date of birth", "date_of_birth", "birth date", "birth_date",
    "birthdate", "birthday", "geboren", "geburtsdatum", "née", "nee", "fecha de nacimiento",
    "nacido", "nacida", "data di nascita", "nato il", "nata il", "data de nascimento",
    "дата рождения", "родился", "родилась", "出生日期", "生年月日", "تاريخ الميلاد")
_BIRTH_WORDS = lazy(words_pattern(BIRTH_WORDS_LIST))
ADDRESS_WORDS_LIST = (
    "address", "addr", "lives at", "live at", "living at", "reside at", "resides at",
    "ship to", "shipping to", "deliver to", "delivery to", "send it to", "located at",
    "moved to", "dirección", "direccion", "endereço", "adresse", "indirizzo", "адрес",
    "住所", "地址", "العنوان")
_ADDRESS_WORDS = lazy(words_pattern(ADDRESS_WORDS_LIST))
EURO_WORDS_LIST = (
    "straße", "strasse", "str.", "gasse", "weg", "platz", "allee", "rue ", "avenue ",
    "boulevard ", "calle ", "avenida ", "via ", "viale ", "piazza ", "rua ", "praça ",
    "carrer ", "plaza ", "paseo ", "ulica ", "улица", "ул.", "проспект", "пр.")
_EURO_WORDS = lazy(words_pattern(EURO_WORDS_LIST))


def _contexts(rx: LazyPattern, words: LazyPattern, text: str, low: str
              ) -> list[re.Match[str]]:
    """The matches of a context regex at the places its words stand."""
    out = []
    for w in words.finditer(low):
        m = rx.match(text, w.start())
        if m is not None:
            out.append(m)
    return out


def find_birth_dates(text: str, low: str | None = None) -> list[Hit]:
    """Dates right after a birth context word."""
    low = lower_same_length(text) if low is None else low
    hits: list[Hit] = []
    for m in _contexts(_BIRTH_CONTEXT, _BIRTH_WORDS, text, low):
        d = _DATE_RE.match(text, m.end())
        if d is not None and not (d.end() < len(text) and text[d.end()].isdigit()):
            hits.append(Hit(d.start(), d.end(), "birth-date", "birth-date"))
    return hits


_STREET_TYPES = (r"street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|way|"
                 r"court|ct|place|pl|parkway|pkwy|square|sq|terrace|close|crescent|"
                 r"highway|hwy|strasse|straße|str|gasse|weg|platz|allee")
_STREET = lazy(
    r"(?<![\w\x00.,/-])\d{1,5}[A-Za-z]?,? [A-Z][a-z][\w'’-]*\.? "
    r"(?:[A-Z][\w'’-]*\.? ){0,3}"
    rf"(?i:{_STREET_TYPES})\b\.?"
    r"(?:,? (?:(?:Apt|Suite|Unit|Flat)\.? ?\w+,? )?[A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,2}"
    r"(?:,? [A-Z]{2})?(?:,? \d{5}(?:-\d{4})?| [A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2})?)?"
    r"(?![\w\x00])")
_EURO_STREET = lazy(
    r"(?<![\w\x00])(?:[A-ZÀ-Þ][\w'’-]*(?:straße|strasse|str\.|gasse|weg|platz|allee)"
    r"|(?:Rue|Avenue|Boulevard|Calle|Avenida|Via|Viale|Piazza|Rua|Praça|Carrer|Plaza"
    r"|Paseo|Ulica|улица|ул\.|проспект|пр\.)(?: [\w'’.-]+){1,4}),? \d{1,4}[a-zA-Z]?"
    r"(?:,? (?:\d{4,5} )?[A-ZÀ-ÞА-Я][\w'’-]+)?(?![\w\x00])")
_CITY = r"(?:,? (?:\d{4,5} )?[A-ZÀ-ÞА-Я][\w'’-]+)?"
_PARTICLE = (r"(?:de la |de l['’]|de |du |des |la |le |les |d['’]|l['’]|dei |del |della "
             r"|delle |degli |di |da |do |dos |das )?")
#: a house number first: ``12 rue de la Paix``, ``3 bis avenue Foch, 75116 Paris``
_EURO_NUMBER_FIRST = lazy(
    r"(?<![\w\x00.,/-])\d{1,4}(?:[a-zA-Z]| bis| ter)?,? (?i:rue|avenue|boulevard|bd|allée|allee"
    r"|chemin|impasse|quai|place)"
    rf" {_PARTICLE}[A-ZÀ-Þ][\w'’-]*(?: [A-ZÀ-Þ][\w'’-]*){{0,3}}{_CITY}(?![\w\x00])")
_NAME_WORD = r"[A-ZÀ-Þ][a-zà-ÿ'’-]+"
#: a street type in lower case, the name and the number after it (``via Roma 10``,
#: ``calle Mayor 5``); lower-case ``via`` is also an English word (``via Python 3``,
#: ``via Cloudflare 12 ms``), so after it the name is plain capitalised words and the
#: number (two or three digits, or one before a city) ends the clause
_EURO_LOWER = lazy(
    r"(?<![\w\x00])(?:(?:viale|piazza|calle|avenida|rua|praça|carrer|paseo|ulica|rue)"
    rf" {_PARTICLE}[A-ZÀ-Þ][\w'’.-]*(?: [A-ZÀ-Þ][\w'’.-]*){{0,3}},? \d{{1,4}}[a-zA-Z]?"
    rf"|via {_PARTICLE}{_NAME_WORD}(?: {_NAME_WORD}){{0,2}},? "
    r"(?:\d{2,3}[a-zA-Z]?(?=$|[,.;:)!?\n]| \d{5})|\d[a-zA-Z]?(?=,? (?:\d{5} )?[A-ZÀ-Þ])))"
    rf"{_CITY}(?![\w\x00.]\d|[\w\x00])")
_ADDRESS_CONTEXT = lazy(
    r"(?i)(?<![A-Za-z0-9\x00])(?:(?:(?:home|postal|mailing|billing|shipping|street|delivery)"
    r"[ _-]?)?address(?: is)?|addr|lives at|live at|living at|reside at|resides at"
    r"|ship(?:ping)? to|deliver(?:y)? to|send it to|located at|moved to|dirección"
    r"|direccion|endereço|adresse|indirizzo|адрес|住所|地址|العنوان)"
    r"[\"']?[ \t]*[:=：]?[ \t]*[\"']?")
_HOUSE_REST = r"[A-Za-z]?,? [A-Z][a-z]"
_HOUSE = HOUSE = lazy(r"\d" + _HOUSE_REST)
#: (first character class, rest) of the house number shape
SHAPE_PARTS = ((r"\d", _HOUSE_REST),)


#: abbreviations an address holds before a full stop that does not end it
_ABBREVIATIONS = frozenset({
    "st", "ave", "rd", "blvd", "apt", "no", "nr", "str", "dr", "ln", "ct", "pl", "sq",
    "bd", "av", "ul", "д", "кв", "ул", "пр", "стр", "корп", "пер", "г", "обл", "р-н",
    "наб", "пл", "ш"})


def _abbreviation(text: str, start: int, dot: int) -> bool:
    """Whether the word before the full stop at ``dot`` is a single letter or a known
    abbreviation (``ул.``, ``д.``, ``Apt.``), which an address goes on after."""
    i = dot
    while i > start and (text[i - 1].isalpha() or text[i - 1] == "-"):
        i -= 1
    word = text[i:dot].lower()
    return len(word) == 1 or word in _ABBREVIATIONS


def _to_end(text: str, start: int) -> int:
    """The end of an address after a context word: the end of the line, a quote, a
    ``;``, or a full stop before a capitalised word."""
    end = start
    n = min(len(text), start + 160)
    while end < n:
        c = text[end]
        if c in "\n\"';|<>{}[]":
            break
        if c == "." and (end + 1 >= len(text) or text[end + 1] in " \n") and not (
                _abbreviation(text, start, end)):
            break
        end += 1
    while end > start and text[end - 1] in " ,\t\r":
        end -= 1
    return end


def find_addresses(text: str, low: str | None = None) -> list[Hit]:
    """Postal addresses after a context word, and street lines anywhere."""
    low = lower_same_length(text) if low is None else low
    hits: list[Hit] = []
    for m in _contexts(_ADDRESS_CONTEXT, _ADDRESS_WORDS, text, low):
        end = _to_end(text, m.end())
        if end > m.end() and is_address_value(text[m.end():end]):
            hits.append(Hit(m.end(), end, "postal-address", "address"))
    streets = [_STREET] if _HOUSE.search(text) else []
    if _EURO_WORDS.search(low):
        streets += [_EURO_STREET, _EURO_NUMBER_FIRST, _EURO_LOWER]
    for rx in streets:
        for m in rx.finditer(text):
            hits.append(Hit(m.start(), m.end(), "postal-address", "address"))
    return hits


def gate(text: str, low: str) -> bool:
    """False means neither ``find_addresses`` nor ``find_birth_dates`` finds anything
    (``low``: the text lower-cased)."""
    return _HOUSE.search(text) is not None or word_gate(text, low)


def word_gate(text: str, low: str, start: int = 0) -> bool:
    """``gate`` without its house-number shape: for a caller that has looked for it
    (``start``: no context word starts before it)."""
    return (_EURO_WORDS.search(low, start) is not None
            or _any_context(_ADDRESS_CONTEXT, _ADDRESS_WORDS, text, low, start)
            or _any_context(_BIRTH_CONTEXT, _BIRTH_WORDS, text, low, start))


def _any_context(rx: LazyPattern, words: LazyPattern, text: str, low: str,
                 start: int) -> bool:
    """Whether ``_contexts`` finds anything (stopping at the first)."""
    return any(rx.match(text, w.start()) is not None for w in words.finditer(low, start))
