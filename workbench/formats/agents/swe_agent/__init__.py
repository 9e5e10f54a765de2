"""SWE-agent trajectories (``_swe_agent``, their message histories in ``_messages``) and
mini-SWE-agent trajectories (``_mini_swe_agent``)."""

from ._mini_swe_agent import MINI_SWE_AGENT
from ._swe_agent import SWE_AGENT

__all__ = ["MINI_SWE_AGENT", "SWE_AGENT"]
