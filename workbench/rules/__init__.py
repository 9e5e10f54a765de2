"""Rules: partial-order assertions over traces, two engines, and findings."""

from ._check import ENGINES, CheckResult, check
from ._findings import Finding, blank, shape, signature
from ._load import RulesError, load_rules, parse_rules
from ._model import (
    Absent,
    Before,
    Cond,
    Count,
    Every,
    Exists,
    Flow,
    Never,
    Order,
    Rule,
    RuleSet,
    Selector,
    Where,
    sel,
    tool,
)
from ._python import check_trace
from ._report import junit, sarif

__all__ = [
    "ENGINES",
    "Absent",
    "Before",
    "CheckResult",
    "Cond",
    "Count",
    "Every",
    "Exists",
    "Finding",
    "Flow",
    "Never",
    "Order",
    "Rule",
    "RuleSet",
    "RulesError",
    "Selector",
    "Where",
    "blank",
    "check",
    "check_trace",
    "junit",
    "load_rules",
    "parse_rules",
    "sarif",
    "sel",
    "shape",
    "signature",
    "tool",
]
