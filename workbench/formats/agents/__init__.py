"""Agent trajectories and sessions: Claude Code, Inspect, SWE-agent, OpenHands, tau-bench."""

from ._claude_code import CLAUDE_CODE
from ._inspect import INSPECT
from ._openhands import OPENHANDS
from ._swe_agent import SWE_AGENT
from ._tau_bench import TAU_BENCH

__all__ = ["CLAUDE_CODE", "INSPECT", "OPENHANDS", "SWE_AGENT", "TAU_BENCH"]
