"""The DuckDB views over the store's committed Parquet files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from ..model import EVENTS, FINDINGS, REPLAYS, TRACES, StoreCorruptError

__all__ = ["FIXED_AFTER", "create_views"]

_SCHEMAS = {"events": EVENTS, "traces": TRACES, "findings": FINDINGS, "replays": REPLAYS}
#: what a column added after stores were first written reads as in an older file
_ADDED = {("traces", "env"): "'default'", ("replays", "diverged_step"): "NULL",
          ("replays", "divergence"): "NULL", ("traces", "scenario"): "NULL",
          ("traces", "build"): "NULL", ("replays", "fixed_below"): "NULL",
          ("replays", "rate_low"): "NULL", ("replays", "rate_high"): "NULL"}
#: a group is ``fixed`` after the last N replays in its own environment were clean: N the
#: attempts of the latest replay run there, and never fewer than this (three clean
#: replays in a row, as Schemathesis' ``st replay`` asks)
FIXED_AFTER = 3
#: ``findings.finding_id``: 16 hex digits naming one finding of one run (what
#: ``replay`` takes); computed, so every store written before it has one too
_FINDING_ID = ("substr(sha256(concat_ws('/', run_id, trace_id, signature, "
               "coalesce(CAST(seq AS VARCHAR), ''), array_to_string(event_ids, ','))), 1, 16)")
_TOOL_CALLS = (Path(__file__).with_name("tool_calls.sql")).read_text()
_GROUPS = (Path(__file__).with_name("finding_groups.sql")).read_text()


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _sql_type(t: pa.DataType) -> str:
    """The DuckDB type of an Arrow type of the store's schemas."""
    if pa.types.is_string(t):
        return "VARCHAR"
    if pa.types.is_int64(t):
        return "BIGINT"
    if pa.types.is_boolean(t):
        return "BOOLEAN"
    if pa.types.is_float64(t):
        return "DOUBLE"
    if pa.types.is_timestamp(t):
        return "TIMESTAMPTZ" if t.tz else "TIMESTAMP"
    if pa.types.is_list(t):
        return _sql_type(t.value_type) + "[]"
    if pa.types.is_struct(t):
        return "STRUCT(" + ", ".join(f'"{f.name}" {_sql_type(f.type)}' for f in t) + ")"
    raise TypeError(f"no DuckDB type for {t}")  # a new column type: add it here


def create_views(con: duckdb.DuckDBPyConnection, files: dict[str, list[Path]]) -> None:
    """``events``, ``traces``, ``tool_calls``, ``findings`` (with its computed
    ``finding_id``), ``replays`` and ``finding_groups``, empty but typed when nothing is
    stored. A column a store's older files lack (``traces.env``, ``traces.scenario``,
    ``replays.diverged_step``) reads as its default."""
    for table, schema in _SCHEMAS.items():
        name = "_findings_rows" if table == "findings" else table
        paths = files.get(table) or []
        if paths:
            listing = ", ".join(_literal(p) for p in paths)
            con.execute(f"CREATE VIEW _{table}_files AS SELECT * FROM read_parquet("
                        f"[{listing}], hive_partitioning = false, union_by_name = true)")
            # only a table that gained columns is asked which its files hold
            have = ({r[0] for r in con.execute(f"DESCRIBE _{table}_files").fetchall()}
                    if any(t == table for t, _ in _ADDED) else set(schema.names))
            cols = ", ".join(_column(table, f, f.name in have) for f in schema)
            con.execute(f"CREATE VIEW {name} AS SELECT {cols} FROM _{table}_files")
            _same_types(con, table, name, schema)
        else:  # typed in SQL: registering an Arrow table would make DuckDB load pandas
            con.execute(f"CREATE VIEW {name} AS SELECT {_typed(schema)} WHERE false")
    con.execute(f"CREATE VIEW findings AS SELECT *, {_FINDING_ID} AS finding_id "
                "FROM _findings_rows")
    con.execute(_TOOL_CALLS)
    con.execute(_GROUPS.replace("{FIXED_AFTER}", str(FIXED_AFTER)))


def _typed(schema: pa.Schema) -> str:
    return ", ".join(f'CAST(NULL AS {_sql_type(f.type)}) AS "{f.name}"' for f in schema)


def _same_types(con: duckdb.DuckDBPyConnection, table: str, name: str,
                schema: pa.Schema) -> None:
    """A table's files read as its schema's types (DuckDB names both): a file of other
    columns or types is a damaged store, not a query to fail later."""
    have = con.execute(f"SELECT column_name, column_type FROM (DESCRIBE {name})").fetchall()
    want = con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT "
                       f"{_typed(schema)})").fetchall()
    if have != want:
        wrong = next(h[0] for h, w in zip(have, want, strict=True) if h != w)
        raise StoreCorruptError(f"the {table} files do not hold the {table} table: "
                                f"column {wrong} is {dict(have)[wrong]}, not "
                                f"{dict(want)[wrong]}",
                                hint="restore the store from a copy, or remove the batch "
                                "whose file is of another table")


def _column(table: str, f: pa.Field, present: bool) -> str:
    """One column of a view: as stored, its default where a file lacks it."""
    default = _ADDED.get((table, f.name))
    if present and default == "NULL":
        return f'"{f.name}"'
    if present:
        return f'coalesce("{f.name}", {default}) AS "{f.name}"' if default else f'"{f.name}"'
    return f'CAST({default or "NULL"} AS {_sql_type(f.type)}) AS "{f.name}"'
