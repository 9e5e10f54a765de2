"""Two sets of tools compared as an agent meets them (``diff_tools``, ``diff_contracts``):
per-schema changes (``schema_changes``), the severity policy (``CHANGE_KINDS``,
``SEVERITIES``) and the wording of each change."""

from ._diff import (
    Change,
    ContractDiff,
    diff_contracts,
    diff_tools,
)
from ._policy import (
    CHANGE_KINDS,
    SEVERITIES,
)
from ._recorded import (
    SINKS,
    judge_recorded,
)
from ._schema import (
    SchemaChange,
    schema_changes,
)

__all__ = [
    "CHANGE_KINDS",
    "SEVERITIES",
    "SINKS",
    "Change",
    "ContractDiff",
    "SchemaChange",
    "diff_contracts",
    "diff_tools",
    "judge_recorded",
    "schema_changes",
]
