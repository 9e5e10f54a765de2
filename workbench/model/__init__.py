"""Core: the event model, paths into JSON, data flow and errors. Pure: no I/O."""

from ._errors import (
    DuplicateEventError,
    EmptyInputError,
    EncodingError,
    InputError,
    InvalidJSONError,
    InvalidTraceError,
    NotFoundError,
    PathSyntaxError,
    QueryError,
    StoreCorruptError,
    StoreError,
    TraceExistsError,
    UnrecognizedFormatError,
    UsageError,
    WorkbenchError,
)
from ._event import Event, Ref
from ._json import JSONDecodeError, dumps, dumps_bytes, loads
from ._paths import STAR, Path, format_path, parse_path
from ._refs import ARG_KINDS, COMMON_AFTER, RefSource, infer_refs, linkable
from ._schema import EVENT_COLUMNS, EVENT_KINDS, EVENTS, FLAGS_KEY, JSON_COLUMNS, STATUSES, TRACES
from ._trace import Trace

__all__ = [
    "ARG_KINDS",
    "COMMON_AFTER",
    "EVENTS",
    "EVENT_COLUMNS",
    "EVENT_KINDS",
    "FLAGS_KEY",
    "JSON_COLUMNS",
    "STAR",
    "STATUSES",
    "TRACES",
    "DuplicateEventError",
    "EmptyInputError",
    "EncodingError",
    "Event",
    "InputError",
    "InvalidJSONError",
    "InvalidTraceError",
    "JSONDecodeError",
    "NotFoundError",
    "Path",
    "PathSyntaxError",
    "QueryError",
    "Ref",
    "RefSource",
    "StoreCorruptError",
    "StoreError",
    "Trace",
    "TraceExistsError",
    "UnrecognizedFormatError",
    "UsageError",
    "WorkbenchError",
    "dumps",
    "dumps_bytes",
    "format_path",
    "infer_refs",
    "linkable",
    "loads",
    "parse_path",
]
