import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from workbench.ingest import ingest
from workbench.model import EVENTS, NotFoundError, QueryError, StoreError
from workbench.store import Store


def write_jsonl(path: Path, trace_id: str, n: int = 3) -> Path:
    lines = [{"trace_id": trace_id, "event_id": f"e{i}", "kind": "tool_call",
              "name": f"tool{i % 2}", "start_ns": i * 10, "end_ns": i * 10 + 5, "status": "ok",
              "args": {"i": i}, "result": {"id": f"{trace_id}-item-{i}"}} for i in range(n)]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock"} if root.exists() else {}


def test_empty_store_has_typed_empty_views(store_dir):
    store = Store(store_dir)
    assert store.sql("SELECT count(*) AS n FROM events").to_pylist() == [{"n": 0}]
    assert store.sql("SELECT * FROM tool_calls").num_rows == 0
    assert store.sql("SELECT * FROM traces").num_rows == 0
    assert not store_dir.exists()  # reading creates nothing


def test_ingest_writes_hive_layout_and_commit_record(store_dir, tmp_path):
    store = Store(store_dir)
    result = ingest([write_jsonl(tmp_path / "a.jsonl", "ta")], store)
    assert result.events == 3
    [commit] = store.commits()
    assert {f.split("/")[0] for f in commit.files} == {"events", "traces"}
    assert all(f.split("/")[1].startswith("day=") for f in commit.files)
    events_file = store_dir / next(f for f in commit.files if f.startswith("events/"))
    table = pq.read_table(events_file)
    assert table.schema.names == EVENTS.names
    assert table.column("seq").to_pylist() == [0, 1, 2]


def test_reingesting_the_same_file_adds_nothing(store_dir, tmp_path):
    store = Store(store_dir)
    f = write_jsonl(tmp_path / "a.jsonl", "ta")
    ingest([f], store)
    before = snapshot(store_dir)
    again = ingest([f], store)
    assert again.events == 0 and again.skipped[0]["reason"] == "already ingested"
    assert snapshot(store_dir) == before


def test_a_trace_already_stored_from_another_file_is_refused(store_dir, tmp_path):
    store = Store(store_dir)
    ingest([write_jsonl(tmp_path / "a.jsonl", "ta")], store)
    before = snapshot(store_dir)
    with pytest.raises(StoreError) as info:
        ingest([write_jsonl(tmp_path / "b.jsonl", "ta", n=4)], store)
    assert info.value.code == "TRACE_EXISTS"
    assert snapshot(store_dir) == before


def test_failure_before_commit_leaves_store_unchanged(store_dir, tmp_path):
    store = Store(store_dir)
    ingest([write_jsonl(tmp_path / "a.jsonl", "ta")], store)
    before = snapshot(store_dir)
    with pytest.raises(RuntimeError), store.stage() as batch:
        batch.write("events", pa.table({"x": [1]}))
        raise RuntimeError("crash while staging")
    assert snapshot(store_dir) == before


def test_uncommitted_data_files_are_invisible_and_cleaned(store_dir, tmp_path):
    store = Store(store_dir)
    ingest([write_jsonl(tmp_path / "a.jsonl", "ta")], store)
    # a crash between renaming a data file into place and writing its commit record
    stray = store_dir / "events" / "day=2020-01-01" / "stray.parquet"
    stray.parent.mkdir(parents=True)
    pq.write_table(store.sql("SELECT * FROM events"), stray)
    assert store.sql("SELECT count(*) AS n FROM events").to_pylist() == [{"n": 3}]
    ingest([write_jsonl(tmp_path / "b.jsonl", "tb")], store)
    assert not stray.exists()
    assert store.sql("SELECT count(*) AS n FROM events").to_pylist() == [{"n": 6}]


def test_two_ingest_processes_at_once_lose_nothing(store_dir, tmp_path):
    files = [write_jsonl(tmp_path / f"f{i}.jsonl", f"t{i}", n=50) for i in range(6)]
    script = ("import sys; from workbench.ingest import ingest; from workbench.store import Store;"
              "ingest(sys.argv[2:], Store(sys.argv[1]))")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(store_dir), *map(str, group)])
             for group in (files[:3], files[3:], files[1:4])]  # the third overlaps both
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    store = Store(store_dir)
    counts = store.sql("SELECT trace_id, count(*) AS n, count(DISTINCT seq) AS s FROM events "
                       "GROUP BY 1 ORDER BY 1").to_pylist()
    assert counts == [{"trace_id": f"t{i}", "n": 50, "s": 50} for i in range(6)]
    assert store.sql("SELECT count(*) AS n FROM traces").to_pylist() == [{"n": 6}]


def test_trace_lookup_and_prefixes(store_dir, tmp_path):
    store = Store(store_dir)
    ingest([write_jsonl(tmp_path / "a.jsonl", "abc-1"), write_jsonl(tmp_path / "b.jsonl", "abd-2")],
           store)
    assert store.resolve_trace_id("abc") == "abc-1"
    with pytest.raises(NotFoundError) as info:
        store.resolve_trace_id("ab")
    assert info.value.code == "AMBIGUOUS_TRACE"
    with pytest.raises(NotFoundError) as info:
        store.trace("zzz")
    assert info.value.code == "TRACE_NOT_FOUND"
    assert len(store.trace("abc-1")) == 3


def test_bad_sql_is_a_query_error(store_dir):
    with pytest.raises(QueryError) as info:
        Store(store_dir).sql("SELEC nonsense")
    assert info.value.code == "SQL_ERROR"


def test_a_directory_that_is_not_a_store_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(StoreError) as info:
        ingest([write_jsonl(tmp_path / "a.jsonl", "ta")], Store(tmp_path))
    assert info.value.code == "NOT_A_STORE"
