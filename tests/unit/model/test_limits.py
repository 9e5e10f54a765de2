"""The named limits and exact JSON within them."""

from __future__ import annotations

import pytest

from workbench.model import (
    LIMITS,
    JSONDecodeError,
    LimitedLoader,
    LimitExceededError,
    dumps,
    loads,
    loads_many,
)


def test_every_limit_is_named_once_and_positive():
    assert len(LIMITS) == 15  # protobuf_bytes the fifteenth
    assert all(name == lim.name and lim.value > 0 for name, lim in LIMITS.items())


@pytest.mark.parametrize("text", ["[" * 1025 + "]" * 1025,
                                  '{"w": ' + "9" * 25 + ', "d": ' + "[" * 1100 + "]" * 1100 + "}",
                                  '{"a":' * 2000 + "1" + "}" * 2000])
def test_nesting_beyond_json_depth(text):
    with pytest.raises(LimitExceededError) as info:
        loads(text)
    assert info.value.details["limit"] == "json_depth"


def test_nesting_within_json_depth():
    assert loads("[" * 1024 + "]" * 1024) is not None
    wide_and_deep = '{"w": ' + "9" * 25 + ', "d": ' + "[" * 500 + "]" * 500 + "}"
    assert loads(wide_and_deep)["w"] == int("9" * 25)


@pytest.mark.parametrize(("text", "ok"), [("9" * 4300, True), ("-" + "9" * 4300, True),
                                          ("9" * 4301, False), ("[" + "1" * 70_000 + "]", False)])
def test_integer_digits(text, ok):
    if ok:
        assert loads(text) == int(text)
    else:
        with pytest.raises(LimitExceededError, match="integer_digits"):
            loads(text)


@pytest.mark.parametrize("text", ["[NaN]", "[Infinity]", "[-Infinity]", "[1e400]",
                                  '[1e400, 99999999999999999999999]'])
def test_non_numbers_are_not_json(text):
    with pytest.raises(JSONDecodeError):
        loads(text)


def test_loads_many():
    assert loads_many('{"a": 1} {"b": 99999999999999999999999}\n[1]') == [
        {"a": 1}, {"b": 99999999999999999999999}, [1]]
    with pytest.raises(LimitExceededError):
        loads_many("{} " + "[" * 5000 + "]" * 5000)
    with pytest.raises(LimitExceededError):
        loads_many("{} [" + "9" * 5000 + "]")


def test_a_value_deeper_than_can_be_written_is_a_breach_not_a_crash():
    v: object = 1
    for _ in range(5000):
        v = [v]
    with pytest.raises(LimitExceededError, match="json_depth"):
        dumps(v)
    assert dumps([[[1]]]) == "[[[1]]]"


def test_breach_wording_and_placing():
    err = LIMITS["yaml_depth"].breach("f.yaml line 3", 200, file="f.yaml", line=3)
    assert err.message == ("f.yaml line 3: YAML nesting exceeds the limit yaml_depth = 128 "
                           "levels (found 200)")
    assert err.details == {"file": "f.yaml", "line": 3, "limit": "yaml_depth", "value": 128}
    moved = LIMITS["json_depth"].breach("JSON").at("t.json", 7)
    assert moved.message == "t.json line 7: JSON nesting exceeds the limit json_depth = 1,024 levels"
    assert moved.details == {"file": "t.json", "line": 7, "limit": "json_depth", "value": 1024}


def _yaml(text: str):
    loader = LimitedLoader(text, "y.yaml")
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def test_yaml_alias_budget_counts_what_aliases_repeat():
    # 300 aliases of a 301-node list repeat 90,300 nodes: within 100,000
    within = "a: &a [" + ", ".join(["1"] * 300) + "]\nb: [" + ", ".join(["*a"] * 300) + "]\n"
    assert len(_yaml(within)["b"]) == 300
    beyond = within.replace("b: [", "b: [" + "*a, " * 40)
    with pytest.raises(LimitExceededError, match="yaml_alias_nodes") as info:
        _yaml(beyond)
    assert info.value.details["line"] == 2


def test_yaml_timestamps_and_ints_are_plain():
    assert _yaml("a: 0x10\nb: 1_000\nc: -5") == {"a": 16, "b": 1000, "c": -5}
