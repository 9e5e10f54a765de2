"""Saving a minimized trace: linked to its source, idempotent, refused on conflict."""

import json

import pytest

from tests.dags import ev
from tests.support import snapshot
from workbench.minimize import minimize, save_result, write_result
from workbench.model import Trace, TraceExistsError
from workbench.rules import parse_rules
from workbench.store import Store

RULE = parse_rules("version: 1\nrules:\n  no-delete:\n    absent: {tool: delete}\n").get(
    "no-delete")
TRACE = Trace.from_events([ev("r", 0, "agent", kind="agent"), ev("a", 1, "list", parent="r"),
                           ev("d", 2, "delete", parent="r", refs=["a"]),
                           ev("b", 3, "noise", parent="r")])


def test_saved_once_linked_to_its_source_then_a_no_op(tmp_path):
    store = Store(tmp_path / "s")
    r = minimize(TRACE, RULE)
    assert save_result(store, r) is True
    row = store.sql("SELECT * FROM traces").to_pylist()[0]
    assert row["trace_id"] == r.trace_id and row["derived_from"] == "t"
    assert row["source_format"] == "minimized" and row["events"] == 3
    meta = json.loads(row["attrs"])["minimized"]
    assert meta["source_seqs"] == {"r": 0, "a": 1, "d": 2} and meta["one_minimal"] is True
    stored = store.trace(r.trace_id)
    assert [(e.event_id, e.seq) for e in stored.events] == [("r", 0), ("a", 1), ("d", 2)]
    before = snapshot(store.root)
    assert save_result(store, r) is False
    assert snapshot(store.root) == before


def test_a_different_result_under_the_same_id_is_refused(tmp_path):
    store = Store(tmp_path / "s")
    save_result(store, minimize(TRACE, RULE))
    other = minimize(TRACE, RULE, oracle=lambda t: "d" in t and "b" in t)
    assert other.trace_id == minimize(TRACE, RULE).trace_id
    before = snapshot(store.root)
    with pytest.raises(TraceExistsError):
        save_result(store, other)
    assert snapshot(store.root) == before


def test_written_as_jsonl_with_a_header(tmp_path):
    r = minimize(TRACE, RULE)
    out = tmp_path / "min.jsonl"
    assert write_result(r, out) == 3
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["format"] == "workbench-events"
    assert [(x["event_id"], x["seq"], x["trace_id"]) for x in lines[1:]] == [
        ("r", 0, r.trace_id), ("a", 1, r.trace_id), ("d", 2, r.trace_id)]
    assert [p.name for p in tmp_path.iterdir()] == ["min.jsonl"]
