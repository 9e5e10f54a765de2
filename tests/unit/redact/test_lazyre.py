"""A lazy pattern answers what ``re.compile`` of its text answers, compiles once, on its
first match, and every vendor rule's compiles with its ``secret`` group."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.redact._catalog import CONTEXT_RULES, RULES
from workbench.redact._lazyre import lazy

PATTERNS = [r"(?P<secret>gh[ps]_[A-Za-z0-9]{4,})(?![A-Za-z0-9])", r"(?i)name[ :=]+(\w+)",
            r"\d{3}-\d{2}-\d{4}", r"[a-z]+@[a-z]+\.[a-z]{2,}"]
TEXTS = st.text(alphabet="ghps_aZ09-@.: =Namex", max_size=40)


@given(TEXTS, st.integers(0, 5))
def test_the_answers_are_re_compiles(text: str, pos: int) -> None:
    for p in PATTERNS:
        rx, lz = re.compile(p), lazy(p)
        assert [m.span() for m in lz.finditer(text)] == [m.span() for m in rx.finditer(text)]
        assert bool(lz.search(text, pos)) == bool(rx.search(text, pos))
        assert bool(lz.match(text)) == bool(rx.match(text))
        assert bool(lz.fullmatch(text)) == bool(rx.fullmatch(text))
        assert lz.findall(text) == rx.findall(text)
        assert lz.split(text) == rx.split(text)
        assert lz.sub("x", text) == rx.sub("x", text)


def test_compiled_once_on_first_use() -> None:
    lz = lazy(r"a(b)")
    assert not lz.is_compiled and lz.pattern == r"a(b)"
    assert repr(lz) == "lazy('a(b)', 0)"  # what the prefilter's cache key reads
    assert lz.search("xab") is not None and lz.is_compiled
    first = lz.compiled
    assert lz.search("ab") is not None and lz.compiled is first
    assert vars(lz)["search"].__self__ is first  # later calls are the compiled pattern's own


@pytest.mark.parametrize("rule", [*RULES, *CONTEXT_RULES], ids=lambda r: r.id)
def test_every_rule_compiles(rule) -> None:
    rx = re.compile(rule.regex.pattern, rule.regex.flags)
    assert rule.regex.compiled.pattern == rx.pattern
    if rule in RULES:
        assert "secret" in rx.groupindex
