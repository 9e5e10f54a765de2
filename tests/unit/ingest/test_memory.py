"""The memory budget of an ingest (``--memory``, ``$WORKBENCH_INGEST_MEMORY``): sizes,
bad values, how it splits into processes and DuckDB's limit, and that it reaches them."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support import EXAMPLES, run
from workbench.ingest import _finalize, _pipeline, ingest
from workbench.ingest._memory import (
    DEFAULT_MEMORY,
    ENV,
    MIN_MEMORY,
    MIN_SORT,
    PROCESS_BASE,
    memory_budget,
    parse_size,
    partitions_for,
    processes_within,
    sort_memory,
)
from workbench.model import UsageError
from workbench.store import Scratch, Store

INCIDENT = EXAMPLES / "archive-incident.otlp.json"


@pytest.mark.parametrize(("text", "size"), [
    ("1.5GB", 1_500_000_000), ("800MB", 800_000_000), ("800mb", 800_000_000),
    ("2GiB", 2 << 30), ("512MiB", 512 << 20), ("2G", 2_000_000_000), (" 1 gb ", 10**9),
    ("750000000", 750_000_000), ("750000000b", 750_000_000), ("900000k", 900_000_000),
])
def test_sizes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "1.5XB", "-1GB", "1e9", "GB", "1.5 G B",
                                  "1,5GB", "0x10MB"])
def test_what_is_not_a_size(text):
    with pytest.raises(UsageError) as e:
        parse_size(text)
    assert e.value.code == "MEMORY_INVALID"
    assert "1.5GB" in e.value.hint


def test_the_budget_comes_from_the_argument_then_the_environment(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert memory_budget() == DEFAULT_MEMORY == 1_500_000_000
    monkeypatch.setenv(ENV, "1GB")
    assert memory_budget() == 10**9
    assert memory_budget("2GB") == 2 * 10**9
    assert memory_budget(3 * 10**9) == 3 * 10**9
    monkeypatch.setenv(ENV, "plenty")
    with pytest.raises(UsageError) as e:
        memory_budget()
    assert e.value.code == "MEMORY_INVALID" and ENV in str(e.value)
    monkeypatch.setenv(ENV, " ")
    assert memory_budget() == DEFAULT_MEMORY


@pytest.mark.parametrize("value", ["100MB", 10**6, MIN_MEMORY - 1])
def test_a_budget_too_small_for_one_process(value):
    with pytest.raises(UsageError) as e:
        memory_budget(value)
    assert e.value.code == "MEMORY_TOO_SMALL"
    assert f"{MIN_MEMORY // 10**6} MB" in e.value.hint


@pytest.mark.parametrize("value", [True, 1.5, [1]])
def test_a_budget_of_another_type(value):
    with pytest.raises(UsageError) as e:
        memory_budget(value)
    assert e.value.code == "MEMORY_INVALID"


def test_the_default_split():
    # 1.5 GB: two processes of 750 MB, each with 300 MB for DuckDB's sort
    assert processes_within(DEFAULT_MEMORY, 4) == 2
    assert sort_memory(DEFAULT_MEMORY, 2) == 300_000_000
    assert sort_memory(DEFAULT_MEMORY, 1) == 1_050_000_000
    assert processes_within(MIN_MEMORY, 4) == 1
    assert sort_memory(MIN_MEMORY, 1) == MIN_SORT
    assert processes_within(10**10, 4) == 4
    assert processes_within(10**10, 1) == 1


def test_partitions_grow_with_the_input_not_the_processes():
    assert partitions_for(10**6, 1, 10**9) == 1
    assert partitions_for(10**6, 2, 300_000_000) == 2
    # 2.15 GB in two processes with 300 MB sorts: four partitions of at most 600 MB
    assert partitions_for(2_150_000_000, 2, 300_000_000) == 4
    assert partitions_for(2_150_000_000, 1, 1_050_000_000) == 2
    assert partitions_for(10**13, 2, MIN_SORT) == 64


@given(size=st.integers(0, 10**12), processes=st.integers(1, 8),
       sort=st.integers(MIN_SORT, 10**10))
def test_each_partition_holds_at_most_twice_its_sort(size, processes, sort):
    n = partitions_for(size, processes, sort)
    assert processes <= n <= max(processes, 64)
    assert n == 64 or size <= n * 2 * sort


def test_more_partitions_store_the_same_events(tmp_path, monkeypatch):
    files = []
    for n in range(8):  # eight traces, spread over the partitions by their ids
        f = tmp_path / f"incident-{n}.otlp.json"
        f.write_text(INCIDENT.read_text().replace("4bf92f3577b34da6", f"{n}bf92f3577b34da{n}"))
        files.append(f)
    key = bytes(range(32))  # one redaction key, so that both stores give equal tokens
    one = Store(tmp_path / "one")
    ingest(files, one, redact=key)
    monkeypatch.setattr(_pipeline, "partitions_for", lambda size, processes, sort: 5)
    five = Store(tmp_path / "five")
    ingest(files, five, redact=key)
    query = "SELECT * FROM events ORDER BY trace_id, seq"
    assert len(one.sql(query)) == 8 * len(one.sql(
        "SELECT 1 FROM events WHERE trace_id = (SELECT min(trace_id) FROM events)"))
    assert five.sql(query).to_pylist() == one.sql(query).to_pylist()
    assert len(one.files("events")) == 1 < len(five.files("events"))


@given(budget=st.integers(MIN_MEMORY, 64 * 10**9), wanted=st.integers(1, 16))
def test_the_processes_fit_in_the_budget(budget, wanted):
    n = processes_within(budget, wanted)
    assert 1 <= n <= wanted
    sort = sort_memory(budget, n)
    assert sort >= MIN_SORT
    assert n * (PROCESS_BASE + sort) <= budget


def test_duckdb_is_given_the_limit(tmp_path):
    con = _finalize._connect(Scratch(tmp_path), threads=1, memory=350_000_000)
    try:
        got = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        want = duckdb.connect(config={"memory_limit": "350MB"}).execute(
            "SELECT current_setting('memory_limit')").fetchall()[0][0]
    finally:
        con.close()
    assert got == want


def test_the_budget_decides_the_processes_and_the_sort(tmp_path, monkeypatch):
    seen = {}
    finalize = _pipeline.finalize
    workers = _pipeline.Workers

    def spy_finalize(*args, **kwargs):
        seen["memory"] = kwargs["memory"]
        return finalize(*args, **kwargs)

    def spy_workers(n, *args):
        seen["workers"] = n
        return workers(n, *args)

    monkeypatch.setattr(_pipeline, "finalize", spy_finalize)
    monkeypatch.setattr(_pipeline, "Workers", spy_workers)
    small = ingest([INCIDENT], Store(tmp_path / "a"), workers=2, memory="600MB")
    assert seen == {"workers": 1, "memory": 600_000_000 - PROCESS_BASE}
    large = ingest([INCIDENT], Store(tmp_path / "b"), workers=2, memory="2GB")
    assert seen == {"workers": 2, "memory": 10**9 - PROCESS_BASE}
    assert [(t.trace_id, t.events) for t in small.traces] == \
        [(t.trace_id, t.events) for t in large.traces]


@pytest.mark.parametrize(("extra", "env", "code"), [
    (["--memory", "lots"], None, "MEMORY_INVALID"),
    (["--memory", "100MB"], None, "MEMORY_TOO_SMALL"),
    ([], "a lot", "MEMORY_INVALID"),
    ([], "64MB", "MEMORY_TOO_SMALL"),
])
def test_cli_bad_memory_exits_2_and_writes_nothing(capsys, tmp_path, monkeypatch,
                                                   extra, env, code):
    if env is not None:
        monkeypatch.setenv(ENV, env)
    store = tmp_path / "store"
    rc, out, err = run(capsys, "ingest", INCIDENT, "--store", store, *extra)
    assert rc == 2 and out == ""
    assert f"error[{code}]" in err and "hint:" in err
    assert "Traceback" not in err
    assert not store.exists()


def test_cli_memory_ingests(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    rc, out, err = run(capsys, "ingest", INCIDENT, "--store", tmp_path / "s", "--memory",
                       "700MB", "--json")
    assert rc == 0, err
    assert '"events"' in out


def test_duckdb_out_of_memory_is_memory_too_small():
    con = duckdb.connect(config={"memory_limit": "4MB", "temp_directory": "",
                                 "threads": 1})
    with pytest.raises(UsageError) as e, _finalize._within(4_000_000):
        con.execute("SELECT list(range::VARCHAR || repeat('x', 100)) FROM range(2000000)"
                    ).fetchall()
    assert e.value.code == "MEMORY_TOO_SMALL" and "4 MB" in str(e.value)
    # Arrow's reader passes DuckDB's error on as an OSError; other OSErrors stay what
    # they are
    with pytest.raises(UsageError), _finalize._within(10**9):
        raise OSError("Out of Memory Error: failed to pin block of size 256.0 KiB")
    with pytest.raises(FileNotFoundError), _finalize._within(10**9):
        raise FileNotFoundError("gone")


def test_an_ingest_whose_sort_runs_out_of_memory_exits_2_and_changes_nothing(
        capsys, tmp_path, monkeypatch):
    store = tmp_path / "store"
    rc, _, err = run(capsys, "ingest", INCIDENT, "--store", store, "--json")
    assert rc == 0, err
    before = sorted(p.relative_to(store) for p in store.rglob("*") if p.is_file())
    monkeypatch.setattr(_pipeline, "sort_memory", lambda budget, processes: 1)
    other = tmp_path / "again.otlp.json"
    other.write_text(INCIDENT.read_text().replace("4bf92f3577b34da6", "5bf92f3577b34da6"))
    rc, out, err = run(capsys, "ingest", other, "--store", store, "--json")
    assert rc == 2, (out, err)
    assert '"MEMORY_TOO_SMALL"' in out
    assert sorted(p.relative_to(store) for p in store.rglob("*") if p.is_file()) == before
