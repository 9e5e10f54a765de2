"""Past one machine: the Spark engine against the DuckDB engine on the same files, and
``check`` on a store of many small batches before and after ``compact``.

    python bench/scale.py [--events 10000000] [--small 5000] [--work DIR] [--json]
                          [--skip-spark] [--skip-small] [--per-core 1 2]

1. A synthetic store of ``--events`` events (``bench/_storegen.py``, the store of
   bench/check.py) checked with the rules of bench/check.py by the DuckDB engine and by
   the Spark engine on ``local[2]``, both plans (map tasks' DuckDB deal events by
   trace through Spark's shuffle; each task's DuckDB reads whole pieces of files), 1
   and 2 tasks per core
   (``--per-core``), then by the DuckDB engine again. The Spark session is started
   before the clock (a cluster keeps one); each engine's violations must be the same
   list. Prints each time, Spark / DuckDB and the peak resident memory of a Spark
   Python worker.
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
import os
import sys
import tempfile
import threading
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


class WorkerPeak:
    """The peak resident memory (``VmHWM``) of the Spark Python workers this process
    started (descendants whose command line runs ``pyspark.daemon`` or
    ``pyspark.worker``), sampled from /proc while a run lasts; 0 where there is no /proc."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> WorkerPeak:
        for pid in _descendants(os.getpid()):  # workers are reused: reset their peaks
            try:
                if b"pyspark" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    Path(f"/proc/{pid}/clear_refs").write_text("5")
            except OSError:
                continue
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            for pid in _descendants(os.getpid()):
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if b"pyspark" not in cmd:
                        continue
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                        if line.startswith("VmHWM:"):
                            self.peak_kb = max(self.peak_kb, int(line.split()[1]))
                except (OSError, ValueError):
                    continue


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").glob("[0-9]*"):
        try:
            ppid = int(Path(d, "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


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
    for shuffle in (True, False):
        SparkEngine(f"local[{CORES}]", partitions=CORES, shuffle=shuffle).violations(
            store, rules, warm)
    out: dict[str, Any] = {"events": stats.get("events", events), "duckdb_s": duck_s,
                           "violations": len(duck), "spark": {}}
    for shuffle in (True, False):
        plan = "shuffle" if shuffle else "files"
        for per_core in per_cores:
            engine = SparkEngine(f"local[{CORES}]", partitions=CORES * per_core,
                                 shuffle=shuffle)
            with WorkerPeak() as peak:
                s, got = _timed(lambda e=engine: e.violations(store, rules, None))
            same = got == duck  # the list: the same violations in the same order
            out["spark"][f"{plan}-{per_core}"] = {
                "plan": plan, "per_core": per_core, "seconds": s, "ratio": s / duck_s,
                "same": same, "worker_peak_rss_mb": round(peak.peak_kb / 1024)}
            log(f"spark local[{CORES}], {plan} plan, {per_core} task(s) per core: {s:.1f} s "
                f"({s / duck_s:.1f}x duckdb), same violations: {same}, peak RSS of a "
                f"Python worker {peak.peak_kb / 1024:.0f} MB")
    duck2_s, again = _timed(lambda: DuckDBEngine().violations(store, rules, None))
    out["duckdb_after_s"] = duck2_s
    log(f"duckdb again, after the Spark runs: {duck2_s:.1f} s (same: {again == duck}); "
        f"Spark / the faster DuckDB run: " + ", ".join(
            f"{v['seconds'] / min(duck_s, duck2_s):.1f}x" for v in out["spark"].values()))
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
    ap.add_argument("--per-core", type=int, nargs="+", default=[1, 2],
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
