"""tau-bench: task results with their conversation trajectories (``_read``)."""

from ._read import TAU_BENCH

__all__ = ["TAU_BENCH"]
