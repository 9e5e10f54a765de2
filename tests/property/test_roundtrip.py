"""Our JSONL -> store -> JSONL is lossless, for any events the schema admits."""

import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.fixtures import export_trace
from workbench.ingest import ingest
from workbench.model import EVENT_KINDS, STATUSES
from workbench.redact import TOKEN_RE
from workbench.store import Store

json_scalars = (st.none() | st.booleans() | st.text(max_size=20)
                | st.integers(min_value=-(2**63), max_value=2**63 - 1)
                | st.integers(min_value=2**64, max_value=2**90)  # wider than int64
                | st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                           max_leaves=12)
ns = st.none() | st.integers(min_value=0, max_value=2**62)


@st.composite
def traces(draw):
    out = []
    for t in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 6))
        seqs = draw(st.permutations(range(n * 2)))[:n]
        ids = [f"ev-{t}-{i}" for i in range(n)]
        for i in range(n):
            out.append({
                "trace_id": f"trace-{t}", "event_id": ids[i],
                "parent_id": draw(st.none() | st.sampled_from(ids)),
                "seq": seqs[i], "kind": draw(st.sampled_from(EVENT_KINDS)),
                "name": draw(st.text(min_size=1, max_size=12)),
                "start_ns": draw(ns), "end_ns": draw(ns),
                "status": draw(st.sampled_from(STATUSES)),
                "args": draw(json_values), "result": draw(json_values),
                "error": draw(st.none() | st.dictionaries(st.text(max_size=6), json_values,
                                                          max_size=3)),
                "attrs": draw(st.dictionaries(st.text(max_size=8).filter(
                    lambda k: k != "workbench.flags"), json_values, max_size=3)),
                "refs": draw(st.lists(st.fixed_dictionaries({
                    "event_id": st.sampled_from(ids), "path": st.text(max_size=10),
                    "from_path": st.text(max_size=10)}), max_size=2)),
            })
    return out


def _canon(events):
    return sorted(events, key=lambda e: (e["trace_id"], e["seq"]))


def _round_trip(events, *, redact):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.jsonl"
        src.write_text("".join(json.dumps(e) + "\n" for e in events))
        store = Store(Path(d) / "store")
        ingest([src], store, redact=redact)
        back = []
        for tid in sorted({e["trace_id"] for e in events}):
            buf = io.BytesIO()
            export_trace(store, tid, buf)
            lines = buf.getvalue().decode().rstrip("\n").split("\n")  # not splitlines: U+0085
            assert json.loads(lines[0]) == {"format": "workbench-events", "version": 1}
            back.extend(json.loads(x) for x in lines[1:])
        return _canon(back)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces())
def test_jsonl_store_jsonl_is_lossless(events):
    """Without redaction, every byte of meaning comes back."""
    assert _round_trip(events, redact=False) == _canon(events)


def _only_tokens_differ(before, after, where="event"):
    """``after`` is ``before`` with some strings replaced by ones holding a token: the
    same keys, types, list lengths, numbers, booleans and nulls."""
    if isinstance(before, str):
        assert isinstance(after, str), where
        assert after == before or TOKEN_RE.search(after), (where, before, after)
    elif isinstance(before, dict):
        assert isinstance(after, dict) and sorted(after) == sorted(before), where
        for k in before:
            _only_tokens_differ(before[k], after[k], f"{where}.{k}")
    elif isinstance(before, list):
        assert isinstance(after, list) and len(after) == len(before), where
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            _only_tokens_differ(b, a, f"{where}[{i}]")
    else:
        assert after == before and type(after) is type(before), where


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces())
def test_redaction_on_ingest_changes_strings_into_tokens_and_nothing_else(events):
    """With redaction (the default), what comes back differs from what went in only
    where a string now holds a token: structure, keys, numbers and types stay."""
    back = _round_trip(events, redact=True)
    for before, after in zip(_canon(events), back, strict=True):
        _only_tokens_differ(before, after)
