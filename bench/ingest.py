"""Ingest throughput and peak memory, whole process against DuckDB's own JSON -> Parquet.

    python bench/ingest.py [--events 20000,200000] [--repeat 3] [--floor]
                           [--big-gb 0] [--input FILE] [--personal-off-too]
                           [--baseline DIR] [--json]

For each size, generates OTLP/JSON GenAI traces as collector JSON lines
(``bench/_otlpgen.py``), then in the same run times, each as a fresh process from start
to exit (interpreter start and imports included), interleaved, ``--repeat`` times after
the page cache is warm:

* **duckdb**: ``python -c`` running DuckDB's ``read_json`` of the file and
  ``COPY (...) TO x.parquet`` with the spans unnested to one row per span (its default
  thread count),
* **ours**: ``python -m workbench ingest FILE --store DIR --json`` (redaction on, the
  default),
* **ours-plain**: the same with ``--no-redact``,
* **base**, **base-plain** (with ``--baseline DIR``): ours and ours-plain run from the
  checkout in ``DIR`` (``git worktree add DIR COMMIT``) on the run's ``PYTHONPATH``
  (the workers inherit it), so a change is measured against the code before it in the
  same run; the report prints each one's ratio and ours' CPU seconds over base's,
* **ours-personal-off** (with ``--personal-off-too``): ours with the free-text
  personal-data finders and their gate turned off, for measuring only, by
  ``bench/personal_off/sitecustomize.py`` on the run's ``PYTHONPATH`` (the workers
  inherit it); the report prints what the finders cost the ratio (target <= 0.05).

It reports the median wall time and CPU seconds (the process and its workers, from
``wait4``), events/s, MB/s, the largest peak RSS and the ratio ours / duckdb in events/s.
Target: ours >= 0.6x DuckDB with redaction on, at every size.

``--floor`` adds, per size, what no design that runs today's detectors could beat: the
interpreter start with DuckDB and the detectors imported, and the detectors run once on
each *distinct* string and key of the stored events (listed by DuckDB from a
``--no-redact`` store of the same file, not timed). The best ratio such a design could
reach on this machine is DuckDB's wall time over (that import + (DuckDB's CPU seconds +
the detectors' CPU seconds) / cores): the spans parsed no faster than DuckDB parses
them, both cores busy all the time, nothing else done.

``--big-gb N`` ingests an N-GiB file with ours only and prints file size and peak RSS
side by side. This is a measurement, not a test: it exits 0 unless something crashed.
Shared machines are noisy; compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import contextlib
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
#: a small trace each method ingests once, untimed, before the timed runs
EXAMPLE = HERE.parent / "traces" / "examples" / "archive-incident.otlp.json"
TARGET_RATIO = 0.6
#: what the free-text personal-data finders may cost the ratio
PERSONAL_TARGET = 0.05

# One row per span, as DuckDB's own reader types it; attributes stay nested.
DUCKDB_COPY = """
COPY (
  SELECT s.traceId AS trace_id, s.spanId AS span_id, s.parentSpanId AS parent_span_id,
         s.name AS name, s.kind AS kind,
         s.startTimeUnixNano AS start_time_unix_nano, s.endTimeUnixNano AS end_time_unix_nano,
         s.attributes AS attributes, s.events AS events, s.status AS status,
         ss.scope.name AS scope_name, rs.resource.attributes AS resource_attributes
  FROM (SELECT unnest(resourceSpans) AS rs FROM read_json(?, format = 'newline_delimited')) r,
       LATERAL (SELECT unnest(r.rs.scopeSpans) AS ss) x,
       LATERAL (SELECT unnest(x.ss.spans) AS s) y
) TO '{dst}' (FORMAT parquet)
"""


def _copy_script(sql: str) -> str:
    """A process that runs one ``COPY (...) TO '{dst}'`` reading ``argv[1]`` and writing
    ``argv[2]``: the rows written, DuckDB's threads and version, the query's CPU."""
    return f"""
import json, sys, time
import duckdb
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
c0 = time.process_time()
con.execute({sql!r}.replace("{{dst}}", dst.replace("'", "''")), [src])
cpu = time.process_time() - c0  # every thread of the process
n = con.execute("SELECT count(*) FROM read_parquet(?)", [dst]).fetchall()[0][0]
t = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
print(json.dumps({{"events": int(n), "threads": int(t), "version": duckdb.__version__,
                  "query_cpu": cpu}}))
"""


# The whole DuckDB process: what a user would run instead of ingesting.
DUCKDB_SCRIPT = _copy_script(DUCKDB_COPY)

#: the least a process that runs the detectors must import
IMPORT_FLOOR = "import duckdb, workbench.redact"

#: the environment of the "ours-personal-off" runs: bench/personal_off/sitecustomize.py
#: turns the free-text personal-data finders off in every interpreter of the run
PERSONAL_OFF = HERE / "personal_off"

LABELS = {"duckdb": "python -c: duckdb read_json -> parquet",
          "ours": "python -m workbench ingest (redaction on, the default)",
          "ours-plain": "python -m workbench ingest --no-redact",
          "ours-personal-off": "ours, free-text personal-data finders off (measuring only)",
          "base": "ours from the --baseline checkout",
          "base-plain": "ours-plain from the --baseline checkout"}

#: the checkout the "base" methods run from (``--baseline``)
BASELINE: list[Path] = []


def _cached_env() -> dict[str, str]:
    """The children's environment: their modules' bytecode cached, as an installed
    package has it (``PYTHONDONTWRITEBYTECODE`` would make every process compile the
    workbench's sources again; the untimed first run of each method writes the cache)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _baseline_env() -> dict[str, str]:
    env = _cached_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(BASELINE[0]), env.get("PYTHONPATH"))
                                        if p)
    return env


def _personal_off_env() -> dict[str, str]:
    env = _cached_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PERSONAL_OFF),
                                                    env.get("PYTHONPATH")) if p)
    env["WORKBENCH_BENCH_PERSONAL_OFF"] = "1"
    return env


def _check_personal_off() -> None:
    """The switch of ``ours-personal-off`` takes in a fresh interpreter of its env."""
    code = ("from workbench.redact import _detect; "
            "assert _detect.find_personal.__name__ == '_personal_off'")
    done = subprocess.run([sys.executable, "-c", code], env=_personal_off_env(),
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise ChildFailed("the personal-data finders are still on (sitecustomize not "
                          "loaded)")


# --- the measured processes ------------------------------------------------------------

def command(method: str, src: Path, out: Path) -> list[str]:
    """The whole process of one method."""
    if method == "duckdb":
        return [sys.executable, "-c", DUCKDB_SCRIPT, str(src), str(out / "spans.parquet")]
    cmd = [sys.executable, "-m", "workbench", "ingest", str(src), "--store",
           str(out / "store"), "--json"]
    return [*cmd, "--no-redact"] if method in ("ours-plain", "base-plain") else cmd


def run_method(method: str, src: Path, work: Path, *, keep: Path | None = None
               ) -> dict[str, Any]:
    """One run of one method in a fresh process: wall and CPU seconds, peak memory and
    the events it wrote (``keep``: leave its output there)."""
    out = keep or Path(tempfile.mkdtemp(prefix=f"{method}-", dir=work))
    try:
        env = (_personal_off_env() if method == "ours-personal-off"
               else _baseline_env() if method.startswith("base") else _cached_env())
        res = measure(command(method, src, out), method, cwd=work, sample_tree=True, env=env)
    finally:
        if keep is None:
            shutil.rmtree(out, ignore_errors=True)
    res["seconds"] = res["wall_seconds"]
    if method != "duckdb":
        res["events"] = int(res["events"])
        res["traces"] = len(res.get("traces", ()))
    return res


def summarize(method: str, runs: list[dict[str, Any]], nbytes: int) -> dict[str, Any]:
    sec = statistics.median(r["seconds"] for r in runs)
    events = runs[0]["events"]
    out = {"method": method, "events": events, "seconds": sec,
           "events_per_s": events / sec if sec else 0.0,
           "mb_per_s": nbytes / MB / sec if sec else 0.0,
           "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
           "peak_tree_mb": max(r["peak_tree_mb"] for r in runs),
           "runs_seconds": [round(r["seconds"], 3) for r in runs],
           "cpu_seconds": statistics.median(r["cpu_seconds"] for r in runs),
           "runs_cpu_seconds": [round(r["cpu_seconds"], 3) for r in runs]}
    if "query_cpu" in runs[0]:
        out["query_cpu_seconds"] = statistics.median(r["query_cpu"] for r in runs)
        out["best_query_cpu_seconds"] = min(r["query_cpu"] for r in runs)
    out["best_seconds"] = min(r["seconds"] for r in runs)
    for k in ("threads", "version", "traces"):
        if k in runs[0]:
            out[k] = runs[0][k]
    return out


# --- the floor -------------------------------------------------------------------------

# A stand-in for mapping the spans in SQL, in one query, typed at the read: kind, ids,
# times, status, args and result from the GenAI attributes, the other attributes as a
# JSON object, sorted. It does less than ingest's mapping (attribute values stay in
# their OTLP wrappers, message texts are not parsed), so its time is a lower bound.
_ATTRS = "STRUCT(key VARCHAR, value JSON)[]"
_COLUMNS = ("{'resourceSpans': 'STRUCT(resource STRUCT(attributes " + _ATTRS + "), "
            "scopeSpans STRUCT(scope STRUCT(name VARCHAR, version VARCHAR), "
            "spans STRUCT(traceId VARCHAR, spanId VARCHAR, parentSpanId VARCHAR, "
            "name VARCHAR, kind INTEGER, startTimeUnixNano VARCHAR, endTimeUnixNano VARCHAR, "
            "attributes " + _ATTRS + ", events STRUCT(name VARCHAR, timeUnixNano VARCHAR, "
            "attributes " + _ATTRS + ")[], status STRUCT(code INTEGER, message VARCHAR))[])"
            "[])[]'}")
_MOVED = ("'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', "
          "'gen_ai.tool.call.result'")
MAP_SQL = f"""
COPY (
WITH r AS (SELECT unnest(resourceSpans) AS rs
           FROM read_json(?, format = 'newline_delimited', columns = {_COLUMNS})),
ss AS (SELECT unnest(rs.scopeSpans) AS ss FROM r),
sp AS (SELECT ss.scope AS scope, unnest(ss.spans) AS s FROM ss),
m AS (SELECT s, scope, map_from_entries(list_transform(s.attributes,
                                                       lambda x: (x.key, x.value))) AS a
      FROM sp)
SELECT s.traceId AS trace_id, s.spanId AS event_id, nullif(s.parentSpanId, '') AS parent_id,
  CASE a['gen_ai.operation.name'] ->> 'stringValue' WHEN 'chat' THEN 'model_call'
       WHEN 'execute_tool' THEN 'tool_call' WHEN 'invoke_agent' THEN 'agent'
       ELSE 'span' END AS kind,
  s.name AS name, s.startTimeUnixNano::BIGINT AS start_ns,
  s.endTimeUnixNano::BIGINT AS end_ns,
  CASE s.status.code WHEN 2 THEN 'error' ELSE 'ok' END AS status,
  coalesce(a['gen_ai.input.messages'] ->> 'stringValue',
           a['gen_ai.tool.call.arguments'] ->> 'stringValue') AS args,
  coalesce(a['gen_ai.output.messages'] ->> 'stringValue',
           a['gen_ai.tool.call.result'] ->> 'stringValue') AS result,
  s.status.message AS error,
  to_json(map_from_entries(list_transform(
      list_filter(s.attributes, lambda x: x.key NOT IN ({_MOVED})),
      lambda x: (x.key, x.value)))) AS attrs,
  to_json(s.events) AS events, scope.name AS scope
FROM m ORDER BY trace_id, start_ns
) TO '{{dst}}' (FORMAT parquet)
"""

MAP_SCRIPT = _copy_script(MAP_SQL)

# What the columnar design must do before the detectors can run: list the distinct
# strings of the mapped values (every JSON string token of the stand-in's columns).
LIST_SQL = r"""
SELECT count(*) FROM (SELECT DISTINCT s FROM (
  SELECT unnest(regexp_extract_all(concat_ws(' ', args, result, error, attrs, events),
                                   '"((?:[^"\\]|\\.)*)"', 1)) AS s
  FROM read_parquet(?)))
"""

LIST_SCRIPT = f"""
import json, sys, time
import duckdb
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
c0 = time.process_time()
n = con.execute({LIST_SQL!r}, [sys.argv[1]]).fetchall()[0][0]
print(json.dumps({{"listed": int(n), "list_cpu": time.process_time() - c0}}))
"""

# Each distinct string leaf and object key of the stored values, once.
_DISTINCT = """
WITH ev AS (SELECT args, result, error, attrs FROM read_parquet(?)),
docs AS (SELECT args AS d FROM ev UNION ALL SELECT result FROM ev
         UNION ALL SELECT error FROM ev UNION ALL SELECT attrs FROM ev),
t AS (SELECT j.key AS k, j.type AS ty, j.value AS v
      FROM docs, json_tree(docs.d) j WHERE docs.d IS NOT NULL)
SELECT 's' AS what, v::VARCHAR AS x FROM t WHERE ty = 'VARCHAR'
UNION SELECT 'k', to_json(k)::VARCHAR FROM t WHERE k IS NOT NULL
"""

FLOOR_SCRIPT = """
import json, sys, time
import duckdb
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
rows = con.execute(sys.argv[2], [sys.argv[1]]).fetchall()
strings = [json.loads(x) for w, x in rows if w == 's']
keys = [json.loads(x) for w, x in rows if w == 'k']
from workbench.redact import Redactor
r = Redactor(bytes(32))
t0, c0 = time.perf_counter(), time.process_time()
changed = sum(r.value(s) is not s for s in strings)
changed_keys = 0
for k in keys:
    d = {k: 0}
    changed_keys += r.value(d) is not d
print(json.dumps({"strings": len(strings), "chars": sum(map(len, strings)),
                  "keys": len(keys), "changed": changed, "changed_keys": changed_keys,
                  "detector_cpu": time.process_time() - c0,
                  "detector_wall": time.perf_counter() - t0}))
"""


def floor(src: Path, work: Path, repeat: int, duckdb_row: dict[str, Any],
          log: Any) -> dict[str, Any]:
    """The import, the spans mapped in one query and the detectors on distinct values,
    and the best ratio they allow."""
    store = Path(tempfile.mkdtemp(prefix="floor-", dir=work))
    try:
        run_method("ours-plain", src, work, keep=store)
        events = str(store / "store" / "events" / "**" / "*.parquet")
        det = [measure([sys.executable, "-c", FLOOR_SCRIPT, events, _DISTINCT], "floor",
                       cwd=work) for _ in range(repeat)]
        mapped = store / "m.parquet"
        maps = [measure([sys.executable, "-c", MAP_SCRIPT, str(src), str(mapped)], "map",
                        cwd=work) for _ in range(repeat)]
        lists = [measure([sys.executable, "-c", LIST_SCRIPT, str(mapped)], "list", cwd=work)
                 for _ in range(repeat)]
    finally:
        shutil.rmtree(store, ignore_errors=True)
    imports = [measure([sys.executable, "-c", IMPORT_FLOOR + "; print('{}')"], "import",
                       cwd=work)["wall_seconds"] for _ in range(max(repeat, 3))]
    # each part at its best run, against DuckDB's best run: noise that slows one
    # DuckDB run does not raise the bound
    cpus = os.cpu_count() or 1
    imp = min(imports)
    det_cpu = min(d["detector_cpu"] for d in det)
    map_cpu = min(m["query_cpu"] for m in maps)
    list_cpu = min(m["list_cpu"] for m in lists)
    parse_s = imp + (duckdb_row["best_query_cpu_seconds"] + det_cpu) / cpus
    map_s = imp + (map_cpu + list_cpu + det_cpu) / cpus
    out = {"import_seconds": imp, "import": IMPORT_FLOOR, "detector_cpu_seconds": det_cpu,
           "distinct_strings": det[0]["strings"], "distinct_chars": det[0]["chars"],
           "distinct_keys": det[0]["keys"], "changed_strings": det[0]["changed"],
           "duckdb_cpu_seconds": duckdb_row["best_query_cpu_seconds"], "map_cpu_seconds": map_cpu,
           "map_wall_seconds": min(m["wall_seconds"] for m in maps),
           "list_cpu_seconds": list_cpu, "listed_strings": lists[0]["listed"],
           "cpus": cpus, "parse_bound_seconds": parse_s,
           "parse_bound_ratio": duckdb_row["best_seconds"] / parse_s,
           "map_bound_seconds": map_s, "map_bound_ratio": duckdb_row["best_seconds"] / map_s,
           "duckdb_best_seconds": duckdb_row["best_seconds"]}
    log(f"  floor: import {imp:.2f}s, map {map_cpu:.2f} CPU s, list {list_cpu:.2f} CPU s, "
        f"detectors {det_cpu:.2f} CPU s on {out['distinct_strings']:,} distinct strings -> "
        f"best ratio {out['parse_bound_ratio']:.2f} (DuckDB's parse), "
        f"{out['map_bound_ratio']:.2f} (mapped and listed)")
    return out


# --- the parent ------------------------------------------------------------------------

def generate(path: Path, *, events: int | None = None, gb: float | None = None,
             seed: int = 0) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from _otlpgen import generate as gen

    if gb:
        return gen(path, seed=seed, target_bytes=int(gb * (1 << 30)))
    return gen(path, events, seed=seed)


def bench_size(ns: argparse.Namespace, work: Path, log: Any, events: int | None
               ) -> dict[str, Any]:
    """Every method on one input, interleaved; ratios and (``--floor``) the floor."""
    if ns.input:
        src, gen_stats = Path(ns.input).resolve(), None
        log(f"input: {src} (given)")
    else:
        src = work / f"otlp-{events}.jsonl"
        log(f"generating {events:,} events ...")
        gen_stats = generate(src, events=events, seed=ns.seed)
    nbytes = src.stat().st_size
    doc: dict[str, Any] = {"input": {"path": str(src), "bytes": nbytes,
                                     "generated": gen_stats}}
    log(f"input: {nbytes / MB:,.1f} MB"
        + (f", {gen_stats['events']:,} events in {gen_stats['traces']:,} traces"
           if gen_stats else ""))
    warm(src)
    methods = ["duckdb", "ours", "ours-plain"]
    if ns.personal_off_too:
        _check_personal_off()
        methods.insert(2, "ours-personal-off")
    if BASELINE:
        methods += ["base", "base-plain"]
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    failures: dict[str, str] = {}
    for method in methods:  # untimed: each checkout's bytecode is written once
        if method != "duckdb":
            with contextlib.suppress(ChildFailed):
                run_method(method, EXAMPLE, work)
    for i in range(ns.repeat):
        for method in methods:
            if method in failures:
                continue
            try:
                r = run_method(method, src, work)
            except ChildFailed as exc:
                failures[method] = str(exc)
                log(str(exc))
                continue
            runs[method].append(r)
            log(f"  run {i + 1}/{ns.repeat} {method:<18} {r['seconds']:7.2f}s  "
                f"{r['events']:,} events  peak RSS {r['peak_rss_mb']:,.0f} MB")
    doc["results"] = [summarize(m, rs, nbytes) for m, rs in runs.items() if rs]
    doc["failures"] = failures
    by = {r["method"]: r for r in doc["results"]}
    expected = gen_stats["events"] if gen_stats else by.get("duckdb", {}).get("events")
    doc["checks"] = {m: {"events": r["events"], "expected": expected,
                         "ok": r["events"] == expected} for m, r in by.items()}
    base = by.get("duckdb")
    if base is not None:
        for method, key in (("ours", "ratio"), ("ours-plain", "ratio_plain"),
                            ("ours-personal-off", "ratio_personal_off"),
                            ("base", "ratio_base"), ("base-plain", "ratio_base_plain")):
            if method in by:
                doc[key] = by[method]["events_per_s"] / base["events_per_s"]
        for ours, old in (("ours", "base"), ("ours-plain", "base-plain")):
            if ours in by and old in by:
                doc.setdefault("cpu_over_base", {})[ours] = (
                    by[ours]["cpu_seconds"] / by[old]["cpu_seconds"])
        if "ratio_personal_off" in doc and "ratio" in doc:
            doc["personal_cost_ratio"] = doc["ratio_personal_off"] - doc["ratio"]
        if ns.floor:
            doc["floor"] = floor(src, work, ns.repeat, base, log)
    if not ns.keep and not ns.input:
        src.unlink(missing_ok=True)
    return doc


def bench(ns: argparse.Namespace, work: Path, log: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "target_ratio": TARGET_RATIO, "load_average": os.getloadavg()}
    sizes: list[int | None] = [None] if ns.input else [int(x) for x in ns.events if x]
    doc["sizes"] = [bench_size(ns, work, log, n) for n in sizes]
    doc["failures"] = {f"{s['input']['bytes']}:{m}": msg for s in doc["sizes"]
                       for m, msg in s["failures"].items()}
    if ns.big_gb:
        doc["big"] = big(ns, work, log)
    doc["load_average_after"] = os.getloadavg()
    return doc


def big(ns: argparse.Namespace, work: Path, log: Any) -> dict[str, Any]:
    if ns.big_input:
        path, stats = Path(ns.big_input).resolve(), None
    else:
        path = work / "big.jsonl"
        log(f"generating a {ns.big_gb:g} GiB file ...")
        stats = generate(path, gb=ns.big_gb, seed=ns.seed + 1)
    size = path.stat().st_size
    log(f"big input: {size / MB:,.0f} MB" + (f", {stats['events']:,} events" if stats
                                             else ""))
    warm(path)
    try:
        r = run_method("ours", path, work)
    except ChildFailed as exc:
        log(str(exc))
        return {"path": str(path), "bytes": size, "error": str(exc)}
    finally:
        if not ns.keep and not ns.big_input:
            path.unlink(missing_ok=True)
    return {"path": str(path), "bytes": size, "events": r["events"], "seconds": r["seconds"],
            "events_per_s": r["events"] / r["seconds"], "mb_per_s": size / MB / r["seconds"],
            "peak_rss_mb": r["peak_rss_mb"], "peak_tree_mb": r["peak_tree_mb"],
            "rss_over_file": max(r["peak_rss_mb"], r["peak_tree_mb"]) * MB / size}


# --- the report ------------------------------------------------------------------------

def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'method':<18} {'events':>10} {'seconds':>9} {'CPU s':>7} {'events/s':>10} "
          f"{'MB/s':>7} {'peak RSS MB':>12} {'tree MB':>8}")
    for r in rows:
        print(f"{r['method']:<18} {r['events']:>10,} {r['seconds']:>9.2f} "
              f"{r['cpu_seconds']:>7.2f} {r['events_per_s']:>10,.0f} {r['mb_per_s']:>7.1f} "
              f"{r['peak_rss_mb']:>12.0f} {r['peak_tree_mb']:>8.0f}")


def report_size(s: dict[str, Any]) -> None:
    size = s["input"]["bytes"] / MB
    n = s["results"][0]["events"] if s["results"] else 0
    print(f"\n{n:,} spans, {size:,.1f} MB")
    if s["results"]:
        print_table(s["results"])
    for m, c in s["checks"].items():
        if not c["ok"]:
            print(f"WARNING: {m} produced {c['events']:,} events, expected {c['expected']:,}")
    if "ratio" in s:
        met = "met" if s["ratio"] >= TARGET_RATIO else "NOT met"
        print(f"ratio (ours / duckdb) events/s = {s['ratio']:.2f} "
              f"(target >= {TARGET_RATIO:.2f}: {met})")
    if "ratio_plain" in s:
        print(f"ratio (ours-plain / duckdb) events/s = {s['ratio_plain']:.2f} (--no-redact)")
    for key, label in (("ratio_base", "base"), ("ratio_base_plain", "base-plain")):
        if key in s:
            print(f"ratio ({label} / duckdb) events/s = {s[key]:.2f} (the --baseline checkout)")
    for ours, r in s.get("cpu_over_base", {}).items():
        print(f"CPU seconds {ours} / {'base' if ours == 'ours' else 'base-plain'} = {r:.2f}")
    if "ratio_personal_off" in s:
        print(f"ratio (ours-personal-off / duckdb) events/s = "
              f"{s['ratio_personal_off']:.2f}; the finders cost "
              f"{s['personal_cost_ratio']:+.3f} of the ratio (target <= {PERSONAL_TARGET})")
    if "floor" in s:
        f = s["floor"]
        print(f"floor: `{f['import']}` {f['import_seconds']:.2f} s; the detectors on "
              f"{f['distinct_strings']:,} distinct strings ({f['distinct_chars'] / MB:.1f} M "
              f"chars) and {f['distinct_keys']:,} keys {f['detector_cpu_seconds']:.2f} CPU s; "
              f"DuckDB's conversion {f['duckdb_cpu_seconds']:.2f} CPU s (best run "
              f"{f['duckdb_best_seconds']:.2f} s); one mapping query "
              f"{f['map_cpu_seconds']:.2f} CPU s ({f['map_wall_seconds']:.2f} s); listing "
              f"its {f['listed_strings']:,} distinct strings {f['list_cpu_seconds']:.2f} "
              f"CPU s; {f['cpus']} cores")
        print(f"  best ratio of a design that runs these detectors once per distinct string, "
              f"every core busy, nothing else done: {f['parse_bound_ratio']:.2f} with the "
              f"spans parsed at DuckDB's own cost and nothing listed, "
              f"{f['map_bound_ratio']:.2f} with them mapped by one query and listed")
    for m, msg in s["failures"].items():
        print(f"{m}: FAILED ({msg.splitlines()[0]})")


def report(doc: dict[str, Any]) -> None:
    for s in doc["sizes"]:
        report_size(s)
    print("\n(seconds: wall time of the whole process, median; CPU s: the process and its "
          "workers; peak RSS: largest single process, from wait4; tree: sampled sum of PSS)")
    for m, label in LABELS.items():
        print(f"  {m}: {label}")
    la, lb = doc["load_average"], doc["load_average_after"]
    print(f"load average {la[0]:.1f} before, {lb[0]:.1f} after; {doc['cpus']} cores")
    if "big" in doc:
        b = doc["big"]
        if "error" in b:
            print(f"big file ({b['bytes'] / MB:,.0f} MB): FAILED")
        else:
            print(f"big file: {b['bytes'] / MB:,.0f} MB, {b['events']:,} events, "
                  f"{b['seconds']:.1f}s ({b['events_per_s']:,.0f} events/s, "
                  f"{b['mb_per_s']:.1f} MB/s), peak RSS {b['peak_rss_mb']:,.0f} MB "
                  f"(tree {b['peak_tree_mb']:,.0f} MB) = {b['rss_over_file']:.1%} of the file")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=lambda s: s.split(","), default=["20000", "200000"],
                    help="sizes to generate, comma-separated (default 20000,200000; "
                         "0: only --big-gb)")
    ap.add_argument("--input", help="use this OTLP/JSON-lines file instead of generating")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each method (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--floor", action="store_true",
                    help="also measure the floor: imports and the detectors on distinct "
                         "values, and the best ratio they allow")
    ap.add_argument("--big-gb", type=float, default=0.0,
                    help="also ingest an N-GiB file with ours only (0 = skip)")
    ap.add_argument("--big-input", help="use this file for the big run instead of generating")
    ap.add_argument("--personal-off-too", action="store_true",
                    help="also run ours with the free-text personal-data finders off "
                         "(measuring only) and print what they cost the ratio")
    ap.add_argument("--baseline", metavar="DIR",
                    help="also run ours and ours-plain from this checkout of another "
                         "commit (`git worktree add DIR COMMIT`), interleaved")
    ap.add_argument("--workdir", help="where to put temporary files (default: system temp)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ns = ap.parse_args(argv)
    ns.events = [x for x in ns.events if x.strip() and int(x) > 0]
    if ns.baseline:
        BASELINE.append(Path(ns.baseline).resolve())

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if ns.json else sys.stdout, flush=True)

    work = Path(tempfile.mkdtemp(prefix="wb-bench-ingest-", dir=ns.workdir))
    t0 = time.perf_counter()
    try:
        doc = bench(ns, work, log)
    finally:
        if ns.keep:
            log(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    doc["bench_seconds"] = time.perf_counter() - t0
    return finish(doc, ns.json, report)


if __name__ == "__main__":
    sys.exit(main())
