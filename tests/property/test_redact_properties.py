"""Redaction properties: idempotent, leaves nothing a re-scan finds, keeps the structure,
and gives equal values equal tokens."""

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.redact import TOKEN_RE, Redactor, scan_value

KEY = bytes(range(32))
SECRETS = [
    "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",
    "AKIAITOSTEYPZ4KNPFTC",
    "sk-ant-api03-e8k0txeA4RHImuBXP_ekCk2DU3vy4JIw-qk4xHGyGCDo-i9o_4GXpj-2CYLmhnf2Uza3iqXGWJ"
    "-0UrbNCUdy8EGyIoJtIAA",
    "dana.whitfield@example.org",
    "Bearer AC00pdGCY56mhlC5dBRf1m0cHeYTfNpE",
    "postgres://app:pa55-Wd9xQz@db.internal:5432/orders",
    "sid=Qm9yaXMtc2Vzc2lvbi0xMjM0; theme=dark",
    "hunter2",
]
KEYS = ["a", "id", "note", "body", "name", "value", "key", "password", "authorization",
        "Cookie", "session_token", "api_key", "headers", "stringValue"]

words = st.text(alphabet=string.ascii_letters + " .,:/-_", max_size=12)
secretish = st.sampled_from(SECRETS)
strings = st.one_of(
    words, secretish,
    st.builds(lambda a, s, b: f"{a} {s} {b}", words, secretish, words))
leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                   strings)


def _json_in_string(v):
    return json.dumps(v)


values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS),
                                  st.text(alphabet=string.ascii_lowercase, max_size=6)),
                        inner, max_size=4),
        st.builds(lambda k, v: {"name": k, "value": v}, st.sampled_from(KEYS), inner),
        st.builds(lambda k, v: {"key": k, "value": {"stringValue": v}},
                  st.sampled_from(KEYS), strings),
        st.lists(inner, min_size=1, max_size=3).map(_json_in_string)),
    max_leaves=20)


def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    if isinstance(v, str):
        return "str"
    return v  # numbers, booleans and null are kept as they are


@settings(deadline=None)
@given(values)
def test_redaction_is_idempotent(v):
    r = Redactor(KEY)
    once = r.value(v)
    assert r.value(once) == once


@settings(deadline=None)
@given(values)
def test_a_rescan_of_a_redacted_value_finds_nothing(v):
    assert scan_value(Redactor(KEY).value(v)) == []


@settings(deadline=None)
@given(values)
def test_structure_types_and_lengths_are_kept(v):
    assert shape(Redactor(KEY).value(v)) == shape(v)


@settings(deadline=None)
@given(values)
def test_equal_inputs_give_equal_outputs_and_tokens(v):
    a, b = Redactor(KEY), Redactor(KEY)
    out = a.value([v, v])
    assert out[0] == out[1] == b.value(v)
    text = json.dumps(out[0], ensure_ascii=False)
    for secret in SECRETS[:4]:
        if secret in json.dumps(v, ensure_ascii=False):
            assert secret not in text
            assert TOKEN_RE.search(text)


@settings(deadline=None)
@given(st.lists(strings, min_size=1, max_size=5))
def test_text_is_idempotent_and_clean_after(parts):
    r = Redactor(KEY)
    text = "\n".join(parts)
    once = r.text(text)
    assert r.text(once) == once
    assert scan_value(once) == []
