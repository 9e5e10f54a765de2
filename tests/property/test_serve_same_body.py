"""The contract server's body comparison: a JSON body equals itself however its keys
are ordered and spaced, and differs from it once one value changes."""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import strategies as st

from workbench.serve._match import same_body

SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.floats(
    allow_nan=False, allow_infinity=False)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.text(max_size=6), inner, max_size=4), max_leaves=20)


def _shuffled(v, rng: random.Random):
    if isinstance(v, dict):
        items = list(v.items())
        rng.shuffle(items)
        return {k: _shuffled(x, rng) for k, x in items}
    if isinstance(v, list):
        return [_shuffled(x, rng) for x in v]
    return v


@given(JSON, st.integers(0, 2**32), st.sampled_from([None, 0, 2]))
def test_key_order_and_whitespace_never_matter(value, seed, indent):
    sent = json.loads(json.dumps(_shuffled(value, random.Random(seed)), indent=indent))
    assert same_body(True, value, True, sent)


@given(st.dictionaries(st.text(max_size=6), SCALARS, min_size=1, max_size=5), st.data())
def test_one_changed_value_is_another_body(value, data):
    k = data.draw(st.sampled_from(sorted(value)))
    other = data.draw(SCALARS.filter(lambda v: not same_body(True, v, True, value[k])))
    assert not same_body(True, value, True, {**value, k: other})
