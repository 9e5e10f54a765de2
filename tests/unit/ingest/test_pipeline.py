import json
from pathlib import Path

import pytest

from workbench.ingest import ingest
from workbench.model import InputError
from workbench.store import Store


def jsonl(path: Path, events) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def ev(eid, **kw):
    return {"trace_id": kw.pop("trace_id", "t"), "event_id": eid, "kind": kw.pop("kind", "other"),
            "name": kw.pop("name", eid), **kw}


def rows(store, sql="SELECT event_id, seq FROM events ORDER BY trace_id, seq"):
    return [tuple(r.values()) for r in store.sql(sql).to_pylist()]


def test_recording_order_is_start_time_then_enclosing_first(tmp_path, store_dir):
    # exporters write children (which end first) before their parents
    f = jsonl(tmp_path / "a.jsonl", [
        ev("child", parent_id="root", start_ns=100, end_ns=200),
        ev("late", start_ns=300, end_ns=400),
        ev("root", start_ns=100, end_ns=500),
        ev("untimed"),
    ])
    store = Store(store_dir)
    ingest([f], store)
    assert rows(store) == [("root", 0), ("child", 1), ("late", 2), ("untimed", 3)]


def test_stated_seq_is_kept(tmp_path, store_dir):
    f = jsonl(tmp_path / "a.jsonl", [ev("b", seq=7), ev("a", seq=3)])
    store = Store(store_dir)
    ingest([f], store)
    assert rows(store) == [("a", 3), ("b", 7)]


@pytest.mark.parametrize("events, code", [
    ([ev("a", seq=0), ev("b")], "INVALID_TRACE"),             # seq on some events only
    ([ev("a", seq=1), ev("b", seq=1)], "INVALID_TRACE"),      # seq repeated
    ([ev("a", seq=-1)], "INVALID_TRACE"),
    ([ev("a", kind="banana")], "INVALID_TRACE"),
    ([ev("a", status="fine")], "INVALID_TRACE"),
    ([ev("a", unknown_field=1)], "INVALID_TRACE"),
    ([ev("a"), ev("a")], "DUPLICATE_EVENT_ID"),
    ([{"trace_id": "t", "event_id": "x"}], "UNKNOWN_FORMAT"),  # not our JSONL
])
def test_bad_jsonl_is_refused_whole(tmp_path, store_dir, events, code):
    f = jsonl(tmp_path / "bad.jsonl", events)
    store = Store(store_dir)
    with pytest.raises(InputError) as info:
        ingest([f], store)
    assert info.value.code == code
    assert store.sql("SELECT count(*) AS n FROM events").to_pylist() == [{"n": 0}]


def test_files_of_one_trace_given_together_merge(tmp_path, store_dir):
    a = jsonl(tmp_path / "a.jsonl", [ev("x", start_ns=2, end_ns=3)])
    b = jsonl(tmp_path / "b.jsonl", [ev("y", start_ns=1, end_ns=2)])
    store = Store(store_dir)
    result = ingest([a, b], store)
    assert [(t.trace_id, t.events) for t in result.traces] == [("t", 2)]
    assert rows(store) == [("y", 0), ("x", 1)]
    assert len(store.commits()[0].sources) == 2


def test_a_folder_ingests_its_trace_files_and_skips_the_rest(tmp_path, store_dir):
    d = tmp_path / "exports"
    d.mkdir()
    jsonl(d / "one.jsonl", [ev("x", trace_id="t1")])
    jsonl(d / "two.jsonl", [ev("y", trace_id="t2")])
    (d / "README.md").write_text("# notes\n")
    (d / ".hidden.jsonl").write_text("garbage")
    result = ingest([d], Store(store_dir))
    assert sorted(t.trace_id for t in result.traces) == ["t1", "t2"]
    assert ingest([d / ".." / "exports"], Store(tmp_path / "other")).events == 2  # ".." is fine
    assert result.skipped == [{"path": str(d / "README.md"), "reason": "not a trace file"}]


def test_the_same_content_twice_in_one_call_is_read_once(tmp_path, store_dir):
    a = jsonl(tmp_path / "a.jsonl", [ev("x")])
    b = tmp_path / "b.jsonl"
    b.write_bytes(a.read_bytes())
    result = ingest([a, b], Store(store_dir))
    assert result.events == 1
    assert result.skipped == [{"path": str(b), "reason": "same content as another file"}]


def test_refs_are_inferred_across_events(tmp_path, store_dir):
    f = jsonl(tmp_path / "a.jsonl", [
        ev("list", kind="tool_call", name="list_projects", start_ns=0, end_ns=10,
           result={"items": [{"id": "p17"}, {"id": "p18"}]}),
        ev("arch", kind="tool_call", name="archive_project", start_ns=20, end_ns=30,
           args={"project_id": "p18"}),
    ])
    store = Store(store_dir)
    ingest([f], store)
    trace = store.trace("t")
    assert [(s.event_id, p, fp) for s, p, fp in trace.sources("arch")] == [
        ("list", "args.project_id", "result.items[1].id")]


def test_parallel_ingest_gives_the_same_store_content(tmp_path):
    events = []
    for t in range(7):
        for i in range(40):
            events.append(ev(f"e{i}", trace_id=f"t{t}", kind="tool_call", name=f"tool{i % 3}",
                             start_ns=(i * 7919) % 400, end_ns=(i * 7919) % 400 + 5,
                             args={"ref": f"val-{t}-{i - 1}"}, result={"out": f"val-{t}-{i}"}))
    f = jsonl(tmp_path / "many.jsonl", events)
    one, two = Store(tmp_path / "one"), Store(tmp_path / "two")
    ingest([f], one, workers=1)
    ingest([f], two, workers=2)
    q = "SELECT * FROM events ORDER BY trace_id, seq"
    assert one.sql(q).to_pylist() == two.sql(q).to_pylist()
    assert len(two.files("events")) >= 2  # two partitions were written
    start = [(i * 7919) % 400 for i in range(40)]
    linked = sum(start[i - 1] + 5 <= start[i] for i in range(1, 40))  # source ended first
    assert one.sql("SELECT count(*) AS n FROM events WHERE len(refs) > 0").to_pylist() == [
        {"n": 7 * linked}]


def test_several_files_split_for_parallel_reading_keep_their_parts_apart(tmp_path):
    files = [jsonl(tmp_path / f"{t}.jsonl", [ev(f"e{i}", trace_id=f"t{t}") for i in range(40)])
             for t in range(3)]
    one, two = Store(tmp_path / "one"), Store(tmp_path / "two")
    ingest(files, one, workers=1)
    ingest(files, two, workers=2)
    q = "SELECT * FROM events ORDER BY trace_id, seq"
    assert one.sql(q).to_pylist() == two.sql(q).to_pylist()
    assert two.sql("SELECT count(*) AS n FROM events").to_pylist() == [{"n": 120}]


def test_a_bad_line_deep_in_a_part_is_named_by_its_line_in_the_file(tmp_path, store_dir):
    lines = [json.dumps(ev(f"e{i}")) for i in range(200)]
    lines[150] = '{"trace_id": "t", "event_id": '
    f = tmp_path / "bad.jsonl"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as info:
        ingest([f], Store(store_dir), workers=2)
    assert info.value.code == "INVALID_JSON" and info.value.details["line"] == 151


def test_times_beyond_int64_are_refused_not_a_crash(tmp_path, store_dir):
    f = jsonl(tmp_path / "t.jsonl", [ev("a", start_ns=2**63)])
    with pytest.raises(InputError) as info:
        ingest([f], Store(store_dir))
    assert info.value.code == "INVALID_TRACE" and "int64" in info.value.message


@pytest.mark.parametrize("workers", [1, 2])
def test_a_broken_file_of_a_folder_is_refused_whatever_the_workers(tmp_path, workers):
    d = tmp_path / "exports"
    d.mkdir()
    for i in range(4):
        jsonl(d / f"good{i}.jsonl", [ev(f"e{j}", trace_id=f"t{i}") for j in range(3)])
    jsonl(d / "bad.jsonl", [ev("e0", trace_id="tb"), ev("e1", trace_id="tb", kind="nope")])
    store = Store(tmp_path / "store")
    result = ingest([d], store, workers=workers, redact=False)
    assert sorted((t.trace_id, t.events) for t in result.traces) == [
        (f"t{i}", 3) for i in range(4)]
    assert [(Path(r["path"]).name, r["code"]) for r in result.refused] == [
        ("bad.jsonl", "INVALID_TRACE")]
    assert [s["path"] for s in store.commits()[0].sources] == [
        str(d / f"good{i}.jsonl") for i in range(4)]  # no source record for the refused
