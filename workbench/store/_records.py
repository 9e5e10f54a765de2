"""Commit records, read as untrusted input, and the one check of a path a store names.

A store may come from elsewhere (a shared folder, a CI artifact), so what its records
say is held to the store's own layout before anything is opened, moved or removed:

- ``parse_record``: a record is a JSON object whose ``batch`` is its own file name
  (so two records of one batch, or a batch name with a ``/``, cannot be), whose
  ``committed_at`` is a time with its zone, and whose ``files`` are relative paths of
  a table's ``.parquet`` files; anything else is ``STORE_CORRUPT``;
- ``inside``: the one function every path of a record goes through before it is read
  or unlinked (views, ``Store.files``, ``compact``'s merge and clean-up, recovery,
  the journals a crashed writer left): it
  refuses an absolute path, a ``..`` part, and a path that a symbolic link inside the
  store leads out of it, with ``STORE_CORRUPT`` — nothing outside the store is touched.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..model import StoreCorruptError, dumps, loads
from ._batch import TABLES

__all__ = ["OUTSIDE_HINT", "Commit", "inside", "inside_all", "parse_record", "read_record",
           "visible_of"]

_BATCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
OUTSIDE_HINT = ("the store is damaged or was made to reach out of its folder; nothing "
                "outside it was read or removed. Restore the store from a copy you trust")
_HINT = "restore the store from a copy, or remove the damaged batch's record"


@dataclass(frozen=True)
class Commit:
    """The record that makes a batch visible. A compaction's record also names the
    batches it ``replaces``: from the moment it is written readers see its files instead
    of theirs (docs/scale.md)."""

    batch: str
    committed_at: str
    files: tuple[str, ...]
    sources: tuple[dict[str, Any], ...]
    trace_ids: tuple[str, ...]
    replaces: tuple[str, ...] = ()

    def to_json(self) -> bytes:
        doc: dict[str, Any] = {"batch": self.batch, "committed_at": self.committed_at,
                               "files": list(self.files), "sources": list(self.sources),
                               "trace_ids": list(self.trace_ids)}
        if self.replaces:
            doc["replaces"] = list(self.replaces)
        return dumps(doc).encode()

    @property
    def at(self) -> dt.datetime:
        """``committed_at`` as a time (checked when the record was read)."""
        return dt.datetime.fromisoformat(self.committed_at)


def _corrupt(name: str, why: str) -> StoreCorruptError:
    return StoreCorruptError(f"commit record {name} is unreadable: {why}", hint=_HINT)


def _strings(doc: dict[str, Any], key: str, name: str) -> tuple[str, ...]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _corrupt(name, f"{key!r} is not a list of strings")
    return tuple(value)


def read_record(path: Path) -> Commit | None:
    """The record at ``path`` (``parse_record``), or None when it is gone."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _corrupt(path.name, exc.strerror or str(exc)) from None
    return parse_record(data, path.name)


def parse_record(data: bytes, name: str) -> Commit:
    """The record in file ``name`` (``B.json``), held to the layout (module docstring)."""
    try:
        doc = loads(data)
    except Exception as exc:
        raise _corrupt(name, str(exc)) from None
    if not isinstance(doc, dict):
        raise _corrupt(name, "not a JSON object")
    batch = doc.get("batch")
    if not isinstance(batch, str) or not _BATCH.match(batch) or f"{batch}.json" != name:
        raise _corrupt(name, f"its batch {batch!r} is not its file name (two records of "
                       "one batch, or a copied record)")
    at = doc.get("committed_at")
    try:
        zoned = isinstance(at, str) and dt.datetime.fromisoformat(at).tzinfo is not None
    except ValueError:
        zoned = False
    if not zoned or not isinstance(at, str):
        raise _corrupt(name, f"committed_at {at!r} is not a time with its zone")
    files = _strings(doc, "files", name)
    if "files" not in doc:
        raise _corrupt(name, "it names no files")
    for f in files:
        parts = PurePosixPath(f).parts
        if not (len(parts) >= 2 and parts[0] in TABLES and f.endswith(".parquet")):
            _syntax(f)  # a path out of the store says so
            raise _corrupt(name, f"{f!r} is not a data file of the store")
        _syntax(f)
    sources = doc.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        raise _corrupt(name, "'sources' is not a list of objects")
    return Commit(batch, at, files, tuple(sources), _strings(doc, "trace_ids", name),
                  _strings(doc, "replaces", name))


def visible_of(records: list[Commit]) -> list[Commit]:
    """The records no other replaces; a file two of them name is ``STORE_CORRUPT`` (a
    copied record: every row would be read twice)."""
    replaced = {b for c in records for b in c.replaces}
    visible = [c for c in records if c.batch not in replaced]
    named: dict[str, str] = {}
    for c in visible:
        for f in c.files:
            other = named.setdefault(f, c.batch)
            if other != c.batch:
                raise StoreCorruptError(f"{f} is named by two visible batches, {other} and "
                                        f"{c.batch}", hint=_HINT, path=f)
    return visible


def _syntax(rel: str) -> None:
    """A relative path of plain parts: no root, no ``..``, no ``.``, no NUL, no ``\\``."""
    parts = rel.split("/")
    if (not rel or rel.startswith("/") or "\x00" in rel or "\\" in rel
            or re.match(r"^[A-Za-z]:", rel) or any(p in ("", ".", "..") for p in parts)):
        raise StoreCorruptError(f"the store names {rel!r}, a path outside the store",
                                hint=OUTSIDE_HINT, path=rel)


def inside_all(root: Path, rels: Iterable[str]) -> list[Path]:
    """``root / rel`` for each path a store names, once each is known to stay inside
    the store: relative, of plain parts, and not led out by a symbolic link (a folder
    of the store, or the file itself, linking elsewhere). ``STORE_CORRUPT`` otherwise,
    before any of them is used. The paths need not exist."""
    real_root = os.path.realpath(root)
    folders: dict[str, bool] = {}
    out = []
    for rel in rels:
        _syntax(rel)
        path = os.path.join(root, rel)
        parent = os.path.dirname(path)
        ok = folders.get(parent)
        if ok is None:
            ok = folders[parent] = _under(os.path.realpath(parent), real_root)
        if ok and os.path.islink(path):
            ok = _under(os.path.realpath(path), real_root)
        if not ok:
            raise StoreCorruptError(f"the store names {rel!r}, which a symbolic link "
                                    "leads out of the store", hint=OUTSIDE_HINT, path=rel)
        out.append(Path(path))
    return out


def inside(root: Path, rel: str) -> Path:
    """One path a store names, confined to it (``inside_all``)."""
    return inside_all(root, [rel])[0]


def _under(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip("/") + "/")
