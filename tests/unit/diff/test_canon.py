"""Canonicalization: what is dropped (only what is listed), how ids become symbols, and
canon files that are refused with the line named."""

from decimal import Decimal

import pytest

from workbench.diff import (
    Canon,
    CanonError,
    canonical_bytes,
    canonicalize,
    digest,
    parse_canon,
    parse_pattern,
)
from workbench.diff._digest import decimal_text

DOC = {"generated_at": "2026-11-30T10:00:00Z", "total": 1250, "request_id": "rq-9",
       "items": [{"id": "o-17", "updated_at": 5, "sku": "A"},
                 {"id": "o-18", "updated_at": 6, "sku": "B", "meta": {"generated_at": 1}}],
       "customer_id": "c-3", "owner": {"id": "o-17"}}


def test_drop_is_anchored_at_the_root():
    got = canonicalize(DOC, Canon.of(drop=["generated_at", "items[*].updated_at"]))
    assert "generated_at" not in got
    assert got["items"][1]["meta"] == {"generated_at": 1}  # not listed: kept
    assert [sorted(i) for i in got["items"]] == [["id", "sku"], ["id", "meta", "sku"]]


def test_deep_drop_reaches_every_level():
    got = canonicalize(DOC, Canon.of(drop=["**.generated_at"]))
    assert "generated_at" not in got and got["items"][1]["meta"] == {}


def test_keys_are_sorted_all_the_way_down():
    got = canonicalize({"b": {"z": 1, "a": [{"y": 1, "x": 2}]}, "a": 0})
    assert list(got) == ["a", "b"] and list(got["b"]) == ["a", "z"]
    assert list(got["b"]["a"][0]) == ["x", "y"]
    assert canonical_bytes({"b": 1, "a": 2}) == b'{"a":2,"b":1}'


def test_symbols_by_first_appearance_in_sorted_order():
    got = canonicalize(DOC, Canon.of(symbolize=["*.id", "*_id"]))
    # sorted keys: customer_id, items[0].id, items[1].id, owner.id (same value as items[0])
    assert got["customer_id"] == "«id1»"
    assert [i["id"] for i in got["items"]] == ["«id2»", "«id3»"]
    assert got["owner"]["id"] == "«id2»"
    assert got["request_id"] == "«id4»" and got["total"] == 1250


def test_two_runs_with_different_ids_canonicalize_alike():
    canon = Canon.of(drop=["generated_at"], symbolize=["*.id", "*_id"])
    other = {**DOC, "generated_at": "later", "request_id": "rq-1", "customer_id": "c-99",
             "items": [{**DOC["items"][0], "id": "o-5"}, {**DOC["items"][1], "id": "o-6"}],
             "owner": {"id": "o-5"}}
    assert digest(canonicalize(DOC, canon)) == digest(canonicalize(other, canon))
    swapped = {**other, "owner": {"id": "o-6"}}  # the owner is now the other item: a change
    assert digest(canonicalize(DOC, canon)) != digest(canonicalize(swapped, canon))


def test_a_string_and_an_integer_get_different_symbols():
    got = canonicalize({"a_id": "1234", "b_id": 1234}, Canon.of(symbolize=["*_id"]))
    assert got == {"a_id": "«id1»", "b_id": "«id2»"}


def test_numbers_are_exact():
    assert canonical_bytes(100) != canonical_bytes(Decimal("100.0"))
    assert canonical_bytes(Decimal("12.50")) == canonical_bytes(Decimal("12.5")) == b"12.5"
    assert canonical_bytes(2**70) == str(2**70).encode()
    assert canonical_bytes({"x": Decimal("0.1000000000000000055511151231257827")}) == \
        b'{"x":0.1000000000000000055511151231257827}'
    assert decimal_text(Decimal("1E+2")) == "100.0"
    assert decimal_text(Decimal("1E+300")) == "1E+300"
    assert decimal_text(Decimal("1.50E-40")) == "1.5E-40"
    assert decimal_text(Decimal("0.000")) == "0.0" and decimal_text(Decimal("-2.50")) == "-2.5"


@pytest.mark.parametrize(("text", "tokens"), [
    ("generated_at", (("name", "generated_at", False),)),
    ("items[*].updated_at", (("name", "items", False), ("any",),
                             ("name", "updated_at", False))),
    ("**.id", (("deep",), ("name", "id", False))),
    ("*_id", (("name", "*_id", True),)),
    ('attrs["gen_ai.usage"]', (("name", "attrs", False), ("name", "gen_ai.usage", False))),
    ("rows[2]", (("name", "rows", False), ("index", 2))),
])
def test_patterns_parse(text, tokens):
    assert parse_pattern(text).tokens == tokens


@pytest.mark.parametrize("text", ["", "a..b", "a.", ".a", "a[x]", " a", "a[-1]"])
def test_bad_patterns_are_refused(text):
    with pytest.raises(CanonError):
        parse_pattern(text)


def test_canon_file_round_trip():
    c = parse_canon("version: 1\ndrop: [generated_at, 'items[*].updated_at']\n"
                    "symbolize: ['*.id', '*_id']\n")
    assert c.to_dict() == {"version": 1, "drop": ["generated_at", "items[*].updated_at"],
                           "symbolize": ["*.id", "*_id"]}


@pytest.mark.parametrize(("text", "needle"), [
    ("version: 1\ndrop: [a]\nkeep: [b]\n", "line 3: unknown key 'keep'"),
    ("version: 2\n", "line 1: version must be 1"),
    ("drop: [a]\n", "`version: 1` is missing"),
    ("version: 1\ndrop:\n  - ok\n  - 'a..b'\n", "line 4: bad pattern"),
    ("version: 1\ndrop: generated_at\n", "line 2: drop must be a list"),
    ("version: 1\ndrop: [a\n", "not valid YAML"),
    ("- a\n", "a canon file is a mapping"),
])
def test_bad_canon_files_name_the_line(text, needle):
    with pytest.raises(CanonError) as err:
        parse_canon(text, source="canon.yaml")
    assert needle in err.value.message and err.value.code == "CANON_INVALID"
