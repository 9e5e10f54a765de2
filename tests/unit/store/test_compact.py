"""``compact``: small batches merged per day partition under the commit protocol. Known
answers: the same rows before and after (every event once), files sorted by
(trace_id, seq) in the batches' day partition, fewer files; replaced files kept for
``--grace`` and then removed; a reader looping while another process compacts, and a
compaction killed (SIGKILL) at many moments, always see every event exactly once."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support import run, snapshot
from workbench.ingest import ingest
from workbench.store import SUGGEST_FILES, Store, compact

TRACES = 120  # one trace per batch, four events each


def write_trace(path: Path, t: int) -> Path:
    lines = [{"trace_id": f"t{t:04d}", "event_id": f"e{t}-{i}", "seq": i, "kind": "tool_call",
              "name": ["list", "archive", "approve"][(t + i) % 3], "status": "ok",
              "start_ns": 10 * i, "end_ns": 10 * i + 5, "args": {"n": t, "i": i},
              "result": {"ok": True}} for i in range(4)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of TRACES one-trace batches, ingested in reverse id order (so that a
    compacted file must be re-sorted)."""
    d = tmp_path_factory.mktemp("compact")
    store = Store(d / "store")
    for t in reversed(range(TRACES)):
        ingest([write_trace(d / f"in{t}.jsonl", t)], store, redact=False)
    return d


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Store:
    shutil.copytree(template / "store", tmp_path / "store")
    return Store(tmp_path / "store")


def rows(store: Store) -> list[tuple[object, ...]]:
    return sorted(tuple(r.values()) for r in store.sql("SELECT * FROM events").to_pylist())


def exactly_once(store: Store) -> tuple[int, int]:
    t = store.sql("SELECT count(*) AS n, count(DISTINCT (trace_id, event_id)) AS d "
                  "FROM events").to_pylist()[0]
    return t["n"], t["d"]


def test_merges_small_batches_sorted_in_their_day(store: Store) -> None:
    before, traces_before = rows(store), store.sql("SELECT * FROM traces").num_rows
    files_before = len(store.files("events")) + len(store.files("traces"))
    days = {f.parent.name for f in store.files("events")}
    result = compact(store)
    assert result.to_dict()["batches_merged"] == TRACES
    assert result.to_dict()["files_before"] == files_before == 2 * TRACES
    assert rows(store) == before
    assert store.sql("SELECT * FROM traces").num_rows == traces_before == TRACES
    events = store.files("events")
    assert len(events) == 1 and len(store.files("traces")) == 1
    assert {f.parent.name for f in events} == days
    table = pq.ParquetFile(events[0]).read()
    keys = list(zip(table["trace_id"].to_pylist(), table["seq"].to_pylist(), strict=True))
    assert keys == sorted(keys) and len(keys) == 4 * TRACES
    assert len(store.commits()) == 1 and len(store.commits()[0].trace_ids) == TRACES
    # readers list one record: the replaced ones moved to _commits/replaced/
    assert [p.name for p in (store.root / "_commits").glob("*.json")] == [
        f"{store.commits()[0].batch}.json"]
    assert len(list((store.root / "_commits" / "replaced").glob("*.json"))) == TRACES
    # nothing left to merge: a second run changes nothing
    assert compact(store).runs == []


def test_ingested_sources_and_traces_stay_known(store: Store, template: Path) -> None:
    compact(store)
    again = ingest([template / "in7.jsonl"], store, redact=False)
    assert again.skipped and not again.traces
    assert exactly_once(store) == (4 * TRACES, 4 * TRACES)


def test_compacting_a_compacted_store_and_grace(store: Store, tmp_path: Path) -> None:
    compact(store)
    first = store.commits()[0].batch
    ingest([write_trace(tmp_path / "new.jsonl", 999)], store, redact=False)
    result = compact(store)
    assert [len(r["batches"]) for r in result.runs] == [2]
    assert first in result.runs[0]["batches"]
    assert exactly_once(store) == (4 * TRACES + 4, 4 * TRACES + 4)
    # replaced records and files are still there for readers (default grace: an hour)
    assert len(store.all_commits()) == TRACES + 3 and result.removed_batches == 0
    result = compact(store, grace=0)
    assert result.removed_batches == TRACES + 2
    assert len(store.all_commits()) == 1
    named = {f for c in store.all_commits() for f in c.files}
    on_disk = {p.relative_to(store.root).as_posix() for p in store.root.rglob("*.parquet")}
    assert on_disk == named
    assert exactly_once(store) == (4 * TRACES + 4, 4 * TRACES + 4)


def test_clean_up_cut_short_loses_nothing(store: Store, tmp_path: Path) -> None:
    """A clean-up killed after removing the oldest replaced batch's files but not its
    record: that record is still replaced, so readers do not look for its files."""
    compact(store)
    ingest([write_trace(tmp_path / "new.jsonl", 999)], store, redact=False)
    compact(store)
    oldest = store.all_commits()[0]
    for f in oldest.files:
        (store.root / f).unlink()
    assert exactly_once(store) == (4 * TRACES + 4, 4 * TRACES + 4)
    compact(store, grace=0)
    assert exactly_once(store) == (4 * TRACES + 4, 4 * TRACES + 4)


def test_records_left_beside_their_compaction(store: Store, tmp_path: Path) -> None:
    """Killed after its record is written and before the replaced records moved: readers
    leave those records out (the compaction's ``replaces`` names them), and the next
    writer moves them."""
    compact(store)
    commits = store.root / "_commits"
    for p in (commits / "replaced").glob("*.json"):
        p.rename(commits / p.name)
    assert len(list(commits.glob("*.json"))) == TRACES + 1
    fresh = Store(store.root)
    assert len(fresh.commits()) == 1
    assert exactly_once(fresh) == (4 * TRACES, 4 * TRACES)
    ingest([write_trace(tmp_path / "new.jsonl", 999)], fresh, redact=False)
    assert len(list(commits.glob("*.json"))) == 2
    assert len(list((commits / "replaced").glob("*.json"))) == TRACES
    assert exactly_once(Store(store.root)) == (4 * TRACES + 4, 4 * TRACES + 4)


def _compact_process(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "workbench", "compact", "--store",
                             str(root), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def test_reader_looping_during_compaction(store: Store) -> None:
    """The default grace keeps replaced files for readers that listed them before the
    switch (``--grace 0`` is for a store nobody is reading)."""
    want = (4 * TRACES, 4 * TRACES)
    proc = _compact_process(store.root)
    seen = []
    while proc.poll() is None:
        seen.append(exactly_once(store))
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    seen.append(exactly_once(store))
    assert len(seen) >= 2
    assert set(seen) == {want}
    assert len(store.files("events")) == 1


def test_killed_at_random_moments(template: Path, tmp_path: Path) -> None:
    """SIGKILL at moments spread over a compaction's run (a fixed seed: the same
    moments every run); after each, every event is seen once, and the next run
    finishes the work and leaves no stray file."""
    want = (4 * TRACES, 4 * TRACES)
    timing = tmp_path / "timing"
    shutil.copytree(template / "store", timing)
    started = time.monotonic()
    assert _compact_process(timing, "--grace", "0").wait(timeout=600) == 0
    full = time.monotonic() - started  # one run here, to spread the kills over
    rng = random.Random(22)
    kills = 0
    for n in range(6):
        root = tmp_path / f"kill{n}"
        shutil.copytree(template / "store", root)
        victim = Store(root)
        proc = _compact_process(root, "--grace", "0")
        time.sleep(rng.uniform(0.2, 1.0) * full)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=600)
        assert exactly_once(victim) == want
        compact(victim, grace=0)
        assert exactly_once(victim) == want
        assert len(victim.files("events")) == 1
        named = {f for c in victim.all_commits() for f in c.files}
        assert {p.relative_to(root).as_posix() for p in root.rglob("*.parquet")} == named
        staging = root / "_staging"
        assert not staging.exists() or not any(staging.iterdir())
    assert kills >= 3, "too few kills landed mid-run to test anything"


def test_dead_staging_swept_when_nothing_to_merge(store: Store) -> None:
    """A compaction killed while removing its committed batch's staging folder leaves
    that folder (here only its ``.owner`` file, unlocked); the next ``compact`` sweeps
    it even when there is nothing left to merge."""
    compact(store, grace=0)
    dead = store.root / "_staging" / "20260101T000000-0123456789ab"
    dead.mkdir(parents=True)
    (dead / ".owner").touch()
    (dead / "work").mkdir()
    assert compact(store, grace=0).runs == []
    assert not any((store.root / "_staging").iterdir())


def test_ingest_suggests_compact(store: Store, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert 2 * TRACES >= SUGGEST_FILES
    code, out, _ = run(capsys, "ingest", write_trace(tmp_path / "a.jsonl", 1000),
                       "--store", store.root, "--json")
    assert code == 0 and "workbench compact" in json.loads(out)["suggestion"]
    code, out, _ = run(capsys, "compact", "--store", store.root)
    assert code == 0 and f"{TRACES + 1} batches, {2 * TRACES + 2} files -> 2" in out
    code, out, _ = run(capsys, "ingest", write_trace(tmp_path / "b.jsonl", 1001),
                       "--store", store.root)
    assert code == 0 and "note:" not in out and "workbench compact" not in out


def test_few_small_files_no_suggestion(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ingest", write_trace(tmp_path / "a.jsonl", 1),
                       "--store", tmp_path / "s", "--json")
    assert code == 0 and "suggestion" not in json.loads(out)


def test_bad_input(store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "compact", "--store", tmp_path / "nothing")
    assert code == 2 and err.startswith("error[STORE_NOT_FOUND]") and "hint:" in err
    assert not (tmp_path / "nothing").exists()
    before = snapshot(store.root)
    code, _, err = run(capsys, "compact", "--store", store.root, "--grace", "-5")
    assert code == 2 and err.startswith("error[USAGE]")
    code, _, err = run(capsys, "compact", "--store", store.root, "--grace", "soon")
    assert code == 2 and err.startswith("error[USAGE]")
    store.files("events")[3].unlink()  # a file a commit names is gone
    before = snapshot(store.root)
    code, _, err = run(capsys, "compact", "--store", store.root)
    assert code == 2 and err.startswith("error[STORE_CORRUPT]") and "Traceback" not in err
    assert snapshot(store.root) == before
    (tmp_path / "file").write_text("x")
    code, _, err = run(capsys, "compact", "--store", tmp_path / "file")
    assert code == 2 and "error[" in err and "Traceback" not in err


def traces_per_file(store: Store) -> dict[str, list[str]]:
    """Each trace id and the events files holding its rows."""
    out: dict[str, list[str]] = {}
    for f in store.files("events"):
        for tid in set(pq.ParquetFile(f).read(columns=["trace_id"]).column(0).to_pylist()):
            out.setdefault(tid, []).append(f.name)
    return out


def test_a_trace_lives_in_one_events_file(store: Store, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's invariant (docs/store.md), kept by ingest and compact even where a
    batch's events fill many files: events files of 10 rows, compacted in chunks of 7
    (four events a trace, so a chunk of 7 would cut one)."""
    from workbench.store import _batch, _compact

    monkeypatch.setitem(_batch._FORMATS, "events", _batch._Format(
        _batch._FORMATS["events"].dictionary, 131072, 10, numbered=True))
    monkeypatch.setattr(_compact, "_CHUNK", 7)
    before = rows(store)
    compact(store, grace=0)
    assert rows(store) == before
    where = traces_per_file(store)
    assert len(where) == TRACES and len(store.files("events")) >= TRACES * 4 // 16
    assert {tid: files for tid, files in where.items() if len(files) != 1} == {}
    # ingest: many traces in one batch, its events across many files
    many = tmp_path / "many.jsonl"
    many.write_text("".join(write_trace(tmp_path / f"m{t}.jsonl", t).read_text()
                            for t in range(500, 530)))
    fresh = Store(tmp_path / "fresh")
    ingest([many], fresh, redact=False)
    where = traces_per_file(fresh)
    assert len(where) == 30 and len(fresh.files("events")) >= 2
    assert {tid: files for tid, files in where.items() if len(files) != 1} == {}
