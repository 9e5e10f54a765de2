"""What a Spark task runs: one partition of whole traces judged by the DuckDB engine's
own SQL (``_sql.sql_violations``), in a DuckDB of the task's own; and the map side of
the shuffle plan, which reads pieces of files and deals their events by trace as Arrow
IPC blocks (``deal_pieces``, then ``judge_dealt`` on the other side of the shuffle).

The partition's Arrow batches are streamed into a DuckDB table ``events`` (the columns
as the store holds them) as they arrive, so a partition larger than the task's memory
spills to disk instead of failing; ``traces`` is the partition's distinct trace ids.
The DuckDB is sized to the task: ``threads`` the task's CPUs (``spark.task.cpus``),
``memory_limit`` its share of the Python worker's memory, ``temp_directory`` under
Spark's local directory (removed when the task ends). Only the violations leave the
task: (rule index, trace id, primary event ids), in the DuckDB engine's order.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from ._rule import RuleSet
from ._sql import sql_violations

__all__ = ["COUNTED", "OUT", "Piece", "TaskLimits", "deal_pieces", "judge_dealt",
           "judge_partitions", "judge_pieces"]

OUT = pa.schema([("rule", pa.int32()), ("trace_id", pa.string()),
                 ("events", pa.list_(pa.string()))])
"""What a task gives back, one row per violation."""

COUNTED = -1
"""The rule index of a task's row that counts one trace's events (``judge_pieces``)."""
_MB = 1 << 20
_BLOCK = 32 * _MB  # of Arrow IPC a shuffle record carries at most (about)
_HELD = 4 * _BLOCK  # of blocks a map task holds before it sends the largest on
_SHARE = 0.6  # of the Python worker's memory for DuckDB: the rest is Python and Arrow


@dataclass(frozen=True)
class TaskLimits:
    """What the driver knows of a task's room: ``slots`` the tasks one executor (or
    ``local[N]``) runs at once, ``threads`` its CPUs (``spark.task.cpus``)."""

    slots: int
    threads: int


def _memory_mb(limits: TaskLimits) -> int:
    """The task's share: Spark's own limit for this Python worker when
    ``spark.executor.pyspark.memory`` is set (``PYSPARK_EXECUTOR_MEMORY_MB``, already
    the executor's amount divided among its cores), else the machine's memory divided
    among the tasks that run at once."""
    given = int(os.environ.get("PYSPARK_EXECUTOR_MEMORY_MB", "-1"))
    if given > 0:
        return max(64, int(given * _SHARE))
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // _MB
    except (ValueError, OSError, AttributeError):  # no sysconf: DuckDB's own default
        return 0
    return max(64, int(total * _SHARE / max(1, limits.slots)))


def _local_dir() -> str:
    """Spark's local directory for this executor (where its shuffle spills too)."""
    dirs = os.environ.get("SPARK_LOCAL_DIRS", "")
    first = next((d for d in dirs.split(",") if d), "")
    return first if first and os.path.isdir(first) else tempfile.gettempdir()


def _connect(limits: TaskLimits, tmp: str) -> duckdb.DuckDBPyConnection:
    config: dict[str, str | bool | int | float | list[str]] = {
        "threads": max(1, limits.threads), "temp_directory": tmp,
        "preserve_insertion_order": False}
    mb = _memory_mb(limits)
    if mb:
        config["memory_limit"] = f"{mb}MB"
    return duckdb.connect(config=config)


@dataclass(frozen=True)
class Piece:
    """The rows of one events file whose trace id is in ``[lo, hi)`` (None: unbounded):
    whole traces, since a trace lives in one events file (docs/store.md); ``rows`` how
    many the file's row groups in the range hold (for dealing pieces out)."""

    path: str
    lo: str | None
    hi: str | None
    rows: int


def judge_pieces(rules: RuleSet, limits: TaskLimits, columns: list[str],
                 scope: list[str] | None) -> Callable[[Iterator[Piece]],
                                                     Iterator[tuple[int, str, list[str]]]]:
    """The function the shuffle-free plan runs on each task's pieces: DuckDB reads them
    itself (no row crosses the network), and the DuckDB engine's queries judge them."""

    def judge(pieces: Iterator[Piece]) -> Iterator[tuple[int, str, list[str]]]:
        todo = list(pieces)
        if not todo:
            return
        tmp = tempfile.mkdtemp(prefix="workbench-duckdb-", dir=_local_dir())
        try:
            con = _connect(TaskLimits(limits.slots, _task_threads(limits)), tmp)
            try:
                sql, params = _read_pieces(todo, columns)
                # a table: the queries of every rule read it, and it spills if it must
                con.execute('CREATE TABLE "events" AS ' + sql, params)
                con.execute('CREATE VIEW "traces" AS SELECT DISTINCT "trace_id" FROM "events"')
                # each trace's events here, for the driver to check that no trace
                # was cut between tasks (rule -1: not a violation)
                for tid, n in con.execute('SELECT "trace_id", count(*) FROM "events" '
                                          'GROUP BY "trace_id"').fetchall():
                    yield COUNTED, tid, [str(n)]
                index = {r.id: i for i, r in enumerate(rules)}
                for v in sql_violations(con, rules, scope):
                    yield index[v.rule], v.trace_id, list(v.events)
            finally:
                con.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return judge


def _read_pieces(pieces: list[Piece], columns: list[str]) -> tuple[str, dict[str, str]]:
    """One query reading every piece (each file with its range as a filter)."""
    cols = ", ".join(f'"{c}"' for c in columns)
    parts, params = [], {}
    for i, piece in enumerate(pieces):
        test = ["TRUE"]
        params[f"f{i}"] = piece.path
        if piece.lo is not None:
            test.append(f'"trace_id" >= $lo{i}')
            params[f"lo{i}"] = piece.lo
        if piece.hi is not None:
            test.append(f'"trace_id" < $hi{i}')
            params[f"hi{i}"] = piece.hi
        parts.append(f"SELECT {cols} FROM read_parquet($f{i}) WHERE " + " AND ".join(test))
    return " UNION ALL ".join(parts), params


def deal_pieces(columns: list[str], placed: bytes,
                limits: TaskLimits) -> Callable[[Iterator[Piece]], Iterator[tuple[int, bytes]]]:
    """The map side of the shuffle plan: the task's DuckDB reads its pieces (any cut of
    the files: a trace may span pieces and files) and deals each event to its trace's
    partition, ``placed`` an Arrow IPC stream of (``trace_id``, ``_part``); events of a
    trace not placed (out of scope) are dropped. Each partition's events leave as
    (partition, Arrow IPC stream) records of about ``_BLOCK`` bytes: Spark moves bytes,
    and never decodes a row."""

    def deal(pieces: Iterator[Piece]) -> Iterator[tuple[int, bytes]]:
        todo = list(pieces)
        if not todo:
            return
        tmp = tempfile.mkdtemp(prefix="workbench-duckdb-", dir=_local_dir())
        try:
            con = _connect(TaskLimits(limits.slots, _task_threads(limits)), tmp)
            try:
                con.register("_placed", pa.ipc.open_stream(placed).read_all())
                sql, params = _read_pieces(todo, columns)
                cols = ", ".join(f'e."{c}"' for c in columns)
                reader = con.sql(
                    f'SELECT {cols}, p."_part" FROM ({sql}) AS e JOIN "_placed" AS p '
                    'ON e."trace_id" = p."trace_id"', params=params).to_arrow_reader(64 * 1024)
                yield from _blocks(reader, len(columns))
            finally:
                con.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return deal


def _blocks(reader: pa.RecordBatchReader, width: int) -> Iterator[tuple[int, bytes]]:
    """Each partition's rows (the last column says which) as LZ4-compressed Arrow IPC
    streams of at most about ``_BLOCK`` bytes each, ``_HELD`` bytes held at most."""
    schema = pa.schema(list(reader.schema)[:width])
    options = pa.ipc.IpcWriteOptions(compression="lz4")
    open_: dict[int, tuple[pa.BufferOutputStream, pa.ipc.RecordBatchStreamWriter]] = {}
    for batch in reader:
        part_of = batch.column(width)
        rows = pa.RecordBatch.from_arrays(batch.columns[:width], schema=schema)
        for part in pc.unique(part_of).to_pylist():
            if part not in open_:
                sink = pa.BufferOutputStream()
                open_[part] = sink, pa.ipc.new_stream(sink, schema, options=options)
            open_[part][1].write_batch(rows.filter(pc.equal(part_of, part)))
        # a block leaves when it is full, and the largest leave while the task holds
        # more than ``_HELD`` (many partitions: smaller blocks, bounded memory)
        while open_:
            sizes = {p: sink.tell() for p, (sink, _) in open_.items()}
            part = max(sizes, key=lambda p: sizes[p])
            if sizes[part] < _BLOCK and sum(sizes.values()) < _HELD:
                break
            sink, writer = open_.pop(part)
            writer.close()
            yield int(part), sink.getvalue().to_pybytes()
    for part, (sink, writer) in open_.items():
        writer.close()
        yield int(part), sink.getvalue().to_pybytes()


def judge_dealt(rules: RuleSet, limits: TaskLimits,
                columns: list[str]) -> Callable[[Iterator[tuple[int, bytes]]],
                                                Iterator[tuple[int, str, list[str]]]]:
    """The reduce side of the shuffle plan: one partition's records (whole traces, from
    any number of map tasks) streamed into the task's DuckDB and judged."""
    streamed = judge_partitions(rules, limits, columns)

    def judge(records: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, str, list[str]]]:
        batches = (b for _, data in records for b in pa.ipc.open_stream(data))
        for out in streamed(batches):
            yield from zip(out.column(0).to_pylist(), out.column(1).to_pylist(),
                           out.column(2).to_pylist(), strict=True)

    return judge


def _task_threads(limits: TaskLimits) -> int:
    """The CPUs Spark gave this task (``spark.task.cpus``), else the driver's word."""
    try:
        from pyspark import TaskContext
    except ImportError:  # outside Spark (a test calls the task's function directly)
        return limits.threads
    ctx = TaskContext.get()
    return max(1, ctx.cpus()) if ctx is not None else limits.threads


def judge_partitions(rules: RuleSet, limits: TaskLimits,
                     columns: list[str]) -> Callable[[Iterator[pa.RecordBatch]],
                                                     Iterator[pa.RecordBatch]]:
    """The function ``mapInArrow`` runs on each partition (whole traces, any order)."""

    def judge(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        tmp = tempfile.mkdtemp(prefix="workbench-duckdb-", dir=_local_dir())
        try:
            con = _connect(TaskLimits(limits.slots, _task_threads(limits)), tmp)
            try:
                yield from _judge(con, rules, columns, batches)
            finally:
                con.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return judge


def _judge(con: duckdb.DuckDBPyConnection, rules: RuleSet, columns: list[str],
           batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    cols = ", ".join(f'"{c}"' for c in columns)
    made = False
    for batch in batches:
        if not batch.num_rows:
            continue
        con.register("_batch", batch)
        if made:
            con.execute(f'INSERT INTO "events" SELECT {cols} FROM "_batch"')
        else:
            con.execute(f'CREATE TABLE "events" AS SELECT {cols} FROM "_batch"')
            made = True
        con.unregister("_batch")
    if not made:
        return
    con.execute('CREATE VIEW "traces" AS SELECT DISTINCT "trace_id" FROM "events"')
    found = sql_violations(con, rules, None)
    index = {r.id: i for i, r in enumerate(rules)}
    yield pa.RecordBatch.from_pydict(
        {"rule": [index[v.rule] for v in found], "trace_id": [v.trace_id for v in found],
         "events": [list(v.events) for v in found]}, schema=OUT)
