"""Properties of the personal-data detectors on text built from the pieces they look
for (names of several scripts, cues, personal keys, ids, dates, street words):

- ``maybe(t) is False`` implies ``find(t) == []``;
- hits lie inside the text, sorted and disjoint;
- redacting twice changes nothing, and a redacted text scans clean of personal data.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.redact import Redactor
from workbench.redact._detect import find, maybe

PIECES = st.sampled_from([
    "Elena", "Fischer", "Omar Silva", "Zoë Ångström", "Иван Петров", "Анна", "王伟", "我叫",
    "محمد العلي", "اسمي", "my name is ", "Dear ", "Dear Sir", "Regards,\n", "Mr. ", "Hi, ",
    "person_name=", "customer_name: ", '"contact": "', "X-Customer-Name: ", "name: ",
    "ssn: ", "SSN ", "123-45-6789", "123456789", "JG 10 37 62 A", "12345678Z",
    "X1234567L", "RSSMRA85T10A562S", "123.456.789-09", "2345 6789 0124", "passport ",
    "K1234567", "born on ", "DOB: ", "1990-04-12", "12 April 1985", "address: ",
    "221B Baker Street", "Hauptstraße 5, 10115 Berlin", "lives at ", "getWeather",
    "Paris", "checkout-5d8f7b9c6-x2x9z", "İstanbul", "ß", "\x00", "«person:0123456789ab»",
])
SEPARATORS = st.sampled_from(["", " ", "\n", ", ", ". ", "=", ": ", "\"", "'", "_", "-"])
TEXT = st.lists(st.tuples(PIECES, SEPARATORS), max_size=8).map(
    lambda parts: "".join(p + s for p, s in parts))
KEY = bytes(range(32))


@settings(max_examples=400)
@given(TEXT)
def test_maybe_false_means_nothing_to_find(text: str) -> None:
    if not maybe(text):
        assert find(text) == []


@settings(max_examples=300)
@given(TEXT)
def test_hits_are_inside_sorted_and_disjoint(text: str) -> None:
    pos = 0
    for h in find(text):
        assert pos <= h.start < h.end <= len(text)
        pos = h.end


@settings(max_examples=300)
@given(TEXT)
@example("123-45-6789 12345678Z")  # the SSN is one only once the DNI after it is masked
def test_redacting_twice_changes_nothing(text: str) -> None:
    red = Redactor(KEY)
    once = red.text(text)
    assert red.text(once) == once
    assert not [h for h in find(once) if h.category in
                ("person", "national-id", "address", "birth-date")]
