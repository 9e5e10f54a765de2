"""Codex CLI: session rollouts (``_rollout``, their Responses API items in ``_items``)
and the events ``codex exec --json`` prints (``_exec``), both read line by line through
``_lines``."""

from ._exec import CODEX_EXEC
from ._rollout import CODEX

__all__ = ["CODEX", "CODEX_EXEC"]
