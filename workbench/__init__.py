"""Trace Workbench: forensics on AI-agent tool traces.

Ingest traces into a Parquet store queried with DuckDB, then judge, redact, minimize,
diff and promote them into regression fixtures. ``workbench.model`` is the event model,
``workbench.store`` the store and ``workbench.ingest`` the readers.
"""

from typing import TYPE_CHECKING, Any

from .model import Event, Ref, Trace, WorkbenchError, parse_path

if TYPE_CHECKING:
    from .diff import diff_traces
    from .store import Store

__version__ = "0.1.0"

__all__ = ["Event", "Ref", "Store", "Trace", "WorkbenchError", "__version__", "diff_traces",
           "parse_path"]


def __getattr__(name: str) -> Any:
    # the store (DuckDB) and the services load on first use, so `import workbench` (and
    # the pytest plugin, and `workbench ingest --help`) stays light
    if name == "Store":
        from .store import Store
        return Store
    if name == "diff_traces":
        from .diff import diff_traces
        return diff_traces
    raise AttributeError(f"module 'workbench' has no attribute {name!r}")
