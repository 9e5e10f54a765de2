"""ATIF, the Agent Trajectory Interchange Format: trajectories read (``_read``, the steps
walked by ``_steps``) and events written as one (``atif_rows``, ``_write``)."""

from ._read import ATIF
from ._write import ATIF_VERSION, atif_rows

__all__ = ["ATIF", "ATIF_VERSION", "atif_rows"]
