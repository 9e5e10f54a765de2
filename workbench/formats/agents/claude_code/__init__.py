"""Claude Code: session transcripts and Agent SDK message streams (``_read``), mapped to
events by ``_map`` from what each record says (``_records``, ``_sdk``), with causal
parents from the links the lines state (``_parents``)."""

from ._read import CLAUDE_CODE

__all__ = ["CLAUDE_CODE"]
