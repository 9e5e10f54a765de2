"""CLI start-up: how long `workbench --help` and `workbench traces` take, next to the time
Python takes to import DuckDB and pyarrow alone (the floor every command stands on).

Agents call the CLI hundreds of times per task, so this is their latency. Each command
runs ``--repeat`` times, interleaved with the others, in a fresh process; the script
prints the median wall time of each and its ratio to the import line.

Targets: ``--help`` <= 2x and ``traces`` <= 2.5x the import line.

    python bench/startup.py [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _measure import finish

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "traces" / "examples" / "archive-incident.otlp.json"
TARGETS = {"--help": 2.0, "traces": 2.5}


def _workbench() -> list[str]:
    script = Path(sys.executable).with_name("workbench")
    return [str(script)] if script.exists() else [sys.executable, "-m", "workbench"]


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)
    return time.perf_counter() - t0


def run(repeat: int) -> dict[str, Any]:
    wb = _workbench()
    store = Path(tempfile.mkdtemp(prefix="wb-startup-")) / "store"
    try:
        subprocess.run([*wb, "ingest", str(EXAMPLE), "--store", str(store)], check=True,
                       stdout=subprocess.DEVNULL)
        commands = {
            "import duckdb, pyarrow": [sys.executable, "-c", "import duckdb, pyarrow"],
            "--help": [*wb, "--help"],
            "traces": [*wb, "traces", "--store", str(store)],
            "show": [*wb, "show", "4bf92f35", "--store", str(store)],
            "ingest --help": [*wb, "ingest", "--help"],
        }
        for cmd in commands.values():  # warm the page cache and the bytecode
            _time(cmd)
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(repeat):
            for name, cmd in commands.items():
                times[name].append(_time(cmd))
    finally:
        shutil.rmtree(store.parent, ignore_errors=True)
    base = statistics.median(times["import duckdb, pyarrow"])
    rows = []
    for name, ts in times.items():
        med = statistics.median(ts)
        rows.append({"command": name, "median_seconds": round(med, 4),
                     "ratio": round(med / base, 2), "target": TARGETS.get(name)})
    failures = [r["command"] for r in rows if r["target"] and r["ratio"] > r["target"]]
    return {"repeat": repeat, "rows": rows, "failures": [], "over_target": failures}


def report(doc: dict[str, Any]) -> None:
    print(f"median of {doc['repeat']} interleaved runs, each in a fresh process\n")
    print(f"{'command':<24} {'seconds':>8} {'ratio':>7} {'target':>7}")
    for r in doc["rows"]:
        target = f"<= {r['target']}" if r["target"] else ""
        print(f"{r['command']:<24} {r['median_seconds']:>8.3f} {r['ratio']:>6.2f}x {target:>7}")
    print("\nratio = command / `python -c 'import duckdb, pyarrow'`; "
          + ("every target met" if not doc["over_target"]
             else "over target: " + ", ".join(doc["over_target"])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    return finish(run(args.repeat), args.json, report)


if __name__ == "__main__":
    sys.exit(main())
