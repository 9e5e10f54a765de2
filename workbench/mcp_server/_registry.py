"""The tool table: every tool the server lists, in the order it lists them.

Adding a tool is writing one ``Tool`` (its function and its two schemas) in a module of
this package and naming it here; ``tools/list``, ``tools/call``, the argument checks and
the error envelope come with it (docs/mcp.md, "Adding a tool").
"""

from __future__ import annotations

from ._findings import LIST_FINDINGS, LIST_GROUPS, SHOW_FINDING
from ._replay import REPLAY
from ._run import CHECK, FIXTURE_STATUS, INGEST, INVARIANTS, MINIMIZE
from ._shadow import SHADOW_COMPARE
from ._tool import Tool

__all__ = ["TOOLS"]

TOOLS: dict[str, Tool] = {t.name: t for t in (
    LIST_FINDINGS, LIST_GROUPS, SHOW_FINDING, CHECK, INVARIANTS, MINIMIZE, REPLAY,
    FIXTURE_STATUS, INGEST, SHADOW_COMPARE)}
