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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from ..model import QueryError, StoreCorruptError

__all__ = ["Reader"]


class _Batch(Protocol):
    @property
    def batch(self) -> str: ...


def first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _plain_select(query: str) -> bool:
    """One ``SELECT``/``WITH``/``FROM`` statement: nothing it runs outlives it."""
    text = query.strip().rstrip(";")
    first = text.split(None, 1)[0].upper() if text else ""
    return first in ("SELECT", "WITH", "FROM") and ";" not in text


def _run(con: duckdb.DuckDBPyConnection, query: str,
         params: list[Any] | dict[str, Any] | None) -> pa.Table:
    try:
        rel = con.sql(query, params=params or None)
        return rel.to_arrow_table() if rel is not None else pa.table({})
    except duckdb.IOException as exc:
        raise StoreCorruptError(f"a store file could not be read: {first_line(exc)}") from None
    except (duckdb.Error, ValueError) as exc:
        raise QueryError(first_line(exc)) from None


class Reader:
    """One kept connection per ``Store``, used by one query at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: tuple[tuple[str, ...], duckdb.DuckDBPyConnection] | None = None

    def query(self, visible: Callable[[], Sequence[_Batch]],
              connect: Callable[[Any], duckdb.DuckDBPyConnection], query: str,
              params: list[Any] | dict[str, Any] | None) -> pa.Table:
        """``visible()`` lists the commit records; ``connect(records)`` makes a
        connection with views over their files."""
        with self._lock:
            records = visible()
            if not _plain_select(query):
                con = connect(records)
                try:
                    return _run(con, query, params)
                finally:
                    con.close()
            key = tuple(r.batch for r in records)
            if self._kept is None or self._kept[0] != key:
                self.close()
                self._kept = (key, connect(records))
            try:
                return _run(self._kept[1], query, params)
            except (StoreCorruptError, QueryError):
                self.close()  # a failed statement may leave the connection odd
                raise

    def close(self) -> None:
        if self._kept is not None:
            self._kept[1].close()
            self._kept = None
