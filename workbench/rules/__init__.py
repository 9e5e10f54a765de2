"""Rules: partial-order assertions over traces, two engines, and findings."""

from ._findings import Finding, blank, shape, signature
from ._load import load_rules, parse_rules
from ._model import Cond, Selector, Where
from ._parse import RulesError, sel, tool
from ._python import check_trace
from ._rule import BodyPaths, Rule, RuleBody, RuleSet
from .bodies import BODIES, Absent, Before, Count, Every, Exists, Flow, Never, Order

__all__ = [
    "BODIES",
    "Absent",
    "Before",
    "BodyPaths",
    "Cond",
    "Count",
    "Every",
    "Exists",
    "Finding",
    "Flow",
    "Never",
    "Order",
    "Rule",
    "RuleBody",
    "RuleSet",
    "RulesError",
    "Selector",
    "Where",
    "blank",
    "check_trace",
    "load_rules",
    "parse_rules",
    "sel",
    "shape",
    "signature",
    "tool",
]
