"""``compact``: merge the small batches of each day partition into larger files, under
the store's commit protocol, so that a reader at any moment sees every row once.

A store ingested one trace at a time holds one small file per table per batch; every
query then opens thousands of files. ``compact`` takes, per day partition, the visible
batches whose files are small (``SMALL_BYTES``), in runs of at most ``RUN_BYTES``, and
for each run stages one new batch: the events of the run sorted by (trace_id, seq), in
files of the events table's size, the traces sorted by trace_id, the other tables in
commit order. Its commit record names the batches it ``replaces``, with their sources
and trace ids; it is written last, under the store lock, and from that instant readers
see the new files and not the old ones (``Store.commits``). Killed before it, the
staged files are left for the next writer's recovery and nothing changed.

The replaced records and files stay until no reader can still be reading them: a later
``compact`` removes those replaced more than ``grace`` seconds before (default an
hour), the oldest first, files before their record, so a crash in the middle leaves
only records that are still replaced.
"""

from __future__ import annotations

import bisect
import datetime as dt
import errno
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..model import StoreCorruptError, StoreError, UsageError
from ._batch import TABLES, Batch
from ._files import exclusive_lock
from ._records import inside_all
from ._store import Commit, Store

__all__ = ["GRACE_SECONDS", "SMALL_BYTES", "SUGGEST_FILES", "CompactResult", "compact",
           "small_files", "suggestion"]

SMALL_BYTES = 32 << 20
"""A batch is small when its files hold fewer bytes than this: compact merges it."""
RUN_BYTES = 512 << 20
"""At most this many bytes of small batches go into one compacted batch (memory)."""
SUGGEST_FILES = 64
"""``ingest`` suggests ``compact`` when a day partition holds this many small files."""
GRACE_SECONDS = 3600.0
_CHUNK = 131_072
_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
_SORT = {"events": [("trace_id", "ascending"), ("seq", "ascending")],
         "traces": [("trace_id", "ascending")]}


@dataclass
class CompactResult:
    """What ``compact`` did: per merged run, its day, the batches and the file counts."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    removed_batches: int = 0
    removed_files: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.runs, "batches_merged": sum(len(r["batches"]) for r in self.runs),
                "files_before": sum(r["files_before"] for r in self.runs),
                "files_after": sum(r["files_after"] for r in self.runs),
                "removed_batches": self.removed_batches, "removed_files": self.removed_files}


def _day(commit: Commit) -> str | None:
    """The one day partition a batch wrote to (None: several, or none)."""
    days = {part[4:] for f in commit.files for part in f.split("/") if part.startswith("day=")}
    return days.pop() if len(days) == 1 else None


def _bytes(store: Store, commit: Commit) -> int:
    total = 0
    for f, path in zip(commit.files, inside_all(store.root, commit.files), strict=True):
        try:
            total += path.stat().st_size
        except OSError:
            raise _gone(store, commit, f"{f}, named by batch {commit.batch}, is missing") \
                from None
    return total


def _gone(store: Store, commit: Commit, message: str) -> StoreError:
    """A file of ``commit`` missing or unreadable: ``COMPACT_CONFLICT`` when another
    compaction replaced the batch meanwhile (and its clean-up removed the file), else
    ``STORE_CORRUPT``."""
    if commit.batch not in {c.batch for c in Store(store.root).commits()}:
        return StoreError(f"batch {commit.batch} was compacted by another process",
                          code="COMPACT_CONFLICT", hint="run `workbench compact` again")
    return StoreCorruptError(message, hint="restore the store from a backup")


def _runs(store: Store, small: int) -> Iterator[tuple[str, list[Commit]]]:
    """Per day, runs of at least two small visible batches, oldest first."""
    by_day: dict[str, list[tuple[Commit, int]]] = {}
    for c in store.commits():
        day = _day(c)
        size = _bytes(store, c)
        if day is not None and size < small:
            by_day.setdefault(day, []).append((c, size))
    for day in sorted(by_day):
        run: list[Commit] = []
        total = 0
        for c, size in by_day[day]:
            if run and total + size > RUN_BYTES:
                if len(run) > 1:
                    yield day, run
                run, total = [], 0
            run.append(c)
            total += size
        if len(run) > 1:
            yield day, run


def small_files(store: Store, small: int = SMALL_BYTES) -> dict[str, int]:
    """Per day partition, how many visible files belong to small batches (what ``ingest``
    looks at to suggest ``compact``)."""
    out: dict[str, int] = {}
    for c in store.commits():
        day = _day(c)
        if day is not None and _bytes(store, c) < small:
            out[day] = out.get(day, 0) + len(c.files)
    return out


def _read(store: Store, run: Sequence[Commit], table: str) -> pa.Table | None:
    """The rows of ``table`` in the run's files, one table (None: no such file)."""
    parts = []
    for c in run:
        files = [f for f in c.files if f.startswith(table + "/")]
        for f, path in zip(files, inside_all(store.root, files), strict=True):
            try:  # ParquetFile, not read_table: no columns from the day=… folder names
                parts.append(pq.ParquetFile(path).read())
            except (OSError, pa.ArrowException) as exc:
                raise _gone(store, c, f"{f}, named by batch {c.batch}, could not be read: "
                            f"{exc}") from None
    if not parts:
        return None
    try:
        merged = pa.concat_tables(parts, promote_options="default")
        return merged.sort_by(_SORT[table]) if table in _SORT else merged
    except (pa.ArrowException, KeyError) as exc:
        raise StoreCorruptError(f"the {table} files of batches {run[0].batch} … "
                                f"{run[-1].batch} do not fit together: {exc}",
                                hint="restore the store from a backup") from None


def _merge(store: Store, batch: Batch, run: Sequence[Commit]) -> None:
    for table in TABLES:
        merged = _read(store, run, table)
        if merged is None:
            continue
        with batch.writer(table, merged.schema) as w:
            for start, end in _chunks(merged, table):
                w.write(merged.slice(start, end - start))


def _chunks(table: pa.Table, name: str) -> list[tuple[int, int]]:
    """(start, end) of about ``_CHUNK`` rows each; for events, ends only where a trace
    ends, so that a file the writer closes after a chunk holds whole traces (a trace
    lives in exactly one events file: docs/store.md)."""
    n = table.num_rows
    if name != "events" or n == 0:
        return [(s, min(n, s + _CHUNK)) for s in range(0, n, _CHUNK)]
    import pyarrow.compute as pc  # here: its import costs every ingest process 40 ms

    ids = table.column("trace_id")
    changes = pc.indices_nonzero(pc.not_equal(ids.slice(1), ids.slice(0, n - 1)))
    ends = [int(i) + 1 for i in changes.to_pylist()] + [n]  # each trace's end
    out, start = [], 0
    while start < n:
        end = ends[bisect.bisect_left(ends, start + _CHUNK)] if start + _CHUNK < n else n
        out.append((start, end))
        start = end
    return out


def compact(store: Store, *, grace: float = GRACE_SECONDS,
            small: int = SMALL_BYTES) -> CompactResult:
    """Merge the small batches of each day partition (see the module's docstring), then
    remove what was replaced more than ``grace`` seconds ago."""
    if not store.exists:
        raise StoreError(f"no store at {store.root}", code="STORE_NOT_FOUND",
                         hint="pass the store with --store (or $WORKBENCH_STORE)")
    if not grace >= 0 or math.isinf(grace):  # NaN would make every record old enough
        raise UsageError(f"--grace must be 0 or more seconds, not {grace}",
                         hint="the seconds replaced files are kept for readers (default 3600)")
    store._check_marker()
    result = CompactResult()
    runs = list(_runs(store, small))
    try:
        for day, run in runs:
            with store.stage() as batch:
                _merge(store, batch, run)
                commit = batch.commit(
                    sources=[s for c in run for s in c.sources],
                    trace_ids=[t for c in run for t in c.trace_ids],
                    replaces=tuple(c.batch for c in run), day=day)
            result.runs.append({"day": day, "batch": commit.batch,
                                "batches": [c.batch for c in run],
                                "files_before": sum(len(c.files) for c in run),
                                "files_after": len(commit.files)})
        result.removed_batches, result.removed_files = _clean(store, grace)
    except OSError as exc:
        if exc.errno not in _NO_SPACE or isinstance(exc, StoreError):
            raise
        raise _full(store, runs, exc) from None
    return result


def _full(store: Store, runs: list[tuple[str, list[Commit]]], exc: OSError) -> StoreError:
    """The file system filled: say which merges were committed before it did (they are
    kept: their records are written) and that nothing else changed."""
    visible = Store(store.root).commits()
    replaced = {b for c in visible for b in c.replaces}
    done = [run for _, run in runs if all(c.batch in replaced for c in run)]
    where = exc.filename or "a file"
    if not done:
        return StoreError(f"no space left while writing {where}", code="DISK_FULL",
                          hint="free some space and run the command again (what was being "
                          "written is not kept)")
    merged = sum(len(run) for run in done)
    return StoreError(f"no space left while writing {where}, after {len(done)} of "
                      f"{len(runs)} merges were committed ({merged} batches merged: those "
                      "are kept)", code="DISK_FULL", hint="free some space and run "
                      "`workbench compact` again to merge the rest and remove what was "
                      "replaced")


def _clean(store: Store, grace: float) -> tuple[int, int]:
    """Remove the records and files replaced more than ``grace`` seconds ago: the oldest
    first, each record's files before the record. Every path is confined to the store
    before the first is removed (a record naming one outside is ``STORE_CORRUPT``)."""
    now = dt.datetime.now(dt.UTC)
    batches = files = 0
    with exclusive_lock(store.root / ".lock"):
        # records a killed compaction left in _commits/, and the staging folders of
        # killed writers (a compaction killed after its commit leaves its own)
        store._recover()
        records = store.all_commits()
        replaced_at = {b: c.at for c in records for b in c.replaces}
        old = [c for c in records  # oldest first
               if c.batch in replaced_at and (now - replaced_at[c.batch]).total_seconds()
               >= grace]
        doomed = [(inside_all(store.root, c.files), store._record_path(c.batch))
                  for c in old]
        for paths, record in doomed:
            for path in paths:
                if path.is_file() or path.is_symlink():
                    path.unlink()
                    files += 1
            record.unlink(missing_ok=True)
            batches += 1
    return batches, files


def suggestion(store: Store) -> str | None:
    """The note ``ingest`` prints when a day partition holds many small files."""
    counts = {d: n for d, n in small_files(store).items() if n >= SUGGEST_FILES}
    if not counts:
        return None
    day = max(counts, key=lambda d: counts[d])
    return (f"day={day} holds {counts[day]} small files; `workbench compact` merges them "
            "(queries and check open fewer files)")
