"""Rules: partial-order assertions over traces, two engines, and findings."""

from ._check import ENGINES, CheckResult, check
from ._engine import Engine, Violation
from ._findings import Finding, blank, finding_json, shape, signature
from ._load import load_rules, parse_rules
from ._model import Cond, Selector, Where
from ._parse import RulesError, sel, tool
from ._python import PythonEngine, check_trace
from ._rates import (
    BY_COLUMNS,
    RateGroup,
    compare_builds,
    junit_rates,
    rate_report,
    rates_by,
    sarif_rates,
)
from ._report import (
    SARIF_LEVEL,
    ReportRule,
    junit,
    junit_findings,
    sarif,
    sarif_findings,
    sarif_log,
)
from ._rule import BodyPaths, Rule, RuleBody, RuleSet
from ._schemaref import has_ref_loop
from ._spark import SPARK_INSTALL_HINT, SparkEngine, SparkError, java_available
from ._sql import DuckDBEngine
from .bodies import BODIES, Absent, Before, Count, Every, Exists, Flow, Never, Order

__all__ = [
    "BODIES",
    "BY_COLUMNS",
    "ENGINES",
    "SARIF_LEVEL",
    "SPARK_INSTALL_HINT",
    "Absent",
    "Before",
    "BodyPaths",
    "CheckResult",
    "Cond",
    "Count",
    "DuckDBEngine",
    "Engine",
    "Every",
    "Exists",
    "Finding",
    "Flow",
    "Never",
    "Order",
    "PythonEngine",
    "RateGroup",
    "ReportRule",
    "Rule",
    "RuleBody",
    "RuleSet",
    "RulesError",
    "Selector",
    "SparkEngine",
    "SparkError",
    "Violation",
    "Where",
    "blank",
    "check",
    "check_trace",
    "compare_builds",
    "finding_json",
    "has_ref_loop",
    "java_available",
    "junit",
    "junit_findings",
    "junit_rates",
    "load_rules",
    "parse_rules",
    "rate_report",
    "rates_by",
    "sarif",
    "sarif_findings",
    "sarif_log",
    "sarif_rates",
    "sel",
    "shape",
    "signature",
    "tool",
]
