"""From staged rows to store batches: checks, recording order, data flow, orphans.

DuckDB sorts the staged rows by (trace, recording order) out of core; Python then
walks them one trace at a time to number the steps, infer data-flow refs and flag
orphans, and writes the events batch sorted by (trace_id, seq).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from ..model import (
    EVENTS,
    FLAGS_KEY,
    DuplicateEventError,
    InvalidTraceError,
    KeyedSource,
    TraceExistsError,
    dumps,
    first_path,
    link,
    loads,
)
from ._workers import run_jobs

__all__ = ["TraceStats", "check", "finalize", "finalize_partition"]

_ROWS_PER_BATCH = 8192
_MEMORY = "384MB"  # DuckDB spills sorts beyond this to the batch's work folder
_ORDER = Path(__file__).with_name("order.sql").read_text()


@dataclass
class TraceStats:
    trace_id: str
    src: int
    events: int = 0
    start_ns: int | None = None
    end_ns: int | None = None
    orphans: int = 0
    counts: dict[str, int] = field(default_factory=dict)


def _listing(files: list[Path]) -> str:
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in files) + "]"


def _check(con: duckdb.DuckDBPyConnection) -> None:
    dup = con.execute(
        "SELECT trace_id, event_id, count(*) FROM staged GROUP BY ALL HAVING count(*) > 1 "
        "ORDER BY 1, 2 LIMIT 3").fetchall()
    if dup:
        t, e, n = dup[0]
        raise DuplicateEventError(f"event id {e} appears {n} times in trace {t}",
                                  trace_id=t, event_id=e)
    bad = con.execute(
        "SELECT trace_id, count(seq_given), count(*), count(DISTINCT seq_given), min(seq_given) "
        "FROM staged GROUP BY trace_id HAVING count(seq_given) > 0 AND "
        "(count(seq_given) < count(*) OR count(DISTINCT seq_given) < count(*) "
        " OR min(seq_given) < 0) LIMIT 1").fetchall()
    if bad:
        t, given, total, distinct, low = bad[0]
        why = (f"{total - given} of {total} events have no seq" if given < total else
               "a seq is negative" if low < 0 else f"only {distinct} distinct seq values")
        raise InvalidTraceError(f"trace {t}: seq must be given for every event, unique and "
                                f">= 0 ({why})", trace_id=t)


def check(staged: list[Path], work: Path, known_traces: set[str] | None) -> None:
    """Refuse the batch before anything is written: duplicate ids, partial seq, known ids."""
    con = _connect(work, threads=None)
    try:
        con.execute(f"CREATE VIEW staged AS SELECT * FROM read_parquet({_listing(staged)})")
        _check(con)
        if known_traces:
            ids = [r[0] for r in con.execute("SELECT DISTINCT trace_id FROM staged").fetchall()]
            clash = sorted(set(ids) & known_traces)
            if clash:
                raise TraceExistsError(f"trace {clash[0]} is already in the store",
                                       trace_ids=clash[:20])
    finally:
        con.close()


def _connect(work: Path, threads: int | None) -> duckdb.DuckDBPyConnection:
    work.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = {"temp_directory": str(work), "memory_limit": _MEMORY,
                              "preserve_insertion_order": False}
    if threads:
        config["threads"] = threads
    con = duckdb.connect(config=config)
    con.execute("SET enable_progress_bar = false")
    return con


def finalize_partition(staged: list[Path], events_dir: Path, prefix: str, work: Path,
                       threads: int | None = None,
                       progress: Callable[[int], None] | None = None) -> dict[str, TraceStats]:
    """Sort, number, link and write one partition's rows (whole traces only)."""
    if not staged:
        return {}
    con = _connect(work, threads)
    try:
        con.execute(f"CREATE VIEW staged AS SELECT * FROM read_parquet({_listing(staged)})")
        reader = con.sql(_ORDER).to_arrow_reader(_ROWS_PER_BATCH)
        events_dir.mkdir(parents=True, exist_ok=True)
        return _write(_traces(reader), lambda n: events_dir / f"{prefix}-{n}.parquet",
                      progress)
    finally:
        con.close()


def _partition_job(args: tuple[list[Path], Path, str, Path]) -> dict[str, TraceStats]:
    staged, events_dir, prefix, work = args
    return finalize_partition(staged, events_dir, prefix, work, threads=1)


def finalize(partitions: list[list[Path]], events_dir: Path, batch_id: str, work: Path,
             known_traces: set[str] | None = None, workers: int = 1,
             progress: Callable[[int], None] | None = None) -> dict[str, TraceStats]:
    """Check the staged rows, then finalize each partition; per-trace figures back.

    Raises before writing anything when the staged rows break a rule (duplicate ids,
    partial seq, known trace ids). With ``workers > 1`` partitions run in processes.
    """
    check([f for files in partitions for f in files], work / "check", known_traces)
    jobs = [(files, events_dir, f"{batch_id}-{i}", work / f"sort-{i}")
            for i, files in enumerate(partitions) if files]
    stats: dict[str, TraceStats] = {}
    if workers <= 1 or len(jobs) <= 1:
        done = 0
        for files, d, prefix, w in jobs:
            base = done
            part = finalize_partition(files, d, prefix, w, progress=None if progress is None
                                      else (lambda n, b=base: progress(b + n)))
            done += sum(st.events for st in part.values())
            stats.update(part)
        return stats
    for part in run_jobs(_partition_job, jobs, workers):
        stats.update(part)
    if progress is not None:
        progress(sum(st.events for st in stats.values()))
    return stats


def _traces(reader: pa.RecordBatchReader) -> Iterator[dict[str, list[Any]]]:
    """Rows grouped by trace, as columns of Python values."""
    pending: dict[str, list[Any]] | None = None
    for batch in reader:
        cols = {name: batch.column(name).to_pylist() for name in batch.schema.names}
        tids = cols["trace_id"]
        n = len(tids)
        i = 0
        while i < n:
            j = i + 1
            t = tids[i]
            while j < n and tids[j] == t:
                j += 1
            part = {k: v[i:j] for k, v in cols.items()}
            if pending is not None and pending["trace_id"][0] == t:
                for k, v in part.items():
                    pending[k].extend(v)
            else:
                if pending is not None:
                    yield pending
                pending = part
            i = j
    if pending is not None:
        yield pending


def _link(rows: dict[str, list[Any]]) -> list[Any]:
    """The refs column of one trace: given refs kept, the rest inferred."""
    given = rows["refs_given"]
    if all(g is not None for g in given):
        return [loads(g) for g in given]
    results = rows["result"]
    parsed: dict[int, Any] = {}

    def find(seq: int, value: Any) -> str | None:
        if seq not in parsed:
            parsed[seq] = loads(results[seq]) if results[seq] is not None else None
        return first_path(parsed[seq], value)

    keyed = [KeyedSource(e, k, s, t, [tuple(x) for x in loads(a)] if a else (), r or ())
             for e, k, s, t, a, r in zip(rows["event_id"], rows["kind"], rows["start_ns"],
                                         rows["end_ns"], rows["arg_leaves"],
                                         rows["result_keys"], strict=True)]
    inferred = link(keyed, find)
    return [loads(g) if g is not None else inf for g, inf in zip(given, inferred, strict=True)]


def _write(traces: Iterator[dict[str, list[Any]]], out: Callable[[int], Path],
           progress: Callable[[int], None] | None) -> dict[str, TraceStats]:
    stats: dict[str, TraceStats] = {}
    writer: pq.ParquetWriter | None = None
    files = 0
    rows_in_file = 0
    buffered: dict[str, list[Any]] = {n: [] for n in EVENTS.names}
    done = 0

    def flush() -> None:
        nonlocal writer, files, rows_in_file, buffered
        if not buffered["seq"]:
            return
        table = pa.Table.from_pydict(buffered, schema=EVENTS)
        if writer is None:
            writer = pq.ParquetWriter(out(files), EVENTS, compression="zstd")
            files += 1
        writer.write_table(table, row_group_size=131072)
        rows_in_file += table.num_rows
        buffered = {n: [] for n in EVENTS.names}
        if rows_in_file >= 4_000_000:
            writer.close()
            writer = None
            rows_in_file = 0

    try:
        for rows in traces:
            tid = rows["trace_id"][0]
            n = len(rows["trace_id"])
            given = rows["seq_given"]
            seqs = given if given[0] is not None else list(range(n))
            attrs = rows["attrs"]
            orphan = rows["orphan"]
            st = TraceStats(tid, min(rows["src"]), events=n)
            for i in range(n):
                if orphan[i]:
                    a = loads(attrs[i])
                    flags = a.get(FLAGS_KEY, [])
                    if "orphan" not in flags:
                        a[FLAGS_KEY] = [*flags, "orphan"]
                        attrs[i] = dumps(a)
                    st.orphans += 1
                k = rows["kind"][i]
                st.counts[k] = st.counts.get(k, 0) + 1
            starts = [s for s in rows["start_ns"] if s is not None]
            ends = [e for e in rows["end_ns"] if e is not None]
            st.start_ns = min(starts) if starts else None
            st.end_ns = max(ends) if ends else None
            stats[tid] = st
            refs = _link(rows)
            for name in EVENTS.names:
                if name == "seq":
                    buffered["seq"].extend(seqs)
                elif name == "refs":
                    buffered["refs"].extend(refs)
                else:
                    buffered[name].extend(rows[name])
            if len(buffered["seq"]) >= _ROWS_PER_BATCH:
                flush()
            done += n
            if progress is not None:
                progress(done)
        flush()
    finally:
        if writer is not None:
            writer.close()
    return stats
