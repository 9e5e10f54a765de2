"""The compiled prefilter never rejects a string the exact gate passes: over the labelled
redaction corpora of the bench (several seeds), the people corpus, every string literal
of the redaction tests, their case variants, and Hypothesis-generated strings."""

from __future__ import annotations

import ast
import json
import string
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.redact import _encoded, _prefilter

ROOT = Path(__file__).resolve().parents[2]
PF = _prefilter.prefilter()
pytestmark = pytest.mark.skipif(PF is None, reason="hyperscan is not installed here")


def _strings(v: Any) -> Iterator[str]:
    if isinstance(v, str):
        yield v
        head = v.lstrip()[:1]
        if head in ("{", "["):
            try:
                doc = json.loads(v)
            except ValueError:
                return
            yield from _strings(doc)
    elif isinstance(v, dict):
        for k, x in v.items():
            yield str(k)
            yield from _strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)


def _variants(s: str) -> list[str]:
    return [s, s.upper(), s.lower(), s.swapcase(), s.title()]


def _bench_strings() -> set[str]:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import _redactgen
        import _redactgen_people
    finally:
        sys.path.remove(str(ROOT / "bench"))
    out: set[str] = set()
    for seed in range(4):
        for rec in _redactgen.generate(seed=seed, per_type=8):
            payload = rec["payload"]
            out.update(_strings(payload))
            if not isinstance(payload, str):
                out.add(json.dumps(payload, ensure_ascii=False))
            if rec.get("secret"):
                out.add(str(rec["secret"]))
        for rec in _redactgen_people.generate(seed, 8):
            out.update(_strings(rec))
    return out


def _test_literals() -> set[str]:
    out: set[str] = set()
    folders = [ROOT / "tests" / "unit" / "redact", ROOT / "tests" / "property",
               ROOT / "tests" / "hostile"]
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            out.update(n.value for n in ast.walk(tree)
                       if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return out


def _missed(strings: set[str]) -> list[str]:
    assert PF is not None
    return sorted(s for s in strings for v in _variants(s)
                  if not PF.passes(v) and _encoded.exact_gate(v))[:20]


def test_prefilter_keeps_every_bench_string() -> None:
    strings = _bench_strings()
    assert len(strings) > 5000
    # the corpora hold strings the gate passes and strings the prefilter rejects
    passed = sum(_encoded.exact_gate(s) for s in strings)
    rejected = sum(not PF.passes(s) for s in strings)
    assert passed > 1000 and rejected > 100
    assert _missed(strings) == []


def test_prefilter_keeps_every_test_literal() -> None:
    strings = _test_literals()
    assert len(strings) > 500
    assert _missed(strings) == []


# ASCII text rich in what the anchors look for: symbols, digits, capitals, key words
_ALPHABET = string.ascii_letters + string.digits + " \t\n_-.:=@+/%\"'<>[]{}()?!#$&*;,~`|\\"
_WORDS = ["password", "token", "api_key", "Bearer ", "Basic ", "name", "Dear ", "Mr. ",
          "born ", "DOB", "ssn", "address", "ghp_", "xoxb-", "AKIA", "eyJ", "-----BEGIN",
          "://", "@", "::", "+1 ", "555-", "Street", "Rue ", "curl -u ", "--password ",
          "<password>", "\"value\":", "kind: Secret", "%3D", "GB82", "4111 1111"]
_texts = st.lists(st.one_of(st.text(alphabet=_ALPHABET, max_size=12),
                            st.sampled_from(_WORDS)), max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_prefilter_keeps_generated_text(text: str) -> None:
    assert PF is not None
    for v in _variants(text):
        if _encoded.exact_gate(v):
            assert PF.passes(v), v


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_prefilter_keeps_any_text(text: str) -> None:
    assert PF is not None
    if _encoded.exact_gate(text):
        assert PF.passes(text), text


def _fresh(s: str) -> str:
    """An equal string that is another object (``find`` reuses what ``maybe`` saw of
    the very object it read)."""
    return "".join([s[:1], s[1:]]) if len(s) > 1 else s


def test_find_after_the_gate_finds_what_it_finds_alone() -> None:
    from workbench.redact._detect import find, maybe

    strings = sorted(_bench_strings() | _test_literals())[::3]
    gated = 0
    for s in strings:
        if maybe(s):
            gated += 1
            handed = find(s)  # right after the gate read this very object
            maybe("an unrelated text")  # the gate's memory now holds another text
            assert handed == find(_fresh(s)), s
    assert gated > 500


@settings(max_examples=300, deadline=None)
@given(_texts)
def test_find_after_the_gate_on_generated_text(text: str) -> None:
    from workbench.redact._detect import find, maybe

    if maybe(text):
        assert find(text) == find(_fresh(text))


# -- the personal-data gate's first word, found by one compiled scan ------------------

def _gate_word_pairs(strings: set[str]) -> list[tuple[str, int, int]]:
    from workbench.redact import _personal
    from workbench.redact._hits import lower_same_length

    out = []
    for s in strings:
        for v in _variants(s):
            low = lower_same_length(v)
            if low.isascii():
                out.append((v, _personal._first_gate_word(low),
                            _personal._first_gate_word_re(low)))
    return out


def test_first_gate_word_equals_the_regex_on_the_corpora() -> None:
    pairs = _gate_word_pairs(_bench_strings() | _test_literals())
    # the corpora hold texts with a gate word, without one, and with a cue word inside
    # a word (``hi`` in ``this``) before the first that counts
    assert sum(re_at >= 0 for _, _, re_at in pairs) > 1000
    assert sum(re_at < 0 for _, _, re_at in pairs) > 1000
    assert [p for p in pairs if p[1] != p[2]][:10] == []


_GATE_TEXT_WORDS = ["hi", "this", "ms", "items", "dr", "address", "Dear", "born", "dob",
                    "ssn", "street", "my name is", "customerName", "passport", "_mr",
                    "mr.", "9ms", "rue", "adresse", "geburtsdatum"]
_gate_texts = st.lists(st.one_of(st.text(alphabet=_ALPHABET, max_size=6),
                                 st.sampled_from(_GATE_TEXT_WORDS)), max_size=10).map("".join)


@settings(max_examples=400, deadline=None)
@given(_gate_texts)
def test_first_gate_word_equals_the_regex(text: str) -> None:
    from workbench.redact import _personal
    from workbench.redact._hits import lower_same_length

    low = lower_same_length(text)
    assert _personal._first_gate_word(low) == _personal._first_gate_word_re(low)


# -- many strings in one scan ----------------------------------------------------------

def test_batches_pass_what_single_strings_pass_on_the_corpora() -> None:
    assert PF is not None
    strings = sorted(_bench_strings() | _test_literals())
    strings = [v for s in strings for v in _variants(s)]
    single = [PF.passes(s) for s in strings]
    # strings whose match needs the text's start or end (``^``/``$`` in the patterns)
    # sit at every place of a batch: first, inside, last
    for size in (1, 7, 4096):
        batched = [ok for i in range(0, len(strings), size)
                   for ok in PF.passing(strings[i:i + size])]
        assert batched == single, size
    assert sum(single) > 1000 and len(single) - sum(single) > 1000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_texts, st.text(max_size=20)), max_size=12))
def test_batches_pass_what_single_strings_pass(strings: list[str]) -> None:
    assert PF is not None
    assert PF.passing(strings) == [PF.passes(s) for s in strings]


_values = st.recursive(
    st.one_of(st.none(), st.integers(), _texts),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["name", "text", "password",
                                                             "id", "value", "key", "note"]),
                                            inner, max_size=4)),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(_values, max_size=6))
def test_priming_changes_no_output(values: list[Any]) -> None:
    from workbench.redact import Redactor

    plain, primed = Redactor(bytes(range(32))), Redactor(bytes(range(32)))
    primed.prime(values)
    assert [primed.value(v) for v in values] == [plain.value(v) for v in values]
    assert primed.hits == plain.hits
