"""Past one machine: the Spark engine against the DuckDB engine on the same files, and
``check`` on a store of many small batches before and after ``compact``.

    python bench/scale.py [--events 10000000] [--small 5000] [--work DIR] [--json]
                          [--skip-spark] [--skip-small] [--per-core 1 2 4]

1. A synthetic store of ``--events`` events (``bench/_storegen.py``, the store of
   bench/check.py) checked with the rules of bench/check.py by the DuckDB engine and by
   the Spark engine on ``local[2]`` with 1, 2 and 4 shuffle partitions per core. The
   Spark session is started before the clock (a cluster keeps one); each engine's
   violations must be the same set. Prints each time and Spark / DuckDB.
2. ``--small`` one-trace ingests (one batch each, ten events a trace, the tools of the
   rules), the same files ingested as one batch, then ``compact`` of the first store:
   ``check`` (DuckDB engine, findings worded, nothing recorded; best of 5, the stores'
   runs interleaved, each opening the store afresh as ``workbench check`` does) on the
   three, and the number of data files. Target: compacted within 1.2x of the one-batch store.

A measurement, not a test: exits 0 unless something crashed. A shared machine is noisy;
compare ratios. Needs the ``spark`` extra and Java 17.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _storegen import generate  # noqa: E402
from check import RULES  # noqa: E402

from workbench.ingest import ingest  # noqa: E402
from workbench.rules import DuckDBEngine, SparkEngine, check, parse_rules  # noqa: E402
from workbench.store import Store, compact  # noqa: E402

TARGET_COMPACT = 1.2
CORES = 2


def _timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def spark_vs_duckdb(work: Path, events: int, log: Any,
                    per_cores: tuple[int, ...] = (1, 2, 4)) -> dict[str, Any]:
    root = work / "big"
    stats = generate(root, events)
    store = Store(root)
    rules = parse_rules(RULES)
    log(f"store: {stats.get('events', events)} events in {len(store.files('events'))} files")
    duck_s, duck = _timed(lambda: DuckDBEngine().violations(store, rules, None))
    log(f"duckdb: {duck_s:.1f} s, {len(duck)} violations")
    # off the clock: the session, its JVM and its Python workers start (a run over a
    # few traces does it; at 10M events a whole run would cost ten minutes more)
    warm = sorted(store.trace_ids())[:20]
    SparkEngine(f"local[{CORES}]", partitions=CORES).violations(store, rules, warm)
    out: dict[str, Any] = {"events": stats.get("events", events), "duckdb_s": duck_s,
                           "violations": len(duck), "spark": {}}
    for per_core in per_cores:
        engine = SparkEngine(f"local[{CORES}]", partitions=CORES * per_core)
        s, got = _timed(lambda e=engine: e.violations(store, rules, None))
        same = sorted(got) == sorted(duck)
        out["spark"][per_core] = {"seconds": s, "ratio": s / duck_s, "same": same}
        log(f"spark local[{CORES}], {per_core} partition(s) per core: {s:.1f} s "
            f"({s / duck_s:.1f}x duckdb), same violations: {same}")
    return out


_TOOLS = ["request_approval", "archive_project", "get_job", "retry_job", "charge",
          "search", "read_file", "apply_patch", "run_tests", "list_projects"]


def _trace(path: Path, t: int) -> Path:
    lines = []
    for i in range(10):
        tool = _TOOLS[(t + i) % len(_TOOLS)]
        lines.append({"trace_id": f"s{t:06d}", "event_id": f"e{i}", "seq": i,
                      "kind": "tool_call", "name": tool, "status": "ok",
                      "start_ns": i * 1000, "end_ns": i * 1000 + 500,
                      "args": {"project_id": f"p{t % 7}", "job_id": f"j{t % 5}",
                               "cart_id": f"c{t % 3}"},
                      "result": {"approved": t % 4 != 0, "status": "captured",
                                 "retry_allowed": t % 9 != 0}})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _files(store: Store) -> int:
    return sum(len(store.files(t)) for t in ("events", "traces"))


def small_batches(work: Path, n: int, log: Any) -> dict[str, Any]:
    src = work / "small-src"
    src.mkdir()
    paths = [_trace(src / f"t{t}.jsonl", t) for t in range(n)]
    many, one = Store(work / "many"), Store(work / "one")
    ingest_s, _ = _timed(lambda: [ingest([p], many, redact=False) for p in paths])
    log(f"{n} one-trace ingests: {ingest_s:.1f} s")
    ingest(paths, one, redact=False)
    rules = parse_rules(RULES)

    def check_s(*stores: Store, repeat: int = 5) -> list[float]:
        """Best of ``repeat`` per store, the stores' runs interleaved; each run opens
        the store afresh, as ``workbench check`` does (commit records read anew)."""
        best = [float("inf")] * len(stores)
        for _ in range(repeat):
            for i, store in enumerate(stores):
                s, _ = _timed(lambda st=store: check(Store(st.root), rules, record=False))
                best[i] = min(best[i], s)
        return best

    out: dict[str, Any] = {"traces": n, "files_before": _files(many),
                           "one_batch_files": _files(one)}
    out["check_before_s"], out["check_one_batch_s"] = check_s(many, one, repeat=3)
    out["compact_s"], _ = _timed(lambda: compact(many))
    out["files_after"] = _files(many)
    out["check_after_s"], one_s = check_s(many, one)
    out["after_vs_one_batch"] = out["check_after_s"] / one_s
    compact(many, grace=0)  # the replaced records and files removed
    out["check_cleaned_s"], one_s2 = check_s(many, one)
    out["cleaned_vs_one_batch"] = out["check_cleaned_s"] / one_s2
    out["check_one_batch_s"] = min(out["check_one_batch_s"], one_s, one_s2)
    out["target"] = TARGET_COMPACT
    log(f"check: {out['check_before_s']:.2f} s on {out['files_before']} files before "
        f"compact, {out['check_after_s']:.2f} s on {out['files_after']} after "
        f"(compact {out['compact_s']:.1f} s), {out['check_one_batch_s']:.2f} s on "
        f"{out['one_batch_files']} files ingested as one batch: "
        f"{out['after_vs_one_batch']:.2f}x (target <= {TARGET_COMPACT}x); "
        f"{out['check_cleaned_s']:.2f} s once the replaced batches are removed "
        f"({out['cleaned_vs_one_batch']:.2f}x)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--small", type=int, default=5000)
    ap.add_argument("--work", help="a folder to keep the stores in (default: temporary)")
    ap.add_argument("--skip-spark", action="store_true")
    ap.add_argument("--skip-small", action="store_true")
    ap.add_argument("--per-core", type=int, nargs="+", default=[1, 2, 4],
                    help="Spark's shuffle partitions per core, one run each")
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args(argv)

    def log(line: str) -> None:
        print(line, file=sys.stderr if opts.json else sys.stdout, flush=True)

    with tempfile.TemporaryDirectory(dir=opts.work) as d:
        doc: dict[str, Any] = {"command": " ".join(["python", "bench/scale.py",
                                                    *(argv or sys.argv[1:])])}
        if not opts.skip_spark:
            doc["spark_vs_duckdb"] = spark_vs_duckdb(Path(d), opts.events, log,
                                                     tuple(opts.per_core))
        if not opts.skip_small:
            doc["small_batches"] = small_batches(Path(d), opts.small, log)
    if opts.json:
        print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
