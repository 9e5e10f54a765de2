"""Every source format, registered in one place, and detection from the content.

The registry names each adapter and where ``workbench.formats`` exports it, so that
listing the formats (``ingest --help``) imports no reader, ``--format X`` imports the
family of X alone, and detection imports the families as it asks their adapters.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

from ..formats import Adapter, RawEvent, SourceFile, TraceInfo, unrecognised
from ..model import EmptyInputError, LimitExceededError, UnrecognizedFormatError, UsageError

__all__ = ["ADAPTERS", "adapter_for", "detect", "format_names"]

_FORMATS = importlib.import_module("..formats", __package__)  # its names load their family


class _Registered:
    """An adapter by its name and its name in ``workbench.formats``, loaded (with its
    family) on first use; it answers what the adapter answers."""

    def __init__(self, name: str, export: str) -> None:
        self.name = name
        self.export = export

    def __repr__(self) -> str:
        return f"<adapter {self.name}>"

    def load(self) -> Adapter:
        adapter: Adapter = getattr(_FORMATS, self.export)
        return adapter

    def sniff(self, source: SourceFile) -> int:
        return self.load().sniff(source)

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        return self.load().read(source)

    def __getattr__(self, name: str) -> Any:  # the optional ones: splittable, file_order
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.load(), name)


#: in order of precedence when two adapters are equally sure
ADAPTERS: tuple[_Registered, ...] = tuple(_Registered(name, export) for name, export in (
    ("jsonl", "JSONL"), ("otlp", "OTLP"), ("otel-json", "OTEL_JSON"), ("phoenix", "PHOENIX"),
    ("any-agent", "ANY_AGENT"), ("langfuse", "LANGFUSE"), ("inspect", "INSPECT"),
    ("tau-bench", "TAU_BENCH"), ("swe-agent", "SWE_AGENT"),
    ("mini-swe-agent", "MINI_SWE_AGENT"), ("atif", "ATIF"), ("openhands", "OPENHANDS"),
    ("claude-code", "CLAUDE_CODE"), ("codex", "CODEX"), ("codex-exec", "CODEX_EXEC"),
    ("gemini-cli", "GEMINI_CLI"), ("har", "HAR"), ("vcr", "VCR"), ("pact", "PACT"),
    ("mcp", "MCP"), ("anthropic", "ANTHROPIC"), ("openai", "OPENAI"),
    ("otlp-proto", "OTLP_PROTO")))


def format_names() -> list[str]:
    return ["auto", *(a.name for a in ADAPTERS)]


def adapter_for(name: str) -> Adapter:
    """The adapter ``--format name`` names (only its family is imported)."""
    for a in ADAPTERS:
        if a.name == name:
            return a.load()
    raise UsageError(f"unknown format {name!r}", code="UNKNOWN_FORMAT_NAME",
                     hint="formats: " + ", ".join(format_names()))


def detect(source: SourceFile) -> Adapter:
    """The adapter most sure it can read the file; an error when none is."""
    if not source.head.strip():
        raise EmptyInputError(f"{source.display} is empty", file=source.display)
    best: tuple[int, Adapter] | None = None
    for registered in ADAPTERS:
        a = registered.load()
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
