"""Every source format, registered in one place, and detection from the content."""

from __future__ import annotations

from ..model import EmptyInputError, UnrecognizedFormatError, UsageError
from ._anthropic import ANTHROPIC
from ._claudecode import CLAUDE_CODE
from ._har import HAR
from ._inspect import INSPECT
from ._jsonl import JSONL
from ._langfuse import LANGFUSE
from ._mcp import MCP
from ._openai import OPENAI
from ._openhands import OPENHANDS
from ._otlp import OTLP
from ._pact import PACT
from ._source import Adapter, SourceFile
from ._spanjson import SPAN_JSON
from ._sweagent import SWE_AGENT
from ._taubench import TAU_BENCH
from ._vcr import VCR

__all__ = ["ADAPTERS", "adapter_for", "detect", "format_names"]

#: in order of precedence when two adapters are equally sure
ADAPTERS: tuple[Adapter, ...] = (JSONL, OTLP, SPAN_JSON, LANGFUSE, INSPECT, TAU_BENCH,
                                   SWE_AGENT, OPENHANDS, CLAUDE_CODE, HAR, VCR, PACT, MCP,
                                   ANTHROPIC, OPENAI)


def format_names() -> list[str]:
    return ["auto", *(a.name for a in ADAPTERS)]


def adapter_for(name: str) -> Adapter:
    for a in ADAPTERS:
        if a.name == name:
            return a
    raise UsageError(f"unknown format {name!r}", code="UNKNOWN_FORMAT_NAME",
                     hint="formats: " + ", ".join(format_names()))


def detect(source: SourceFile) -> Adapter:
    """The adapter most sure it can read the file; an error when none is."""
    if not source.head.strip():
        raise EmptyInputError(f"{source.display} is empty", file=source.display)
    best: tuple[int, Adapter] | None = None
    for a in ADAPTERS:
        score = a.sniff(source)
        if score > 0 and (best is None or score > best[0]):
            best = (score, a)
    if best is None:
        raise UnrecognizedFormatError(
            f"{source.display}: no known trace format recognises this file",
            file=source.display,
            hint="name the format with --format (" + ", ".join(format_names()[1:]) + ")")
    return best[1]
