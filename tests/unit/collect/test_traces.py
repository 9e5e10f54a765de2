"""The collector's journal segments: rotated, removed once every trace in them is
committed, and what a killed collector left read back without committing a trace twice."""

from __future__ import annotations

import json

import pytest

import workbench.collect._traces as traces_mod
from tests.collect_support import otlp_json, span
from workbench.collect._commit import Committer
from workbench.collect._traces import Traces, commit_orphans
from workbench.store import Store

A, B, C = (f"{i:032x}" for i in (1, 2, 3))


def _items(tid: str, sid: str) -> list[dict]:
    return otlp_json(span(tid, sid))["resourceSpans"]


def _segments(store) -> list[str]:
    return sorted(p.name for p in (store.root / "_journals").glob("collect-*.jsonl"))


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "store")


def test_a_segment_goes_once_every_trace_in_it_is_committed(store, monkeypatch):
    monkeypatch.setattr(traces_mod, "SEGMENT_SECONDS", 10.0)
    notes: list[str] = []
    t = Traces(store, "ci", idle=5.0, max_traces=100, note=notes.append)
    committer = Committer(store, child=False)
    t.add({A: _items(A, "a" * 16), B: _items(B, "b" * 16)}, {A: 1, B: 1}, now=0.0)
    t.add({C: _items(C, "c" * 16)}, {C: 1}, now=11.0)  # a new segment
    t.add({A: _items(A, "d" * 16)}, {A: 1}, now=12.0)  # A now in both
    assert len(_segments(store)) == 2
    t.commit(t.due(8.0), committer)  # B is idle; A is not (last seen at 12)
    assert t.committed == [B] and len(_segments(store)) == 2
    t.commit(t.due(20.0), committer)  # A and C: both segments are done
    assert sorted(t.committed) == [A, B, C] and t.spans_committed == 4
    t.close()
    assert _segments(store) == [] and notes == []
    assert len(store.trace(A).events) == 2
    envs = store.sql("select distinct env from traces").column("env").to_pylist()
    assert envs == ["ci"]
    assert t.is_closed(A)  # a late span for A would be refused


def test_a_killed_run_s_segments_commit_what_the_store_lacks_once(store):
    t = Traces(store, "staging", idle=5.0, max_traces=100, note=print)
    t.add({A: _items(A, "a" * 16), B: _items(B, "b" * 16)}, {A: 1, B: 1}, now=0.0)
    a = [x for x in t.due(0.0, everything=True) if x.trace_id == A]
    Committer(store, child=False).commit([(A, a[0].lines)], "staging", print)
    # the run dies: its lock goes, its segment (A committed, B not) stays, a line cut short
    for seg in t._segments.values():
        seg.journal.append(b'{"resourceSpans": [')
        seg.journal.close()
    assert len(_segments(store)) == 1
    done = commit_orphans(store, print)
    assert done == [B] and _segments(store) == []
    assert store.trace_ids() == {A, B}
    assert store.sql("select distinct env from traces").column("env").to_pylist() == \
        ["staging"]
    assert json.loads(json.dumps(commit_orphans(store, print))) == []
