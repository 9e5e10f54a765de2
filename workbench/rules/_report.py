"""Findings in the formats CI systems show natively: SARIF 2.1.0 and JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._check import CheckResult
from ._findings import Finding

__all__ = ["SARIF_LEVEL", "ReportRule", "junit", "junit_findings", "sarif", "sarif_findings",
           "sarif_log"]

_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: a severity as SARIF's level (``info`` is SARIF's ``note``)
SARIF_LEVEL = {"error": "error", "warn": "warning", "info": "note"}
_LEVEL = SARIF_LEVEL


def sarif_log(*, rules: list[dict[str, Any]], results: list[dict[str, Any]],
              automation_id: str, properties: dict[str, Any],
              version: str = "0.1.0") -> dict[str, Any]:
    """The one SARIF 2.1.0 log every workbench report is: one run of the workbench's
    driver with its reporting descriptors (``rules``) and ``results``."""
    return {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "trace-workbench", "version": version,
                                "rules": rules}},
            "automationDetails": {"id": automation_id},
            "results": results,
            "properties": properties,
        }],
    }


@dataclass(frozen=True)
class ReportRule:
    """What a report says of one rule: its id, what it means, its severity, its kind
    (a rule's body, or ``contract``) and, when known, its line in ``source``."""

    id: str
    description: str
    severity: str
    kind: str
    line: int | None = None


def _report_rules(result: CheckResult) -> list[ReportRule]:
    return [ReportRule(r.id, r.description or r.id, r.severity, r.kind, r.line)
            for r in result.rules]


def sarif(result: CheckResult, version: str = "0.1.0") -> dict[str, Any]:
    """One SARIF run for ``check``: a reporting descriptor per rule, a result per finding
    (see ``sarif_findings``)."""
    return sarif_findings(_report_rules(result), result.findings, source=result.rules.source,
                          automation_id=f"workbench-check/{result.run_id}",
                          properties={"engine": result.engine,
                                      "traces_checked": result.traces_checked},
                          version=version)


def sarif_findings(rules: Sequence[ReportRule], findings: Sequence[Finding], *,
                   automation_id: str, properties: dict[str, Any], source: str | None = None,
                   version: str = "0.1.0") -> dict[str, Any]:
    """Findings as one SARIF run. A finding is located logically (trace / step /
    operation); when the rules' file is known, its rule's line is the physical location,
    so CI annotates the rule."""
    index = {r.id: i for i, r in enumerate(rules)}
    descriptors = [{
        "id": r.id,
        "name": r.id,
        "shortDescription": {"text": r.description},
        "fullDescription": {"text": f"{r.kind} rule: {r.description}"},
        "defaultConfiguration": {"level": _LEVEL[r.severity]},
        "properties": {"body": r.kind},
    } for r in rules]
    results = []
    for f in findings:
        rule = rules[index[f.rule]]
        location: dict[str, Any] = {"logicalLocations": [{
            "name": f.operation,
            "fullyQualifiedName": f"{f.trace_id}/step {f.seq}/{f.operation}"
            if f.seq is not None else f"{f.trace_id}/{f.operation}",
            "kind": "function"}]}
        if source:
            location["physicalLocation"] = {
                "artifactLocation": {"uri": source},
                **({"region": {"startLine": rule.line}} if rule.line else {})}
        results.append({
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _LEVEL[f.severity],
            "message": {"text": f.message},
            "locations": [location],
            "partialFingerprints": {"workbenchSignature/v1": f.signature},
            "properties": {"trace_id": f.trace_id, "event_ids": list(f.event_ids),
                           "seq": f.seq, "expected": f.expected, "actual": f.actual},
        })
    return sarif_log(rules=descriptors, results=results, automation_id=automation_id,
                     properties=properties, version=version)


def junit(result: CheckResult) -> bytes:
    """JUnit XML for ``check`` (see ``junit_findings``)."""
    return junit_findings(_report_rules(result), result.findings, result.traces_checked)


def junit_findings(rules: Sequence[ReportRule], findings: Sequence[Finding],
                   traces_checked: int, name: str = "workbench check") -> bytes:
    """A test suite per rule, a test case per rule and trace; findings are failures
    (``error`` rules) or skipped notes (``warn`` rules, which do not fail the build)."""
    by_rule: dict[str, dict[str, list[Any]]] = {r.id: {} for r in rules}
    for f in findings:
        by_rule[f.rule].setdefault(f.trace_id, []).append(f)
    suites = ET.Element("testsuites", name=name, tests="0", failures="0")
    total = failures = 0
    for rule in rules:
        cases = by_rule[rule.id]
        suite = ET.SubElement(suites, "testsuite", name=rule.id)
        passed = traces_checked - len(cases)
        n = len(cases) + (1 if passed > 0 else 0)
        fails = len(cases) if rule.severity == "error" else 0
        suite.set("tests", str(n))
        suite.set("failures", str(fails))
        for tid, found in sorted(cases.items()):
            case = ET.SubElement(suite, "testcase", classname=rule.id, name=tid)
            text = "\n".join(f.message for f in found)
            tag = "failure" if rule.severity == "error" else "skipped"
            el = ET.SubElement(case, tag, message=found[0].message, type=rule.kind)
            el.text = text
        if passed > 0:
            ET.SubElement(suite, "testcase", classname=rule.id,
                          name=f"{passed} other trace(s) satisfy {rule.id}")
        total += n
        failures += fails
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data
