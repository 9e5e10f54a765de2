"""From staged rows to store batches: checks, recording order, data flow, orphans.

DuckDB sorts the staged rows by (trace, recording order) out of core; Python then
walks them one trace at a time to number the steps, infer data-flow refs and flag
orphans, and writes the events batch sorted by (trace_id, seq).
"""

from __future__ import annotations

import contextlib
import os
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from ..formats import loads_exact
from ..model import (
    EVENTS,
    FLAGS_KEY,
    DuplicateEventError,
    InvalidTraceError,
    TraceExistsError,
    UsageError,
    dumps,
    first_path,
    link_columns,
    loads,
)
from ..store import Batch, Scratch, TableSink
from ._memory import DEFAULT_MEMORY, sort_memory
from ._stage import KEY_CODE
from ._workers import Workers, run_jobs

__all__ = ["TraceStats", "check", "finalize", "finalize_partition", "sources_of"]

_ROWS_PER_BATCH = 8192
#: DuckDB's memory per sorting thread (the rest of the cores stay idle below it)
_MEMORY_PER_THREAD = 512_000_000
#: DuckDB's memory limit when no budget is given (``_memory.sort_memory`` of the
#: default budget for one process); it spills sorts beyond it to the work folder
_MEMORY = sort_memory(DEFAULT_MEMORY, 1)
_ORDER = Path(__file__).with_name("order.sql").read_text()


@dataclass
class TraceStats:
    trace_id: str
    src: int  # the file the trace is reported from: the one holding most of its roots
    events: int = 0
    start_ns: int | None = None
    end_ns: int | None = None
    orphans: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    srcs: tuple[int, ...] = ()  # every file that gave the trace events


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


def check(staged: list[Path], work: Scratch, known_traces: set[str] | None,
          memory: int = _MEMORY) -> None:
    """Refuse the batch before anything is written: duplicate ids, partial seq, known ids
    (``memory``: DuckDB's limit, in bytes)."""
    con = _connect(work, threads=None, memory=memory)
    try:
        con.execute(f"CREATE VIEW staged AS SELECT * FROM read_parquet({_listing(staged)})")
        with _within(memory):
            _check(con)
        if known_traces:
            ids = [r[0] for r in con.execute("SELECT DISTINCT trace_id FROM staged").fetchall()]
            clash = sorted(set(ids) & known_traces)
            if clash:
                raise TraceExistsError(f"trace {clash[0]} is already in the store",
                                       trace_id=clash[0], trace_ids=clash[:20])
    finally:
        con.close()


def sources_of(staged: list[Path], trace_id: str, work: Scratch,
               memory: int = _MEMORY) -> list[int]:
    """The files (``src``) that gave trace ``trace_id`` rows: what ``check`` refused."""
    con = _connect(work, threads=None, memory=memory)
    try:
        return [r[0] for r in con.execute(
            f"SELECT DISTINCT src FROM read_parquet({_listing(staged)}) WHERE trace_id = ? "
            "ORDER BY 1", [trace_id]).fetchall()]
    finally:
        con.close()


def _connect(work: Scratch, threads: int | None, memory: int) -> duckdb.DuckDBPyConnection:
    """DuckDB with ``memory`` bytes and a thread per ``_MEMORY_PER_THREAD`` of them (a
    sorting thread holds its own buffers), up to ``threads`` or the cores."""
    most = threads or os.cpu_count() or 1
    config: dict[str, Any] = {"temp_directory": str(work.path),
                              "memory_limit": f"{max(1, memory // 10**6)}MB",
                              "preserve_insertion_order": False,
                              "threads": max(1, min(most, memory // _MEMORY_PER_THREAD))}
    con = duckdb.connect(config=config)
    con.execute("SET enable_progress_bar = false")
    return con


def finalize_partition(staged: list[Path], events: TableSink, work: Scratch,
                       threads: int | None = None,
                       progress: Callable[[int], None] | None = None,
                       memory: int = _MEMORY) -> dict[str, TraceStats]:
    """Sort, number, link and write one partition's rows (whole traces only) to the
    batch's ``events`` files (``memory``: DuckDB's limit, in bytes)."""
    if not staged:
        return {}
    con = _connect(work, threads, memory)
    try:
        con.execute(f"CREATE VIEW staged AS SELECT * FROM read_parquet({_listing(staged)})")
        with _within(memory):
            reader = con.sql(_ORDER).to_arrow_reader(_ROWS_PER_BATCH)
            return _write(_complete_traces(reader), events, progress)
    finally:
        con.close()


@contextlib.contextmanager
def _within(memory: int) -> Iterator[None]:
    """DuckDB running out of its ``memory`` (a sort it could not spill) as
    ``MEMORY_TOO_SMALL``: the budget, not the input, is what to change."""
    try:
        yield
    except (duckdb.OutOfMemoryException, OSError) as exc:
        # Arrow's reader hands DuckDB's error on as an OSError with DuckDB's words
        if not isinstance(exc, duckdb.OutOfMemoryException) and \
                "Out of Memory Error" not in str(exc):
            raise
        raise UsageError(f"sorting this input needed more than the {memory // 10**6:,} MB "
                         "DuckDB had of the ingest's memory budget", code="MEMORY_TOO_SMALL",
                         hint="give ingest more memory (--memory or "
                              "$WORKBENCH_INGEST_MEMORY), or ingest the files in smaller "
                              "groups") from None


def _partition_job(args: tuple[list[Path], TableSink, Scratch, int]
                   ) -> dict[str, TraceStats]:
    staged, events, work, memory = args
    return finalize_partition(staged, events, work, threads=1, memory=memory)


def _offset(progress: Callable[[int], None] | None,
            base: int) -> Callable[[int], None] | None:
    if progress is None:
        return None
    return lambda n: progress(base + n)


def finalize(partitions: list[list[Path]], batch: Batch, work: Scratch,
             known_traces: set[str] | None = None, workers: int | Workers = 1,
             progress: Callable[[int], None] | None = None,
             memory: int = _MEMORY, checked: bool = False) -> dict[str, TraceStats]:
    """Check the staged rows, then finalize each partition into ``batch``'s events
    files (one part each); per-trace figures back.

    Raises before writing anything when the staged rows break a rule (duplicate ids,
    partial seq, known trace ids); ``checked``: the caller ran ``check`` already. With
    ``workers > 1`` (or a pool of several) partitions run in processes. ``memory``:
    DuckDB's limit in each process, in bytes.
    """
    if not checked:
        check([f for files in partitions for f in files], work.sub("check"), known_traces,
              memory)
    jobs = [(files, batch.sink("events", part=i), work.sub(f"sort-{i}"), memory)
            for i, files in enumerate(partitions) if files]
    stats: dict[str, TraceStats] = {}
    if (workers.n if isinstance(workers, Workers) else workers) <= 1 or len(jobs) <= 1:
        done = 0
        for files, events, w, _ in jobs:
            part = finalize_partition(files, events, w, progress=_offset(progress, done),
                                      memory=memory)
            done += sum(st.events for st in part.values())
            stats.update(part)
        return stats
    for part in run_jobs(_partition_job, jobs, workers):
        stats.update(part)
    if progress is not None:
        progress(sum(st.events for st in stats.values()))
    return stats


def _complete_traces(reader: pa.RecordBatchReader) -> Iterator[pa.Table]:
    """Tables of whole traces: a trace cut by a batch boundary waits for its rest."""
    carry: pa.Table | None = None
    for batch in reader:
        table = pa.Table.from_batches([batch])
        if carry is not None:
            table = pa.concat_tables([carry, table])
        tids = table.column("trace_id")
        last = tids[-1]
        # rows of the last trace start where the trace id stops being the last one
        cut = 0 if tids[0] == last else table.num_rows - 1  # one long trace: keep all
        while cut > 0 and tids[cut - 1] == last:
            cut -= 1
        if cut:
            yield table.slice(0, cut)
        carry = table.slice(cut)
    if carry is not None and carry.num_rows:
        yield carry


def _boundaries(tids: list[str]) -> list[tuple[int, int]]:
    out = []
    i, n = 0, len(tids)
    while i < n:
        j = i + 1
        while j < n and tids[j] == tids[i]:
            j += 1
        out.append((i, j))
        i = j
    return out


def _values(table: pa.Table, name: str) -> list[Any] | None:
    """A column's values, or None when all are null (stated seq and refs, mostly)."""
    col = table.column(name)
    return None if col.null_count == len(col) else col.to_pylist()


class _Columns:
    """The small columns of a table of whole traces, as lists, for the Python pass;
    the big JSON columns stay in Arrow, but the results, which data-flow inference
    reads for candidate sources."""

    def __init__(self, table: pa.Table) -> None:
        self.trace_id = table.column("trace_id").to_pylist()
        self.event_id = table.column("event_id").to_pylist()
        self.kind = table.column("kind").to_pylist()
        self.start_ns = table.column("start_ns").to_pylist()
        self.end_ns = table.column("end_ns").to_pylist()
        self.src = table.column("src").to_pylist()
        self.parent_id = table.column("parent_id").to_pylist()
        self.seq_given = _values(table, "seq_given")
        self.refs_given = _values(table, "refs_given")
        orphan = table.column("orphan")
        self.orphan = (orphan.to_pylist() if any(c.true_count for c in orphan.chunks)
                       else None)
        self._table = table
        self._lazy: dict[str, list[Any]] = {}

    def lazy(self, name: str) -> list[Any]:
        """A column needed only where refs are inferred."""
        values = self._lazy.get(name)
        if values is None:
            values = self._lazy[name] = self._table.column(name).to_pylist()
        return values


def _main_source(cols: _Columns, a: int, b: int) -> tuple[int, tuple[int, ...]]:
    """The file a trace is reported from, and every file that gave it events. Of files
    read together (a session and its sub-agents' side files), the main one holds the
    roots (events without a parent); the others hang under its events."""
    srcs = cols.src[a:b]
    every = tuple(sorted(set(srcs)))
    if len(every) == 1:
        return every[0], every
    roots = Counter(s for s, p in zip(srcs, cols.parent_id[a:b], strict=True) if p is None)
    if not roots:
        return every[0], every
    return min(roots, key=lambda s: (-roots[s], s)), every


def _stats(cols: _Columns, a: int, b: int) -> TraceStats:
    main, every = _main_source(cols, a, b)
    st = TraceStats(cols.trace_id[a], main, events=b - a,
                    counts=dict(Counter(cols.kind[a:b])), srcs=every)
    if cols.orphan is not None:
        st.orphans = cols.orphan[a:b].count(True)
    starts = cols.start_ns[a:b]
    if None in starts:
        starts = [x for x in starts if x is not None]
    ends = cols.end_ns[a:b]
    if None in ends:
        ends = [x for x in ends if x is not None]
    st.start_ns = min(starts) if starts else None
    st.end_ns = max(ends) if ends else None
    return st


def _leaves(text: str | None) -> Any:
    """The ``[path, value]`` pairs of a staged ``arg_leaves`` text. The values are
    strings and integers: a float can only be an integer too wide for orjson, and
    then the text is read again, exactly."""
    if not text:
        return ()
    pairs = orjson.loads(text)
    if any(type(v) is float for _, v in pairs):
        return loads(text)
    return pairs


class _Results:
    """The parsed results of one trace's events, read when a ref needs them.

    Where a string first appears in a result does not depend on how the integers in
    it were read (keys and indices make the path), so for a string orjson reads the
    result as it is; an integer is looked for in an exact reading (``model.loads``:
    orjson reads integers beyond 64 bits as floats)."""

    __slots__ = ("exact", "fast", "texts")

    def __init__(self, texts: list[str | None]) -> None:
        self.texts = texts
        self.fast: dict[int, Any] = {}
        self.exact: dict[int, Any] = {}

    def find(self, i: int, value: Any) -> str | None:
        got = self.exact.get(i, _UNREAD)
        if got is _UNREAD:
            text = self.texts[i]
            if type(value) is str:
                got = self.fast.get(i, _UNREAD)
                if got is _UNREAD:
                    got = self.fast[i] = self._read(text, orjson.loads)
                return first_path(got, value)
            got = self.exact[i] = self._read(text, loads_exact)
        return first_path(got, value)

    @staticmethod
    def _read(text: str | None, read: Callable[[str], Any]) -> Any:
        if text is None:
            return None
        try:
            return read(text)
        except orjson.JSONDecodeError:  # what only the exact reader may take
            return loads_exact(text)


_UNREAD: Any = object()


def _link(cols: _Columns, a: int, b: int) -> list[Any]:
    """The refs of rows ``a:b`` (one trace): given refs kept, the rest inferred."""
    given = cols.refs_given[a:b] if cols.refs_given is not None else None
    if given is not None and None not in given:
        return [loads(g) for g in given]
    results = _Results(cols.lazy("result")[a:b])
    inferred = link_columns(
        cols.event_id[a:b], cols.kind[a:b], cols.start_ns[a:b], cols.end_ns[a:b],
        [_leaves(al) for al in cols.lazy("arg_leaves")[a:b]],
        [array(KEY_CODE, r) if r else () for r in cols.lazy("result_keys")[a:b]],
        results.find,
        [array(KEY_CODE, k) if k else () for k in cols.lazy("sent_keys")[a:b]])
    if given is None:
        return inferred
    return [loads(g) if g is not None else inf for g, inf in zip(given, inferred, strict=True)]


def _finish(table: pa.Table, stats: dict[str, TraceStats]) -> pa.Table:
    """Refs, orphan flags and figures for a table of whole traces; the big JSON columns
    stay in Arrow (only the small columns, and results where refs are inferred, come
    to Python)."""
    cols = _Columns(table)
    refs: list[Any] = []
    seqs: list[int] = []
    for a, b in _boundaries(cols.trace_id):
        given = cols.seq_given[a:b] if cols.seq_given is not None else None
        seqs.extend(given if given is not None and given[0] is not None else range(b - a))
        st = _stats(cols, a, b)
        stats[st.trace_id] = st
        refs.extend(_link(cols, a, b))
    attrs = table.column("attrs")
    if cols.orphan is not None:
        texts = attrs.to_pylist()
        for i, orphan in enumerate(cols.orphan):
            if orphan:
                d = loads(texts[i])
                flags = d.get(FLAGS_KEY, [])
                if "orphan" not in flags:
                    d[FLAGS_KEY] = [*flags, "orphan"]
                    texts[i] = dumps(d)
        attrs = pa.array(texts, pa.string())
    computed = {"attrs": attrs, "seq": pa.array(seqs, pa.int64()),
                "refs": pa.array(refs, EVENTS.field("refs").type)}
    arrays = [computed[n] if n in computed else table.column(n) for n in EVENTS.names]
    return pa.Table.from_arrays(arrays, schema=EVENTS)


def _write(tables: Iterator[pa.Table], events: TableSink,
           progress: Callable[[int], None] | None) -> dict[str, TraceStats]:
    stats: dict[str, TraceStats] = {}
    with events.writer(EVENTS) as writer:
        for table in tables:
            writer.write(_finish(table, stats))
            if progress is not None:
                progress(writer.rows)
    return stats
