"""Storage: Parquet batches and DuckDB views. The only layer that touches the store;
its atomic-file helpers serve every other writer too."""

from ._batch import Batch, Scratch, TableSink, TableWriter
from ._compact import GRACE_SECONDS, SUGGEST_FILES, CompactResult, compact, suggestion
from ._files import AtomicDir, atomic_open, atomic_write, atomic_write_all
from ._journal import Journal
from ._output import OutputPath, output_path
from ._rows import to_rows
from ._store import DEFAULT_STORE, Commit, Store, resolve_store_path
from ._views import FIXED_AFTER

__all__ = ["DEFAULT_STORE", "FIXED_AFTER", "GRACE_SECONDS", "SUGGEST_FILES", "AtomicDir",
           "Batch", "Commit", "CompactResult", "Journal", "OutputPath", "Scratch", "Store",
           "TableSink", "TableWriter", "atomic_open", "atomic_write", "atomic_write_all",
           "compact", "output_path", "resolve_store_path", "suggestion", "to_rows"]
