"""Agent trajectories and sessions: Claude Code, Codex CLI (rollouts and ``exec --json``),
Gemini CLI, Inspect, SWE-agent, OpenHands, tau-bench."""

from ._claude_code import CLAUDE_CODE
from ._codex import CODEX
from ._codex_exec import CODEX_EXEC
from ._gemini_cli import GEMINI_CLI
from ._inspect import INSPECT
from ._openhands import OPENHANDS
from ._swe_agent import SWE_AGENT
from ._tau_bench import TAU_BENCH

__all__ = ["CLAUDE_CODE", "CODEX", "CODEX_EXEC", "GEMINI_CLI", "INSPECT", "OPENHANDS",
           "SWE_AGENT", "TAU_BENCH"]
