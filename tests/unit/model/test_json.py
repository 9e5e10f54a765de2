from decimal import Decimal

import pytest

from workbench.model import dumps, json_pointer, loads


def test_wide_integers_keep_every_digit():
    doc = '{"amount": 123456789012345678901234567890, "small": 5}'
    value = loads(doc)
    assert value["amount"] == 123456789012345678901234567890
    assert dumps(value) == '{"amount":123456789012345678901234567890,"small":5}'
    assert loads(doc.encode()) == value


def test_keys_keep_their_order_and_unicode_stays_text():
    assert dumps({"b": 1, "a": "é"}) == '{"b":1,"a":"é"}'


def test_values_json_cannot_hold_are_written_as_text():
    assert dumps({"d": Decimal("1.10")}) == '{"d":"1.10"}'


def test_negative_integers_below_int64_keep_every_digit():
    assert loads("[-9223372036854775809]") == [-9223372036854775809]
    assert loads(b"[-9223372036854775808, 18446744073709551615]") == [
        -9223372036854775808, 18446744073709551615]


def test_json_pointer_follows_rfc_6901_escapes_and_percent_decoding():
    doc = {"$defs": {"a/b": {"x": 1}, "m~n": [10, 20], "sp ace": True}}
    assert json_pointer(doc, "#") is doc
    assert json_pointer(doc, "#/$defs/a~1b/x") == 1
    assert json_pointer(doc, "#/$defs/m~0n/1") == 20
    assert json_pointer(doc, "#/$defs/sp%20ace") is True


@pytest.mark.parametrize("ref", ["#/$defs/nope", "#/$defs/m~0n/2", "#/$defs/m~0n/-1",
                                 "other.json#/x", "#anchor"])
def test_json_pointer_names_nothing_with_a_key_error(ref):
    with pytest.raises(KeyError):
        json_pointer({"$defs": {"m~n": [10, 20]}}, ref)
