"""``contract check``: the tool calls a store recorded, held to their descriptors (and to
what consumer contracts say a workflow reads).

Each ``tool_call`` event is matched to the descriptor of the same name. What is checked,
each a finding under a rule id of its own (``contract/…``), worded and signed like a
rule's findings and recorded in the same ``findings`` table:

- ``contract/unknown-tool``: the agent called a tool no descriptor describes;
- ``contract/input``: the arguments break the input schema (a required field missing,
  a wrong type, a property a closed model refuses, a value outside an enum …);
- ``contract/undeclared-argument``: an argument the input schema does not declare,
  under an open content model (no ``additionalProperties``). JSON Schema lets it
  through, but a tool does nothing with it: the agent believes it filtered by
  ``owner`` while the tool, which now reads ``owner_id``, filtered by nothing;
- ``contract/output``: a successful result breaks the output schema;
- ``contract/error-envelope``: a failed call's error code is not one the envelope lists;
- ``contract/idempotency-key``: a write whose descriptor requires an idempotency key
  went out without it (``arg:`` keys are looked for in the arguments; ``header:`` and
  ``query:`` keys in an HTTP request's headers or query when the arguments hold one);
- ``contract/deprecated``: a call to a deprecated tool;
- ``contract/consumer-reads``: a path a consumer contract says its workflow reads that
  none of the tool's recorded results carries (checked per trace).

Findings quote shapes, never values: a schema error names the path and the keyword
(``required``, ``type``, ``enum`` …), and ``expected``/``actual`` hold the schema
keyword's demand and the shape of what was there.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Path, Trace, dumps, parse_path
from ..model import loads as json_loads
from ..rules import Finding, shape
from ..store import Store
from ._consumer import Consumer
from ._descriptor import Descriptor, ToolSet
from ._errors import SchemaInvalidError

__all__ = ["CONTRACT_RULES", "Call", "ContractCheck", "calls_of", "check_calls",
           "check_contracts", "consumer_reads", "input_problems"]

#: the rule ids of contract findings, their severity and what each means
CONTRACT_RULES: dict[str, tuple[str, str]] = {
    "contract/unknown-tool": ("error", "the agent called a tool no descriptor describes"),
    "contract/input": ("error", "the arguments break the tool's input schema"),
    "contract/undeclared-argument": ("error", "an argument the tool's input schema does not "
                                              "declare (a tool ignores it)"),
    "contract/output": ("error", "a successful result breaks the tool's output schema"),
    "contract/error-envelope": ("error", "an error code outside the tool's error envelope"),
    "contract/idempotency-key": ("error", "a write without its required idempotency key"),
    "contract/deprecated": ("warn", "a call to a deprecated tool"),
    "contract/consumer-reads": ("error", "a field a consumer reads that no recorded result "
                                         "of the tool carries"),
}


@dataclass(frozen=True)
class Call:
    """One recorded tool call, its JSON columns parsed."""

    trace_id: str
    event_id: str
    seq: int
    name: str
    status: str
    args: Any
    result: Any
    error: Any


@dataclass
class ContractCheck:
    """The findings of one ``contract check`` run, shaped like ``check``'s result."""

    findings: list[Finding]
    traces_checked: int
    calls_checked: int
    tools: list[str]
    run_id: str
    checked_at: dt.datetime
    seconds: float = 0.0
    recorded: bool = field(default=False)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def to_dict(self) -> dict[str, Any]:
        return {"findings": [f.to_dict() for f in self.findings],
                "traces_checked": self.traces_checked, "calls_checked": self.calls_checked,
                "rules": list(CONTRACT_RULES), "tools": self.tools, "run_id": self.run_id,
                "errors": self.errors, "warnings": len(self.findings) - self.errors,
                "seconds": round(self.seconds, 3)}


def _finding(rule: str, call: Call, message: str, expected: dict[str, Any] | None = None,
             actual: dict[str, Any] | None = None, values: tuple[str, ...] = ()) -> Finding:
    return Finding(rule, CONTRACT_RULES[rule][0], call.trace_id, (call.event_id,), call.seq,
                   call.name, message, expected or {}, actual or {}, values)


@functools.lru_cache(maxsize=512)
def _validator(schema_json: str) -> Any:
    import jsonschema  # loaded only when a call is checked

    schema = json_loads(schema_json)
    return jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator)(schema)


def _where(root: str, path: Iterable[Any]) -> str:
    out = root
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _schema_findings(rule: str, root: str, schema: Any, value: Any,
                     call: Call) -> list[Finding]:
    """One finding per distinct schema complaint (path and keyword), shapes only."""
    if schema is None or schema is True:
        return []
    try:
        errors = sorted(_validator(dumps(schema)).iter_errors(value),
                        key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    except RecursionError:  # reading refuses a loop; a descriptor built some other way
        raise SchemaInvalidError(
            f"tool {call.name}, {root}: the schema's $refs loop without consuming the value "
            "(or the value nests deeper than the schema can be followed), so no check of "
            f"step {call.seq} ends", tool=call.name, path=root) from None
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for e in errors:
        at = _where(root, e.absolute_path)
        keyword = str(e.validator)
        if (at, keyword) in seen:
            continue
        seen.add((at, keyword))
        what = _complaint(keyword, e, at)
        out.append(_finding(rule, call, f"{call.name} at step {call.seq}: {what}",
                            {"schema": {at: {keyword: shape(e.validator_value)}}},
                            {at: shape(e.instance)}))
    return out


def _complaint(keyword: str, e: Any, at: str) -> str:
    if keyword == "required":
        missing = str(e.message).split("'")[1] if "'" in str(e.message) else "a field"
        return f"{at}.{missing} is missing (the contract requires it)"
    if keyword == "additionalProperties":
        return f"{at} carries a property the contract's closed model refuses"
    if keyword == "type":
        return f"{at} is {type(e.instance).__name__}, the contract says {e.validator_value}"
    if keyword in ("enum", "const"):
        return f"{at} holds a value the contract's {keyword} does not allow"
    return f"{at} breaks the contract's {keyword}"


def _declared(d: Descriptor, args: Any) -> tuple[dict[str, Any], list[str]] | None:
    """The arguments an open object schema declares and its property patterns; None
    when undeclared arguments are not a breach (a closed or free-form schema)."""
    schema = d.input
    if (not isinstance(schema, dict) or not isinstance(args, dict)
            or "additionalProperties" in schema or "unevaluatedProperties" in schema
            or not isinstance(schema.get("properties"), dict)):
        return None
    declared = dict(schema["properties"])
    if d.idempotency is not None and d.idempotency.where == "arg":
        declared.setdefault(d.idempotency.name.split(".")[0], True)
    return declared, [p for p in schema.get("patternProperties") or {} if isinstance(p, str)]


def _undeclared_names(d: Descriptor, args: Any) -> list[str]:
    found = _declared(d, args)
    if found is None:
        return []
    declared, patterns = found
    return [n for n in args if n not in declared and not any(re.search(p, n) for p in patterns)]


def input_problems(d: Descriptor, args: Any) -> list[str]:
    """The argument paths at which ``d``'s input refuses ``args`` (a schema breach, or an
    undeclared argument: ``contract/input`` and ``contract/undeclared-argument``); a
    missing required field is named by its own path."""
    if d.input is None or d.input is True:
        errors: list[Any] = []
    else:
        errors = list(_validator(dumps(d.input)).iter_errors(args))
    out = []
    for e in errors:
        at = _where("args", e.absolute_path)
        if e.validator == "required" and "'" in str(e.message):
            at += "." + str(e.message).split("'")[1]
        out.append(at)
    return sorted({*out, *(f"args.{n}" for n in _undeclared_names(d, args))})


def _undeclared(d: Descriptor, c: Call) -> list[Finding]:
    """Top-level arguments an open object schema does not declare."""
    found = _declared(d, c.args)
    if found is None:
        return []
    declared = found[0]
    out = []
    for name in _undeclared_names(d, c.args):
        known = ", ".join(sorted(declared)) or "none"
        out.append(_finding("contract/undeclared-argument", c,
                            f"{c.name} at step {c.seq}: args.{name} is not an argument the "
                            f"contract declares, so the tool acts as if it were not sent "
                            f"(arguments: {known})",
                            {"args": sorted(declared)}, {"args": sorted(c.args)}))
    return out


def _idempotency_present(d: Descriptor, args: Any) -> bool:
    assert d.idempotency is not None
    where, name = d.idempotency.where, d.idempotency.name
    if not isinstance(args, dict):
        return False
    if where == "arg":
        try:
            return any(v not in (None, "") for v in parse_path(name).values(args))
        except ValueError:
            return args.get(name) not in (None, "")
    box = args.get("headers" if where == "header" else "query")
    if not isinstance(box, dict):
        box = args
    return any(k.lower() == name.lower() and v not in (None, "") for k, v in box.items())


def check_calls(calls: Iterable[Call], tools: ToolSet) -> list[Finding]:
    """Every contract finding of the calls, in call order."""
    out: list[Finding] = []
    for c in calls:
        d = tools.get(c.name)
        if d is None:
            out.append(_finding("contract/unknown-tool", c, f"{c.name} at step {c.seq} is not "
                                "a tool the contract describes", values=(c.name,)))
            continue
        if d.deprecated is not None and (d.deprecated.since or d.deprecated.replacement):
            instead = f"; use {d.deprecated.replacement}" if d.deprecated.replacement else ""
            since = f" since {d.deprecated.since}" if d.deprecated.since else ""
            out.append(_finding("contract/deprecated", c, f"{c.name} at step {c.seq} is "
                                f"deprecated{since}{instead}"))
        out += _schema_findings("contract/input", "args", d.input, c.args, c)
        out += _undeclared(d, c)
        if c.status != "error":
            out += _schema_findings("contract/output", "result", d.output, c.result, c)
        elif d.errors is not None and d.errors.codes:
            code = c.error.get("code") if isinstance(c.error, dict) else None
            if code is not None and str(code) not in d.errors.codes:
                out.append(_finding("contract/error-envelope", c, f"{c.name} at step {c.seq} "
                                    f"failed with {code}, which its error envelope does not "
                                    "list", {"errors": list(d.errors.codes)},
                                    {"error.code": shape(code)}, values=(str(code),)))
        if d.idempotency is not None and d.idempotency.required and not _idempotency_present(
                d, c.args):
            out.append(_finding("contract/idempotency-key", c, f"{c.name} at step {c.seq} "
                                f"went out without its idempotency key ({d.idempotency.key})",
                                {"idempotency": d.idempotency.key}))
    return out


def _carries(path: Path, results: list[Any]) -> bool:
    inner = path.tail() if path.root == "result" else path
    return not inner.segments or any(inner.values(r) for r in results)


def consumer_reads(calls: Sequence[Call], consumers: Iterable[Consumer]) -> list[Finding]:
    """Per trace: each path a consumer reads that no recorded result of the tool carries
    (the first call of the tool in the trace is the witness)."""
    out: list[Finding] = []
    by_trace: dict[str, list[Call]] = {}
    for c in calls:
        by_trace.setdefault(c.trace_id, []).append(c)
    for consumer in consumers:
        for dep in consumer.dependencies:
            if dep.what != "reads" or dep.path is None:
                continue
            path = parse_path(dep.path)
            for cs in by_trace.values():
                mine = [c for c in cs if c.name == dep.tool and c.status != "error"]
                if mine and not _carries(path, [c.result for c in mine]):
                    first = mine[0]
                    out.append(_finding(
                        "contract/consumer-reads", first,
                        f"{dep.tool} never returned {dep.path} in this trace ({len(mine)} "
                        f"call(s), the first at step {first.seq}); {consumer.name} reads it",
                        {"reads": dep.path}, {"result": shape(first.result)},
                        values=(str(len(mine)),)))
    return out


def calls_of(trace: Trace) -> list[Call]:
    """The tool calls of one trace in memory, in step order."""
    return [Call(e.trace_id, e.event_id, e.seq, e.name, e.status, e.args, e.result, e.error)
            for e in trace.events if e.kind == "tool_call"]


def _calls(store: Store, trace_ids: Sequence[str] | None) -> Iterator[Call]:
    where = "kind = 'tool_call'"
    params: list[Any] = []
    if trace_ids is not None:
        where += " AND list_contains(?, trace_id)"
        params.append(list(trace_ids))
    table = store.sql("SELECT trace_id, event_id, seq, name, status, args, result, error "
                      f"FROM events WHERE {where} ORDER BY trace_id, seq", params)
    for r in table.to_pylist():
        yield Call(r["trace_id"], r["event_id"], r["seq"], r["name"], r["status"],
                   json_loads(r["args"]) if r["args"] else None,
                   json_loads(r["result"]) if r["result"] else None,
                   json_loads(r["error"]) if r["error"] else None)


def check_contracts(store: Store, tools: ToolSet, *, trace_ids: Sequence[str] | None = None,
                    consumers: Sequence[Consumer] = (), record: bool = True,
                    source: str | None = None) -> ContractCheck:
    """Every contract finding in the chosen traces (default: all); recorded in the
    store's ``findings`` table unless ``record`` is false."""
    import pyarrow as pa

    from ..model import FINDINGS

    started = time.perf_counter()
    checked_at = dt.datetime.now(dt.UTC)
    ids = sorted(set(store.resolve_trace_ids(trace_ids))) if trace_ids else None
    all_ids = ids if ids is not None else sorted(store.trace_ids())
    calls = list(_calls(store, ids))
    findings = check_calls(calls, tools) + consumer_reads(calls, consumers)
    order = {r: i for i, r in enumerate(CONTRACT_RULES)}
    findings.sort(key=lambda f: (f.trace_id, -1 if f.seq is None else f.seq, order[f.rule],
                                 f.message))
    result = ContractCheck(findings, len(all_ids), len(calls), list(tools),
                           uuid.uuid4().hex[:12], checked_at, time.perf_counter() - started)
    if record and findings:
        rows = [f.to_row(result.run_id, checked_at, source) for f in findings]
        store.append("findings", pa.Table.from_pylist(rows, schema=FINDINGS))
        result.recorded = True
    return result

