"""Minimize: one incident trace down to the dependency-closed steps that still break
a rule, in few oracle calls. See docs/minimize.md."""

from ._errors import NoFindingError, NotReproducedError, UnknownRuleError
from ._graph import Graph
from ._minimize import (
    MinimizeResult,
    derive_trace,
    derived_trace_id,
    finding_trace_id,
    minimize,
    minimize_trace,
    pick_finding,
    pick_rule,
)
from ._oracle import (
    CommandOracle,
    Oracle,
    OracleError,
    RuleOracle,
    command_oracle,
    rule_oracle,
)
from ._runner import VOTES, MinimizeProgress
from ._save import place_result, save_result, stored_minimization, write_result

__all__ = [
    "VOTES",
    "CommandOracle",
    "Graph",
    "MinimizeProgress",
    "MinimizeResult",
    "NoFindingError",
    "NotReproducedError",
    "Oracle",
    "OracleError",
    "RuleOracle",
    "UnknownRuleError",
    "command_oracle",
    "derive_trace",
    "derived_trace_id",
    "finding_trace_id",
    "minimize",
    "minimize_trace",
    "pick_finding",
    "pick_rule",
    "place_result",
    "rule_oracle",
    "save_result",
    "stored_minimization",
    "write_result",
]
