"""Our own JSONL: the store's rows one event per line, the reader and the writer."""

from ._read import JSONL
from ._write import HEADER as JSONL_HEADER
from ._write import write_jsonl

__all__ = ["JSONL", "JSONL_HEADER", "write_jsonl"]
