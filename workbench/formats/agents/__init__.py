"""Agent trajectories and sessions: Claude Code, Codex CLI (rollouts and ``exec --json``),
Gemini CLI, Inspect, SWE-agent, mini-swe-agent, OpenHands, tau-bench, ATIF (read, and
written by ``atif_rows``)."""

from ._atif import ATIF
from ._atif_write import ATIF_VERSION, atif_rows
from ._claude_code import CLAUDE_CODE
from ._codex import CODEX
from ._codex_exec import CODEX_EXEC
from ._gemini_cli import GEMINI_CLI
from ._inspect import INSPECT
from ._mini_swe_agent import MINI_SWE_AGENT
from ._openhands import OPENHANDS
from ._swe_agent import SWE_AGENT
from ._tau_bench import TAU_BENCH

__all__ = ["ATIF", "ATIF_VERSION", "CLAUDE_CODE", "CODEX", "CODEX_EXEC", "GEMINI_CLI",
           "INSPECT", "MINI_SWE_AGENT", "OPENHANDS", "SWE_AGENT", "TAU_BENCH", "atif_rows"]
