"""Rule checking over a large store: our SQL engine against hand-written DuckDB SQL and
against our Python engine.

    python bench/check.py [--events 10000000] [--store DIR] [--repeat 3] [--json]

Writes a synthetic store straight into the store format (``bench/_storegen.py``; default
10M events, or as many as fit in ``--max-gb`` 4 GiB of Parquet: the output says which),
then checks it with five rules of different bodies (``before``, ``never``, ``count``,
``every``, ``order``; ``RULES`` below) in the same run by

* **hand**: one hand-written DuckDB query per rule over
  ``read_parquet('STORE/events/**/*.parquet')``, as an expert would write it for this data
  (anti-joins, group-bys, a greedy chain for ``order``), returning the violating events;
* **sql**: our SQL engine, ``workbench.rules._sql.sql_violations`` on a ``Store.connect()``
  connection, one rule at a time (per-rule seconds; the total is their sum), then the whole
  rule set in one call (``sql-all``);
* **check**: ``check(store, rules, engine="duckdb", record=False)`` end to end: the SQL
  engine plus loading and wording every violating trace into a finding;
* **python**: our Python engine, ``check(..., engine="python", trace_ids=SAMPLE)`` on a
  deterministic sample of the traces (every 100th trace id: 1 %), extrapolated linearly
  to the full store by events (resolving the sample's ids, one read of the store's ids,
  is part of the measured time).

Each method runs in its own subprocess (peak RSS from ``wait4``), after the page cache is
warmed, interleaved, ``--repeat`` times (default 3); the median is reported. The violations
of **sql** and **hand** must be the same set (rule, trace, primary events), and the Python
engine's findings on the sample must match **sql** there; any difference is printed.
Targets: the SQL engine within **1.5x** of hand-written SQL, and **>= 50x** faster than the
Python engine on the full store.

This is a measurement, not a test: it exits 0 unless something crashed. Shared machines
are noisy; compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _measure import MB, ChildFailed, finish, measure, warm

HERE = Path(__file__).resolve().parent
TARGET_HAND = 1.5     # SQL engine seconds / hand-written seconds, at most
TARGET_PYTHON = 50.0  # Python engine seconds / SQL engine seconds, at least

RULES = """\
version: 1
rules:
  approval-before-archive:
    description: >-
      archive_project runs only after a request_approval for the same project_id
      finished with result.approved true
    before:
      first: {tool: request_approval, where: {result.approved: true}}
      then: {tool: archive_project}
      same: [args.project_id]
  no-retry-when-refused:
    description: >-
      once get_job said a job may not be retried, the agent does not call retry_job
      for that job
    never:
      event: {tool: retry_job}
      after: {tool: get_job, where: {result.retry_allowed: false}}
      same: [args.job_id]
  one-capture-per-cart:
    description: at most one charge per args.cart_id returns result.status captured
    count:
      event: {tool: charge, where: {result.status: captured}}
      per: [args.cart_id]
      max: 1
  known-job-status:
    description: get_job answers one of the statuses the agent was built for
    severity: warn
    every:
      event: {tool: get_job}
      where: {result.status: {in: [queued, running, succeeded, failed]}}
  fix-workflow:
    description: a trace searches, reads, patches and then runs the tests, in that order
    severity: warn
    order:
      steps: {s: {tool: search}, r: {tool: read_file}, p: {tool: apply_patch},
              t: {tool: run_tests}}
      edges: [[s, r], [r, p], [p, t]]
"""

# Happens-before of docs/design.md: a.end <= b.start where a has both times and b a start,
# else a.seq < b.seq.
_PRECEDES = """CASE WHEN {a}.start_ns IS NOT NULL AND {a}.end_ns IS NOT NULL
                    AND {b}.start_ns IS NOT NULL THEN {a}.end_ns <= {b}.start_ns
               ELSE {a}.seq < {b}.seq END"""

# One query per rule: rows (trace_id, ids) with ids the violation's primary events (the
# `then` of before, the `event` of never/every, the group of count, none for order).
# The ids of this data are JSON strings, so `->>` text equals the engines' JSON-typed keys.
HAND_SQL: dict[str, str] = {
    "approval-before-archive": """
WITH f AS (
  SELECT trace_id, args->>'$.project_id' AS k, seq, start_ns, end_ns FROM {events}
  WHERE kind = 'tool_call' AND name = 'request_approval'
    AND (result->'$.approved')::VARCHAR = 'true'
), t AS (
  SELECT trace_id, event_id, args->>'$.project_id' AS k, seq, start_ns FROM {events}
  WHERE kind = 'tool_call' AND name = 'archive_project'
)
SELECT t.trace_id, [t.event_id] AS ids FROM t
WHERE t.k IS NULL OR NOT EXISTS (
  SELECT 1 FROM f WHERE f.trace_id = t.trace_id AND f.k = t.k AND """
    + _PRECEDES.format(a="f", b="t") + ")",
    "no-retry-when-refused": """
WITH a AS (
  SELECT trace_id, args->>'$.job_id' AS k, seq, start_ns, end_ns FROM {events}
  WHERE kind = 'tool_call' AND name = 'get_job'
    AND (result->'$.retry_allowed')::VARCHAR = 'false'
), e AS (
  SELECT trace_id, event_id, args->>'$.job_id' AS k, seq, start_ns FROM {events}
  WHERE kind = 'tool_call' AND name = 'retry_job'
)
SELECT e.trace_id, [e.event_id] AS ids FROM e
WHERE EXISTS (
  SELECT 1 FROM a WHERE a.trace_id = e.trace_id AND a.k = e.k AND """
    + _PRECEDES.format(a="a", b="e") + ")",
    "one-capture-per-cart": """
SELECT trace_id, list(event_id ORDER BY seq) AS ids FROM {events}
WHERE kind = 'tool_call' AND name = 'charge' AND result->>'$.status' = 'captured'
  AND args->>'$.cart_id' IS NOT NULL
GROUP BY trace_id, args->>'$.cart_id'
HAVING count(*) > 1
""",
    "known-job-status": """
SELECT trace_id, [event_id] AS ids FROM {events}
WHERE kind = 'tool_call' AND name = 'get_job'
  AND NOT coalesce(json_type(result, '$.status') = 'VARCHAR'
                   AND result->>'$.status' IN ('queued', 'running', 'succeeded', 'failed'),
                   false)
""",
    # A chain s -> r -> p -> t: greedily the earliest-ending event of each step that starts
    # after the previous step's pick ended. Exact when the events have times (checked).
    "fix-workflow": """
WITH st AS (
  SELECT trace_id, name, start_ns, end_ns FROM {events}
  WHERE kind = 'tool_call' AND name IN ('search', 'read_file', 'apply_patch', 'run_tests')
), s AS (
  SELECT trace_id, min(end_ns) AS e FROM st WHERE name = 'search' GROUP BY trace_id
), r AS (
  SELECT st.trace_id, min(st.end_ns) AS e FROM st JOIN s ON st.trace_id = s.trace_id
  WHERE st.name = 'read_file' AND st.start_ns >= s.e GROUP BY st.trace_id
), p AS (
  SELECT st.trace_id, min(st.end_ns) AS e FROM st JOIN r ON st.trace_id = r.trace_id
  WHERE st.name = 'apply_patch' AND st.start_ns >= r.e GROUP BY st.trace_id
), ok AS (
  SELECT DISTINCT st.trace_id FROM st JOIN p ON st.trace_id = p.trace_id
  WHERE st.name = 'run_tests' AND st.start_ns >= p.e
)
SELECT tr.trace_id, []::VARCHAR[] AS ids FROM {traces} tr
WHERE NOT EXISTS (SELECT 1 FROM ok WHERE ok.trace_id = tr.trace_id)
""",
}

_ORDER_TIMES = """
SELECT count(*) FROM {events}
WHERE kind = 'tool_call' AND name IN ('search', 'read_file', 'apply_patch', 'run_tests')
  AND (start_ns IS NULL OR end_ns IS NULL)
"""


def _lit(s: str | Path) -> str:
    return "'" + str(s).replace("'", "''") + "'"


def _tables(root: str) -> dict[str, str]:
    return {t: f"read_parquet({_lit(Path(root) / t / '**' / '*.parquet')}, "
               "hive_partitioning = false)" for t in ("events", "traces")}


def _rules() -> Any:
    from workbench.rules import parse_rules

    return parse_rules(RULES, source="bench/check.py")


def _events(root: str) -> int:
    import pyarrow.parquet as pq

    from workbench.store import Store

    return sum(pq.ParquetFile(f).metadata.num_rows for f in Store(root).files("events"))


# --- the measured work, run in a child process -----------------------------------------

def _child_hand(root: str, _: float) -> dict[str, Any]:
    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect()
    tables = _tables(root)
    per_rule: dict[str, float] = {}
    found: dict[str, list[list[Any]]] = {}
    for rule_id, sql in HAND_SQL.items():
        t = time.perf_counter()
        rows = con.execute(sql.format(**tables)).fetchall()
        per_rule[rule_id] = time.perf_counter() - t
        found[rule_id] = [[tid, sorted(ids)] for tid, ids in rows]
    seconds = time.perf_counter() - t0
    untimed = con.execute(_ORDER_TIMES.format(**tables)).fetchall()[0][0]
    threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
    con.close()
    return {"seconds": seconds, "per_rule": per_rule, "violations": found,
            "events": _events(root), "order_events_without_times": int(untimed),
            "threads": int(threads), "version": duckdb.__version__}


def _child_sql(root: str, _: float) -> dict[str, Any]:
    from workbench.rules import RuleSet
    from workbench.rules._sql import sql_violations
    from workbench.store import Store

    store, rules = Store(root), _rules()
    loaded: list[str] = []

    def load(tid: str) -> Any:  # the engine asks for a trace it cannot judge in SQL
        loaded.append(tid)
        return store.trace(tid)

    t0 = time.perf_counter()
    con = store.connect()
    connect = time.perf_counter() - t0
    per_rule: dict[str, float] = {}
    loads: dict[str, int] = {}
    found: dict[str, list[list[Any]]] = {r.id: [] for r in rules}
    for rule in rules:
        t, n = time.perf_counter(), len(loaded)
        hits = sql_violations(con, RuleSet((rule,)), None, load)
        per_rule[rule.id] = time.perf_counter() - t
        loads[rule.id] = len(loaded) - n
        for rid, tid, primary in hits:
            found[rid].append([tid, sorted(primary)])
    seconds = connect + sum(per_rule.values())
    t = time.perf_counter()
    all_hits = sql_violations(con, rules, None, load)
    all_seconds = time.perf_counter() - t + connect
    con.close()
    return {"seconds": seconds, "connect_seconds": connect, "per_rule": per_rule,
            "loads": loads, "violations": found, "all_seconds": all_seconds,
            "all_violations": len(all_hits), "events": _events(root)}


def _child_check(root: str, _: float) -> dict[str, Any]:
    from workbench.rules import check
    from workbench.store import Store

    rules = _rules()
    t0 = time.perf_counter()
    res = check(Store(root), rules, engine="duckdb", record=False)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "findings": len(res.findings),
            "traces_with_findings": len({f.trace_id for f in res.findings}),
            "traces_checked": res.traces_checked, "events": _events(root)}


def sample_ids(ids: set[str] | list[str], fraction: float) -> list[str]:
    """Every k-th trace id in sorted order (k = 1 / fraction): deterministic, and spread
    over the store's files and row groups."""
    step = max(1, round(1 / fraction))
    return sorted(ids)[::step]


def _child_python(root: str, fraction: float) -> dict[str, Any]:
    import duckdb

    from workbench.rules import check
    from workbench.store import Store

    known = Store(root).trace_ids()
    store, rules = Store(root), _rules()
    ids = sample_ids(known, fraction)
    t0 = time.perf_counter()
    res = check(store, rules, trace_ids=ids, engine="python", record=False)
    seconds = time.perf_counter() - t0
    con = duckdb.connect()
    con.execute("CREATE TEMP TABLE s (trace_id VARCHAR)")
    con.executemany("INSERT INTO s VALUES (?)", [[i] for i in ids])
    sample_events = con.execute(
        f"SELECT count(*) FROM {_tables(root)['events']} e SEMI JOIN s USING (trace_id)"
    ).fetchall()[0][0]
    con.close()
    return {"seconds": seconds, "sample_traces": len(ids), "sample_events": int(sample_events),
            "events": _events(root),
            "findings": [[f.rule, f.trace_id, list(f.event_ids)] for f in res.findings]}


CHILDREN = {"hand": _child_hand, "sql": _child_sql, "check": _child_check,
            "python": _child_python}


def _child_main(method: str, root: str, fraction: float) -> int:
    res = CHILDREN[method](root, fraction)
    sys.stdout.write("\n" + json.dumps(res) + "\n")
    sys.stdout.flush()
    return 0


# --- the parent ------------------------------------------------------------------------

def run_child(method: str, root: Path, fraction: float) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter; add its peak RSS."""
    return measure([sys.executable, str(Path(__file__).resolve()), "--_child", method,
                    "--store", str(root), "--python-fraction", repr(fraction)], method)


def generate(root: Path, events: int, seed: int, max_gb: float, log: Any) -> dict[str, Any]:
    """Write (or reuse) the store with ``_storegen.py`` in a subprocess, so this process
    stays small: a child's peak RSS from ``wait4`` starts at its parent's size at fork."""
    cmd = [sys.executable, str(HERE / "_storegen.py"), str(root), "--events", str(events),
           "--seed", str(seed), "--max-gb", repr(max_gb)]
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    for line in proc.stderr.splitlines():
        log(line)
    if proc.returncode != 0:
        raise ChildFailed(f"generating the store failed (exit {proc.returncode})")
    stats: dict[str, Any] = json.loads(proc.stdout)
    return stats


def _key_sets(violations: dict[str, list[list[Any]]]) -> dict[str, set[tuple[str, ...]]]:
    return {rid: {(tid, *ids) for tid, ids in rows} for rid, rows in violations.items()}


def compare(a: dict[str, list[list[Any]]], b: dict[str, list[list[Any]]],
            only: set[str] | None = None) -> dict[str, Any]:
    """Per rule: the violations only one side found (at most 5 examples each)."""
    sa, sb = _key_sets(a), _key_sets(b)
    out: dict[str, Any] = {}
    for rid in sorted(set(sa) | set(sb)):
        x, y = sa.get(rid, set()), sb.get(rid, set())
        if only is not None:
            x, y = {k for k in x if k[0] in only}, {k for k in y if k[0] in only}
        out[rid] = {"a": len(x), "b": len(y), "same": x == y,
                    "only_a": [list(k) for k in sorted(x - y)[:5]],
                    "only_b": [list(k) for k in sorted(y - x)[:5]],
                    "only_a_count": len(x - y), "only_b_count": len(y - x)}
    return out


def python_primaries(findings: list[list[Any]]) -> dict[str, list[list[Any]]]:
    """The Python engine's findings as primaries (the offender first, the whole group of a
    count, nothing for order/exists), to compare with the SQL engine's violations."""
    rules = {r.id: r.kind for r in _rules()}
    out: dict[str, list[list[Any]]] = {rid: [] for rid in rules}
    for rid, tid, ids in findings:
        kind = rules[rid]
        prim = ids if kind == "count" else [] if kind in ("order", "exists") else ids[:1]
        out[rid].append([tid, sorted(prim)])
    return out


def summarize(runs: list[dict[str, Any]], key: str = "seconds") -> dict[str, Any]:
    return {"seconds": statistics.median(r[key] for r in runs),
            "runs_seconds": [round(r[key], 3) for r in runs],
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}


def bench(ns: argparse.Namespace, root: Path, log: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "requested_events": ns.events, "max_gb": ns.max_gb}
    log(f"store: {root} ({ns.events:,} events requested, cap {ns.max_gb:g} GiB) ...")
    gen = generate(root, ns.events, ns.seed, ns.max_gb, log)
    doc["store"] = gen
    events = gen["events"]
    log(f"store: {events:,} events in {gen['traces']:,} traces, "
        f"{gen['bytes'] / MB:,.0f} MB of Parquet ({gen['files']} events files), "
        + ("reused" if gen["reused"] else f"generated in {gen['seconds']:.1f}s"))
    warm(root)

    methods = ["hand", "sql", "check", "python"]
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    failures: dict[str, str] = {}
    for i in range(ns.repeat):
        for m in methods:
            if m in failures or (m == "python" and i >= (ns.python_repeat or ns.repeat)):
                continue
            try:
                r = run_child(m, root, ns.python_fraction)
            except ChildFailed as exc:
                failures[m] = str(exc)
                log(str(exc))
                continue
            runs[m].append(r)
            log(f"  run {i + 1}/{ns.repeat} {m:<6} {r['seconds']:9.2f}s  "
                f"peak RSS {r['peak_rss_mb']:,.0f} MB")
    doc["failures"] = failures
    res: dict[str, Any] = {}
    for m, rs in runs.items():
        if rs:
            res[m] = summarize(rs)
    if runs["sql"]:
        res["sql-all"] = summarize(runs["sql"], "all_seconds")
    per_rule = {}
    for rule in _rules():
        row: dict[str, Any] = {"body": rule.kind}
        for m in ("hand", "sql"):
            if runs[m]:
                row[m] = statistics.median(r["per_rule"][rule.id] for r in runs[m])
                row[f"{m}_violations"] = len(runs[m][0]["violations"][rule.id])
        if runs["sql"]:
            row["loads"] = runs["sql"][0]["loads"][rule.id]
        if "hand" in row and "sql" in row:
            row["ratio"] = row["sql"] / row["hand"] if row["hand"] else None
        per_rule[rule.id] = row
    doc["per_rule"] = per_rule
    if runs["hand"]:
        doc["order_events_without_times"] = runs["hand"][0]["order_events_without_times"]
        doc["duckdb"] = {"threads": runs["hand"][0]["threads"],
                         "version": runs["hand"][0]["version"]}
    if runs["check"]:
        doc["check_findings"] = runs["check"][0]["findings"]
    if runs["python"]:
        p = runs["python"][0]
        sec = res["python"]["seconds"]
        res["python"].update(
            measured_seconds=sec, sample_traces=p["sample_traces"],
            sample_events=p["sample_events"],
            seconds=sec * events / p["sample_events"] if p["sample_events"] else 0.0)
    for r in res.values():
        r["events"] = events
        r["events_per_s"] = events / r["seconds"] if r["seconds"] else 0.0
    doc["results"] = res
    if runs["hand"] and runs["sql"]:
        doc["agreement"] = compare(runs["sql"][0]["violations"], runs["hand"][0]["violations"])
    if runs["python"]:
        sample = set(sample_ids(runs_trace_ids(root), ns.python_fraction))
        py = python_primaries(runs["python"][0]["findings"])
        for m in ("sql", "hand"):
            if runs[m]:
                doc[f"python_agreement_{m}"] = compare(runs[m][0]["violations"], py,
                                                       only=sample)
    if "hand" in res and "sql" in res:
        doc["ratio_sql_over_hand"] = res["sql"]["seconds"] / res["hand"]["seconds"]
    if "python" in res and "check" in res:
        doc["ratio_python_over_check"] = res["python"]["seconds"] / res["check"]["seconds"]
    if "python" in res and "sql" in res:
        doc["ratio_python_over_sql"] = res["python"]["seconds"] / res["sql"]["seconds"]
    doc["targets"] = {"sql_over_hand_max": TARGET_HAND, "python_over_sql_min": TARGET_PYTHON}
    return doc


def runs_trace_ids(root: Path) -> set[str]:
    from workbench.store import Store

    return Store(root).trace_ids()


LABELS = {"hand": "(b) hand-written SQL", "sql": "(a) SQL engine, per rule",
          "sql-all": "(a) SQL engine, one call", "check": "(a) check() duckdb, end to end",
          "python": "(c) Python engine *"}


def report(doc: dict[str, Any]) -> None:
    st = doc["store"]
    print()
    size = f"{st['bytes'] / MB:,.0f} MB of Parquet on disk ({st['bytes'] / (1 << 30):.2f} GiB)"
    if st["capped"]:
        print(f"store: {st['events']:,} events in {st['traces']:,} traces, {size}: CAPPED by "
              f"the {doc['max_gb']:g} GiB limit ({doc['requested_events']:,} requested)")
    else:
        print(f"store: {st['events']:,} events in {st['traces']:,} traces, {size}: the full "
              f"{doc['requested_events']:,} events (under the {doc['max_gb']:g} GiB cap)")
    res = doc["results"]
    hand = res.get("hand", {}).get("seconds")
    print(f"\n{'method':<32} {'events':>11} {'seconds':>10} {'events/s':>12} "
          f"{'peak RSS MB':>12} {'x hand':>8}")
    for m in ("hand", "sql", "sql-all", "check", "python"):
        if m not in res:
            continue
        r = res[m]
        ratio = f"{r['seconds'] / hand:8.2f}" if hand else f"{'-':>8}"
        print(f"{LABELS[m]:<32} {r['events']:>11,} {r['seconds']:>10.2f} "
              f"{r['events_per_s']:>12,.0f} {r['peak_rss_mb']:>12,.0f} {ratio}")
    if "python" in res:
        p = res["python"]
        print(f"* EXTRAPOLATED from {p['sample_events']:,} events in {p['sample_traces']:,} "
              f"traces (every {round(1 / doc['python_fraction'])}th trace id): "
              f"{p['measured_seconds']:.2f}s measured, x {st['events'] / p['sample_events']:,.1f}")
    print(f"\n{'rule':<26} {'body':<7} {'violations':>10} {'hand s':>8} {'ours s':>8} "
          f"{'ours/hand':>9}")
    for rid, r in doc["per_rule"].items():
        v = r.get("sql_violations", r.get("hand_violations", "-"))
        ratio = f"{r['ratio']:9.2f}" if r.get("ratio") else f"{'-':>9}"
        hs = f"{r['hand']:8.2f}" if "hand" in r else f"{'-':>8}"
        os_ = f"{r['sql']:8.2f}" if "sql" in r else f"{'-':>8}"
        print(f"{rid:<26} {r['body']:<7} {v:>10,} {hs} {os_} {ratio}"
              + (f"  ({r['loads']} traces loaded)" if r.get("loads") else ""))
    print()
    if "ratio_sql_over_hand" in doc:
        print(f"SQL engine / hand-written = {doc['ratio_sql_over_hand']:.2f} "
              f"(target <= {TARGET_HAND})")
    if "ratio_python_over_sql" in doc:
        print(f"Python / SQL engine = {doc['ratio_python_over_sql']:,.0f} "
              f"(target >= {TARGET_PYTHON:g}); Python / check() end to end = "
              f"{doc['ratio_python_over_check']:,.0f}")
    for name, what in (("agreement", "SQL engine vs hand-written"),
                       ("python_agreement_sql", "SQL engine vs Python engine on the sample"),
                       ("python_agreement_hand", "hand-written vs Python engine on the sample")):
        if name not in doc:
            continue
        bad = {k: v for k, v in doc[name].items() if not v["same"]}
        if not bad:
            total = sum(v["a"] for v in doc[name].values())
            print(f"{what}: same violations ({total:,})")
        for rid, v in bad.items():
            print(f"MISMATCH {what}, {rid}: {v['only_a_count']} only in the first "
                  f"{v['only_a'][:2]}, {v['only_b_count']} only in the second {v['only_b'][:2]}")
    if doc.get("order_events_without_times"):
        print(f"WARNING: {doc['order_events_without_times']} order-step events lack times; "
              "the hand-written order query is not exact for them")
    for m, msg in doc["failures"].items():
        print(f"{m}: FAILED ({msg.splitlines()[0]})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000_000, help="events to generate")
    ap.add_argument("--max-gb", type=float, default=4.0,
                    help="stop generating before the events files pass this many GiB")
    ap.add_argument("--store", help="generate into (or reuse) this store; kept")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each method (median)")
    ap.add_argument("--python-fraction", type=float, default=0.01,
                    help="share of the traces the Python engine checks (default 1%%)")
    ap.add_argument("--python-repeat", type=int,
                    help="runs of the (slow) Python engine (default: --repeat)")
    ap.add_argument("--workdir", help="where the temporary store goes (default: system temp)")
    ap.add_argument("--keep", action="store_true", help="keep the generated store")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ap.add_argument("--_child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns._child:
        return _child_main(ns._child, ns.store, ns.python_fraction)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if ns.json else sys.stdout, flush=True)

    work = None if ns.store else Path(tempfile.mkdtemp(prefix="wb-bench-check-",
                                                       dir=ns.workdir))
    root = Path(ns.store).resolve() if ns.store else work / "store"  # type: ignore[operator]
    try:
        doc = bench(ns, root, log)
        doc["python_fraction"] = ns.python_fraction
    finally:
        if work is not None:
            if ns.keep:
                log(f"kept: {root}")
            else:
                shutil.rmtree(work, ignore_errors=True)
    return finish(doc, ns.json, report)


if __name__ == "__main__":
    sys.exit(main())
