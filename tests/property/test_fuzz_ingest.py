"""Mutated OTLP documents, hostile values among the mutations (huge integers, deep
nesting, non-numbers, times beyond int64): ingest ends in success or exit 2 with the
store unchanged, never in an internal error."""

import copy
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli import main

BASE = json.loads((Path(__file__).resolve().parents[2] / "traces" / "examples"
                   / "archive-incident.otlp.json").read_text())

# hostile values: placeholders that become, once the document is text, an integer wider
# than Python reads (integer_digits) or a value nested beyond json_depth; JSON's
# non-numbers (json.dumps writes NaN and Infinity); integers and times beyond int64
_SPLICE = {'"\\u0000HUGE\\u0000"': "9" * 5000, '"\\u0000DEEP\\u0000"': "[" * 2000 + "]" * 2000,
           '"\\u0000DEEPOBJ\\u0000"': '{"a":' * 1500 + "1" + "}" * 1500,
           '"\\u0000WIDE\\u0000"': "9" * 300}
hostile = st.sampled_from(["\x00HUGE\x00", "\x00DEEP\x00", "\x00DEEPOBJ\x00", "\x00WIDE\x00",
                           "Infinity", "NaN", "-Infinity", "1e400", "9" * 40, ["1e400", 0]]) \
    | st.sampled_from([2**64, -(2**63) - 1, 10**30, float("inf"), float("nan"), 1e308])
junk = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.just([]) \
    | st.just({}) | st.floats(allow_nan=False) | st.just({"stringValue": 3}) | hostile


def _text(doc) -> bytes:
    text = json.dumps(doc)
    for placeholder, value in _SPLICE.items():
        text = text.replace(placeholder, value)
    return text.encode()


def _nodes(doc, path=()):
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(v, (*path, i))


NODES = [p for p in _nodes(BASE) if p]


def _mutate(doc, path, how, value):
    *head, last = path
    parent = doc
    for k in head:
        parent = parent[k]
    if how == "delete":
        if isinstance(parent, dict):
            del parent[last]
        else:
            parent.pop(last)
    elif how == "replace":
        parent[last] = value
    elif how == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[last]))


mutations = st.lists(st.tuples(st.sampled_from(NODES),
                               st.sampled_from(["delete", "replace", "duplicate"]), junk),
                     min_size=1, max_size=4)


def _snapshot(root: Path):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock"}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations, st.integers(min_value=0, max_value=100), st.booleans())
def test_mutated_otlp_never_crashes_and_never_half_writes(muts, cut, truncate):
    doc = copy.deepcopy(BASE)
    for path, how, value in muts:
        try:
            _mutate(doc, path, how, value)
        except (KeyError, IndexError, TypeError, AttributeError):
            continue  # an earlier mutation removed or replaced the node
    data = _text(doc)
    if truncate:
        data = data[: len(data) * cut // 100]
    with tempfile.TemporaryDirectory() as d:
        store = Path(d) / "store"
        seed = Path(d) / "seed.jsonl"
        seed.write_text(json.dumps({"trace_id": "seed", "event_id": "e", "kind": "other",
                                    "name": "seed"}) + "\n")
        assert main(["ingest", str(seed), "--store", str(store)]) == 0
        before = _snapshot(store)
        f = Path(d) / "mutated.json"
        f.write_bytes(data)
        code = main(["ingest", str(f), "--store", str(store), "--json"])
        assert code in (0, 2)
        if code == 2:
            assert _snapshot(store) == before
