"""Ingest throughput and peak memory, against DuckDB's own JSON -> Parquet conversion.

    python bench/ingest.py [--events 200000] [--big-gb 0] [--input FILE]
                           [--personal-off-too] [--json]

Generates OTLP/JSON GenAI traces (``bench/_otlpgen.py``), then in the same run times

* **duckdb**: DuckDB alone, ``read_json`` of the file and ``COPY (...) TO x.parquet``
  with the spans unnested to one row per span (its default thread count),
* **ours**: ``workbench.ingest.ingest([file], Store(tmp))`` with default settings
  (redaction on, where ``ingest`` has the ``redact`` option), and
* **ours-plain**: the same with ``redact=False`` (only where that option exists),
* **ours-personal-off** (with ``--personal-off-too``): ours with the free-text
  personal-data finders and their gate turned off, for measuring only, by
  ``bench/personal_off/sitecustomize.py`` on the run's ``PYTHONPATH`` (the workers
  inherit it); the report prints what the finders cost the ratio (target <= 0.05),

each in its own subprocess (peak RSS per run from ``wait4``), after warming the page
cache, interleaved, ``--repeat`` times (default 3), reporting the median time and the
largest peak RSS. Target: ours >= 0.5x DuckDB's events/s (with redaction on; the
ratio without it is printed too), and peak memory bounded by a batch, not by the file
(``--big-gb N`` ingests an N-GiB file with ours only and prints file size and peak RSS
side by side).

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
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _measure import MB, ChildFailed, finish, measure, warm

HERE = Path(__file__).resolve().parent
TARGET_RATIO = 0.5
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
  FROM (SELECT unnest(resourceSpans) AS rs FROM read_json({src}, format = 'newline_delimited')) r,
       LATERAL (SELECT unnest(r.rs.scopeSpans) AS ss) x,
       LATERAL (SELECT unnest(x.ss.spans) AS s) y
) TO {dst} (FORMAT parquet)
"""


# --- the measured work, run in a child process -----------------------------------------

def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _child_duckdb(src: str, out: str) -> dict[str, Any]:
    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect()
    rows = con.execute(DUCKDB_COPY.format(src=_sql_str(src),
                                          dst=_sql_str(str(Path(out) / "spans.parquet")))
                       ).fetchall()
    seconds = time.perf_counter() - t0
    written = con.execute("SELECT count(*) FROM read_parquet(?)",
                          [str(Path(out) / "spans.parquet")]).fetchall()[0][0]
    threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
    con.close()
    return {"seconds": seconds, "events": int(written), "copy_rows": rows[0][0] if rows else None,
            "threads": int(threads), "version": duckdb.__version__}


def _child_ours(src: str, out: str, **options: Any) -> dict[str, Any]:
    from workbench.ingest import ingest
    from workbench.store import Store

    t0 = time.perf_counter()
    result = ingest([src], Store(Path(out) / "store"), **options)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "events": int(result.events), "traces": len(result.traces)}


def _child_ours_plain(src: str, out: str) -> dict[str, Any]:
    return _child_ours(src, out, redact=False)


def _child_ours_personal_off(src: str, out: str) -> dict[str, Any]:
    from workbench.redact import _detect

    if _detect.find_personal.__name__ != "_personal_off":
        raise RuntimeError("the personal-data finders are still on (sitecustomize not loaded)")
    return _child_ours(src, out)


#: the environment of the "ours-personal-off" runs: bench/personal_off/sitecustomize.py
#: turns the free-text personal-data finders off in every interpreter of the run
PERSONAL_OFF = HERE / "personal_off"


def _personal_off_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PERSONAL_OFF),
                                                    env.get("PYTHONPATH")) if p)
    env["WORKBENCH_BENCH_PERSONAL_OFF"] = "1"
    return env


def has_redact_option() -> bool:
    """Whether ``ingest`` takes ``redact`` (redaction at ingest, on by default)."""
    import inspect

    from workbench.ingest import ingest

    return "redact" in inspect.signature(ingest).parameters


def _child_profile(src: str, out: str) -> dict[str, Any]:
    import cProfile
    import inspect
    import io
    import pstats

    from workbench.ingest import ingest
    from workbench.store import Store

    # one process (workers=1 where supported), so the profile sees all the work
    kw: dict[str, Any] = {"workers": 1} if "workers" in inspect.signature(ingest).parameters \
        else {}
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    result = ingest([src], Store(Path(out) / "store"), **kw)
    prof.disable()
    seconds = time.perf_counter() - t0
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
    return {"seconds": seconds, "events": int(result.events), "profile": buf.getvalue(),
            "options": kw}


CHILDREN = {"duckdb": _child_duckdb, "ours": _child_ours, "ours-plain": _child_ours_plain,
            "ours-personal-off": _child_ours_personal_off, "profile": _child_profile}
#: what each method is, in the table
LABELS = {"duckdb": "duckdb read_json -> parquet", "ours": "ours (default: redaction on)",
          "ours-plain": "ours, redact=False",
          "ours-personal-off": "ours, redaction on, free-text personal-data finders off "
                               "(measuring only)"}


def _child_main(method: str, src: str, out: str) -> int:
    res = CHILDREN[method](src, out)
    sys.stdout.write("\n" + json.dumps(res) + "\n")
    sys.stdout.flush()
    return 0


# --- the parent ------------------------------------------------------------------------

def run_child(method: str, src: Path, work: Path) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter; add its wall time and peak memory."""
    out = Path(tempfile.mkdtemp(prefix=f"{method}-", dir=work))
    try:
        return measure([sys.executable, str(Path(__file__).resolve()), "--_child", method,
                        "--input", str(src), "--_out", str(out)], method, cwd=work,
                       sample_tree=True,
                       env=_personal_off_env() if method == "ours-personal-off" else None)
    finally:
        shutil.rmtree(out, ignore_errors=True)


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
    for k in ("threads", "version", "traces"):
        if k in runs[0]:
            out[k] = runs[0][k]
    return out


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'method':<18} {'events':>10} {'seconds':>9} {'events/s':>11} {'MB/s':>8} "
          f"{'peak RSS MB':>12} {'tree MB':>8}")
    for r in rows:
        print(f"{r['method']:<18} {r['events']:>10,} {r['seconds']:>9.2f} "
              f"{r['events_per_s']:>11,.0f} {r['mb_per_s']:>8.1f} {r['peak_rss_mb']:>12.0f} "
              f"{r['peak_tree_mb']:>8.0f}")
    print("(peak RSS: largest single process, from wait4; tree: sampled sum of PSS over the "
          "process and its workers)")
    for r in rows:
        print(f"  {r['method']}: {LABELS.get(r['method'], r['method'])}")


def generate(path: Path, *, events: int | None = None, gb: float | None = None,
             seed: int = 0) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    from _otlpgen import generate as gen

    if gb:
        return gen(path, seed=seed, target_bytes=int(gb * (1 << 30)))
    return gen(path, events, seed=seed)


def bench(ns: argparse.Namespace, work: Path, log: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count()}
    if ns.events <= 0 and not ns.input:  # the big run only
        doc.update(results=[], failures={}, checks={}, input=None)
        if ns.big_gb:
            doc["big"] = big(ns, work, log)
        return doc
    if ns.input:
        src = Path(ns.input).resolve()
        gen_stats = None
        log(f"input: {src} (given)")
    else:
        src = work / "otlp.jsonl"
        log(f"generating {ns.events:,} events ...")
        gen_stats = generate(src, events=ns.events, seed=ns.seed)
    nbytes = src.stat().st_size
    doc["input"] = {"path": str(src), "bytes": nbytes, "generated": gen_stats}
    log(f"input: {nbytes / MB:,.1f} MB"
        + (f", {gen_stats['events']:,} events in {gen_stats['traces']:,} traces, "
           f"generated in {gen_stats['seconds']:.1f}s" if gen_stats else ""))

    warm(src)
    methods = ["duckdb", "ours"] + (["ours-plain"] if has_redact_option() else [])
    if ns.personal_off_too:
        methods.insert(2, "ours-personal-off")
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    failures: dict[str, str] = {}
    for i in range(ns.repeat):
        for method in methods:
            if method in failures:
                continue
            try:
                r = run_child(method, src, work)
            except ChildFailed as exc:
                failures[method] = str(exc)
                log(str(exc))
                continue
            runs[method].append(r)
            log(f"  run {i + 1}/{ns.repeat} {method:<10} {r['seconds']:7.2f}s  "
                f"{r['events']:,} events  peak RSS {r['peak_rss_mb']:,.0f} MB")
    doc["results"] = [summarize(m, rs, nbytes) for m, rs in runs.items() if rs]
    doc["failures"] = failures
    by = {r["method"]: r for r in doc["results"]}
    expected = gen_stats["events"] if gen_stats else by.get("duckdb", {}).get("events")
    doc["checks"] = {m: {"events": r["events"], "expected": expected,
                         "ok": r["events"] == expected} for m, r in by.items()}
    if "duckdb" in by and "ours" in by:
        doc["ratio_events_per_s"] = by["ours"]["events_per_s"] / by["duckdb"]["events_per_s"]
    if "duckdb" in by and "ours-plain" in by:
        doc["ratio_events_per_s_plain"] = (by["ours-plain"]["events_per_s"]
                                           / by["duckdb"]["events_per_s"])
    if "duckdb" in by and "ours-personal-off" in by:
        off = by["ours-personal-off"]["events_per_s"] / by["duckdb"]["events_per_s"]
        doc["ratio_events_per_s_personal_off"] = off
        if "ratio_events_per_s" in doc:
            doc["personal_cost_ratio"] = off - doc["ratio_events_per_s"]
    doc["target_ratio"] = TARGET_RATIO

    if ns.profile and "ours" not in failures:
        log("profiling ours (cProfile, one run) ...")
        doc["profile"] = run_child("profile", src, work)["profile"]

    if ns.big_gb:
        doc["big"] = big(ns, work, log)
    return doc


def big(ns: argparse.Namespace, work: Path, log: Any) -> dict[str, Any]:
    if ns.big_input:
        path = Path(ns.big_input).resolve()
        stats = None
    else:
        path = work / "big.jsonl"
        log(f"generating a {ns.big_gb:g} GiB file ...")
        stats = generate(path, gb=ns.big_gb, seed=ns.seed + 1)
    size = path.stat().st_size
    log(f"big input: {size / MB:,.0f} MB" + (f", {stats['events']:,} events, generated in "
                                             f"{stats['seconds']:.0f}s" if stats else ""))
    warm(path)
    try:
        r = run_child("ours", path, work)
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


def report(doc: dict[str, Any]) -> None:
    print()
    if doc["results"]:
        print_table(doc["results"])
    by = {r["method"]: r for r in doc["results"]}
    for m, c in doc["checks"].items():
        if not c["ok"]:
            print(f"WARNING: {m} produced {c['events']:,} rows/events, expected "
                  f"{c['expected']:,}")
    if "ratio_events_per_s" in doc:
        print(f"ratio (ours / duckdb) events/s = {doc['ratio_events_per_s']:.2f} "
              f"(target >= {TARGET_RATIO:.2f})")
    if "ratio_events_per_s_plain" in doc:
        print(f"ratio (ours-plain / duckdb) events/s = {doc['ratio_events_per_s_plain']:.2f} "
              f"(redact=False)")
    if "ratio_events_per_s_personal_off" in doc:
        print(f"ratio (ours-personal-off / duckdb) events/s = "
              f"{doc['ratio_events_per_s_personal_off']:.2f} (free-text personal-data "
              f"finders off)")
    if "personal_cost_ratio" in doc:
        print(f"personal-data finders cost {doc['personal_cost_ratio']:+.3f} of the ratio "
              f"(off - on; target <= {PERSONAL_TARGET:.2f}); CPU seconds (median, process "
              f"and workers): ours {by['ours']['cpu_seconds']:.2f}, ours-personal-off "
              f"{by['ours-personal-off']['cpu_seconds']:.2f}")
    if doc["input"]:
        rss = ", ".join(f"{m} {max(r['peak_rss_mb'], r['peak_tree_mb']):,.0f} MB"
                        for m, r in by.items())
        print(f"peak memory: {rss}; input file {doc['input']['bytes'] / MB:,.0f} MB")
    for m, msg in doc["failures"].items():
        print(f"{m}: FAILED ({msg.splitlines()[0]})")
    if "big" in doc:
        b = doc["big"]
        if "error" in b:
            print(f"big file ({b['bytes'] / MB:,.0f} MB): FAILED")
        else:
            print(f"big file: {b['bytes'] / MB:,.0f} MB, {b['events']:,} events, "
                  f"{b['seconds']:.1f}s ({b['events_per_s']:,.0f} events/s, "
                  f"{b['mb_per_s']:.1f} MB/s), peak RSS {b['peak_rss_mb']:,.0f} MB "
                  f"(tree {b['peak_tree_mb']:,.0f} MB) = {b['rss_over_file']:.1%} of the file")
    if "profile" in doc:
        print("\ncProfile of ours in one process (workers=1; cumulative, top 25):")
        print(doc["profile"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=200_000,
                    help="events to generate (0: skip the comparison, only --big-gb)")
    ap.add_argument("--input", help="use this OTLP/JSON-lines file instead of generating one")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each method (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--big-gb", type=float, default=0.0,
                    help="also ingest an N-GiB file with ours only (0 = skip)")
    ap.add_argument("--big-input", help="use this file for the big run instead of generating")
    ap.add_argument("--profile", action="store_true",
                    help="also print a cProfile of one ingest run (cumulative, top 25)")
    ap.add_argument("--personal-off-too", action="store_true",
                    help="also run ours with the free-text personal-data finders off "
                         "(measuring only) and print what they cost the ratio")
    ap.add_argument("--workdir", help="where to put temporary files (default: system temp)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ap.add_argument("--_child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    ap.add_argument("--_out", help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns._child:
        return _child_main(ns._child, ns.input, ns._out)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if ns.json else sys.stdout, flush=True)

    work = Path(tempfile.mkdtemp(prefix="wb-bench-ingest-", dir=ns.workdir))
    try:
        doc = bench(ns, work, log)
    finally:
        if ns.keep:
            log(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return finish(doc, ns.json, report)


if __name__ == "__main__":
    sys.exit(main())
