"""Secrets hidden by URL encoding: ``?next=%2Fcb%3Ftoken%3Dghp_…`` puts ``3D`` right
before the token, so no detector sees where it starts. The text is decoded (``%XX`` and
``+``, up to three rounds for double encoding), the detectors run on the decoded text,
and each value found is replaced where it stands in the original: as it is, or in its
percent-encoded spellings."""

from __future__ import annotations

from urllib.parse import quote, quote_plus, unquote, unquote_plus

from ._detect import find, maybe

__all__ = ["disjoint", "encoded_spans", "gate"]

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


def gate(s: str) -> bool:
    """The detectors' cheap gate, also on the decoded text of a string holding ``%``."""
    return maybe(s) or ("%" in s and any(maybe(d) for d in _decodings(s)))


def encoded_spans(s: str) -> list[Span]:
    """Where the detectors' finds in the decoded text stand in ``s`` (may overlap)."""
    if "%" not in s:
        return []
    out: list[Span] = []
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
