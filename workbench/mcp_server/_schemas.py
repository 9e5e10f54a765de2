"""The JSON Schema pieces the tools' input and output schemas are built from.

Output schemas name the keys an agent may rely on (the same keys the CLI's ``--json``
documents promise) and leave objects open: a key added later is no break.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CHECK_DOC", "FINDING", "GROUP", "ID", "LIMIT", "OFFSET", "PATH", "RATES_DOC",
           "REPRODUCTION", "STEP", "TEXT", "TRACE_IDS", "nullable", "obj"]


def obj(properties: dict[str, Any], required: tuple[str, ...] = (), *,
        closed: bool = False) -> dict[str, Any]:
    """An object schema; ``closed`` (for arguments) refuses keys it does not name."""
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    if closed:
        out["additionalProperties"] = False
    return out


def nullable(type_: str) -> dict[str, Any]:
    return {"type": [type_, "null"]}


_STR = {"type": "string"}
#: a string argument: no control character (CR, LF, NUL, ESC …), as the CLI's options
TEXT = {"type": "string", "not": {"pattern": "[\\x00-\\x1f\\x7f-\\x9f]"}}
ID = {**TEXT, "minLength": 1, "maxLength": 200}
PATH = {**TEXT, "minLength": 1, "maxLength": 4096,
        "description": "a path relative to the server's working directory (absolute paths "
                       "and paths leaving it are refused: REF_OUTSIDE)"}
LIMIT = {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100,
         "description": "at most this many rows (default 100)"}
OFFSET = {"type": "integer", "minimum": 0, "maximum": 1_000_000_000, "default": 0,
          "description": "skip this many rows first (the next page: offset + limit)"}
TRACE_IDS = {"type": "array", "items": ID, "maxItems": 1000,
             "description": "only these traces (ids or unique prefixes; default: all)"}

#: a finding as ``check --json`` gives it
FINDING = obj({
    "rule": _STR, "severity": {"enum": ["error", "warn"]}, "trace_id": _STR,
    "event_ids": {"type": "array", "items": _STR}, "seq": nullable("integer"),
    "operation": _STR, "message": _STR, "signature": _STR,
    "expected": {"type": "object"}, "actual": {"type": "object"},
}, ("rule", "severity", "trace_id", "event_ids", "seq", "operation", "message",
    "signature", "expected", "actual"))

#: a row of the ``finding_groups`` view, whatever columns it has
GROUP = obj({"signature": _STR, "rule": _STR, "count": {"type": "integer"},
             "status": _STR}, ("signature", "rule", "count"))

#: one step of a finding as ``show_finding`` gives it
STEP = obj({
    "seq": {"type": "integer"}, "event_id": _STR, "kind": _STR, "name": _STR,
    "status": _STR, "role": {"enum": ["offender", "witness", "leads_to"]},
    "args": {}, "result": {}, "error": {}, "from": {"type": "array", "items": _STR},
    "text": _STR,
}, ("seq", "event_id", "kind", "name", "status", "role", "text"))

#: the ``check --json`` document
CHECK_DOC = obj({
    "findings": {"type": "array", "items": FINDING}, "traces_checked": {"type": "integer"},
    "rules": {"type": "array", "items": _STR}, "run_id": _STR,
    "errors": {"type": "integer"}, "warnings": {"type": "integer"},
    "seconds": {"type": "number"},
}, ("findings", "traces_checked", "rules", "errors", "warnings"))

_NUM = {"type": "number"}
_COUNT = {"type": "integer"}
_VERDICT = {"enum": ["PASS", "FAIL", "INCONCLUSIVE", "REGRESSED", "IMPROVED", "NO CHANGE"]}
#: a rate as ``check --json`` gives it (``rates.groups[]``, ``base``, ``candidate``)
_RATE = obj({"violations": _COUNT, "runs": _COUNT, "rate": nullable("number"), "low": _NUM,
             "high": _NUM, "confidence": _NUM, "interval": _STR, "max_rate": _NUM,
             "verdict": _VERDICT},
            ("violations", "runs", "rate", "low", "high", "confidence", "interval",
             "verdict"))

#: the ``rates`` object of ``check --by/--compare --json`` (docs/statistics.md)
RATES_DOC = obj({
    "by": nullable("string"), "compare": nullable("string"), "max_rate": _NUM,
    "unlabelled": _COUNT,
    "groups": {"type": "array", "items": obj({
        "rule": _STR, "severity": {"enum": ["error", "warn"]}, "scenario": _STR,
        "build": _STR, "violations": _COUNT, "runs": _COUNT, "rate": nullable("number"),
        "low": _NUM, "high": _NUM, "base": _RATE, "candidate": _RATE,
        "difference": nullable("number"), "difference_low": _NUM, "difference_high": _NUM,
        "p_value": nullable("number"), "verdict": _VERDICT}, ("rule", "scenario",
                                                             "verdict"))},
}, ("by", "compare", "max_rate", "unlabelled", "groups"))

#: a replay's reproduction rate (``replay --json``'s ``reproduction``)
REPRODUCTION = {"type": ["object", "null"], "properties": {
    "reproduced": _COUNT, "observed": _COUNT, "rate": _NUM, "low": _NUM, "high": _NUM,
    "confidence": _NUM, "interval": _STR},
    "description": "the reproduction rate over the attempts that observed a result, "
                   "with its 95% Clopper-Pearson interval; null when none did"}
