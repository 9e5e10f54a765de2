"""Columnar staging: adapters' events become Arrow batches on disk, a batch at a time.

Memory is bounded by ``bytes_per_file`` of JSON text (or ``rows_per_file`` events) per
partition, whatever the size of the input. JSON
fields are serialised once, here; any string longer than ``MAX_STRING`` characters is
cut to its first ``KEEP_CHARS`` and a marker naming its length and sha256, and the
event is flagged ``truncated`` (a 50 MB attribute is stored, not fatal).
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..model import (
    ARG_KINDS,
    EVENT_KINDS,
    FLAGS_KEY,
    STATUSES,
    InvalidTraceError,
    arg_leaves,
    dumps,
    result_keys,
)
from ._source import RawEvent

__all__ = ["KEEP_CHARS", "MAX_STRING", "STAGED", "Stager", "partition_of"]

MAX_STRING = 1 << 20
KEEP_CHARS = 1 << 16

STAGED = pa.schema([
    ("trace_id", pa.string()), ("event_id", pa.string()), ("parent_id", pa.string()),
    ("kind", pa.string()), ("name", pa.string()),
    ("start_ns", pa.int64()), ("end_ns", pa.int64()), ("status", pa.string()),
    ("args", pa.string()), ("result", pa.string()), ("error", pa.string()),
    ("attrs", pa.string()), ("seq_given", pa.int64()), ("refs_given", pa.string()),
    ("arg_leaves", pa.string()), ("result_keys", pa.list_(pa.int64())),
    ("ord", pa.int64()), ("file_rank", pa.int64()), ("src", pa.int32()),
])

_KINDS = frozenset(EVENT_KINDS)
_MIN_NS, _MAX_NS = -(1 << 63), (1 << 63) - 1
_STATUSES = frozenset(STATUSES)


def _truncate(value: Any) -> tuple[Any, bool]:
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            return (value[:KEEP_CHARS]
                    + f"…«truncated: {len(value)} chars, sha256:{digest}»"), True
        return value, False
    if isinstance(value, dict):
        cut = False
        out = {}
        for k, v in value.items():
            out[k], c = _truncate(v)
            cut |= c
        return out, cut
    if isinstance(value, list):
        cut = False
        items = []
        for v in value:
            nv, c = _truncate(v)
            items.append(nv)
            cut |= c
        return items, cut
    return value, False


def partition_of(trace_id: str, partitions: int) -> int:
    """Which finalize partition a trace belongs to (stable across processes)."""
    return zlib.crc32(trace_id.encode("utf-8", "surrogatepass")) % partitions if (
        partitions > 1) else 0


class Stager:
    """Collects events column by column and spills them as Parquet files.

    Rows are split into ``partitions`` by trace id, so that each partition can be
    finalized on its own; ``ord_base`` offsets the file-order column of this stager
    (one per part of a file read in parallel). ``file_order`` says the adapter yields
    events in recording order: their file order then ranks before start times.
    """

    def __init__(self, directory: Path, *, partitions: int = 1, ord_base: int = 0,
                 rows_per_file: int = 65536, bytes_per_file: int = 32 << 20,
                 file_order: bool = False) -> None:
        self.directory = directory
        self.file_order = file_order
        self.partitions = partitions
        self.rows_per_file = rows_per_file
        self.bytes_per_file = bytes_per_file
        self._bytes = [0] * partitions
        self.files: dict[int, list[Path]] = {p: [] for p in range(partitions)}
        self.rows = 0
        self._ord = ord_base
        self._parts: list[dict[str, list[Any]]] = [self._empty() for _ in range(partitions)]

    @staticmethod
    def _empty() -> dict[str, list[Any]]:
        return {n: [] for n in STAGED.names}

    def add(self, ev: RawEvent, src: int) -> None:
        part = partition_of(str(ev.trace_id), self.partitions) if self.partitions > 1 else 0
        c = self._parts[part]
        if not ev.trace_id or not ev.event_id:
            raise InvalidTraceError(f"an event has no {'trace' if not ev.trace_id else 'event'} id")
        if ev.kind not in _KINDS:
            raise InvalidTraceError(f"event {ev.event_id}: unknown kind {ev.kind!r}",
                                    hint="kinds: " + ", ".join(EVENT_KINDS))
        if ev.status not in _STATUSES:
            raise InvalidTraceError(f"event {ev.event_id}: unknown status {ev.status!r}",
                                    hint="statuses: " + ", ".join(STATUSES))
        for t in (ev.start_ns, ev.end_ns):
            if t is not None and not _MIN_NS <= t <= _MAX_NS:
                raise InvalidTraceError(f"event {ev.event_id}: time {t} is outside the "
                                        "int64 nanoseconds the model holds")
        truncated = False
        texts: list[str | None] = []
        for value in (ev.args, ev.result, ev.error):
            text = dumps(value)
            if len(text) > MAX_STRING:
                value, cut = _truncate(value)
                truncated |= cut
                text = dumps(value)
            texts.append(text)
        if ev.error is None:
            texts[2] = None  # the error column is null where nothing is known
        attrs = ev.attrs
        attrs_text = dumps(attrs)
        if len(attrs_text) > MAX_STRING:
            attrs, cut = _truncate(attrs)
            truncated |= cut
        if truncated:
            attrs = dict(attrs)
            attrs[FLAGS_KEY] = [*attrs.get(FLAGS_KEY, []), "truncated"]
        if truncated or attrs is not ev.attrs:
            attrs_text = dumps(attrs)
        c["trace_id"].append(str(ev.trace_id))
        c["event_id"].append(str(ev.event_id))
        c["parent_id"].append(None if ev.parent_id in (None, "") else str(ev.parent_id))
        c["kind"].append(ev.kind)
        c["name"].append(str(ev.name))
        c["start_ns"].append(ev.start_ns)
        c["end_ns"].append(ev.end_ns)
        c["status"].append(ev.status)
        c["args"].append(texts[0])
        c["result"].append(texts[1])
        c["error"].append(texts[2])
        c["attrs"].append(attrs_text)
        c["seq_given"].append(ev.seq)
        c["refs_given"].append(None if ev.refs is None else dumps(ev.refs))
        if ev.refs is None:  # what data-flow inference needs, taken while the values are here
            c["arg_leaves"].append(dumps(arg_leaves(ev.args)) if ev.kind in ARG_KINDS and
                                   ev.args is not None else None)
            c["result_keys"].append(result_keys(ev.result))
        else:
            c["arg_leaves"].append(None)
            c["result_keys"].append(None)
        c["ord"].append(self._ord)
        c["file_rank"].append(self._ord if self.file_order else None)
        c["src"].append(src)
        self._ord += 1
        self.rows += 1
        self._bytes[part] += len(texts[0]) + len(texts[1]) + len(attrs_text)  # type: ignore[arg-type]
        if len(c["ord"]) >= self.rows_per_file or self._bytes[part] >= self.bytes_per_file:
            self._flush(part)

    def flush(self) -> None:
        for part in range(self.partitions):
            self._flush(part)

    def _flush(self, part: int) -> None:
        cols = self._parts[part]
        if not cols["ord"]:
            return
        table = pa.Table.from_pydict(cols, schema=STAGED)
        path = self.directory / f"p{part:03d}-{len(self.files[part]):05d}.parquet"
        self.directory.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, compression="lz4")
        self.files[part].append(path)
        self._parts[part] = self._empty()
        self._bytes[part] = 0
