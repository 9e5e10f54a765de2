"""Inspect AI: evaluation logs, ``.json`` and zipped ``.eval`` (``_read``), each sample's
events mapped by ``_events``."""

from ._read import INSPECT

__all__ = ["INSPECT"]
