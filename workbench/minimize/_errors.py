"""The minimizer's errors (codes are stable; see docs/cli.md)::

    WorkbenchError
    ├── NotFoundError
    │   ├── NoFindingError          NO_FINDING      the rule has no such finding in the trace
    │   └── UnknownRuleError        UNKNOWN_RULE    the rules file has no rule with that id
    ├── NotReproducedError (InputError)  NOT_REPRODUCED  the oracle passes on the whole trace
    └── OracleError (RuntimeError)  ORACLE_FAILED   the oracle command cannot run (_oracle.py)
"""

from __future__ import annotations

from ..model import InputError, NotFoundError

__all__ = ["NoFindingError", "NotReproducedError", "UnknownRuleError"]


class NoFindingError(NotFoundError):
    code = "NO_FINDING"
    default_hint = ("`workbench check RULES.yaml --trace TRACE --engine python` lists the "
                    "trace's findings; pick one with --finding N or --signature S")


class UnknownRuleError(NotFoundError):
    code = "UNKNOWN_RULE"
    default_hint = "--rule names a rule id of the rules file"


class NotReproducedError(InputError):
    code = "NOT_REPRODUCED"
    default_hint = ("the oracle must fail (exit 1) on the whole trace; run it by hand on "
                    "`workbench export TRACE --out t.jsonl` and check its exit status")
