"""Where a Spark task finds the store's events files, and how they are cut into pieces.

The driver reads the commit records (which files are live); the executors' DuckDB
reads the files. By default at the paths the records give under the store's root (the
executors see the store at the same path: a shared mount). With ``files_at``, a base
URI (``s3://bucket/store``, ``gs://…``, ``file:///mnt/store``, any location DuckDB reads)
under which the executors find each file at its path relative to the store's root: then
the files' Parquet footers are read by the executors too, and the driver needs only the
commit records and the ``traces`` table (docs/scale.md, "Object storage").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import duckdb

from ._sparktask import Piece

__all__ = ["READABLE_SCHEMES", "cut", "footers", "locate", "remote_footers"]

READABLE_SCHEMES = ("file", "s3", "s3a", "s3n", "gs", "gcs", "r2", "http", "https",
                    "az", "azure", "abfss", "hf")
"""URI schemes the executors' DuckDB reads: its own file system and the ``httpfs``,
``azure`` and ``hf`` extensions' (loaded on first use)."""

Groups = list[tuple[str, list[tuple[str | None, int]]]]
"""Each file and its row groups: (smallest ``trace_id`` by the statistics, rows)."""


def locate(root: Path, paths: list[Path], files_at: str | None) -> list[str]:
    """The locations the executors read: absolute paths, or each file's path relative
    to ``root`` under ``files_at``. ``ValueError`` names a scheme DuckDB cannot read."""
    if files_at is None:
        return [str(p.resolve()) for p in paths]
    scheme = urlsplit(files_at).scheme.lower()
    if scheme not in READABLE_SCHEMES:
        raise ValueError(f"the executors' DuckDB cannot read {scheme or 'a relative'}:// "
                         f"locations ({files_at})")
    base = files_at.rstrip("/")
    return [f"{base}/{p.resolve().relative_to(root.resolve()).as_posix()}" for p in paths]


def footers(files: list[str]) -> Groups:
    """The files' row groups, from their footers read here (pyarrow)."""
    import pyarrow.parquet as pq

    groups: Groups = []
    for f in files:
        meta = pq.ParquetFile(f).metadata
        col = meta.schema.to_arrow_schema().get_field_index("trace_id")
        rgs = []
        for i in range(meta.num_row_groups):
            rg = meta.row_group(i)
            stats = rg.column(col).statistics if col >= 0 else None
            low = stats.min if stats is not None and stats.has_min_max else None
            rgs.append((low if isinstance(low, str) else None, rg.num_rows))
        groups.append((f, rgs))
    return groups


def remote_footers(files: Iterator[str]) -> Iterator[tuple[str, list[tuple[str | None, int]]]]:
    """``footers`` as a Spark task reads them: DuckDB's ``parquet_metadata``, through
    the same file systems that read the pieces (a string column's smallest value is
    ``stats_min_value``; ``stats_min`` is the footer's older, signed-order field)."""
    con = duckdb.connect(config={"threads": 1})
    try:
        for f in files:
            rows = con.execute(
                "SELECT row_group_id, any_value(row_group_num_rows), "
                "any_value(CASE WHEN path_in_schema = 'trace_id' "
                "THEN coalesce(stats_min_value, stats_min) END) "
                "FROM parquet_metadata(?) GROUP BY row_group_id ORDER BY row_group_id",
                [f]).fetchall()
            yield f, [(low, int(n)) for _, n, low in rows]
    finally:
        con.close()


def cut(groups: Groups, parts: int) -> list[Piece]:
    """The events files cut into pieces of about ``1/parts`` of all rows, at row-group
    boundaries: a piece is a range of trace ids (its first row group's smallest id up to
    the next piece's). Exact whatever the row groups' statistics: the range is a filter,
    the statistics only skip row groups."""
    total = sum(n for _, rgs in groups for _, n in rgs)
    if not total:
        return []
    size = max(1, -(-total // max(1, parts)))
    out: list[Piece] = []
    for f, rgs in groups:
        cuts: list[tuple[str | None, int]] = []  # (lo, rows) of each piece
        for low, n in rgs:
            # a new piece starts at a row group whose smallest id is past the last cut
            # (cuts strictly increase, so the ranges split every id once)
            if not cuts or (cuts[-1][1] >= size and low is not None
                            and (cuts[-1][0] is None or low > cuts[-1][0])):
                cuts.append((low if cuts else None, n))
            else:
                cuts[-1] = (cuts[-1][0], cuts[-1][1] + n)
        for i, (lo, n) in enumerate(cuts):
            hi = cuts[i + 1][0] if i + 1 < len(cuts) else None
            out.append(Piece(f, lo, hi, n))
    return out
