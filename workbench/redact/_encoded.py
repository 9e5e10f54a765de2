"""Secrets hidden by an encoding.

URL encoding: ``?next=%2Fcb%3Ftoken%3Dghp_…`` puts ``3D`` right before the token, so no
detector sees where it starts. The text is decoded (``%XX`` and ``+``, up to three
rounds for double encoding), the detectors run on the decoded text, and each value
found is replaced where it stands in the original: as it is, or in its percent-encoded
spellings.

Base64 JSON: a header or a cookie carrying ``base64({"api_key": "…"})`` (``eyJ…``,
``ewo…``, ``W3si…``: what ``{"``, ``{\n``, ``[{"`` encode to) hides every key and value.
Such a run (not part of a JWT, whose own detector judges it) is decoded, standard or
URL-safe, and when it is a JSON object or array in which the detectors find something,
the whole run is that find: its bytes cannot be redacted in part. Only strings holding
one of those three openings pay for it."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import quote, quote_plus, unquote, unquote_plus

from ._detect import find, maybe
from ._prefilter import Prefilter, prefilter

__all__ = ["disjoint", "encoded_spans", "exact_gate", "gate"]

Span = tuple[int, int, str, str]  # start, end, category, detector
_ROUNDS = 3


def _decodings(s: str) -> list[str]:
    out: list[str] = []
    for decode in (unquote, unquote_plus):
        text = s
        for _ in range(_ROUNDS):
            new = decode(text)
            if new == text:
                break
            text = new
            if text not in out:
                out.append(text)
    return out


#: a base64 run that opens a JSON object or array, not glued to a JWT's dots
_B64_JSON = re.compile(r"(?<![\w+/.-])(?:eyJ|ewo|W3si)[A-Za-z0-9+/_-]{12,}={0,2}(?![\w+/=.-])")
_B64_OPENINGS = ("eyJ", "ewo", "W3si")


def _b64_json(s: str) -> list[tuple[int, int, str]]:
    """``(start, end, decoded JSON text)`` of every base64 run in ``s`` that decodes to
    a JSON object or array."""
    if not any(o in s for o in _B64_OPENINGS):
        return []
    out = []
    for m in _B64_JSON.finditer(s):
        run = m.group()
        data = run.replace("-", "+").replace("_", "/").rstrip("=")
        try:
            raw = base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
            text = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if text.lstrip()[:1] in ("{", "[") and text.rstrip()[-1:] in ("}", "]"):
            out.append((m.start(), m.end(), text))
    return out


def gate(s: str) -> bool:
    """The detectors' cheap gate, also on the decoded text of a string holding ``%``
    or a base64 JSON opening; behind the compiled prefilter where there is one."""
    pf = _PREFILTER[0] if _PREFILTER else _first_prefilter()
    if pf is not None and not pf.passes(s):
        return False
    return exact_gate(s)


_PREFILTER: list[Prefilter | None] = []


def _first_prefilter() -> Prefilter | None:
    _PREFILTER.append(prefilter())
    return _PREFILTER[0]


def exact_gate(s: str) -> bool:
    """``gate`` without the prefilter."""
    return (maybe(s) or ("%" in s and any(maybe(d) for d in _decodings(s)))
            or any(maybe(text) for _, _, text in _b64_json(s)))


def encoded_spans(s: str) -> list[Span]:
    """Where the detectors' finds in the decoded text stand in ``s`` (may overlap)."""
    out: list[Span] = []
    for start, end, text in _b64_json(s):
        hits = find(text)
        if hits:
            out.append((start, end, hits[0].category, hits[0].detector))
    if "%" not in s:
        return out
    for decoded in _decodings(s):
        for h in find(decoded):
            value = decoded[h.start:h.end]
            for form in dict.fromkeys((value, quote(value, safe=""), quote_plus(value, safe=""),
                                       quote(value))):
                i = s.find(form)
                while i >= 0:
                    out.append((i, i + len(form), h.category, h.detector))
                    i = s.find(form, i + len(form))
    return out


def disjoint(spans: list[Span]) -> list[Span]:
    """Sorted, without overlaps: of two that overlap the one starting first (the longer
    at the same start) stays."""
    out: list[Span] = []
    for sp in sorted(spans, key=lambda x: (x[0], -x[1])):
        if out and sp[0] < out[-1][1]:
            continue
        out.append(sp)
    return out
