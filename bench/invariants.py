"""Contract invariants over a large store: ``check_invariants`` against ``check`` (the
DuckDB rules engine) on the same store, in the same run.

    python bench/invariants.py [--events 100000] [--operations 200] [--repeat 3] [--json]

Builds `_openapigen.py`'s seeded OpenAPI 3.1 document of ``--operations`` operations and
a store of ``--events`` recorded HTTP exchanges (1,000 traces; the workbench JSONL
format, ingested with redaction on): requests spread over every operation with their
path parameters, bodies and Idempotency-Keys; answers a declared status with a body of
the declared shape, and a seeded share broken on purpose (an undeclared status, a
missing required field, a 500, a retry that creates twice, a request without its
credential answered 200, a read of a created id answered 404), so findings are worded
and not only counted. Then, each in its own subprocess after the page cache is warmed,
interleaved, ``--repeat`` times (median reported):

* **invariants**: ``check_invariants(store, spec, record=False)``: reading the
  ``http`` events, matching each to its operation, validating, judging all eight;
* **check**: ``check(store, RULES, engine="duckdb", record=False)``, three rules over
  the same events, for scale.

Target: **invariants** under **10 s** for 100,000 events and 200 operations. The ratio
(invariants / check) is printed beside it. A measurement, not a test: exit 0 unless
something crashed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _measure import ChildFailed, finish, measure, warm
from _openapigen import generate

HERE = Path(__file__).resolve().parent
TARGET_SECONDS = 10.0
TRACES = 1000
RULES = """\
version: 1
rules:
  no-server-error:
    every: {event: {kind: http}, where: {result.status: {lt: 500}}}
  one-post-per-key:
    count: {event: {kind: http, where: {args.method: POST}},
            per: [args.headers.idempotency-key], max: 1}
  keyed-posts:
    every: {event: {kind: http, where: {args.method: POST}},
            where: {args.headers.idempotency-key: {exists: true}}}
"""


def _value(schema: Any, comps: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    if not isinstance(schema, dict) or depth > 9:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _value(comps[ref.rsplit("/", 1)[1]], comps, rng, depth + 1)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        keep = [k for k in props if k in (schema.get("required") or ()) or rng.random() < 0.5]
        return {k: _value(props[k], comps, rng, depth + 1) for k in keep
                if k not in ("tree", "parent")}
    if kind == "array":
        return [_value(schema.get("items"), comps, rng, depth + 1) for _ in range(2)]
    if kind == "integer":
        return rng.randint(0, 50)
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if schema.get("format") == "date-time":
        return "2024-05-01T10:00:00Z"
    if schema.get("pattern"):
        return "10.00"
    if schema.get("minLength") == 3:
        return "EUR"
    return "text"


def _events(doc: dict[str, Any], events: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    comps = doc["components"]["schemas"]
    ops = [(path, m, op) for path, item in doc["paths"].items() for m, op in item.items()
           if m != "parameters"]
    out: list[dict[str, Any]] = []
    per = max(1, events // TRACES)
    for i in range(events):
        t, seq = i // per, i % per
        path, method, op = ops[i % len(ops)]
        rid = f"r{rng.randrange(10_000)}"
        headers = {"x-key": "k", "authorization": "Bearer t",
                   "content-type": "application/json"}
        body = None
        if "requestBody" in op:
            body = _value(op["requestBody"]["content"]["application/json"]["schema"], comps,
                          rng)
            headers["idempotency-key"] = f"key-{t}-{seq}"
        ok = next(c for c in op["responses"] if c.startswith("2"))
        content = op["responses"][ok].get("content")
        resp = (_value(content["application/json"]["schema"], comps, rng) if content
                else None)
        status = int(ok)
        roll = rng.random()
        if roll < 0.01:
            status = 418
        elif roll < 0.02 and isinstance(resp, dict):
            resp.pop("id", None)
        elif roll < 0.03:
            status, resp = 500, {"code": "boom", "message": "x"}
        elif roll < 0.04:
            headers.pop("x-key")
            headers.pop("authorization")
        if isinstance(resp, dict) and "id" in resp:
            resp["id"] = rid
        args = {"method": method.upper(), "path": path.replace("{id}", rid), "query": {},
                "headers": headers}
        if body is not None:
            args["body"] = body
        result: dict[str, Any] = {"status": status, "headers": {
            "content-type": "application/json"}}
        if resp is not None:
            result["body"] = resp
        start = 1_700_000_000_000_000_000 + i * 1_000_000
        out.append({"trace_id": f"trace-{t:05d}", "event_id": f"e{seq}", "seq": seq,
                    "kind": "http", "name": f"{method.upper()} {path}", "status":
                    "ok" if status < 400 else "error", "start_ns": start,
                    "end_ns": start + 500_000, "args": args, "result": result})
    return out


def _child(what: str, store: str, doc: str) -> None:
    import time

    from workbench.invariants import check_invariants, load_spec
    from workbench.rules import check, parse_rules
    from workbench.store import Store

    s = Store(store)
    if what == "invariants":
        t0 = time.perf_counter()
        spec = load_spec(doc)
        r = check_invariants(s, spec, record=False)
        n, extra = len(r.findings), {"judged": r.judged, "exchanges": r.exchanges,
                                     "by": {k: sum(f.rule == k for f in r.findings)
                                            for k in r.invariants}}
    else:
        rules = parse_rules(RULES, "bench.yaml")
        t0 = time.perf_counter()
        c = check(s, rules, engine="duckdb", record=False)
        n, extra = len(c.findings), {}
    print(json.dumps({"seconds": time.perf_counter() - t0, "findings": n, **extra}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--operations", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(*args.child)
        return 0
    from workbench.ingest import ingest
    from workbench.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        doc = generate(args.operations, 0)
        (root / "openapi.json").write_text(json.dumps(doc))
        src = root / "traffic.jsonl"
        with src.open("w") as f:
            f.write(json.dumps({"format": "workbench-events", "version": 1}) + "\n")
            for e in _events(doc, args.events, 0):
                f.write(json.dumps(e) + "\n")
        store = root / "store"
        ingest([src], Store(store))
        warm(store)
        runs: dict[str, list[dict[str, Any]]] = {"invariants": [], "check": []}
        failures: list[str] = []
        for _ in range(args.repeat):
            for what in runs:
                try:
                    runs[what].append(measure([sys.executable, str(HERE / "invariants.py"),
                                               "--child", what, str(store),
                                               str(root / "openapi.json")], what))
                except ChildFailed as exc:
                    failures.append(f"{what}: {exc}")
    med = {k: statistics.median(r["seconds"] for r in v) for k, v in runs.items() if v}
    doc_out = {"events": args.events, "operations": args.operations, "traces": TRACES,
               "seconds": {k: round(v, 3) for k, v in med.items()},
               "peak_rss_mb": {k: max(r["peak_rss_mb"] for r in v) for k, v in runs.items()
                               if v},
               "findings": {k: v[-1]["findings"] for k, v in runs.items() if v},
               "by_invariant": runs["invariants"][-1].get("by") if runs["invariants"] else {},
               "ratio_invariants_to_check": round(med["invariants"] / med["check"], 2)
               if len(med) == 2 else None,
               "target_seconds": TARGET_SECONDS,
               "met": med.get("invariants", 1e9) < TARGET_SECONDS, "failures": failures}

    def report(d: dict[str, Any]) -> None:
        print(f"{d['events']:,} HTTP events, {d['operations']} operations, "
              f"{d['traces']} traces")
        for k, v in d["seconds"].items():
            print(f"  {k:<11} {v:8.3f} s  peak {d['peak_rss_mb'][k]:7.0f} MB  "
                  f"{d['findings'][k]:,} findings")
        print(f"  ratio (invariants / check): {d['ratio_invariants_to_check']}")
        print(f"  by invariant: {d['by_invariant']}")
        print(f"  target: invariants < {TARGET_SECONDS:.0f} s: "
              f"{'met' if d['met'] else 'NOT met'}")
        for f in d["failures"]:
            print("  failure:", f)

    return finish(doc_out, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
