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
        else:
            con.register(f"_empty_{table}", pa.table(
                {f.name: pa.array([], type=f.type) for f in schema}))
            con.execute(f"CREATE VIEW {table} AS SELECT {cols} FROM _empty_{table}")
    con.execute(_TOOL_CALLS)
    con.execute(_GROUPS)
