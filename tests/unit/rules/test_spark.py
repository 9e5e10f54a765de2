"""The Spark engine: the bundled examples give the DuckDB engine's findings, word for
word, on one local session; and every way it cannot run is a coded exit 2 (no Java, no
PySpark, a master that does not answer, a store file it cannot read, a rule it cannot
ship), never a traceback and never a quiet fall back to another engine."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from workbench.ingest import ingest
from workbench.rules import DuckDBEngine, SparkEngine, SparkError, check, load_rules
from workbench.rules._spark import balance, file_pieces, spark_failure
from workbench.store import Store

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "traces" / "examples"
RULE_FILES = sorted([EXAMPLES / "archive-incident.rules.yaml",
                     *EXAMPLES.glob("rules/**/rules.yaml")])


@pytest.fixture(scope="module")
def examples_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("examples") / "store")
    ingest([EXAMPLES / "archive-incident.otlp.json"], store)
    for d in sorted(p for p in (EXAMPLES / "rules").iterdir() if p.is_dir()):
        ingest(sorted(d.glob("*.jsonl")), store)
    return store


@pytest.mark.parametrize("rules_file", RULE_FILES, ids=lambda p: p.parent.name)
def test_examples_give_the_duckdb_findings(spark_engine: SparkEngine, examples_store: Store,
                                           rules_file: Path) -> None:
    rules = load_rules(rules_file)
    want = check(examples_store, rules, record=False).findings
    got = check(examples_store, rules, engine="spark", using=spark_engine,
                record=False).findings
    assert want, f"{rules_file} finds nothing in the examples: a weak comparison"
    assert [f.to_dict() for f in got] == [f.to_dict() for f in want]


def test_scope_picks_traces(spark_engine: SparkEngine, examples_store: Store) -> None:
    rules = load_rules(EXAMPLES / "archive-incident.rules.yaml")
    one = sorted(examples_store.trace_ids())[:2]
    got = spark_engine.violations(examples_store, rules, one)
    want = DuckDBEngine().violations(examples_store, rules, one)
    assert want and {v.trace_id for v in got} <= set(one)
    assert sorted(got) == sorted(want)


def test_rule_that_cannot_be_shipped_is_named(spark_engine: SparkEngine,
                                             examples_store: Store) -> None:
    rules = load_rules(EXAMPLES / "archive-incident.rules.yaml")
    body = rules.rules[1].body
    object.__setattr__(body, "_lock", threading.Lock())  # a body pickle cannot carry
    with pytest.raises(SparkError) as err:
        spark_engine.violations(examples_store, rules, None)
    assert err.value.code == "SPARK_RULE_UNSUPPORTED"
    assert repr(rules.rules[1].id) in err.value.message
    assert "cannot be sent to the executors" in err.value.message


def test_unreadable_store_file(spark_engine: SparkEngine, tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    ingest([EXAMPLES / "rules" / "added-enum" / "bad.jsonl"], store)
    events = store.files("events")
    events[0].write_bytes(b"not parquet at all")
    rules = load_rules(EXAMPLES / "rules" / "added-enum" / "rules.yaml")
    with pytest.raises(SparkError) as err:
        spark_engine.violations(store, rules, None)
    assert err.value.code == "SPARK_STORE_UNREADABLE"
    events[0].unlink()
    with pytest.raises(SparkError) as err:
        spark_engine.violations(store, rules, None)
    assert err.value.code == "SPARK_STORE_UNREADABLE"


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workbench", *args], env=env, text=True,
                          capture_output=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "store"
    ingest([EXAMPLES / "archive-incident.otlp.json"], Store(root))
    return root


def test_no_java_is_spark_unavailable(cli_store: Path, tmp_path: Path) -> None:
    """A PATH with this Python but no java, and no JAVA_HOME: a real subprocess."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(bin_dir)
    before = sorted(p.relative_to(cli_store) for p in cli_store.rglob("*"))
    r = _cli(["check", str(EXAMPLES / "archive-incident.rules.yaml"), "--engine", "spark",
              "--store", str(cli_store)], env)
    assert r.returncode == 2, r.stderr
    assert "error[SPARK_UNAVAILABLE]" in r.stderr
    assert "Java" in r.stderr and "trace-workbench[spark]" in r.stderr
    assert "Traceback" not in r.stderr
    assert sorted(p.relative_to(cli_store) for p in cli_store.rglob("*")) == before


def test_no_pyspark_is_spark_unavailable(cli_store: Path, tmp_path: Path) -> None:
    """PySpark hidden from the interpreter (a ``pyspark`` that cannot be imported first
    on ``PYTHONPATH``): the same exit and hint."""
    fake = tmp_path / "hide" / "pyspark"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('hidden for this test')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "hide"))
    r = _cli(["check", str(EXAMPLES / "archive-incident.rules.yaml"), "--engine", "spark",
              "--store", str(cli_store)], env)
    assert r.returncode == 2, r.stderr
    assert "error[SPARK_UNAVAILABLE]" in r.stderr and "PySpark" in r.stderr
    assert "pip install 'trace-workbench[spark]'" in r.stderr


def test_unreachable_master(cli_store: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        r = _cli(["check", str(EXAMPLES / "archive-incident.rules.yaml"), "--engine",
                  "spark", "--spark-master", f"spark://127.0.0.1:{port}",
                  "--store", str(cli_store)], dict(os.environ))
    assert r.returncode == 2, r.stderr
    assert "error[SPARK_MASTER_UNREACHABLE]" in r.stderr
    assert f"127.0.0.1:{port}" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("master", ["spark://", "spark://host-without-port"])
def test_unparsable_master(cli_store: Path, master: str) -> None:
    r = _cli(["check", str(EXAMPLES / "archive-incident.rules.yaml"), "--engine", "spark",
              "--spark-master", master, "--store", str(cli_store)], dict(os.environ))
    assert r.returncode == 2, r.stderr
    assert "error[SPARK_MASTER_UNREACHABLE]" in r.stderr and "cannot parse" in r.stderr


def test_master_without_the_spark_engine(cli_store: Path) -> None:
    r = _cli(["check", str(EXAMPLES / "archive-incident.rules.yaml"),
              "--spark-master", "local[2]", "--store", str(cli_store)], dict(os.environ))
    assert r.returncode == 2 and "error[USAGE]" in r.stderr
    assert "--engine spark" in r.stderr


@pytest.mark.parametrize(("message", "code"), [
    ("[PATH_NOT_FOUND] Path does not exist: file:/s/events/day=2026-01-01/B-0.parquet",
     "SPARK_STORE_UNREADABLE"),
    ("java.nio.file.AccessDeniedException: /s/events/day=2026-01-01/B-0.parquet",
     "SPARK_STORE_UNREADABLE"),
    ("[FAILED_READ_FILE.NO_HINT] Encountered error while reading file", "SPARK_STORE_UNREADABLE"),
    ('PythonException: ... duckdb.duckdb.IOException: IO Error: Cannot open file '
     '"/s/events/day=2026-01-01/B-0.parquet": No such file or directory',
     "SPARK_STORE_UNREADABLE"),
    ("PythonException: ... InvalidInputException: Invalid Input Error: No magic bytes found "
     "at end of file '/s/events/day=2026-01-01/B-0.parquet'", "SPARK_STORE_UNREADABLE"),
    ("PythonException: ... ModuleNotFoundError: No module named 'workbench'",
     "SPARK_UNAVAILABLE"),
    ("PythonException: ... ModuleNotFoundError: No module named 'workbench.rules'",
     "SPARK_UNAVAILABLE"),
    ("PythonException: ... ModuleNotFoundError: No module named 'pyarrow'",
     "SPARK_UNAVAILABLE"),
    ("PythonException: ... ModuleNotFoundError: No module named 'duckdb'",
     "SPARK_UNAVAILABLE"),
    # look-alikes that are bugs, to be reported as such (exit 3), not coded away
    ("PythonException: ... ModuleNotFoundError: No module named 'workbench_extras'", None),
    ("PythonException: ... KeyError: 'seq'", None),
    ("[DIVIDE_BY_ZERO] Division by zero", None),
])
def test_spark_failures_that_are_not_bugs(message: str, code: str | None) -> None:
    """Which of Spark's job failures become a coded error (the messages as Spark words
    them; a cluster whose executors lack the workbench cannot run here)."""
    got = spark_failure(RuntimeError(message), Path("/s"))
    assert (got.code if got is not None else None) == code
    if got is not None:
        assert got.hint
        module = message.split("No module named '")[-1].split("'")[0].split(".")[0]
        assert module in got.message


def test_balance_gives_a_giant_trace_its_own_partition() -> None:
    counts = [("giant", 1000), *[(f"t{i}", 10) for i in range(60)]]
    placed = balance(counts, 4)
    assert set(placed) == {tid for tid, _ in counts}
    loads = [sum(n for tid, n in counts if placed[tid] == p) for p in range(4)]
    assert [tid for tid in placed if placed[tid] == placed["giant"]] == ["giant"]
    assert sorted(loads) == [200, 200, 200, 1000]
    assert balance(counts, 4) == placed  # the same deal every time


def test_balance_evens_out_small_traces() -> None:
    counts = [(f"t{i}", 1 + i % 7) for i in range(700)]
    loads = [0] * 3
    for tid, p in balance(counts, 3).items():
        loads[p] += dict(counts)[tid]
    assert max(loads) - min(loads) <= 7


def test_a_task_streams_its_partition_into_duckdb(examples_store: Store) -> None:
    """The function each Spark task runs, called here on the examples' events in small
    batches and with a small memory limit: the DuckDB engine's violations exactly,
    rule by rule as indices into the rule set."""
    from workbench.model import EVENTS
    from workbench.rules._sparktask import TaskLimits, judge_partitions

    rules = load_rules(EXAMPLES / "rules" / "rules.yaml")
    table = pq.ParquetFile(examples_store.files("events")[0]).read()
    for f in examples_store.files("events")[1:]:
        table = pa.concat_tables([table, pq.ParquetFile(f).read()])
    assert table.num_rows > 40
    judge = judge_partitions(rules, TaskLimits(slots=2, threads=1), EVENTS.names)
    out = pa.Table.from_batches(list(judge(iter(table.to_batches(max_chunksize=7)))))
    ids = [r.id for r in rules]
    got = [(ids[r["rule"]], r["trace_id"], tuple(r["events"])) for r in out.to_pylist()]
    want = DuckDBEngine().violations(examples_store, rules, None)
    assert len(want) >= 9
    assert sorted(got) == sorted(want)


@pytest.mark.parametrize(("rules_file", "parts"), [
    (EXAMPLES / "archive-incident.rules.yaml", 6),
    (EXAMPLES / "rules" / "rules.yaml", 1)])
def test_the_shuffle_plan_gives_the_duckdb_violations(spark_engine: SparkEngine,
                                                      examples_store: Store,
                                                      rules_file: Path, parts: int) -> None:
    shuffled = SparkEngine(spark_engine.master, partitions=parts, shuffle=True)
    rules = load_rules(rules_file)
    want = DuckDBEngine().violations(examples_store, rules, None)
    assert want and shuffled.violations(examples_store, rules, None) == want
    one = sorted(examples_store.trace_ids())[:3]
    assert shuffled.violations(examples_store, rules, one) == \
        DuckDBEngine().violations(examples_store, rules, one)


def test_pieces_of_files_split_no_trace(spark_engine: SparkEngine, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Events files of many small row groups are cut into pieces by trace-id ranges;
    dealt to 5 tasks, they give the DuckDB engine's violations, in its order."""
    from workbench.store import _batch

    monkeypatch.setitem(_batch._FORMATS, "events", _batch._Format(
        _batch._FORMATS["events"].dictionary, 5, None, numbered=True))
    store = Store(tmp_path / "store")
    ingest([EXAMPLES / "archive-incident.otlp.json"], store)
    ingest(sorted((EXAMPLES / "rules").glob("*/*.jsonl")), store)
    files = [str(p) for p in store.files("events")]
    pieces = file_pieces(store, files, 6)
    assert len(pieces) > len(files)
    for f in files:  # each file's ranges: the first and last open, the cuts increasing
        mine = [p for p in pieces if p.path == f]
        assert mine[0].lo is None and mine[-1].hi is None
        assert all(a.hi == b.lo and a.hi is not None for a, b in itertools.pairwise(mine))
    rules = load_rules(EXAMPLES / "rules" / "rules.yaml")
    engine = SparkEngine(spark_engine.master, partitions=5)
    monkeypatch.setattr(SparkEngine, "_shuffled", None)  # whole traces: never called
    assert engine.violations(store, rules, None) == \
        DuckDBEngine().violations(store, rules, None)


_HIDE_DUCKDB = '''
import sys
from importlib.abc import MetaPathFinder

class _NoDuckDB(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "duckdb" or name.startswith("duckdb."):
            raise ModuleNotFoundError("No module named 'duckdb'", name="duckdb")
        return None

if "pyspark.daemon" in sys.orig_argv or "pyspark.worker" in sys.orig_argv:
    sys.meta_path.insert(0, _NoDuckDB())
'''


def test_executors_without_duckdb_are_spark_unavailable(cli_store: Path,
                                                        tmp_path: Path) -> None:
    """The executors' Python cannot import duckdb (a ``sitecustomize`` hides it from
    Spark's Python workers only; the driver has it): exit 2 naming duckdb, nothing
    recorded. A real local session in a subprocess."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(_HIDE_DUCKDB)
    env = dict(os.environ, PYTHONPATH=str(hide))
    before = sorted(p.relative_to(cli_store) for p in cli_store.rglob("*"))
    r = _cli(["check", str(EXAMPLES / "archive-incident.rules.yaml"), "--engine", "spark",
              "--spark-master", "local[1]", "--store", str(cli_store)], env)
    assert r.returncode == 2, r.stderr
    assert "error[SPARK_UNAVAILABLE]" in r.stderr
    assert "cannot import duckdb" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.relative_to(cli_store) for p in cli_store.rglob("*")) == before


def test_a_store_that_cuts_traces_is_judged_by_the_shuffle_plan(
        spark_engine: SparkEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written before a trace lived in one events file (here: compacted in chunks
    that cut traces, into files of 10 rows): the tasks' counts of each trace's events
    differ from the ``traces`` table's, and the engine judges with the shuffle plan
    instead, finding the DuckDB engine's violations."""
    from workbench.store import _batch, _compact, compact

    store = Store(tmp_path / "store")
    for d in sorted(p for p in (EXAMPLES / "rules").iterdir() if p.is_dir()):
        for f in sorted(d.glob("*.jsonl")):
            ingest([f], store)
    monkeypatch.setitem(_batch._FORMATS, "events", _batch._Format(
        _batch._FORMATS["events"].dictionary, 131072, 10, numbered=True))
    monkeypatch.setattr(_compact, "_chunks", lambda table, name: [
        (s, min(table.num_rows, s + 7)) for s in range(0, table.num_rows, 7)])
    compact(store, grace=0)
    cut = {}
    for f in store.files("events"):
        for tid in set(pq.read_table(f, columns=["trace_id"]).column(0).to_pylist()):
            cut[tid] = cut.get(tid, 0) + 1
    assert max(cut.values()) > 1  # some trace lives in two files
    rules = load_rules(EXAMPLES / "rules" / "rules.yaml")
    engine = SparkEngine(spark_engine.master, partitions=4)
    tasks = file_pieces(store, [str(p) for p in store.files("events")], 4)
    assert len({p.path for p in tasks}) > 4  # more files than tasks: traces are cut
    shuffled = []
    original = SparkEngine._shuffled

    def spy(self: SparkEngine, *args: object) -> object:
        shuffled.append(True)
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(SparkEngine, "_shuffled", spy)
    assert engine.violations(store, rules, None) == \
        DuckDBEngine().violations(store, rules, None)
    assert shuffled == [True]


@pytest.mark.parametrize("shuffle", [False, True], ids=["whole-files", "shuffle"])
def test_files_read_at_a_uri_the_driver_does_not_read(spark_engine: SparkEngine,
                                                      examples_store: Store, tmp_path: Path,
                                                      shuffle: bool) -> None:
    """``files_at``: the executors read the store's files under a URI (here ``file://``,
    through the code path of ``s3://`` and ``gs://``: footers and pieces read by the
    executors' DuckDB), the driver only the commit records and the ``traces`` table. The
    driver's copy holds no events file at all, and the violations are the DuckDB
    engine's, in its order."""
    import shutil

    rules = load_rules(EXAMPLES / "archive-incident.rules.yaml")
    want = DuckDBEngine().violations(examples_store, rules, None)
    bucket = tmp_path / "bucket"
    shutil.copytree(examples_store.root, bucket)
    driver = tmp_path / "driver"
    shutil.copytree(examples_store.root, driver)
    shutil.rmtree(driver / "events")
    engine = SparkEngine(spark_engine.master, partitions=3, shuffle=shuffle,
                         files_at=bucket.as_uri())
    assert want and engine.violations(Store(driver), rules, None) == want
    one = sorted(examples_store.trace_ids())[:3]
    assert engine.violations(Store(driver), rules, one) == \
        DuckDBEngine().violations(examples_store, rules, one)


def test_files_missing_at_the_uri_are_unreadable(spark_engine: SparkEngine,
                                                 examples_store: Store, tmp_path: Path) -> None:
    rules = load_rules(EXAMPLES / "archive-incident.rules.yaml")
    (tmp_path / "empty").mkdir()
    engine = SparkEngine(spark_engine.master, files_at=(tmp_path / "empty").as_uri())
    with pytest.raises(SparkError) as err:
        engine.violations(examples_store, rules, None)
    assert err.value.code == "SPARK_STORE_UNREADABLE"


def test_a_location_duckdb_cannot_read_is_refused(cli_store: Path) -> None:
    """A scheme the executors' DuckDB has no file system for stops before Spark starts."""
    out = subprocess.run([sys.executable, "-m", "workbench", "check",
                          str(EXAMPLES / "archive-incident.rules.yaml"), "--store",
                          str(cli_store), "--engine", "spark", "--spark-files",
                          "hdfs://namenode/store", "--no-record"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "error[SPARK_STORE_UNREADABLE]" in out.stderr
    assert "hdfs://" in out.stderr and "Traceback" not in out.stderr


def test_spark_files_without_the_spark_engine(cli_store: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "workbench", "check",
                          str(EXAMPLES / "archive-incident.rules.yaml"), "--store",
                          str(cli_store), "--spark-files", "s3://b/store"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "--spark-files goes with --engine spark" in out.stderr


def test_the_executors_read_the_footers_the_driver_reads(examples_store: Store) -> None:
    """``remote_footers`` (DuckDB's ``parquet_metadata``, what a task runs for files at
    a URI) gives each file's row groups as the driver's pyarrow reads them."""
    from workbench.rules._sparkfiles import footers, remote_footers

    files = [str(p) for p in examples_store.files("events")]
    want = footers(files)
    assert want and all(low is not None for _, rgs in want for low, _ in rgs)
    assert list(remote_footers(iter(files))) == want
    uris = ["file://" + f for f in files]  # as ``locate`` writes them: not %-escaped
    assert [rgs for _, rgs in remote_footers(iter(uris))] == [rgs for _, rgs in want]


@pytest.mark.parametrize("limit", ["_BLOCK", "_HELD"])
def test_the_shuffle_deals_whole_traces_in_blocks(examples_store: Store,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  limit: str) -> None:
    """The shuffle plan's two sides called here without Spark: map tasks' pieces dealt
    into 3 partitions in blocks of a few rows each (a block's size, or what a task
    holds, made tiny), each
    partition judged from its blocks: the DuckDB engine's violations, and every trace
    in exactly one partition."""
    from workbench.model import EVENTS
    from workbench.rules import _sparktask
    from workbench.rules._spark import _PLACED, _event_counts
    from workbench.rules._sparktask import TaskLimits, deal_pieces, judge_dealt

    monkeypatch.setattr(_sparktask, limit, 1)  # a block per batch
    rules = load_rules(EXAMPLES / "rules" / "rules.yaml")
    placed = balance(_event_counts(examples_store, None), 3)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, _PLACED) as writer:
        writer.write_table(pa.table({"trace_id": list(placed),
                                     "_part": list(placed.values())}, schema=_PLACED))
    limits = TaskLimits(slots=2, threads=1)
    pieces = file_pieces(examples_store, [str(p) for p in examples_store.files("events")], 4)
    deal = deal_pieces(EVENTS.names, sink.getvalue().to_pybytes(), limits)
    records = [r for p in pieces for r in deal(iter([p]))]
    assert len(records) > len(set(part for part, _ in records))  # several blocks a part
    seen: dict[str, int] = {}
    for part, data in records:
        for tid in pa.ipc.open_stream(data).read_all().column("trace_id").to_pylist():
            assert seen.setdefault(tid, part) == part == placed[tid]
    assert set(seen) == set(placed)
    judge = judge_dealt(rules, limits, EVENTS.names)
    ids = [r.id for r in rules]
    got = [(ids[rule], tid, tuple(events)) for part in range(3)
           for rule, tid, events in judge(iter([r for r in records if r[0] == part]))]
    want = DuckDBEngine().violations(examples_store, rules, None)
    assert len(want) >= 9 and sorted(got) == sorted(want)
