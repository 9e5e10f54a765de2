"""Storage: Parquet batches and DuckDB views. The only layer that touches the store."""

from ._store import DEFAULT_STORE, Batch, Commit, Store, resolve_store_path

__all__ = ["DEFAULT_STORE", "Batch", "Commit", "Store", "resolve_store_path"]
