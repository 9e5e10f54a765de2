"""The DuckDB views over the store's committed Parquet files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from ..model import EVENTS, FINDINGS, TRACES

__all__ = ["create_views"]

_SCHEMAS = {"events": EVENTS, "traces": TRACES, "findings": FINDINGS}
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
    if pa.types.is_timestamp(t):
        return "TIMESTAMPTZ" if t.tz else "TIMESTAMP"
    if pa.types.is_list(t):
        return _sql_type(t.value_type) + "[]"
    if pa.types.is_struct(t):
        return "STRUCT(" + ", ".join(f'"{f.name}" {_sql_type(f.type)}' for f in t) + ")"
    raise TypeError(f"no DuckDB type for {t}")  # a new column type: add it here


def create_views(con: duckdb.DuckDBPyConnection, files: dict[str, list[Path]]) -> None:
    """``events``, ``traces``, ``tool_calls``, ``findings`` and ``finding_groups``, empty
    but typed when nothing is stored."""
    for table, schema in _SCHEMAS.items():
        cols = ", ".join(f'"{n}"' for n in schema.names)
        paths = files.get(table) or []
        if paths:
            listing = ", ".join(_literal(p) for p in paths)
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} FROM read_parquet([{listing}], "
                        "hive_partitioning = false, union_by_name = true)")
        else:  # typed in SQL: registering an Arrow table would make DuckDB load pandas
            typed = ", ".join(f'CAST(NULL AS {_sql_type(f.type)}) AS "{f.name}"'
                              for f in schema)
            con.execute(f"CREATE VIEW {table} AS SELECT {typed} WHERE false")
    con.execute(_TOOL_CALLS)
    con.execute(_GROUPS)
