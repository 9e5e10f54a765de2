"""The trace store: append-only Parquet batches, made visible by commit records.

Layout (Hive-style, so any Parquet engine can read the data files)::

    STORE/
      store.json                      format marker and version
      events/day=YYYY-MM-DD/B-n.parquet   each sorted by (trace_id, seq)
      traces/day=YYYY-MM-DD/B.parquet
      _commits/B.json                 what batch B wrote: files, source hashes, trace ids
      _commits/replaced/B.json        the record of a batch a compaction replaced
      _staging/B/                     a batch being written (owned by a live process)
      _journals/NAME.jsonl            records arriving one at a time, committed later
      redaction.key                   the redaction HMAC key (0600; never exported)

A writer stages a batch under ``_staging`` (outside any lock), then commits it under
the store lock: it re-checks sources and trace ids, renames the staged files into place
and writes the commit record last. Readers see only files named by commit records, so a
crash at any point leaves the store as it was; the next writer removes the leftovers.
A compaction's record also names the batches it replaces, which readers then leave out
(``_compact.py``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from ..model import (
    EVENTS,
    Event,
    NotFoundError,
    QueryError,
    StoreCorruptError,
    StoreError,
    Trace,
    TraceExistsError,
    dumps,
    loads,
)
from ._batch import TABLES, Batch
from ._files import atomic_write, exclusive_lock, fsync_dir, fsync_file, sweep_temps, try_lock
from ._journal import Journal, drop_journal, open_journal, orphan_journals
from ._reader import Reader, open_views, read_error
from ._records import Commit, inside, inside_all, read_record, visible_of
from ._rows import to_rows

__all__ = ["DEFAULT_STORE", "Commit", "Store", "resolve_store_path"]

DEFAULT_STORE = Path("traces/store")
KEY_FILE = "redaction.key"
_KEY_BYTES = 32
_MARKER: dict[str, Any] = {"format": "workbench-store", "version": 1}
_COMMITS = "_commits"
_REPLACED = "replaced"
_GENERATION = ".generation"
_RETRIES = 5  # queries rerun when a compaction's clean-up removed a file they listed


def resolve_store_path(path: str | os.PathLike[str] | None) -> Path:
    """``--store``, else ``$WORKBENCH_STORE``, else ``./traces/store``."""
    if path:
        return Path(path)
    env = os.environ.get("WORKBENCH_STORE")
    return Path(env) if env else DEFAULT_STORE


class Store:
    """A trace store rooted at a directory. Cheap to construct; creates nothing until written."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        # commit records by file name: a record is written once, whole, and never
        # changed, so each is parsed once per Store (a compacted store keeps many)
        self._records: dict[str, Commit] = {}
        # the connection ``sql`` reads with, kept while the same commit records are
        # visible (``_reader.py``)
        self._reader = Reader()
        self._listed: list[str] = []

    def __getstate__(self) -> dict[str, Any]:
        return {"root": self.root, "_records": self._records}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["root"])  # type: ignore[misc]
        self._records.update(state["_records"])

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # -- layout -------------------------------------------------------------------------
    @property
    def exists(self) -> bool:
        return (self.root / "store.json").is_file()

    def _ensure(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(f"store path {self.root} is a file, not a directory",
                             hint="pass a directory with --store", code="STORE_NOT_A_DIRECTORY")
        if not self.exists:
            self.root.mkdir(parents=True, exist_ok=True)
            with exclusive_lock(self.root / ".lock"):
                if not self.exists:
                    for p in self.root.glob(".store.json.*.tmp"):
                        p.unlink(missing_ok=True)  # a creation killed or out of space
                    if any(p.name != ".lock" for p in self.root.iterdir()):
                        raise StoreError(
                            f"{self.root} is not empty and is not a workbench store",
                            hint="pass an empty or new directory with --store",
                            code="NOT_A_STORE")
                    atomic_write(self.root / "store.json", dumps(_MARKER).encode())
        self._check_marker()

    def _check_marker(self) -> None:
        try:
            marker = loads((self.root / "store.json").read_bytes())
        except Exception as exc:
            raise StoreCorruptError(f"{self.root}/store.json is unreadable: {exc}") from None
        if not isinstance(marker, dict) or marker.get("format") != _MARKER["format"]:
            raise StoreCorruptError(f"{self.root}/store.json is not a workbench store marker")
        if int(marker.get("version", 0)) > _MARKER["version"]:
            raise StoreError(f"store version {marker.get('version')} is newer than this workbench",
                             hint="upgrade the workbench", code="STORE_TOO_NEW")

    # -- the redaction key ----------------------------------------------------------------
    def redaction_key(self) -> bytes:
        """The store's redaction key (32 bytes), created on first use.

        Tokens are HMACs under this key, so the same value gets the same token in every
        trace of the store. The file (hex, mode 0600) is written to a private temporary
        name (``O_EXCL``), fsynced, then hard-linked into place: the link fails if
        another process got there first, and then both use the winner's key. A reader
        therefore never sees a half-written key.
        """
        self._ensure()
        path = self.root / KEY_FILE
        if not path.exists():
            self._create_key(path)
        return self._read_key(path)

    def _create_key(self, path: Path) -> None:
        tmp = path.with_name(f".{KEY_FILE}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as exc:
            raise StoreError(f"cannot create {path}: {exc.strerror}", code="STORE_UNWRITABLE",
                             hint="redacting needs to write the store's key once; check the "
                             "store folder's permissions") from None
        try:
            try:
                os.write(fd, os.urandom(_KEY_BYTES).hex().encode() + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException:  # out of space: leave no temp file behind
            tmp.unlink(missing_ok=True)
            raise
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first: its key is the store's key
        except OSError as exc:
            raise StoreError(f"cannot create {path}: {exc.strerror}", code="STORE_UNWRITABLE",
                             hint="the store needs a file system with hard links (any local "
                             "one); or ingest with --no-redact") from None
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(path.parent)

    def _read_key(self, path: Path) -> bytes:
        try:
            key = bytes.fromhex(path.read_text("ascii").strip())
        except (OSError, ValueError) as exc:
            raise StoreCorruptError(f"{path} is unreadable: {exc}",
                                    hint="restore the key from a backup of the store; "
                                    "a new key would give every value a new token") from None
        if len(key) != _KEY_BYTES:
            raise StoreCorruptError(f"{path} does not hold a {_KEY_BYTES}-byte key",
                                    hint="restore the key from a backup of the store; "
                                    "a new key would give every value a new token")
        return key

    # -- commits ------------------------------------------------------------------------
    def commits(self) -> list[Commit]:
        """Every visible batch, oldest first: the records in ``_commits/`` no compaction
        replaces. Replaced records move to ``_commits/replaced/`` once the compaction's
        record is written, so a compacted store is listed from a few records; a listing
        taken while records moved (the generation changed, or a listed record is gone)
        is taken again (docs/store.md, "Compaction")."""
        while True:
            generation = self._generation()
            records = self._read_records(self.root / _COMMITS)
            if records is not None and self._generation() == generation:
                break
        return visible_of(records)

    def all_commits(self) -> list[Commit]:
        """Every commit record, replaced ones too, oldest first (those in
        ``_commits/replaced/`` and any not moved there yet). A record that a compaction's
        clean-up removes while this lists them is left out: only records replaced long
        before are ever removed."""
        live = self._read_records(self.root / _COMMITS, missing_ok=True) or []
        retired = self._read_records(self.root / _COMMITS / _REPLACED, missing_ok=True) or []
        out = list({c.batch: c for c in [*retired, *live]}.values())
        out.sort(key=lambda c: (c.committed_at, c.batch))
        return out

    def _generation(self) -> str:
        """The count of record moves (``_commits/.generation``): a reader that lists the
        records between two equal reads of it saw no record move."""
        try:
            return (self.root / _COMMITS / _GENERATION).read_text("ascii", "replace")
        except FileNotFoundError:
            return "0"
        except OSError as exc:
            raise StoreCorruptError(f"{_COMMITS}/{_GENERATION} is unreadable: "
                                    f"{exc.strerror}") from None

    def _read_records(self, d: Path, *, missing_ok: bool = False) -> list[Commit] | None:
        """The records of one folder, oldest first; None when one listed is gone before
        it was read (it moved: list again), unless ``missing_ok``. A record is read as
        untrusted input (``_records.parse_record``)."""
        folder = inside(self.root, d.relative_to(self.root).as_posix())
        try:  # names, not Path objects: a store of many batches lists thousands
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreCorruptError(f"{d.relative_to(self.root)} is not a folder of commit "
                                    f"records: {exc.strerror}") from None
        out = []
        for name in names:
            known = self._records.get(name)
            if known is not None:
                out.append(known)
                continue
            commit = read_record(d / name)
            if commit is None:  # moved or removed since the listing
                if missing_ok:
                    continue
                return None
            self._records[name] = commit
            out.append(commit)
        out.sort(key=lambda c: (c.committed_at, c.batch))
        return out

    def _retire(self) -> None:
        """Under the lock: move the records a visible compaction replaces from
        ``_commits/`` to ``_commits/replaced/``, the generation bumped first (so a reader
        listing meanwhile lists again). Their files stay, still named, for readers that
        listed them before (``compact --grace``)."""
        d = self.root / _COMMITS
        records = self._read_records(d, missing_ok=True) or []
        replaced = {b for c in records for b in c.replaces}
        moving = [c for c in records if c.batch in replaced]
        if not moving:
            return
        generation = self._generation()
        nxt = int(generation) + 1 if generation.strip().isdigit() else 1
        retired = inside(self.root, f"{_COMMITS}/{_REPLACED}")
        if retired.exists() and not retired.is_dir():
            raise StoreCorruptError(f"{_COMMITS}/{_REPLACED} is not a folder")
        atomic_write(d / _GENERATION, str(nxt).encode())
        retired.mkdir(exist_ok=True)
        for c in moving:
            os.replace(d / f"{c.batch}.json", d / _REPLACED / f"{c.batch}.json")
        fsync_dir(d / _REPLACED)
        fsync_dir(d)

    def _record_path(self, batch: str) -> Path:
        """Where batch ``batch``'s commit record is (``_commits/replaced/`` once it is
        replaced and moved)."""
        retired = inside(self.root, f"{_COMMITS}/{_REPLACED}/{batch}.json")
        return retired if retired.exists() else inside(self.root, f"{_COMMITS}/{batch}.json")

    def files(self, table: str) -> list[Path]:
        """The committed data files of one table."""
        prefix = table + "/"
        return inside_all(self.root, [f for c in self.commits() for f in c.files
                                      if f.startswith(prefix)])

    def source_hashes(self) -> set[str]:
        return {s["sha256"] for c in self.commits() for s in c.sources if "sha256" in s}

    def trace_ids(self) -> set[str]:
        return {t for c in self.commits() for t in c.trace_ids}

    # -- writing ------------------------------------------------------------------------
    @contextmanager
    def stage(self) -> Iterator[Batch]:
        """A staging area for one batch; removed on exit, committed or not."""
        self._ensure()
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
        batch_id = f"{stamp}-{uuid.uuid4().hex[:12]}"
        d = self.root / "_staging" / batch_id
        d.mkdir(parents=True)
        fd = try_lock(d / ".owner")
        batch = Batch(self, batch_id, d, _lock_fd=fd)
        try:
            yield batch
        finally:
            if fd is not None:
                os.close(fd)
            shutil.rmtree(d, ignore_errors=True)

    def _commit(self, batch: Batch, sources: list[dict[str, Any]],
                trace_ids: list[str], replaces: tuple[str, ...] = (),
                day: str | None = None) -> Commit:
        """Move the staged files into place and write the record last, under the lock.
        ``replaces`` (a compaction): the batches whose rows these files hold, which must
        all still be visible; ``day`` the partition to write to (default: today's)."""
        if batch.committed is not None:
            raise StoreError(f"batch {batch.id} is already committed")
        with exclusive_lock(self.root / ".lock"):
            self._recover()
            known = self.commits()
            if replaces:
                gone = sorted(set(replaces) - {c.batch for c in known})
                if gone:
                    raise StoreError(f"batch {gone[0]} was compacted by another process",
                                     code="COMPACT_CONFLICT",
                                     hint="run `workbench compact` again")
                known = [c for c in known if c.batch not in replaces]
            have_sources = {s["sha256"] for c in known for s in c.sources if "sha256" in s}
            dup = [s.get("path") for s in sources if s.get("sha256") in have_sources]
            if dup:
                raise StoreError(f"{dup[0]} is already in the store", code="ALREADY_INGESTED",
                                 paths=dup)
            have_traces = {t for c in known for t in c.trace_ids}
            clash = sorted(set(trace_ids) & have_traces)
            if clash:
                raise TraceExistsError(
                    f"trace {clash[0]} is already in the store"
                    + (f" (and {len(clash) - 1} more)" if len(clash) > 1 else ""),
                    trace_ids=clash[:20])
            now = dt.datetime.now(dt.UTC)
            day = day or now.strftime("%Y-%m-%d")
            moved: list[str] = []
            for src in batch.staged_files():
                table = src.parent.name
                rel = f"{table}/day={day}/{src.name}"
                dst = self.root / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                fsync_file(src)
                os.replace(src, dst)
                moved.append(rel)
            for parent in {(self.root / m).parent for m in moved}:
                fsync_dir(parent)
            commit = Commit(batch.id, now.isoformat(), tuple(moved),
                            tuple(sources), tuple(trace_ids), tuple(replaces))
            atomic_write(self.root / _COMMITS / f"{batch.id}.json", commit.to_json())
            if replaces:  # the commit is made: a failed move is the next writer's
                with contextlib.suppress(OSError):
                    self._retire()
        batch.committed = commit
        return commit

    def _recover(self) -> None:
        """Under the lock: drop data files no commit record names (replaced ones keep
        theirs until the compaction's clean-up), dead staging dirs, and the temporary
        files of records whose writer was killed (records are written under the lock,
        so any temporary file there now is dead)."""
        sweep_temps(self.root / KEY_FILE)  # a key creation killed (unlocked, over a minute)
        for folder in (_COMMITS, f"{_COMMITS}/{_REPLACED}"):
            d = inside(self.root, folder)
            for tmp in d.glob(".*.tmp") if d.is_dir() else ():
                tmp.unlink(missing_ok=True)
        self._retire()  # a compaction killed after its record, before the moves
        named = {f for c in self.all_commits() for f in c.files}
        for table in TABLES:
            for folder, _, names in os.walk(inside(self.root, table)):
                rel = Path(folder).relative_to(self.root).as_posix()
                for name in names:
                    if name.endswith(".parquet") and f"{rel}/{name}" not in named:
                        (Path(folder) / name).unlink(missing_ok=True)
        staging = inside(self.root, "_staging")
        if staging.is_dir():
            for d in staging.iterdir():
                if d.is_symlink():  # never made by a writer: a link is removed, not followed
                    d.unlink()
                    continue
                fd = try_lock(d / ".owner") if d.is_dir() else None
                if fd is not None:
                    os.close(fd)
                    shutil.rmtree(d, ignore_errors=True)

    def journal(self, name: str) -> Journal:
        """A new append-only journal in the store, owned by this process (``_journal``)."""
        self._ensure()
        return open_journal(self.root, name)

    def orphan_journals(self) -> list[Path]:
        """Journals whose owner is gone: records a crashed writer left to commit."""
        return orphan_journals(self.root)

    def drop_journal(self, path: Path) -> None:
        """Remove a journal whose records are committed."""
        drop_journal(self.root, path)

    def append(self, table: str, data: pa.Table) -> Commit:
        """Write one table's rows as a new committed batch (findings, replays …)."""
        with self.stage() as batch:
            batch.write(table, data)
            return batch.commit()

    # -- reading ------------------------------------------------------------------------
    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection with the store's views (the caller closes it)."""
        return open_views(self.root, self._visible())

    def _visible(self) -> list[Commit]:
        if self.root.exists() and not self.root.is_dir():
            raise StoreError(f"store path {self.root} is a file, not a directory",
                             code="STORE_NOT_A_DIRECTORY")
        if self.exists:
            self._check_marker()
        visible = self.commits()  # one listing for every view
        self._listed = [c.batch for c in visible]
        return visible


    def read_error(self, exc: Exception) -> StoreCorruptError | QueryError:
        """What an error of a query on ``connect()``'s connection is: ``STORE_CORRUPT``
        when a store file could not be read, else the query's ``SQL_ERROR``."""
        return read_error(exc, self.root)

    def sql(self, query: str, params: list[Any] | dict[str, Any] | None = None) -> pa.Table:
        """Run a query over the views; the result as an Arrow table. The store is listed
        for every query; one ``SELECT`` (or ``WITH``) reuses the connection and views of
        this ``Store``'s last one while the visible commit records are the same (a
        commit or a compaction changes them). Anything else — another statement, or
        several — gets a connection of its own, so it cannot change what later queries
        see. A damaged file is ``STORE_CORRUPT``; one that went while the query ran
        because a compaction's clean-up removed it (``compact --grace 0`` beside a
        reader) is no damage: the records are listed again and the query rerun."""
        for _ in range(_RETRIES):
            try:
                return self._reader.query(self.root, self._visible, query, params)
            except StoreCorruptError:
                self._reader.close()
                if [c.batch for c in self.commits()] == self._listed:
                    raise
        return self._reader.query(self.root, self._visible, query, params)

    def trace(self, trace_id: str) -> Trace:
        """One trace, parsed, with its metadata."""
        events = self.sql("SELECT * FROM events WHERE trace_id = ? ORDER BY seq", [trace_id])
        if events.num_rows == 0:
            raise NotFoundError(f"no trace {trace_id!r} in {self.root}",
                                hint="`workbench traces` lists the trace ids",
                                code="TRACE_NOT_FOUND")
        meta = to_rows(self.sql("SELECT * FROM traces WHERE trace_id = ?", [trace_id]))
        return Trace.from_arrow(events.select(EVENTS.names), meta[0] if meta else {})

    def traces(self, trace_ids: list[str]) -> dict[str, Trace]:
        """Several traces, parsed, in one query (missing ids are left out)."""
        if not trace_ids:
            return {}
        events = self.sql("SELECT * FROM events WHERE list_contains(?, trace_id) "
                          "ORDER BY trace_id, seq", [list(trace_ids)])
        metas = {m["trace_id"]: m for m in to_rows(self.sql(
            "SELECT * FROM traces WHERE list_contains(?, trace_id)", [list(trace_ids)]))}
        rows: dict[str, list[Any]] = {}
        for row in events.select(EVENTS.names).to_pylist():
            rows.setdefault(row["trace_id"], []).append(row)
        return {tid: Trace.from_events((Event.from_row(r) for r in rs), metas.get(tid, {}))
                for tid, rs in rows.items()}

    def resolve_trace_ids(self, prefixes: Iterable[str]) -> list[str]:
        """Full trace ids for ids or unique prefixes (commit records read once)."""
        ids = self.trace_ids()
        return [self.resolve_trace_id(p, ids) for p in prefixes]

    def resolve_trace_id(self, prefix: str, ids: set[str] | None = None) -> str:
        """A full trace id from an id or a unique prefix of one."""
        ids = self.trace_ids() if ids is None else ids
        if prefix in ids:
            return prefix
        hits = sorted(i for i in ids if i.startswith(prefix))
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise NotFoundError(f"no trace {prefix!r} in {self.root}",
                                hint="`workbench traces` lists the trace ids",
                                code="TRACE_NOT_FOUND")
        raise NotFoundError(f"{prefix!r} matches {len(hits)} traces: {', '.join(hits[:5])}",
                            hint="give more characters of the id", code="AMBIGUOUS_TRACE")


