"""Secrets on disk: every byte a command wrote under a folder, searched for the values a
test planted. Parquet files are searched twice: as bytes and decoded (a compressed
column page need not hold a value's bytes in one piece); a Parquet file that cannot be
read (a kill left it half-written) is searched as bytes only."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pyarrow.parquet as pq


def _decoded(path: Path) -> bytes:
    try:
        rows = pq.read_table(path).to_pylist()
    except Exception:  # a torn file: its bytes are all there is
        return b""
    return json.dumps(rows, default=str, ensure_ascii=False).encode()


def secrets_on_disk(root: Path, secrets: Iterable[str]) -> list[tuple[str, str]]:
    """``(file, secret)`` for each planted secret found in a file under ``root`` —
    journals, staging leftovers, lock and temporary files included."""
    wanted = [s for s in dict.fromkeys(secrets) if s]
    found: list[tuple[str, str]] = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        data = p.read_bytes()
        if p.suffix == ".parquet":
            data += b"\n" + _decoded(p)
        found += [(str(p.relative_to(root)), s) for s in wanted if s.encode() in data]
    return found
