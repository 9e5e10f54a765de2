"""Agent trajectories and sessions, one sub-package per agent family: ``claude_code``,
``codex`` (rollouts and ``exec --json``), ``gemini_cli``, ``inspect_ai``, ``swe_agent``
(SWE-agent and mini-swe-agent), ``openhands``, ``tau_bench`` and ``atif`` (read, and
written by ``atif_rows``). ``_transcript`` is the trace one session file becomes, which
the Codex and Gemini CLI readers share."""

from .atif import ATIF, ATIF_VERSION, atif_rows
from .claude_code import CLAUDE_CODE
from .codex import CODEX, CODEX_EXEC
from .gemini_cli import GEMINI_CLI
from .inspect_ai import INSPECT
from .openhands import OPENHANDS
from .swe_agent import MINI_SWE_AGENT, SWE_AGENT
from .tau_bench import TAU_BENCH

__all__ = ["ATIF", "ATIF_VERSION", "CLAUDE_CODE", "CODEX", "CODEX_EXEC", "GEMINI_CLI",
           "INSPECT", "MINI_SWE_AGENT", "OPENHANDS", "SWE_AGENT", "TAU_BENCH", "atif_rows"]
