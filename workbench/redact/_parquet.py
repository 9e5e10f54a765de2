"""Parquet for ``redact scan`` and ``redact apply``: any Parquet file, the store's and
the fixtures' included.

Every column that holds strings (plain, dictionary-encoded, or inside lists and
structs) is read; each value is judged as the Redactor judges a JSON value under a
key of the column's name, so a ``customer_name`` column is a name column and a JSON
document in an ``args`` column is decoded and walked. Other columns (numbers,
timestamps, binary) are kept as they are. ``redact apply`` writes the file again with
the same schema, metadata and row groups' order, only the changed columns rebuilt.

A file that is not Parquet, is cut short or is encrypted is refused with
``ParquetError`` (``PARQUET_INVALID``, ``PARQUET_ENCRYPTED``) naming the file.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..model import InputError
from ._walk import Redactor, scan_value

__all__ = ["ParquetError", "is_parquet", "read_parquet", "redact_parquet", "scan_parquet"]

_MAGIC = (b"PAR1", b"PARE")


class ParquetError(InputError):
    """A file named as Parquet (or starting like one) that cannot be read."""

    code = "PARQUET_INVALID"
    default_hint = ("the file is not complete Parquet; a truncated copy or a file renamed "
                    "to .parquet is the usual cause (leave it out, or pass --keep-going)")


def is_parquet(path: Path) -> bool:
    """A ``.parquet`` file, or any file that starts with Parquet's magic bytes."""
    if path.suffix.lower() in (".parquet", ".parq", ".pq"):
        return True
    try:
        with path.open("rb") as f:
            return f.read(4) in _MAGIC
    except OSError:
        return False


def read_parquet(path: Path) -> pa.Table:
    """The whole table, or ``ParquetError`` naming the file."""
    try:
        with path.open("rb") as f:
            head = f.read(4)
            f.seek(0, io.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4))
            tail = f.read(4)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", code="UNREADABLE",
                         file=str(path)) from None
    if head == b"PARE" or tail == b"PARE":
        raise ParquetError(f"{path}: an encrypted Parquet file", code="PARQUET_ENCRYPTED",
                           file=str(path),
                           hint="redaction reads plain Parquet; decrypt the file first "
                           "or leave it out (--keep-going)")
    if head != b"PAR1":
        raise ParquetError(f"{path}: not a Parquet file (no PAR1 magic at its start)",
                           file=str(path))
    if tail != b"PAR1":
        raise ParquetError(f"{path}: a truncated Parquet file (no footer)", file=str(path))
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "ncrypt" in first:  # a plaintext footer over encrypted columns
            raise ParquetError(f"{path}: an encrypted Parquet file ({first})",
                               code="PARQUET_ENCRYPTED", file=str(path),
                               hint="redaction reads plain Parquet; decrypt the file first "
                               "or leave it out (--keep-going)") from None
        raise ParquetError(f"{path}: unreadable Parquet ({first})", file=str(path)) from None


def _has_strings(t: pa.DataType) -> bool:
    if pa.types.is_string(t) or pa.types.is_large_string(t) or (
            hasattr(pa.types, "is_string_view") and pa.types.is_string_view(t)):
        return True
    if pa.types.is_dictionary(t):
        return _has_strings(t.value_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _has_strings(t.value_type)
    if pa.types.is_struct(t):
        return any(_has_strings(t.field(i).type) for i in range(t.num_fields))
    return False


def _string_columns(table: pa.Table) -> Iterator[tuple[int, str]]:
    for i, f in enumerate(table.schema):
        if _has_strings(f.type):
            yield i, f.name


def scan_parquet(table: pa.Table) -> list[tuple[str, str]]:
    """``(where, detector)`` for what the detectors find: ``where`` is ``row N COLUMN``
    and the JSON path inside the value. A value repeated in a column is judged once
    and reported at its first row."""
    out: list[tuple[str, str]] = []
    for i, name in _string_columns(table):
        seen: set[Any] = set()
        for row, v in enumerate(table.column(i).to_pylist()):
            if v is None:
                continue
            if type(v) is str:
                if v in seen:
                    continue
                seen.add(v)
            for path, det in scan_value({name: v}):
                out.append((f"row {row} {path.removeprefix('$.')}", det))
    return out


def redact_parquet(table: pa.Table, redactor: Redactor) -> bytes | None:
    """The Parquet bytes of ``table`` with its string values redacted (None when
    nothing changed)."""
    columns = list(table.columns)
    changed = False
    for i, name in _string_columns(table):
        values = table.column(i).to_pylist()
        new = [redactor.value({name: v})[name] if v is not None else None for v in values]
        if any(a is not b for a, b in zip(new, values, strict=True)):
            t = table.schema.field(i).type
            target = t.value_type if pa.types.is_dictionary(t) else t
            arr: pa.Array | pa.ChunkedArray = pa.array(new, type=target)
            if pa.types.is_dictionary(t):
                arr = arr.dictionary_encode()
            columns[i] = arr
            changed = True
    if not changed:
        return None
    out = pa.Table.from_arrays(columns, schema=table.schema)
    buf = io.BytesIO()
    pq.write_table(out, buf)
    return buf.getvalue()
