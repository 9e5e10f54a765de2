"""Ingest: the pipeline that reads source files into the store.

Registry and detection (``_registry``: which ``workbench.formats`` adapter reads a file),
redaction and columnar staging (``_stage``), finalizing (``_finalize``: order, steps,
data flow, flags), worker processes (``_workers``), the commit, and ``read_trace``
(the same pipeline into a throwaway store). The formats themselves live in
``workbench.formats``.
"""

from ._labels import BUILD_ATTRIBUTE, SCENARIO_ATTRIBUTE, Labels, check_label
from ._pipeline import IngestProgress, IngestResult, TraceSummary, check_env, ingest
from ._read_trace import read_trace
from ._registry import ADAPTERS, adapter_for, detect, format_names
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
    "warm_up",
]
