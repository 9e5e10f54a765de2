"""The connection ``Store.sql`` reads with.

A query needs an in-memory DuckDB connection with the store's views over the files the
visible commit records name. Building one costs tens of milliseconds (the connection,
then a view per table over its files), and a command that asks several questions of a
store (``replay``: the finding, its trace, the recorded attempts, the group's status)
paid it each time. ``Reader`` keeps the last connection while the same commit records
are visible; a commit or a compaction changes them, and the next query builds the views
again. Only one plain ``SELECT`` (or ``WITH``/``FROM``) statement runs on the kept
connection: anything else (``CREATE``, ``SET``, ``DROP VIEW events``, several statements)
gets a connection of its own, so no query changes what a later one sees.

``open_views`` makes such a connection and is where a damaged store is told apart from
a bad query: a data file a record names that is missing, not a file, or that DuckDB
cannot read (truncated, garbage, of another schema) is ``STORE_CORRUPT``, naming it; so
is an error of a query that names one of the store's files. Statements that would
fetch or load code (``INSTALL``, ``LOAD``) are ``SQL_NOT_ALLOWED``: the views need no
extension, and a reader of a store never downloads one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from ..model import QueryError, StoreCorruptError
from ._batch import TABLES
from ._records import inside_all
from ._views import create_views

__all__ = ["Reader", "open_views", "read_error"]

_NOT_ALLOWED = ("INSTALL", "FORCE", "LOAD", "UPDATE EXTENSIONS")


class _Batch(Protocol):
    @property
    def batch(self) -> str: ...

    @property
    def files(self) -> tuple[str, ...]: ...


def open_views(root: Path, visible: Sequence[_Batch]) -> duckdb.DuckDBPyConnection:
    """A new connection with the views over the files of the ``visible`` records, each
    confined to the store and checked to be a file (``STORE_CORRUPT`` otherwise)."""
    base = Path(os.path.abspath(root))
    files: dict[str, list[Path]] = {}
    for table in TABLES:
        named = [(c.batch, f) for c in visible for f in c.files if f.startswith(table + "/")]
        files[table] = inside_all(base, [f for _, f in named])
        for (batch, f), path in zip(named, files[table], strict=True):
            try:
                regular = os.stat(path).st_mode & 0o170000 == 0o100000
            except OSError:
                raise StoreCorruptError(f"{f}, named by batch {batch}, is missing",
                                        path=f) from None
            if not regular:
                raise StoreCorruptError(f"{f}, named by batch {batch}, is not a file",
                                        path=f)
    con = duckdb.connect()
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET parquet_metadata_cache = true")  # the views bind more than once
        create_views(con, files)
    except duckdb.Error as exc:
        con.close()
        raise StoreCorruptError("a store file could not be read: "
                                + _relative(first_line(exc), base)) from None
    return con


def _relative(message: str, base: Path) -> str:
    return message.replace(str(base) + "/", "")


def _refused(query: str) -> None:
    words = " ".join(query.strip().split()[:2]).upper()
    if any(words == w or words.startswith(w + " ") for w in _NOT_ALLOWED):
        raise QueryError(f"`{words.split()[0]}` is not run on a store: its views need no "
                         "extension, and reading a store never fetches or loads code",
                         code="SQL_NOT_ALLOWED", hint="query the views with SELECT; use "
                         "DuckDB itself to install or load extensions")


def first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _plain_select(query: str) -> bool:
    """One ``SELECT``/``WITH``/``FROM`` statement: nothing it runs outlives it."""
    text = query.strip().rstrip(";")
    first = text.split(None, 1)[0].upper() if text else ""
    return first in ("SELECT", "WITH", "FROM") and ";" not in text


def _run(con: duckdb.DuckDBPyConnection, query: str,
         params: list[Any] | dict[str, Any] | None, root: Path) -> pa.Table:
    try:
        rel = con.sql(query, params=params or None)
        return rel.to_arrow_table() if rel is not None else pa.table({})
    except (duckdb.Error, ValueError) as exc:
        raise read_error(exc, root) from None


def read_error(exc: Exception, root: Path) -> StoreCorruptError | QueryError:
    """What an error of a query over the views of the store at ``root`` is: about one
    of the store's files, or from the Parquet reader's own decoding (a plain
    ``duckdb.Error``: a query's mistakes are its subclasses), ``STORE_CORRUPT``; else
    the query's ``SQL_ERROR``."""
    text = first_line(exc)
    base = Path(os.path.abspath(root))
    if str(base) + "/" in text or type(exc) is duckdb.Error:
        return StoreCorruptError("a store file could not be read: " + _relative(text, base))
    return QueryError(text)


class Reader:
    """One kept connection per ``Store``, used by one query at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[tuple[str, ...], duckdb.DuckDBPyConnection] | None = None

    def query(self, root: Path, visible: Callable[[], Sequence[_Batch]], query: str,
              params: list[Any] | dict[str, Any] | None) -> pa.Table:
        """``visible()`` lists the commit records of the store at ``root``; the views are
        over their files (``open_views``)."""
        _refused(query)
        with self._lock:
            records = visible()
            if not _plain_select(query):
                con = open_views(root, records)
                try:
                    return _run(con, query, params, root)
                finally:
                    con.close()
            key = tuple(r.batch for r in records)
            if self._kept is None or self._kept[0] != key:
                self.close()
                self._kept = (key, open_views(root, records))
            try:
                return _run(self._kept[1], query, params, root)
            except (StoreCorruptError, QueryError):
                self.close()  # a failed statement may leave the connection odd
                raise

    def close(self) -> None:
        if self._kept is not None:
            self._kept[1].close()
            self._kept = None
