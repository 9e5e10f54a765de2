"""Every source format, registered in one place, and detection from the content."""

from __future__ import annotations

from ..formats import (
    ANTHROPIC,
    ANY_AGENT,
    ATIF,
    CLAUDE_CODE,
    CODEX,
    CODEX_EXEC,
    GEMINI_CLI,
    HAR,
    INSPECT,
    JSONL,
    LANGFUSE,
    MCP,
    MINI_SWE_AGENT,
    OPENAI,
    OPENHANDS,
    OTEL_JSON,
    OTLP,
    OTLP_PROTO,
    PACT,
    PHOENIX,
    SWE_AGENT,
    TAU_BENCH,
    VCR,
    Adapter,
    SourceFile,
    unrecognised,
)
from ..model import EmptyInputError, LimitExceededError, UnrecognizedFormatError, UsageError

__all__ = ["ADAPTERS", "adapter_for", "detect", "format_names"]

#: in order of precedence when two adapters are equally sure
ADAPTERS: tuple[Adapter, ...] = (JSONL, OTLP, OTEL_JSON, PHOENIX, ANY_AGENT, LANGFUSE,
                                   INSPECT, TAU_BENCH, SWE_AGENT, MINI_SWE_AGENT, ATIF, OPENHANDS,
                                   CLAUDE_CODE, CODEX, CODEX_EXEC, GEMINI_CLI, HAR, VCR, PACT, MCP,
                                   ANTHROPIC, OPENAI, OTLP_PROTO)


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
        try:
            score = a.sniff(source)
        except LimitExceededError as exc:  # the head alone breaks a limit: refused
            raise exc.at(source.display) from None
        if score > 0 and (best is None or score > best[0]):
            best = (score, a)
    if best is None:
        why = unrecognised(source)
        if why is not None:
            raise why
        raise UnrecognizedFormatError(
            f"{source.display}: no known trace format recognises this file",
            file=source.display,
            hint="name the format with --format (" + ", ".join(format_names()[1:]) + ")")
    return best[1]
