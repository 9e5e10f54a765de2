"""OpenHands: event streams, saved as trajectories (``_read``), each event mapped by
``_events``."""

from ._read import OPENHANDS

__all__ = ["OPENHANDS"]
