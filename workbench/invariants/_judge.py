"""The eight invariants over recorded exchanges (docs/invariants.md).

Each exchange is matched to its operation by method and path template; a request to a
path the document does not describe is counted once per method and path, not judged.
Per exchange: ``status_declared``, ``shape``, ``no_server_error``, ``clean_refusal``,
``refuses_unknown_caller``. Across a trace's exchanges (``_flows``): ``idempotent_retry``,
``pagination``, ``read_your_write``. A finding names statuses, operations, field paths and
steps; the ids and bodies it compares are never quoted ("the id from step 3").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules import Finding, shape
from ._errors import UnknownInvariantError
from ._http import Exchange
from ._media import refusals
from ._openapi import Operation, Spec
from ._validate import Complaint, complaints

__all__ = ["INVARIANTS", "Judged", "Matched", "judge", "pick_invariants", "step"]

#: the invariants, in report order, and what each holds a service to
INVARIANTS: dict[str, str] = {
    "status_declared": "every answer's status is one the operation declares",
    "shape": "every answer's body matches the schema declared for its status",
    "no_server_error": "no 5xx outside a declared fault window",
    "clean_refusal": "a request the contract refuses draws a 4xx, never a 5xx or success",
    "idempotent_retry": "a retry with the same Idempotency-Key gets the same status and "
                        "resource; the same key with another body is refused",
    "pagination": "a cursor walk never repeats an item and, with no writes between, gives "
                  "the same set as one larger page",
    "refuses_unknown_caller": "an operation that declares security refuses a call without "
                              "a credential",
    "read_your_write": "a read of an id a successful create returned succeeds",
}


def pick_invariants(only: Sequence[str] | None) -> list[str]:
    if not only:
        return list(INVARIANTS)
    unknown = [n for n in only if n not in INVARIANTS]
    if unknown:
        raise UnknownInvariantError(f"--only {unknown[0]}: no such invariant",
                                    invariant=unknown[0])
    return [n for n in INVARIANTS if n in only]


@dataclass(frozen=True, slots=True)
class Matched:
    x: Exchange
    op: Operation
    path_params: dict[str, str]


@dataclass
class Judged:
    findings: list[Finding] = field(default_factory=list)
    undocumented: Counter[str] = field(default_factory=Counter)
    exchanges: int = 0
    judged: int = 0
    #: (invariant, why) -> exchanges of documented operations it could not judge
    not_judged: Counter[tuple[str, str]] = field(default_factory=Counter)


def step(m: Matched) -> dict[str, Any]:
    """A step as a finding keeps it: operation, parameters present, status, timing."""
    x = m.x
    present = ([f"path.{k}" for k in sorted(m.path_params)]
               + [f"query.{k}" for k in sorted(x.query)]
               + [f"header.{p.name}" for p in m.op.params
                  if p.where == "header" and p.name in x.headers])
    if x.has_body:
        present.append("body")
    return {"step": x.seq, "operation": m.op.name, "params": present, "status": x.status,
            "ms": x.ms}


def finding(name: str, ms: Sequence[Matched], message: str,
            expected: dict[str, Any] | None = None, actual: dict[str, Any] | None = None,
            values: tuple[str, ...] = ()) -> Finding:
    last = ms[-1]
    act = {**(actual or {}), "steps": [step(m) for m in ms]}
    return Finding(name, "error", last.x.trace_id, tuple(m.x.event_id for m in ms),
                   last.x.seq, last.op.name, message, expected or {}, act, values)


_ANY_TEXT = {"type": "string"}
_INT = re.compile(r"^-?\d+$")
_NUM = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def _typed(s: Any) -> Any:
    if not isinstance(s, str):
        return s
    if _INT.match(s):
        return int(s)
    if _NUM.match(s):
        return float(s)
    return {"true": True, "false": False, "null": None}.get(s, s)


def _candidates(v: Any) -> list[Any]:
    """The values a parameter's text may stand for (a string, a number, a boolean, a
    list): the request is invalid only if none of them is allowed."""
    if isinstance(v, list):
        return [v, [_typed(i) for i in v]]
    out = [v, _typed(v)]
    if isinstance(v, str):
        parts = v.split(",") if v else []
        out += [parts, [_typed(p) for p in parts], [v]]
    return out


def _param_complaints(schema: Any, value: Any, at: str) -> list[Complaint]:
    if isinstance(value, str) and (schema is None or schema == _ANY_TEXT):
        return []
    if isinstance(schema, dict) and (schema.get("type") == "object" or "properties" in schema):
        return []  # form- or deepObject-serialized: not rebuilt from the text, not judged
    best: list[Complaint] | None = None
    for c in _candidates(value):
        found = complaints(schema, c, at, limit=2)
        if not found:
            return []
        rank = sum(f.keyword == "type" for f in found)
        if best is None or rank < sum(f.keyword == "type" for f in best):
            best = found
    return best or []


def request_complaints(m: Matched) -> list[Complaint]:
    """Why the contract refuses this request (empty: it allows it)."""
    x, out = m.x, []
    for p in m.op.params:
        if p.where == "cookie":
            continue
        if p.where == "path":
            value = m.path_params.get(p.name)
        elif p.where == "query":
            value = x.query.get(p.name)
        else:
            value = x.header(p.name)
        if value is None:
            if p.required:
                out.append(Complaint(f"{p.where}.{p.name}", "required", True,
                                     f"{p.where}.{p.name} is missing (the contract requires "
                                     "it)"))
            continue
        out += _param_complaints(p.schema, value, f"{p.where}.{p.name}")
    if m.op.body is not None:
        ctype = (x.header("content-type") or "").lower()
        if not x.has_body or x.body is None:
            if m.op.body_required and not x.body_unknown:
                out.append(Complaint("body", "required", True,
                                     "the body is missing (the contract requires it)"))
        elif "json" in ctype or not ctype or not isinstance(x.body, str):
            out += complaints(m.op.body, x.body, "body")
    return out


def _credentialed(x: Exchange, credentials: Iterable[tuple[str, str]]) -> bool:
    """Whether the request carries a credential: ``Authorization``, or one of
    ``credentials`` (where, name) — a redacted value counts as present."""
    if x.header("authorization"):
        return True
    cookie = x.header("cookie") or ""
    for where, name in credentials:
        if where == "header" and x.header(name):
            return True
        if where == "query" and x.query.get(name) not in (None, ""):
            return True
        if where == "cookie" and re.search(rf"(^|;\s*){re.escape(name)}=", cookie, re.I):
            return True
    return False


def _in_window(x: Exchange, windows: Sequence[tuple[int, int]]) -> bool:
    t = x.start_ns if x.start_ns is not None else x.end_ns
    return t is not None and any(a <= t <= b for a, b in windows)


def _per_exchange(m: Matched, chosen: set[str], windows: Sequence[tuple[int, int]],
                  skipped: Counter[tuple[str, str]]) -> Iterable[Finding]:
    x, op = m.x, m.op
    at = f"{op.name} at step {x.seq}"
    if x.status is None:
        return
    declared = op.response(x.status)[0]
    if "status_declared" in chosen and not declared:
        yield finding("status_declared", [m], f"{at} answered {x.status}, a status the "
                      f"contract does not declare (declared: "
                      f"{', '.join(op.declared_statuses()) or 'none'})",
                      {"status": op.declared_statuses()}, {"status": x.status},
                      (str(x.status),))
    if "shape" in chosen and declared and x.resp_has_body:
        yield from _shape(m, at, skipped)
    refused = request_complaints(m) if ((
        "no_server_error" in chosen and x.status >= 500) or (
        "clean_refusal" in chosen and not 400 <= x.status < 500)) else []
    if "no_server_error" in chosen and x.status >= 500 and not _in_window(x, windows):
        if refused:  # a valid request's promise; this one is clean_refusal's
            skipped["no_server_error", "the contract refuses the request (clean_refusal "
                    "judges its answer)"] += 1
        else:
            yield finding("no_server_error", [m], f"{at} answered {x.status}, a server error",
                          {"status": "< 500"}, {"status": x.status}, (str(x.status),))
    if "clean_refusal" in chosen and not 400 <= x.status < 500 and refused:
        what = "a server error" if x.status >= 500 else "success"
        yield finding("clean_refusal", [m], f"{at} answered {x.status} ({what}) to a "
                      f"request the contract refuses: {refused[0].words}; a 4xx was due",
                      {"status": "4xx", refused[0].at: {refused[0].keyword: refused[0].demand}},
                      {"status": x.status}, (str(x.status),))


def _shape(m: Matched, at: str, skipped: Counter[tuple[str, str]]) -> Iterable[Finding]:
    x = m.x
    found, why = refusals(m.op, x)
    if why is not None:
        skipped["shape", why] += 1
    for r in found:
        c = r.complaint
        where = f"; in {r.count} of the stream's {r.items} items" if r.items > 1 else ""
        yield finding("shape", [m], f"{at} answered {x.status} with a body that breaks "
                      f"its schema: {c.words}{where}", {"schema": {c.at: {c.keyword: c.demand}}},
                      {"status": x.status, c.at: shape(_pick(r.value, r.inside))},
                      (str(x.status),))


def _unknown_callers(trace: Sequence[Matched], everyone: Sequence[Exchange],
                     credentials: frozenset[tuple[str, str]],
                     skipped: Counter[tuple[str, str]]) -> Iterable[Finding]:
    """``refuses_unknown_caller`` over one trace: a success to a call without a
    credential breaks it only when the trace shows its recorder keeps credentials (some
    request of the trace carries one); when none does, the recorder stripped them."""
    calls = [m for m in trace if m.op.secured and m.x.status is not None
             and 200 <= m.x.status < 300 and not _credentialed(m.x, m.op.credentials)]
    if not calls:
        return
    kept = any(_credentialed(x, credentials) for x in everyone)
    for m in calls:
        x, op = m.x, m.op
        if not x.headers:
            skipped["refuses_unknown_caller", "no request header was recorded"] += 1
        elif not kept:
            names = " or ".join(n if w == "header" else f"{w} {n}"
                                for w, n in op.credentials or (("header", "authorization"),))
            skipped["refuses_unknown_caller", f"credential stripped by the recorder: no "
                    f"request of the trace carries {names}"] += 1
        else:
            yield finding("refuses_unknown_caller", [m], f"{op.name} at step {x.seq} answered "
                          f"{x.status} to a call without a credential, though the operation "
                          "declares security (other requests of the trace carry one)",
                          {"status": "401 or 403"}, {"status": x.status, "credential": None},
                          (str(x.status),))


def _pick(body: Any, at: str) -> Any:
    cur = body
    for part in re.findall(r"\.([^.\[]+)|\[(\d+)\]", at):
        key, idx = part
        if key and isinstance(cur, dict):
            cur = cur.get(key)
        elif idx and isinstance(cur, list) and int(idx) < len(cur):
            cur = cur[int(idx)]
        else:
            return cur
    return cur


def judge(exchanges: Iterable[Exchange], spec: Spec, only: Sequence[str] | None = None,
          windows: Sequence[tuple[int, int]] = ()) -> Judged:
    """Every finding of the chosen invariants, trace by trace, in step order."""
    from ._flows import flow_findings

    chosen = set(pick_invariants(only))
    out = Judged()
    trace: list[Matched] = []
    everyone: list[Exchange] = []
    current: str | None = None
    credentials = frozenset(c for op in spec.operations for c in op.credentials)

    def flush() -> None:
        if trace:
            out.findings.extend(flow_findings(trace, chosen))
            if "refuses_unknown_caller" in chosen:
                out.findings.extend(_unknown_callers(trace, everyone, credentials,
                                                     out.not_judged))
        trace.clear()
        everyone.clear()

    for x in exchanges:
        out.exchanges += 1
        if x.trace_id != current:
            flush()
            current = x.trace_id
        everyone.append(x)
        hit = spec.match(x.method, x.path)
        if hit is None:
            out.undocumented[f"{x.method} {x.path}"] += 1
            continue
        m = Matched(x, hit[0], hit[1])
        out.judged += 1
        trace.append(m)
        out.findings.extend(_per_exchange(m, chosen, windows, out.not_judged))
    flush()
    order = {n: i for i, n in enumerate(INVARIANTS)}
    out.findings.sort(key=lambda f: (f.trace_id, f.seq or 0, order[f.rule], f.message))
    return out
