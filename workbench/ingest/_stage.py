"""Columnar staging: adapters' events become Arrow batches on disk, a batch at a time.

Memory is bounded by ``bytes_per_file`` of JSON text (or ``rows_per_file`` events) per
partition, whatever the size of the input. JSON
fields are serialised once, here; any string longer than ``MAX_STRING`` characters is
cut to its first ``KEEP_CHARS`` and a marker naming its length and sha256, and the
event is flagged ``truncated`` (a 50 MB attribute is stored, not fatal).

With a ``Redactor``, secrets and personal data are replaced before anything is written
(staging files are on disk too), and each field is serialised once, after redaction.
The detectors' cheap gate runs per string inside ``Redactor.value``, which remembers
the strings it has seen: a trace repeats its prompts and history in every model call,
and a dict lookup beats scanning the same text again (a gate over each field's whole
JSON text cost twice as much on the bench traces; docs/redact.md). Data-flow leaves
are taken after redaction, so equal secrets still link through equal tokens.
Replacements are counted per trace (``hits``).
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import zlib
from array import array
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa

from ..formats import RawEvent
from ..model import (
    ARG_KINDS,
    EVENT_KINDS,
    FLAGS_KEY,
    STATUSES,
    InvalidTraceError,
    arg_leaves,
    dumps,
    result_keys,
    sent_keys,
)
from ..store import Scratch

if TYPE_CHECKING:  # redaction loads with the first Redactor, not with staging
    from ..redact import Redactor

__all__ = ["KEEP_CHARS", "KEY_CODE", "MAX_STRING", "STAGED", "Stager", "partition_of",
           "warm_up"]

MAX_STRING = 1 << 20
KEEP_CHARS = 1 << 16

STAGED = pa.schema([
    ("trace_id", pa.string()), ("event_id", pa.string()), ("parent_id", pa.string()),
    ("kind", pa.string()), ("name", pa.string()),
    ("start_ns", pa.int64()), ("end_ns", pa.int64()), ("status", pa.string()),
    ("args", pa.string()), ("result", pa.string()), ("error", pa.string()),
    ("attrs", pa.string()), ("seq_given", pa.int64()), ("refs_given", pa.string()),
    ("arg_leaves", pa.string()), ("result_keys", pa.binary()), ("sent_keys", pa.binary()),
    ("ord", pa.int64()), ("file_rank", pa.int64()), ("src", pa.int32()),
])

#: the staged data-flow keys (``result_keys``, ``sent_keys``: CRC-32 values) are packed
#: as an ``array`` of this type code, in this machine's byte order (the staged files
#: are read back by the same ingest): bytes cost Arrow, Parquet and DuckDB less than
#: lists of integers
KEY_CODE = "I"

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


def _text(value: Any) -> str:
    """``dumps``, with its common cases inline (this runs four times per event)."""
    if value is None:
        return "null"
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:  # what orjson cannot write: ``dumps`` knows the way
        return dumps(value)


def _cut(value: Any, truncated: bool) -> tuple[str, bool]:
    """The text of a value whose strings over ``MAX_STRING`` are cut."""
    value, cut = _truncate(value)
    return dumps(value), truncated | cut


#: the staged columns whose values repeat: a dictionary pays for them; the JSON texts,
#: one of a kind, would only be hashed in vain
_REPEATING = ["trace_id", "parent_id", "kind", "name", "status"]


def warm_up(*, pandas: bool = True) -> None:
    """Do now what the first conversion to Arrow would do on the way: pyarrow imports
    pandas (about 0.3 s) the first time it converts Python values. Ingest calls it in
    a thread while it hashes the input.

    ``pandas=False``, in a process that converts no pandas objects (the ``ingest``
    command, a worker; called before any other thread imports): pyarrow's first
    conversion finds pandas not installed, a configuration pyarrow supports, and the
    import is spared; the typed conversions ingest makes do not look again. Anything
    that later needs pandas from pyarrow (``to_pandas``) imports it then."""
    if pandas or "pandas" in sys.modules:
        _convert_once()
        return
    sys.meta_path.insert(0, _NoPandas)
    try:
        _convert_once()
    finally:
        sys.meta_path.remove(_NoPandas)


class _NoPandas:
    """An import finder under which ``import pandas`` fails (while it is installed)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def _convert_once() -> None:
    with contextlib.suppress(Exception):  # a head start only: the real conversion
        pa.array([0], pa.int64())           # reports any problem


def partition_of(trace_id: str, partitions: int) -> int:
    """Which finalize partition a trace belongs to (stable across processes)."""
    return zlib.crc32(trace_id.encode("utf-8", "surrogatepass")) % partitions if (
        partitions > 1) else 0


class Stager:
    """Collects events column by column and spills them as Parquet files into a work
    folder of the batch (``scratch``).

    Rows are split into ``partitions`` by trace id, so that each partition can be
    finalized on its own; ``ord_base`` offsets the file-order column of this stager
    (one per part of a file read in parallel). ``file_order`` says the adapter yields
    events in recording order: their file order then ranks before start times.
    """

    def __init__(self, scratch: Scratch, *, partitions: int = 1, ord_base: int = 0,
                 rows_per_file: int = 65536, bytes_per_file: int = 32 << 20,
                 file_order: bool = False, redactor: Redactor | None = None) -> None:
        self.scratch = scratch
        self.redactor = redactor
        #: replacements made, by trace id and detector id
        self.hits: dict[str, Counter[str]] = {}
        self.file_order = file_order
        self.partitions = partitions
        self.rows_per_file = rows_per_file
        self.bytes_per_file = bytes_per_file
        self._bytes = [0] * partitions
        self.files: dict[int, list[Path]] = {p: [] for p in range(partitions)}
        self.rows = 0
        self._ord = ord_base
        # rows as tuples in STAGED's column order, turned into columns when spilled
        self._parts: list[list[tuple[Any, ...]]] = [[] for _ in range(partitions)]

    def ident(self, value: Any) -> Any:
        """An id (trace, event, parent) redacted like any text: a secret inside becomes its
        keyed token, the same in every id that holds it, so parent links, pairing and
        data-flow refs still meet. Not counted in ``hits``."""
        red = self.redactor
        if red is None or type(value) is not str:
            return value
        return red.ident(value)

    def add(self, ev: RawEvent, src: int) -> None:
        trace_id, event_id, kind, status = ev.trace_id, ev.event_id, ev.kind, ev.status
        if not trace_id or not event_id:
            raise InvalidTraceError(f"an event has no {'trace' if not trace_id else 'event'} id")
        trace_id, event_id = self.ident(str(trace_id)), self.ident(str(event_id))
        if kind not in _KINDS:
            raise InvalidTraceError(f"event {event_id}: unknown kind {kind!r}",
                                    hint="kinds: " + ", ".join(EVENT_KINDS))
        if status not in _STATUSES:
            raise InvalidTraceError(f"event {event_id}: unknown status {status!r}",
                                    hint="statuses: " + ", ".join(STATUSES))
        start_ns, end_ns = ev.start_ns, ev.end_ns
        for t in (start_ns, end_ns):
            if t is not None and not _MIN_NS <= t <= _MAX_NS:
                raise InvalidTraceError(f"event {event_id}: time {t} is outside the "
                                        "int64 nanoseconds the model holds")
        args, result, error, attrs, refs = ev.args, ev.result, ev.error, ev.attrs, ev.refs
        trace_id, name = str(trace_id), str(ev.name)
        truncated = False
        args, args_text = self._field(trace_id, args)
        if len(args_text) > MAX_STRING:
            args_text, truncated = _cut(args, truncated)
        result, result_text = self._field(trace_id, result)
        if len(result_text) > MAX_STRING:
            result_text, truncated = _cut(result, truncated)
        error_text = None  # the error column is null where nothing is known
        if error is not None:
            error, error_text = self._field(trace_id, error)
            if len(error_text) > MAX_STRING:
                error_text, truncated = _cut(error, truncated)
        attrs, attrs_text = self._field(trace_id, attrs)
        if self.redactor is not None:
            name = self._redact(trace_id, name)
        redacted_attrs = attrs
        if len(attrs_text) > MAX_STRING or truncated:
            if len(attrs_text) > MAX_STRING:
                attrs, cut = _truncate(attrs)
                truncated |= cut
            if truncated:
                attrs = dict(attrs)
                attrs[FLAGS_KEY] = [*attrs.get(FLAGS_KEY, []), "truncated"]
            if truncated or attrs is not redacted_attrs:
                attrs_text = dumps(attrs)
        if refs is None:  # what data-flow inference needs, taken while the values are here
            linked = kind in ARG_KINDS
            leaves = dumps(arg_leaves(args)) if linked and args is not None else None
            sent: bytes | None = (array(KEY_CODE, sent_keys(args)).tobytes()
                                  if not linked and args is not None else None)
            keys: bytes | None = array(KEY_CODE, result_keys(result)).tobytes()
            refs_text = None
        else:
            leaves = keys = sent = None
            refs_text = dumps(refs if self.redactor is None else self._redact(trace_id, refs))
        parent_id = self.ident(ev.parent_id)
        part = partition_of(trace_id, self.partitions) if self.partitions > 1 else 0
        rows = self._parts[part]
        ord_ = self._ord
        rows.append((trace_id, str(event_id), None if parent_id in (None, "") else str(parent_id),
                     kind, name, start_ns, end_ns, status, args_text, result_text,
                     error_text, attrs_text, ev.seq, refs_text, leaves, keys, sent, ord_,
                     ord_ if self.file_order else None, src))
        self._ord = ord_ + 1
        self.rows += 1
        size = self._bytes[part] + len(args_text) + len(result_text) + len(attrs_text)
        self._bytes[part] = size
        if len(rows) >= self.rows_per_file or size >= self.bytes_per_file:
            self._flush(part)

    def _field(self, trace_id: str, value: Any) -> tuple[Any, str]:
        """A JSON field, redacted when there is a redactor, and its text."""
        if self.redactor is not None:
            value = self._redact(trace_id, value)
        return value, _text(value)

    def _redact(self, trace_id: str, value: Any) -> Any:
        """``value`` redacted, counting replacements into its trace's ``hits``."""
        red = self.redactor
        assert red is not None
        hits = self.hits.get(trace_id)
        if hits is None:
            hits = self.hits[trace_id] = Counter()
        red.hits = hits
        return red.value(value)

    def flush(self) -> None:
        for part in range(self.partitions):
            self._flush(part)

    def _flush(self, part: int) -> None:
        rows = self._parts[part]
        if not rows:
            return
        table = pa.Table.from_arrays([pa.array(col, f.type) for col, f in
                                      zip(zip(*rows, strict=True), STAGED, strict=True)],
                                     schema=STAGED)
        path = self.scratch.write(f"p{part:03d}-{len(self.files[part]):05d}.parquet", table,
                                  compression="lz4", use_dictionary=_REPEATING)
        self.files[part].append(path)
        self._parts[part] = []
        self._bytes[part] = 0
