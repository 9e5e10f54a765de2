"""``check``, ``invariants``, ``minimize``, ``fixture_status`` and ``ingest``: the CLI's
services called as a library, each answering the document its command prints with
``--json``.

Every file an agent names (a rules file, a recording, an OpenAPI document, a fixtures
folder) is resolved inside the server's working directory (``ToolContext.path``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ..fixtures import DEFAULT_FIXTURES, verify
from ..ingest import format_names, ingest
from ..invariants import INVARIANTS as INVARIANT_NAMES
from ..invariants import (
    check_invariants,
    load_spec,
    minimize_invariant,
    pick_invariants,
)
from ..minimize import minimize as run_minimize
from ..minimize import pick_rule, save_result
from ..model import StoreError, UsageError
from ..rules import check as run_check
from ..rules import load_rules, rate_report
from ..store import Store
from ._schemas import CHECK_DOC, ID, PATH, RATES_DOC, TRACE_IDS, obj
from ._tool import Tool, ToolContext

__all__ = ["CHECK", "FIXTURE_STATUS", "INGEST", "INVARIANTS", "MINIMIZE"]


def _recording_key(store: Store) -> bytes:
    """The key a recording is redacted under: the store's, as ingest would use it (so
    its tokens match the stored traces'); a one-time key when there is no store, which
    checking a file does not create."""
    if not store.exists:
        return os.urandom(32)
    try:
        return store.redaction_key()
    except StoreError:
        return os.urandom(32)


def check(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if "recording" in args and "trace_ids" in args:
        raise UsageError("check: give `recording` or `trace_ids`, not both",
                         hint="a recording is checked on its own")
    over_runs = "by" in args or "compare" in args
    if over_runs and "recording" in args:
        raise UsageError("check: `by` and `compare` judge stored runs of a scenario; a "
                         "recording is one trace", hint="ingest it with its scenario and "
                         "build first, then check the store")
    if "by" in args and "compare" in args:
        raise UsageError("check: `by` and `compare` are two reports: give one",
                         hint="`compare` groups by scenario already")
    rules = load_rules(ctx.file(args["rules"]))
    engine = args.get("engine", "duckdb")
    store = ctx.store()
    if "recording" not in args:
        result = run_check(store, rules, trace_ids=args.get("trace_ids"), engine=engine,
                           record=args.get("record", True))
        doc = {**result.to_dict(), "source": "store", "recorded": result.recorded}
        if over_runs:
            _, doc["rates"] = rate_report(
                store, result, by=args.get("by"), compare=args.get("compare"),
                max_rate=args.get("max_rate", 0.05), alpha=args.get("alpha", 0.05),
                margin=args.get("margin", 0.10))
        return doc
    recording = ctx.file(args["recording"])
    with tempfile.TemporaryDirectory(prefix="workbench-mcp-") as tmp:
        scratch = Store(Path(tmp) / "store")
        ingest([recording], scratch, workers=1, redact=_recording_key(store))
        result = run_check(scratch, rules, engine=engine, record=False)
    return {**result.to_dict(), "source": "recording", "recorded": False}


def invariants(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    spec = load_spec(ctx.file(args["openapi"]))
    result = check_invariants(ctx.store(), spec, trace_ids=args.get("trace_ids"),
                              only=args.get("only"), record=args.get("record", True),
                              source=args["openapi"])
    return result.to_dict()


def minimize(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    if ("rules" in args) == ("openapi" in args):
        raise UsageError("minimize: give `rules` (a rules file) or `openapi` (a contract "
                         "invariant), one of them", hint="e.g. {\"trace_id\": \"4bf92f35\", "
                         "\"rules\": \"rules.yaml\", \"rule\": \"approval-before-archive\"}")
    store = ctx.store()
    trace = store.trace(store.resolve_trace_id(args["trace_id"]))
    budget: dict[str, Any] = {k: args.get(k) for k in ("finding", "signature", "max_calls",
                                                       "max_seconds")}
    if "openapi" in args:
        pick_invariants([args["rule"]])
        result = minimize_invariant(trace, load_spec(ctx.file(args["openapi"])),
                                    args["rule"], **budget)
    else:
        rule = pick_rule(load_rules(ctx.file(args["rules"])), args["rule"])
        result = run_minimize(trace, rule, **budget)
    saved = save_result(store, result) if args.get("save", True) else None
    return {**result.to_dict(), "stored": saved}


def fixture_status(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    folder = ctx.path(args.get("fixtures", str(DEFAULT_FIXTURES)))
    result = verify(folder)
    return {**result.to_dict(), "fixtures_dir": ctx.shown(folder),
            "ok": not result.problems}


def ingest_file(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    path = ctx.file(args["path"])
    result = ingest([path], ctx.store(), format=args.get("format", "auto"),
                    workers=1, strict=True)
    return {**result.to_dict(), "redacted": True}


_RECORD = {"type": "boolean", "default": True,
           "description": "record the findings in the store (default true)"}

_RATE = {"type": "number", "minimum": 0, "exclusiveMaximum": 1}

CHECK = Tool(
    "check",
    "Judge stored traces (all, or `trace_ids`) or one recording file (`recording`: any "
    "format ingest reads; redacted as ingest would, checked apart from the store and not "
    "recorded) against a rules file. Answers the `workbench check --json` document. Over "
    "runs of a scenario (stored traces labelled by `ingest --scenario/--build`), as "
    "`check --by/--compare` (docs/statistics.md): `by` (`scenario` or `scenario,build`) "
    "adds `rates.groups`, per rule and scenario the violating runs k of n, the rate with "
    "its 95% Clopper-Pearson interval and PASS / FAIL / INCONCLUSIVE against `max_rate` "
    "(default 0.05); `compare` (`BASE..CANDIDATE`, two builds) adds both builds' rates, "
    "the difference with its Newcombe interval, Boschloo's p-value and REGRESSED / "
    "IMPROVED / NO CHANGE / INCONCLUSIVE (`alpha` default 0.05, `margin` default 0.10).",
    obj({"rules": PATH, "trace_ids": TRACE_IDS, "recording": PATH,
         "engine": {"enum": ["duckdb", "python"], "default": "duckdb"},
         "record": _RECORD, "by": {"enum": ["scenario", "scenario,build"]},
         "compare": {**ID, "description": "BASE..CANDIDATE: two builds, e.g. 1.4.2..1.5.0"},
         "max_rate": {**_RATE, "default": 0.05,
                      "description": "the violation rate a rule may have"},
         "alpha": {**_RATE, "exclusiveMinimum": 0, "default": 0.05,
                   "description": "with `compare`: the exact test's level"},
         "margin": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.10,
                    "description": "with `compare`: NO CHANGE when the difference's "
                                   "interval lies within +- this"}},
        ("rules",), closed=True),
    obj({**CHECK_DOC["properties"], "source": {"enum": ["store", "recording"]},
         "recorded": {"type": "boolean"}, "rates": RATES_DOC},
        (*CHECK_DOC["required"], "source", "recorded")),
    check)


INVARIANTS = Tool(
    "invariants",
    "Judge the store's recorded HTTP traffic (all traces, or `trace_ids`) by the contract "
    "invariants of an OpenAPI document (`only`: some of them). Answers the `workbench "
    "invariants --json` document; NO_HTTP_EVENTS when there is no HTTP traffic.",
    obj({"openapi": PATH, "trace_ids": TRACE_IDS,
         "only": {"type": "array", "items": {"enum": list(INVARIANT_NAMES)}, "minItems": 1},
         "record": _RECORD}, ("openapi",), closed=True),
    obj({**CHECK_DOC["properties"], "exchanges": {"type": "integer"},
         "judged": {"type": "integer"}, "undocumented": {"type": "array"},
         "not_judged": {"type": "array"}},
        (*CHECK_DOC["required"], "exchanges", "judged")),
    invariants)

MINIMIZE = Tool(
    "minimize",
    "Shrink a stored trace to a dependency-closed sub-trace that still yields the same "
    "finding (same signature) of `rule` from a rules file (`rules`) or of a contract "
    "invariant (`openapi`), judged offline; stored as a new trace unless `save` is false. "
    "Answers the `workbench minimize --json` document (`one_minimal` says whether the "
    "result is proven 1-minimal).",
    obj({"trace_id": ID, "rule": ID, "rules": PATH, "openapi": PATH,
         "finding": {"type": "integer", "minimum": 1, "maximum": 1_000_000,
                     "description": "the N-th finding of the rule in step order"},
         "signature": {**ID, "description": "the first finding whose signature starts "
                                            "with this"},
         "max_calls": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
         "max_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600},
         "save": {"type": "boolean", "default": True}},
        ("trace_id", "rule"), closed=True),
    obj({"trace_id": {"type": "string"}, "rule": {"type": "string"},
         "signature": {"type": "string"}, "original_events": {"type": "integer"},
         "kept_events": {"type": "integer"},
         "kept_event_ids": {"type": "array", "items": {"type": "string"}},
         "kept_steps": {"type": "array", "items": {"type": "integer"}},
         "oracle_calls": {"type": "integer"}, "one_minimal": {"type": "boolean"},
         "seconds": {"type": "number"}, "stored": {"type": ["boolean", "null"]}},
        ("trace_id", "rule", "signature", "original_events", "kept_events",
         "kept_event_ids", "oracle_calls", "one_minimal", "seconds", "stored")),
    minimize)

FIXTURE_STATUS = Tool(
    "fixture_status",
    "Verify every fixture under a fixtures folder against its fixtures.lock (default "
    "traces/fixtures): the `workbench verify --json` document, plus `ok`.",
    obj({"fixtures": PATH}, closed=True),
    obj({"fixtures": {"type": "integer"}, "problems": {"type": "array", "items": obj(
        {"fixture": {"type": "string"}, "code": {"type": "string"},
         "message": {"type": "string"}}, ("fixture", "code", "message"))},
         "accepted": {"type": "array"}, "checked": {"type": "array"},
         "fixtures_dir": {"type": "string"}, "ok": {"type": "boolean"}},
        ("fixtures", "problems", "ok")),
    fixture_status, read_only=True)

INGEST = Tool(
    "ingest",
    "Read one trace file (any format `workbench ingest` reads) into the store, redacted "
    "(secrets and personal data become keyed tokens before anything is written; there is "
    "no way to turn that off here). Answers the `workbench ingest --json` document; a "
    "file already ingested is listed under `skipped`. One file is all or nothing: a file "
    "that cannot be read is a tool error with its code (`refused` stays empty), and a "
    "file of tool definitions (an MCP tool list, an OpenAPI document) is the tool error "
    "`TOOL_DEFINITION`.",
    obj({"path": PATH, "format": {"enum": format_names(), "default": "auto"}}, ("path",),
        closed=True),
    obj({"traces": {"type": "array", "items": obj(
        {"trace_id": {"type": "string"}, "events": {"type": "integer"},
         "format": {"type": "string"}}, ("trace_id", "events", "format"))},
         "events": {"type": "integer"}, "skipped": {"type": "array"},
         "refused": {"type": "array", "maxItems": 0}, "merged": {"type": "array"},
         "batch": {"type": ["string", "null"]}, "redacted": {"const": True}},
        ("traces", "events", "skipped", "refused", "merged", "redacted")),
    ingest_file)
