"""Ingest: the pipeline that reads source files into the store.

Registry and detection (``_registry``: which ``workbench.formats`` adapter reads a file),
redaction and columnar staging (``_stage``), finalizing (``_finalize``: order, steps,
data flow, flags), worker processes (``_workers``), the commit, and ``read_trace``
(the same pipeline into a throwaway store). The formats themselves live in
``workbench.formats``.

The pipeline (and with it redaction, the detectors and DuckDB's finalize) is imported
on first use of one of its names, so that what needs only the registry (``workbench
ingest --help``, the formats' names) does not load it.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from ._labels import BUILD_ATTRIBUTE, SCENARIO_ATTRIBUTE, Labels, check_label
from ._registry import ADAPTERS, adapter_for, detect, format_names
from ._workers import start_workers

if _typing.TYPE_CHECKING:
    from ._pipeline import IngestProgress, IngestResult, TraceSummary, check_env, ingest
    from ._read_trace import read_trace
    from ._stage import warm_up

__all__ = [
    "ADAPTERS",
    "BUILD_ATTRIBUTE",
    "SCENARIO_ATTRIBUTE",
    "IngestProgress",
    "IngestResult",
    "Labels",
    "TraceSummary",
    "adapter_for",
    "check_env",
    "check_label",
    "detect",
    "format_names",
    "ingest",
    "read_trace",
    "start_workers",
    "warm_up",
]

_LAZY = {"IngestProgress": "_pipeline", "IngestResult": "_pipeline",
         "TraceSummary": "_pipeline", "check_env": "_pipeline", "ingest": "_pipeline",
         "read_trace": "_read_trace", "warm_up": "_stage"}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
