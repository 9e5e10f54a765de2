"""Ingest: read the formats agents and HTTP clients write into the store."""

from ._direct import read_trace
from ._jsonl import HEADER as JSONL_HEADER
from ._jsonl import export_trace, write_jsonl
from ._pipeline import IngestProgress, IngestResult, TraceSummary, ingest, open_source
from ._registry import ADAPTERS, adapter_for, detect, format_names
from ._source import Adapter, RawEvent, SourceFile, TraceInfo

__all__ = [
    "ADAPTERS",
    "JSONL_HEADER",
    "Adapter",
    "IngestProgress",
    "IngestResult",
    "RawEvent",
    "SourceFile",
    "TraceInfo",
    "TraceSummary",
    "adapter_for",
    "detect",
    "export_trace",
    "format_names",
    "ingest",
    "open_source",
    "read_trace",
    "write_jsonl",
]
