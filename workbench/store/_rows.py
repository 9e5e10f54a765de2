"""Arrow result tables as Python rows, timestamps included, without pandas.

``pa.Table.to_pylist`` turns a time-zoned timestamp into a ``datetime`` through pandas'
time-zone support, and importing pandas costs a CLI command about 0.3 s. Here those
columns are converted from their integer values instead: the same instants, as
``datetime`` objects in UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa

__all__ = ["to_rows"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": None}


def _instants(col: pa.ChunkedArray, unit: str, tz: str | None) -> list[datetime | None]:
    per = _MICROS[unit]
    out: list[datetime | None] = []
    for v in col.cast(pa.int64()).to_pylist():
        if v is None:
            out.append(None)
            continue
        micros = v // 1000 if per is None else v * per  # datetime holds microseconds
        t = _EPOCH + timedelta(microseconds=micros)
        out.append(t if tz else t.replace(tzinfo=None))
    return out


def to_rows(table: pa.Table) -> list[dict[str, Any]]:
    """``table.to_pylist()``, with every top-level timestamp column converted without
    pandas (time-zoned ones as UTC ``datetime``s, naive ones as naive)."""
    stamps = {f.name: f.type for f in table.schema if pa.types.is_timestamp(f.type)}
    if not stamps:
        plain: list[dict[str, Any]] = table.to_pylist()
        return plain
    converted = {n: _instants(table.column(n), t.unit, t.tz) for n, t in stamps.items()}
    rows = table.drop_columns(list(stamps)).to_pylist()
    order = table.column_names
    return [{k: (converted[k][i] if k in converted else row[k]) for k in order}
            for i, row in enumerate(rows)]
