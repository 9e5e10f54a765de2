"""Gemini CLI: session recordings (JSON and JSONL) and checkpoints (``_read``), their
messages and contents mapped by ``_map``."""

from ._read import GEMINI_CLI

__all__ = ["GEMINI_CLI"]
