"""A batch being staged, and the only way data gets into one.

Services hand a ``Batch`` Arrow tables; the batch decides the files — their folder
under ``_staging/B/``, their names and their encoding — and ``commit`` moves them into
the store (docs/store.md)::

    with store.stage() as batch:
        batch.write("traces", table)                 # a whole table: traces/B.parquet
        with batch.writer("events", EVENTS) as w:    # row groups as they come:
            w.write(chunk)                           #   events/B-0.parquet, B-1 ...
        batch.commit(sources=..., trace_ids=...)

Worker processes get a ``TableSink`` (``batch.sink("events", part=i)``: picklable,
files ``B-i-0.parquet`` ...) and work files go to a ``Scratch`` folder
(``batch.scratch()``): both live in the batch's staging folder, which the store
removes with the batch, committed or not. Code outside ``workbench/store`` makes no
path under the store's root; the one it is given is the scratch folder's, for DuckDB
to read staged files from and spill sorts to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from ._store import Commit, Store

__all__ = ["TABLES", "Batch", "Scratch", "TableSink", "TableWriter"]

TABLES = ("events", "traces", "findings", "replays")
_SCRATCH = "_work"


@dataclass(frozen=True)
class _Format:
    """How one table's files are written."""

    dictionary: tuple[str, ...] | None = None  # dictionary-encoded columns; None: all
    row_group: int | None = None               # rows per row group; None: pyarrow's
    rows_per_file: int | None = None           # a writer starts a new file past this
    numbered: bool = False                     # B-0, B-1 … (else one file B per batch)


#: events: the columns whose values repeat get a dictionary (the JSON texts, one of a
#: kind, would only be hashed in vain); row groups of 128 Ki rows, files of about 4 M
_FORMATS = {
    "events": _Format(("trace_id", "parent_id", "kind", "name", "status"), 131072,
                      4_000_000, numbered=True),
}
_COMPRESSION = "zstd"


@dataclass(frozen=True)
class TableSink:
    """Where the files of one table of a staged batch go. Picklable, so that a worker
    process writes its own part (file names start ``B`` or ``B-PART``)."""

    table: str
    _folder: Path
    _stem: str

    def writer(self, schema: pa.Schema) -> TableWriter:
        """A streaming writer of tables of ``schema`` (use it as a context manager)."""
        return TableWriter(self, schema)

    def write(self, data: pa.Table) -> None:
        """``data`` as one file of the batch."""
        with self.writer(data.schema) as w:
            w.write(data)

    def _next_path(self) -> Path:
        self._folder.mkdir(parents=True, exist_ok=True)
        if not _FORMATS.get(self.table, _Format()).numbered:
            path = self._folder / f"{self._stem}.parquet"
            if path.exists():
                raise ValueError(f"the batch already has its {self.table} file")
            return path
        n = 0
        while (path := self._folder / f"{self._stem}-{n}.parquet").exists():
            n += 1
        return path


class TableWriter:
    """Writes tables to a sink's files in the table's encoding: each ``write`` adds row
    groups, and past the table's rows per file the next ``write`` starts a new file."""

    def __init__(self, sink: TableSink, schema: pa.Schema) -> None:
        self.sink, self.schema = sink, schema
        self.format = _FORMATS.get(sink.table, _Format())
        self.rows = 0
        self._writer: pq.ParquetWriter | None = None
        self._rows_in_file = 0

    def write(self, data: pa.Table) -> None:
        fmt = self.format
        if self._writer is None:
            options: dict[str, Any] = {"compression": _COMPRESSION}
            if fmt.dictionary is not None:
                options["use_dictionary"] = list(fmt.dictionary)
            self._writer = pq.ParquetWriter(self.sink._next_path(), self.schema, **options)
        self._writer.write_table(data, row_group_size=fmt.row_group)
        self._rows_in_file += data.num_rows
        self.rows += data.num_rows
        if fmt.rows_per_file is not None and self._rows_in_file >= fmt.rows_per_file:
            self._close_file()

    def _close_file(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            self._rows_in_file = 0

    def close(self) -> None:
        self._close_file()

    def __enter__(self) -> TableWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


@dataclass(frozen=True)
class Scratch:
    """A work folder in a batch's staging area (spilled rows, sort runs): never
    committed, removed with the batch. Picklable, for worker processes."""

    path: Path

    def sub(self, name: str) -> Scratch:
        """A folder of its own inside this one (created)."""
        sub = Scratch(self.path / name)
        sub.path.mkdir(parents=True, exist_ok=True)
        return sub

    def write(self, name: str, data: pa.Table, **options: Any) -> Path:
        """``data`` as the Parquet work file ``name`` (``pq.write_table`` options); its
        path back, for reading."""
        path = self.path / name
        self.path.mkdir(parents=True, exist_ok=True)
        pq.write_table(data, path, **options)
        return path


@dataclass
class Batch:
    """A batch being staged: ``write``/``writer``/``sink`` put tables in, then ``commit``."""

    store: Store
    id: str
    _dir: Path = field(repr=False)
    committed: Commit | None = None
    _lock_fd: int | None = field(default=None, repr=False)

    def sink(self, table: str, part: int | None = None) -> TableSink:
        """Where ``table``'s files go; ``part`` gives a worker names of its own."""
        if table not in TABLES:
            raise ValueError(f"unknown table {table}")
        return TableSink(table, self._dir / table,
                         self.id if part is None else f"{self.id}-{part}")

    def write(self, table: str, data: pa.Table) -> None:
        """``data`` as one file of ``table``."""
        self.sink(table).write(data)

    def writer(self, table: str, schema: pa.Schema) -> TableWriter:
        """A streaming writer for ``table`` (use it as a context manager)."""
        return self.sink(table).writer(schema)

    def scratch(self) -> Scratch:
        """The batch's work folder (created)."""
        scratch = Scratch(self._dir / _SCRATCH)
        scratch.path.mkdir(exist_ok=True)
        return scratch

    def staged_files(self) -> list[Path]:
        return sorted(p for t in TABLES if (self._dir / t).is_dir()
                      for p in (self._dir / t).iterdir() if p.suffix == ".parquet")

    def commit(self, *, sources: Iterable[dict[str, Any]] = (),
               trace_ids: Iterable[str] = (), replaces: tuple[str, ...] = (),
               day: str | None = None) -> Commit:
        """Make the batch visible. ``replaces`` and ``day`` are for ``compact``: the
        batches whose rows this one holds, and their day partition."""
        return self.store._commit(self, list(sources), list(trace_ids), replaces, day)
