"""Formats: the readers and writers of every source format, one package per family.

Each family's ``__init__`` exports its adapters (what ``--format`` names): ``otel``
(OTLP JSON and protobuf, SDK span JSON, Phoenix, any-agent, Langfuse, and the OTLP
writer), ``chat`` (Anthropic and OpenAI bodies, message lists, streams), ``agents``
(Claude Code, Codex CLI, Gemini CLI, Inspect, SWE-agent, mini-swe-agent, OpenHands,
tau-bench, ATIF and its writer), ``mcp``, ``http`` (HAR, VCR, Pact, server-sent events)
and ``jsonl`` (our own format, reader and writer side by side). An adapter reads a
``SourceFile`` and yields ``RawEvent`` and ``TraceInfo`` (``_adapter``, which also holds
the one guard against odd values, ``malformed``); the ingest pipeline does the rest.
Formats depend on ``workbench.model`` only.

A family is imported on first use of one of its names (``workbench.formats.OTLP``
imports ``otel`` and no other family); what every reader shares (``_adapter``,
``_decode``, ``_tooldefs``) is imported with the package.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

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
from ._tooldefs import TOOL_DEFINITION_HINT, tool_definition, tool_definition_error

if _typing.TYPE_CHECKING:
    from .agents import (
        ATIF,
        ATIF_VERSION,
        CLAUDE_CODE,
        CODEX,
        CODEX_EXEC,
        GEMINI_CLI,
        INSPECT,
        MINI_SWE_AGENT,
        OPENHANDS,
        SWE_AGENT,
        TAU_BENCH,
        atif_rows,
    )
    from .chat import ANTHROPIC, OPENAI
    from .http import HAR, PACT, VCR
    from .jsonl import JSONL, JSONL_HEADER, write_jsonl
    from .mcp import MCP
    from .otel import (
        ANY_AGENT,
        LANGFUSE,
        OTEL_JSON,
        OTLP,
        OTLP_PROTO,
        PHOENIX,
        ProtoUnavailableError,
        decode_traces,
        gunzip,
        otlp_rows,
        span_trace_ids,
    )

__all__ = [
    "ANTHROPIC",
    "ANY_AGENT",
    "ATIF",
    "ATIF_VERSION",
    "CLAUDE_CODE",
    "CODEX",
    "CODEX_EXEC",
    "GEMINI_CLI",
    "HAR",
    "INSPECT",
    "JSONL",
    "JSONL_HEADER",
    "LANGFUSE",
    "MCP",
    "MINI_SWE_AGENT",
    "ODD_VALUE_ERRORS",
    "OPENAI",
    "OPENHANDS",
    "OTEL_JSON",
    "OTLP",
    "OTLP_PROTO",
    "PACT",
    "PHOENIX",
    "SWE_AGENT",
    "TAU_BENCH",
    "TOOL_DEFINITION_HINT",
    "VCR",
    "Adapter",
    "ProtoUnavailableError",
    "RawEvent",
    "SourceFile",
    "TraceInfo",
    "atif_rows",
    "decode_traces",
    "gunzip",
    "loads_exact",
    "open_source",
    "otlp_rows",
    "span_trace_ids",
    "split_lines",
    "tool_definition",
    "tool_definition_error",
    "unrecognised",
    "write_jsonl",
]

#: the family package of each name a family exports: a family is imported on first use of
#: one of its names, so that reading one format does not load every reader
_FAMILIES = {
    **dict.fromkeys(("ATIF", "ATIF_VERSION", "CLAUDE_CODE", "CODEX", "CODEX_EXEC", "GEMINI_CLI",
                     "INSPECT", "MINI_SWE_AGENT", "OPENHANDS", "SWE_AGENT", "TAU_BENCH",
                     "atif_rows"), "agents"),
    **dict.fromkeys(("ANTHROPIC", "OPENAI"), "chat"),
    **dict.fromkeys(("HAR", "PACT", "VCR"), "http"),
    **dict.fromkeys(("JSONL", "JSONL_HEADER", "write_jsonl"), "jsonl"),
    "MCP": "mcp",
    **dict.fromkeys(("ANY_AGENT", "LANGFUSE", "OTEL_JSON", "OTLP", "OTLP_PROTO", "PHOENIX",
                     "ProtoUnavailableError", "decode_traces", "gunzip", "otlp_rows",
                     "span_trace_ids"), "otel"),
}


def __getattr__(name: str) -> _typing.Any:
    family = _FAMILIES.get(name)
    if family is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{family}", __name__), name)
    globals()[name] = value
    return value
