"""Formats: the readers and writers of every source format, one package per family.

Each family's ``__init__`` exports its adapters (what ``--format`` names): ``otel``
(OTLP JSON and protobuf, SDK span JSON, Langfuse, and the OTLP writer), ``chat`` (Anthropic and
OpenAI bodies, message lists, streams), ``agents`` (Claude Code, Inspect, SWE-agent,
OpenHands, tau-bench), ``mcp``, ``http`` (HAR, VCR, Pact, server-sent events) and
``jsonl`` (our own format, reader and writer side by side). An adapter reads a
``SourceFile`` and yields ``RawEvent`` and ``TraceInfo`` (``_adapter``, which also holds
the one guard against odd values, ``malformed``); the ingest pipeline does the rest.
Formats depend on ``workbench.model`` only.
"""

from ._adapter import (
    ODD_VALUE_ERRORS,
    Adapter,
    RawEvent,
    SourceFile,
    TraceInfo,
    open_source,
    unrecognised,
)
from ._decode import loads_exact, split_lines
from .agents import CLAUDE_CODE, INSPECT, OPENHANDS, SWE_AGENT, TAU_BENCH
from .chat import ANTHROPIC, OPENAI
from .http import HAR, PACT, VCR
from .jsonl import JSONL, JSONL_HEADER, write_jsonl
from .mcp import MCP
from .otel import (
    LANGFUSE,
    OTEL_JSON,
    OTLP,
    OTLP_PROTO,
    ProtoUnavailableError,
    decode_traces,
    gunzip,
    otlp_rows,
    span_trace_ids,
)

__all__ = [
    "ANTHROPIC",
    "CLAUDE_CODE",
    "HAR",
    "INSPECT",
    "JSONL",
    "JSONL_HEADER",
    "LANGFUSE",
    "MCP",
    "ODD_VALUE_ERRORS",
    "OPENAI",
    "OPENHANDS",
    "OTEL_JSON",
    "OTLP",
    "OTLP_PROTO",
    "PACT",
    "SWE_AGENT",
    "TAU_BENCH",
    "VCR",
    "Adapter",
    "ProtoUnavailableError",
    "RawEvent",
    "SourceFile",
    "TraceInfo",
    "decode_traces",
    "gunzip",
    "loads_exact",
    "open_source",
    "otlp_rows",
    "span_trace_ids",
    "split_lines",
    "unrecognised",
    "write_jsonl",
]
