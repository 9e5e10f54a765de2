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

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..model import StoreError, UsageError
from ._batch import TABLES, Batch
from ._files import exclusive_lock
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
    for f in commit.files:
        try:
            total += (store.root / f).stat().st_size
        except FileNotFoundError:
            raise StoreError(f"{f}, named by batch {commit.batch}, is missing",
                             code="STORE_CORRUPT",
                             hint="restore the store from a backup") from None
    return total


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


def _merge(store: Store, batch: Batch, run: Sequence[Commit]) -> None:
    for table in TABLES:
        paths = [store.root / f for c in run for f in c.files if f.startswith(table + "/")]
        if not paths:
            continue
        # ParquetFile, not read_table: no columns from the day=… folder names
        parts = [pq.ParquetFile(p).read() for p in paths]
        merged = pa.concat_tables(parts, promote_options="default")
        if table in _SORT:
            merged = merged.sort_by(_SORT[table])
        with batch.writer(table, merged.schema) as w:
            for start in range(0, merged.num_rows, _CHUNK):
                w.write(merged.slice(start, _CHUNK))


def compact(store: Store, *, grace: float = GRACE_SECONDS,
            small: int = SMALL_BYTES) -> CompactResult:
    """Merge the small batches of each day partition (see the module's docstring), then
    remove what was replaced more than ``grace`` seconds ago."""
    if not store.exists:
        raise StoreError(f"no store at {store.root}", code="STORE_NOT_FOUND",
                         hint="pass the store with --store (or $WORKBENCH_STORE)")
    if grace < 0:
        raise UsageError(f"--grace must be 0 or more seconds, not {grace}",
                         hint="the seconds replaced files are kept for readers (default 3600)")
    store._check_marker()
    result = CompactResult()
    for day, run in list(_runs(store, small)):
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
    return result


def _clean(store: Store, grace: float) -> tuple[int, int]:
    """Remove the records and files replaced more than ``grace`` seconds ago: the oldest
    first, each record's files before the record."""
    now = dt.datetime.now(dt.UTC)
    batches = files = 0
    with exclusive_lock(store.root / ".lock"):
        # records a killed compaction left in _commits/, and the staging folders of
        # killed writers (a compaction killed after its commit leaves its own)
        store._recover()
        records = store.all_commits()
        replaced_at = {b: dt.datetime.fromisoformat(c.committed_at)
                       for c in records for b in c.replaces}
        for c in records:  # oldest first
            at = replaced_at.get(c.batch)
            if at is None or (now - at).total_seconds() < grace:
                continue
            for f in c.files:
                path = store.root / f
                if path.exists():
                    path.unlink()
                    files += 1
            store._record_path(c.batch).unlink(missing_ok=True)
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
