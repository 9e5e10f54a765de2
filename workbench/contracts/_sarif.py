"""``contract diff --sarif``: the changes as one SARIF 2.1.0 run, in the shape ``check``
writes (a reporting descriptor per rule, a result per finding), so CI annotates the pull
request on the descriptor file that changed.

Each change kind is a rule (all of them, in ``CHANGE_KINDS`` order, so a rule's index never
moves); each change a result at its own severity (``info`` is SARIF's ``note``),
located physically on the descriptor file (the new one; the old one for a removed
tool) and logically on ``TOOL/PATH``, fingerprinted by tool, kind, path and direction.
With ``--recorded`` each result's properties carry its ``recorded`` evidence and the
run's properties the traffic judged.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..rules import SARIF_LEVEL, sarif_log
from .diff import CHANGE_KINDS, ContractDiff

__all__ = ["diff_sarif"]

_HELP = {
    "tool-removed": "a tool the agent calls is gone (a renamed tool is removed + added)",
    "tool-added": "a new tool the model may pick",
    "description-changed": "a description the model reads was rewritten",
    "field-removed": "a field is gone: ignored or refused as input, missing as output",
    "field-added": "a new field",
    "field-renamed": "a field removed and one of the same type added at its place",
    "required-added": "a field became required",
    "required-removed": "a field is no longer required",
    "type-changed": "a field's type, nullability or union members changed",
    "enum-value-added": "a new enum value",
    "enum-value-removed": "an enum value is gone",
    "default-changed": "a default (what a call that omits the field gets) changed",
    "constraint-narrowed": "a bound, pattern, format or other constraint accepts less",
    "constraint-widened": "a bound, pattern, format or other constraint accepts more",
    "additional-properties-closed": "undeclared fields are now refused",
    "side-effect-changed": "what a call can do to the world changed",
    "auth-scope-changed": "the scopes a call needs changed",
    "idempotency-changed": "where the idempotency key goes, or whether it is required",
    "timeout-changed": "the tool's timeout changed",
    "error-code-added": "a new error code, or a code newly retryable",
    "error-code-removed": "an error code gone, or no longer retryable",
    "deprecated": "the tool or a field was deprecated (or no longer is)",
}


def _fingerprint(tool: str, kind: str, path: str, direction: str) -> str:
    return hashlib.sha256(f"{tool}\x1f{kind}\x1f{path}\x1f{direction}".encode()).hexdigest()[:32]


def diff_sarif(result: ContractDiff, version: str = "0.1.0") -> dict[str, Any]:
    """One SARIF run for a contract diff."""
    index = {k: i for i, k in enumerate(CHANGE_KINDS)}
    rules = [{"id": k, "name": k, "shortDescription": {"text": _HELP[k]},
              "fullDescription": {"text": f"contract change {k}: {_HELP[k]} "
                                  "(docs/contracts.md, Diff)"},
              "defaultConfiguration": {"level": "warning"}} for k in CHANGE_KINDS]
    results = []
    for c in result.changes:
        props: dict[str, Any] = {
            "tool": c.tool, "path": c.path, "direction": c.direction, "severity": c.severity,
            "consumers": list(c.consumers), "reason": c.reason, "old": c.old, "new": c.new,
            "role": c.role, "side_effect": c.side_effect}
        if c.cues is not None:
            props["cues"] = c.cues
        if c.recorded is not None:
            props["recorded"] = c.recorded
        file = (result.old_files if c.kind == "tool-removed" else result.new_files).get(c.tool)
        location: dict[str, Any] = {"logicalLocations": [{
            "name": c.tool, "fullyQualifiedName": f"{c.tool}/{c.path}", "kind": "function"}]}
        if file:
            location["physicalLocation"] = {"artifactLocation": {"uri": file}}
        results.append({
            "ruleId": c.kind, "ruleIndex": index[c.kind], "level": SARIF_LEVEL[c.severity],
            "message": {"text": c.message}, "locations": [location],
            "partialFingerprints": {
                "workbenchContractChange/v1": _fingerprint(c.tool, c.kind, c.path,
                                                            c.direction)},
            "properties": props,
        })
    return sarif_log(rules=rules, results=results, automation_id="workbench-contract-diff/",
                     properties={"tools_old": result.tools_old, "tools_new": result.tools_new,
                                 "breaking": result.breaking,
                                 "consumers": list(result.consumers),
                                 **({"recorded": result.recorded}
                                    if result.recorded is not None else {})},
                     version=version)
