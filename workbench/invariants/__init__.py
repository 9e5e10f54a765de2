"""Contract invariants: eight rules any service with an OpenAPI contract can be held to,
judged on recorded HTTP traffic (``check_invariants``) or on traffic a probe generates
(``probe``). See docs/invariants.md."""

from ._check import (
    InvariantCheck,
    check_invariants,
    judge_trace,
    record_findings,
    report_rules,
)
from ._errors import NoHTTPEventsError, OpenAPIError, ProbeRefusedError, UnknownInvariantError
from ._http import Exchange, exchange_of, exchanges_of, har_entry, store_exchanges
from ._judge import INVARIANTS, Judged, judge, pick_invariants
from ._minimize import InvariantOracle, minimize_invariant, pick_invariant_finding
from ._openapi import Operation, Paging, Param, Spec, load_spec, parse_spec
from ._probe import Probe, check_target, probe
from ._redraw import DRAWS_ATTR, Redraw

__all__ = [
    "DRAWS_ATTR",
    "INVARIANTS",
    "Exchange",
    "InvariantCheck",
    "InvariantOracle",
    "Judged",
    "NoHTTPEventsError",
    "OpenAPIError",
    "Operation",
    "Paging",
    "Param",
    "Probe",
    "ProbeRefusedError",
    "Redraw",
    "Spec",
    "UnknownInvariantError",
    "check_invariants",
    "check_target",
    "exchange_of",
    "exchanges_of",
    "har_entry",
    "judge",
    "judge_trace",
    "load_spec",
    "minimize_invariant",
    "parse_spec",
    "pick_invariant_finding",
    "pick_invariants",
    "probe",
    "record_findings",
    "report_rules",
    "store_exchanges",
]
