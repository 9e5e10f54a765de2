"""The compiled prefilter: its rewrite of the gate's regexes, its cache on disk, and the
same output with it and without it (where hyperscan has no wheel)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.redact import Redactor, _encoded, _prefilter
from workbench.redact._rewrite import superset, superset_parts

needs_hyperscan = pytest.mark.skipif(_prefilter._hs is None, reason="hyperscan is not installed")


# -- the rewrite -------------------------------------------------------------------------

@pytest.mark.parametrize(("pattern", "expected"), [
    (r"ab", r"\x61\x62"),
    (r"a(?=b)", r"\x61(?:\x62)"),  # a look-ahead at the end is matched as text
    (r"a(?=b)c", r"\x61\x63"),  # elsewhere it is dropped
    (r"(?<=x)a", r"(?:\x78)\x61"),  # a look-back at the start likewise
    (r"(?i:k)", r"(?:[\x4b\x6b])"),  # Python's own folding (the Kelvin sign folds to k)
    (r"\d{2,}", r"(?:[\x30-\x39]){2,}"),
    (r"a(?!b)", r"\x61(?:[\x00-\x61\x63-\x7f]|$)"),
    (r"[a-c](?:(?<=a)x|(?<=[bc])y)", r"(?:\x61\x78|[\x62-\x63]\x79)"),
    (r"\w+(?<=[ ./]\d0)", r"(?:[\x20\x2e-\x2f][\x30-\x39]\x30)"),
    (r"é", None),  # matches no ASCII text
])
def test_rewrite(pattern: str, expected: str | None) -> None:
    assert superset(re.compile(pattern)) == expected


def test_rewrite_reversed_reads_the_text_backwards() -> None:
    # a pattern for text[::-1] ("ba" then a digit after it) as one for the text
    got = superset(re.compile(r"ba(?=\d)"), reverse=True)
    assert got is not None
    assert re.search(got, "x1ab") and not re.search(got, "xab")


def test_rewrite_parts_split_alternatives() -> None:
    parts = superset_parts(re.compile(r"ab|c(?:d|e)|é"))
    assert parts == [r"\x61\x62", r"\x63[\x64-\x65]"]  # (d|e is a class to the parser)
    parts = superset_parts(re.compile(r"ab|c(?:dd|ee)"))
    assert parts == [r"\x61\x62", r"\x63\x64\x64", r"\x63\x65\x65"]


@pytest.mark.parametrize("pattern", [r"(?<![a-z])ms(?![a-z])", r"[A-Z][a-z]+ [A-Z]",
                                     r"(?i:pass(?:word)?)[ \t]*[:=]", r"\bkey\b"])
@pytest.mark.parametrize("text", ["ms", "items", "x ms.", "Dear Ana Lee", "PASSWORD = 1",
                                  "pass:", "key", "monkey", "a key!"])
def test_rewrite_is_a_superset(pattern: str, text: str) -> None:
    original = re.compile(pattern)
    rewritten = superset(original)
    assert rewritten is not None
    if original.search(text):
        assert re.search(rewritten, text)


# -- the database and its cache ----------------------------------------------------------

@needs_hyperscan
@pytest.mark.slow  # builds the database (seconds)
def test_cache_is_built_once_then_loaded(tmp_path: Path) -> None:
    sources = _prefilter._sources()
    first = _prefilter.Prefilter(sources, tmp_path)
    assert first.build_seconds is not None and first.load_seconds is None
    assert first.path is not None and first.path.is_file()
    second = _prefilter.Prefilter(sources, tmp_path)
    assert second.build_seconds is None and second.load_seconds is not None
    for s in ["plain words here", "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", "x=1"]:
        assert first.passes(s) == second.passes(s)


@needs_hyperscan
@pytest.mark.slow  # builds the database (seconds)
def test_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    sources = _prefilter._sources()
    path = _prefilter.Prefilter(sources, tmp_path).path
    assert path is not None
    path.write_bytes(b"not a database")
    again = _prefilter.Prefilter(sources, tmp_path)
    assert again.build_seconds is not None
    assert again.passes("password=hunter2") and not again.passes("plain words here")
    assert path.read_bytes() != b"not a database"


@needs_hyperscan
@pytest.mark.slow  # builds the database (seconds)
def test_cache_key_follows_the_pattern_set(tmp_path: Path) -> None:
    sources = _prefilter._sources()
    changed = [*sources[:-1], re.compile(sources[-1].pattern + "|zz")]
    a = _prefilter.Prefilter(sources, tmp_path)
    b = _prefilter.Prefilter(changed, tmp_path)
    assert a.key != b.key and b.build_seconds is not None
    assert b.passes("zz") and not a.passes("zz")


@needs_hyperscan
@pytest.mark.slow  # builds the database (seconds)
def test_unwritable_cache_still_works(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    pf = _prefilter.Prefilter(_prefilter._sources(), blocker / "cache")
    assert pf.passes("Bearer AC00pdGCY56mhlC5dBRf1m0cHeYTfNpE")


@needs_hyperscan
def test_long_and_non_ascii_strings_go_to_the_exact_gate() -> None:
    pf = _prefilter.prefilter()
    assert pf is not None
    assert pf.passes("a" * (_prefilter.MAX_LENGTH + 1))
    assert pf.passes("héllo")
    assert not pf.passes("a" * _prefilter.MAX_LENGTH)


# -- the same output without it --------------------------------------------------------

DOC = {"name": "Ana Lee", "note": "call +1 415 555 0134 or mail ana@example.org",
       "headers": [{"name": "Authorization", "value": "Bearer AC00pdGCY56mhlC5dBRf1m0cHeYTfNpE"}],
       "plain": ["status ok", "retry 3", "items moved", "x" * 400],
       "env": "GITHUB_TOKEN=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",
       "id": "call_f494980198a808c33e0e65ba", "contact": "Dear Mr. Omar Silva"}


def _redacted() -> tuple[object, dict[str, int]]:
    r = Redactor(bytes(range(32)))
    out = [r.value(DOC), r.value(DOC), r.ident("id-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")]
    return out, dict(r.hits)


def test_same_output_without_the_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    with_it = _redacted()
    monkeypatch.setattr(_encoded, "_PREFILTER", [None])
    without = _redacted()
    assert with_it == without
    out, hits = without
    assert isinstance(out, list) and out[0] is not DOC and out[0] == out[1]
    assert out[2] == "id-«secret:github-pat:6858e26caa10»"
    # the id is redacted but not counted; everything else twice
    assert hits == {"person-name": 4, "phone": 2, "email": 2, "bearer": 2, "github-pat": 2}


def test_no_hyperscan_means_no_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _redacted()  # with the prefilter where hyperscan is installed
    monkeypatch.setattr(_prefilter, "_hs", None)
    monkeypatch.setattr(_prefilter, "_STATE", [])
    monkeypatch.setattr(_encoded, "_PREFILTER", [])
    assert _prefilter.prefilter() is None
    assert _redacted() == expected
    assert _encoded._PREFILTER == [None]


def test_switched_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_PREFILTER", "0")
    monkeypatch.setattr(_prefilter, "_STATE", [])
    assert _prefilter.prefilter() is None


# -- the gazetteer, kept between processes -------------------------------------------------

def test_cached_json_builds_once_and_rebuilds_a_corrupt_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.redact._cache import cached_json

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    built: list[int] = []

    def build() -> list[str]:
        built.append(1)
        return ["ana", "lee"]

    assert cached_json("words", ("1", ("faker",)), build) == ["ana", "lee"]
    assert cached_json("words", ("1", ("faker",)), build) == ["ana", "lee"]
    assert len(built) == 1
    (file,) = tmp_path.glob("words-*.json")
    file.write_text("{not json")
    assert cached_json("words", ("1", ("faker",)), build) == ["ana", "lee"]
    assert len(built) == 2
    assert cached_json("words", ("2", ("faker",)), build) == ["ana", "lee"]  # new sources
    assert len(built) == 3 and len(list(tmp_path.glob("words-*.json"))) == 2


@pytest.mark.slow  # builds the gazetteer (imports every Faker locale)
def test_cached_gazetteer_is_the_built_one(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.redact import _names

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path))
    _names._gazetteer.cache_clear()
    try:
        first = _names._gazetteer()  # built and written
        _names._gazetteer.cache_clear()
        assert _names._gazetteer() == first == _names._build_gazetteer()  # read back
        assert "omar" in first[0] and "silva" in first[1]
    finally:
        _names._gazetteer.cache_clear()


@needs_hyperscan
def test_word_starts_lists_every_start_once() -> None:
    ws = _prefilter.word_starts(["hi", "this", "ms", "héllo"])
    assert ws is not None and ws.words == ["hi", "ms", "this"]  # ASCII words only
    assert ws("this is hi, items") == [0, 1, 8, 15]  # this, (t)his, hi, (ite)ms
    assert ws("no word here") == []


def test_word_starts_switched_off_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_PREFILTER", "0")
    assert _prefilter.word_starts(["hi"]) is None


def test_batch_patterns_anchor_at_the_separator_too() -> None:
    assert _prefilter.batch_pattern(r"(?:^|[\x00-\x2f])ab(?:[\x01]|$)") == (
        r"(?:(?:^|\x00)|[\x00-\x2f])ab(?:[\x01]|(?:$|\x00))")
    # escaped characters and class members are not anchors
    assert _prefilter.batch_pattern(r"\^x\$[\x5e$^]") == r"\^x\$[\x5e$^]"


@needs_hyperscan
def test_a_batch_answers_each_string() -> None:
    pf = _prefilter.prefilter()
    assert pf is not None
    strings = ["status ok", "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", "", "x" * 300,
               "héllo", "a\x00b", "ana@example.org", "retry 3"]
    assert pf.passing(strings) == [pf.passes(s) for s in strings]
    assert pf.passing(strings)[1] and not pf.passing(strings)[0]


def test_priming_remembers_the_strings_the_prefilter_shuts_on() -> None:
    r = Redactor(bytes(range(32)))
    doc = {"a": "status ok", "b": ["retry 3", {"c": "ana@example.org"}], "n": 3}
    r.prime([doc, "id-1"])
    if _prefilter.prefilter() is None:
        assert r._seen == {}  # nothing to ask
        return
    assert {"status ok", "retry 3", "id-1"} <= set(r._seen)
    assert "ana@example.org" not in r._seen  # the gate decides on it, in the walk
    assert r.value(doc)["b"][1]["c"].startswith("«email:")
