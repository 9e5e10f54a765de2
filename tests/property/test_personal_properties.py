"""Properties of the personal-data detectors on text built from the pieces they look
for (names of several scripts, cues, personal keys, ids, dates, street words):

- ``maybe(t) is False`` implies ``find(t) == []``;
- hits lie inside the text, sorted and disjoint;
- redacting twice changes nothing, and a redacted text scans clean of personal data;
- the fast paths (one regex of all shape gates, the cue gate that looks at the case of
  the next word, the memo) agree with the straightforward ones they replace.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.redact import Redactor, _names, _natid, _personal, _postal
from workbench.redact._detect import find, maybe
from workbench.redact._hits import lower_same_length

PIECES = st.sampled_from([
    "Elena", "Fischer", "Omar Silva", "Zoë Ångström", "Иван Петров", "Анна", "王伟", "我叫",
    "محمد العلي", "اسمي", "my name is ", "Dear ", "Dear Sir", "Regards,\n", "Mr. ", "Hi, ",
    "person_name=", "customer_name: ", '"contact": "', "X-Customer-Name: ", "name: ",
    "ssn: ", "SSN ", "123-45-6789", "123456789", "JG 10 37 62 A", "12345678Z",
    "X1234567L", "RSSMRA85T10A562S", "123.456.789-09", "2345 6789 0124", "passport ",
    "K1234567", "born on ", "DOB: ", "1990-04-12", "12 April 1985", "address: ",
    "221B Baker Street", "Hauptstraße 5, 10115 Berlin", "lives at ", "getWeather",
    "Paris", "checkout-5d8f7b9c6-x2x9z", "İstanbul", "ß", "\x00", "«person:0123456789ab»",
    "customer billing", "contact al-Rashid", "hi ben-Ali", "dear abu-Bakr", "hello ÉLENA",
    "customer: élena", "attn: el-Sayed", "Thanks, omar", "联系人王伟", "invoice", "ELENA",
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
@example("Elena Fischer Hauptstraße 5, 10115 Berlin")  # a name before an address token
def test_redacting_twice_changes_nothing(text: str) -> None:
    red = Redactor(KEY)
    once = red.text(text)
    assert red.text(once) == once
    assert not [h for h in find(once) if h.category in
                ("person", "national-id", "address", "birth-date")]


def _shapes_one_by_one(text: str) -> bool:
    return any(rx.search(text) is not None for rx in (
        _names.PAIR_START, _names.UNCASED, _natid.SHAPES, _postal.HOUSE))


def _gate_straightforward(text: str) -> bool:
    """The gate as it was written first: every finder's own gate, in full."""
    low = lower_same_length(text)
    return (_names.gate(text, low) or _natid.gate(text, low) or _postal.gate(text, low)
            or bool(_personal._kv_hits(text, low)))


@settings(max_examples=400)
@given(TEXT)
@example("Regards, al-Amin")  # a name starting in lower case: the cue gate opens
@example("customer billing")  # a lower-case word after a cue: it stays shut
def test_the_fast_gates_agree_with_the_straightforward_ones(text: str) -> None:
    low = lower_same_length(text)
    assert (_personal._SHAPES.search(text) is not None) == _shapes_one_by_one(text)
    # the cue gate is stricter than "a cue stands", and still never shut on a cue's name
    if _names.cue_gate(text, low):
        assert _names.cues(text, low)
    else:
        assert _names._cue_hits(text, low) == []
    fast = _personal._maybe(text)
    if fast:
        assert _gate_straightforward(text)
    else:
        assert _personal._find(text) == []


@settings(max_examples=300)
@given(TEXT)
def test_the_memo_answers_what_the_finders_do(text: str) -> None:
    first = _personal.find_personal(text)
    first.append(None)  # type: ignore[arg-type]  # a caller's change stays its own
    assert _personal.find_personal(text) == _personal._find(text)
    assert _personal.maybe_personal(text) == _personal._maybe(text)
