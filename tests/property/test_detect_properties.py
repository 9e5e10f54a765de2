"""Properties of the detectors (Hypothesis):

- text made of tokens (what the Redactor and the promotion policy write) holds no hit;
- hits lie inside the text, sorted and disjoint;
- ``maybe(t) is False`` implies ``find(t) == []``, on random text, on text built from
  the pieces the detectors look for, and on generated secrets;
- re-scanning a text whose hits were replaced by tokens finds nothing.
"""

from __future__ import annotations

import itertools
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.redact._catalog import RULES
from workbench.redact._detect import find, maybe
from workbench.redact._hits import CATEGORIES

DETECTOR = st.from_regex(r"[a-z0-9]{1,20}(?:-[a-z0-9]{1,20}){0,3}", fullmatch=True)
HEX = st.text("0123456789abcdef", min_size=12, max_size=12)
TOKENS = st.one_of(
    st.builds(lambda d, h: f"«secret:{d}:{h}»", DETECTOR, HEX),
    st.builds(lambda c, h: f"«{c}:{h}»", st.sampled_from([*CATEGORIES[1:], "id"]), HEX),
    st.builds(lambda n: f"«str:{n}»", st.integers(0, 10**6)),
    st.sampled_from(["«int»", "«float»", "«bool»", "«id1»", "«id42»"]),
)
SEPARATORS = st.sampled_from(["", " ", "\n", "=", ": ", ", ", "; ", "@", ":", "/", "\"",
                              "Bearer ", "password=", "Authorization: ", "?token=", "--key "])

# the pieces the detectors look for, to build texts that exercise every anchor
PIECES = st.sampled_from([
    "password", "PASSWORD", "api_key", "X-Api-Key", "token", "secret", "Authorization",
    "Cookie", "Set-Cookie", "Bearer ", "Basic ", "--password ", "--api-key=", "-p", "-u ",
    "curl ", "mysql ", "machine ", "kind: Secret", "data:", "<password>", "</password>",
    "\"name\": \"x-api-key\", \"value\": ", "=", ":", ":=", "=>", "\"", "'", " ", "\n", "@",
    "://", "user:", "::", ".", "-", "_", "+", "(", ")", "0", "1", "4", "9", "12", "415",
    "555", "2671", "4111", "1111", "DE89", "GB82", "WEST", "85.12.", "34.56", "fe80", "ghp_",
    "xoxb-", "sk-", "sk_live_", "AKIA", "AIza", "eyJ", "hvs.", "glpat-", "-----BEGIN ",
    "PRIVATE KEY-----", "-----END ", "«secret:x:0123456789ab»", "ZXlK", "Q~", "sig=",
])
ALPHABET = string.ascii_letters + string.digits + " \n\t=:@.-_/+\"'<>?&;~|%$«»"
RANDOM_TEXT = st.text(ALPHABET, max_size=200)
BUILT_TEXT = st.lists(st.one_of(PIECES, st.text(string.ascii_letters + string.digits,
                                                 min_size=1, max_size=40)),
                      max_size=30).map("".join)
SECRETS = st.builds(
    lambda rule, body, before, after: f"{before}{rule.literals[0]}{body}{after}",
    st.sampled_from([r for r in RULES if r.prefixed]),
    st.text(string.ascii_letters + string.digits + "-_", min_size=8, max_size=120),
    st.sampled_from(["", " ", "=", "\"", "key: ", "\n"]),
    st.sampled_from(["", " ", "\"", ".", "\n", ","]),
)


@given(st.lists(st.tuples(TOKENS, SEPARATORS), min_size=1, max_size=20))
def test_text_made_of_tokens_has_no_hit(parts: list[tuple[str, str]]) -> None:
    text = "".join(tok + sep for tok, sep in parts)
    found = find(text)
    inside = [h for h in found if any(ch in "«»" for ch in text[h.start:h.end])]
    assert inside == []
    if all(sep.strip() in ("", "=", ":", ",", ";", "\"", "/", "@") for _, sep in parts):
        assert found == []


def _check_spans(text: str) -> None:
    found = find(text)
    for h in found:
        assert 0 <= h.start < h.end <= len(text)
        assert h.category in CATEGORIES
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))


@settings(max_examples=300)
@given(st.one_of(RANDOM_TEXT, BUILT_TEXT, SECRETS))
def test_spans_inside_sorted_disjoint(text: str) -> None:
    _check_spans(text)


@settings(max_examples=300)
@given(st.one_of(RANDOM_TEXT, BUILT_TEXT, SECRETS))
def test_maybe_false_means_nothing_to_find(text: str) -> None:
    if not maybe(text):
        assert find(text) == []


@settings(max_examples=300)
@given(st.one_of(BUILT_TEXT, SECRETS))
def test_rescanning_redacted_text_finds_nothing(text: str) -> None:
    found = find(text)
    out, pos = [], 0
    for h in found:
        det = f"secret:{h.detector}" if h.category == "secret" else h.category
        out += [text[pos:h.start], f"«{det}:0123456789ab»"]
        pos = h.end
    redacted = "".join(out) + text[pos:]
    assert find(redacted) == [], (text, redacted)
