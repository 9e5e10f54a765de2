"""CLI start-up: how long `workbench --help` and `workbench traces` take, next to the time
Python takes to import DuckDB and pyarrow alone (the floor every command stands on).

Agents call the CLI hundreds of times per task, so this is their latency. Each command
runs ``--repeat`` times, interleaved with the others, in a fresh process; the script
prints the median wall time of each and its ratio to the import line.

Targets: ``--help`` <= 2x and ``traces`` <= 2.5x the import line.

The start of an ingest process is measured too (each ``python -m workbench``):
``ingest --help``, ``ingest FILE`` ingests the bundled
example (a few spans) into a fresh store, with and without redaction, and ``ingest
worker`` starts a worker process as a redacting ingest does (``python -m
workbench.ingest._worker_main workbench.redact``: imports, redaction's included, and
Arrow's warm-up, then it finds no job and ends; ``--no-redact``: without redaction; a
checkout from before workers took that argument ignores it and imports redaction in
both). Beside the wall time each row has
the CPU seconds of the process. ``--baseline DIR`` adds the same ingest rows run from
the checkout in ``DIR`` (``git worktree add DIR COMMIT``) on ``PYTHONPATH``,
interleaved, so a change to the start is measured against the code before it.
``--baseline-label`` names those rows (default ``baseline``); a second ``--baseline``
adds a second set of rows, so two older commits are measured in the same run.

Every process runs with its modules' bytecode cached, as an installed package has it:
``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment, so the first
(untimed) round writes the cache. ``--no-bytecode`` removes the workbench's cached
bytecode (its ``__pycache__`` folders, in this checkout and the baselines) and keeps
Python from writing it, so each process compiles the workbench's source again, as a
checkout run with ``PYTHONDONTWRITEBYTECODE=1`` does; the libraries' bytecode is cached
either way.

    python bench/startup.py [--repeat 15] [--baseline DIR [--baseline DIR2]] [--json]
"""

from __future__ import annotations

import argparse
import os
import resource
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


_FRESH = "{fresh}"  # replaced by a new store folder on every run


def _time(cmd: list[str], env: dict[str, str] | None, work: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``cmd`` (``_FRESH``: a new store)."""
    fresh = str(Path(tempfile.mkdtemp(dir=work)) / "store")
    cmd = [fresh if a == _FRESH else a for a in cmd]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, env=env, cwd=work)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(Path(fresh).parent, ignore_errors=True)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _ingest_rows(py: list[str]) -> dict[str, list[str]]:
    ingest = [*py, "-m", "workbench", "ingest", str(EXAMPLE), "--store", _FRESH]
    return {"ingest --help": [*py, "-m", "workbench", "ingest", "--help"],
            "ingest FILE": ingest, "ingest FILE --no-redact": [*ingest, "--no-redact"],
            "ingest worker": [*py, "-m", "workbench.ingest._worker_main", "workbench.redact"],
            "ingest worker --no-redact": [*py, "-m", "workbench.ingest._worker_main"]}


def _env(bytecode: bool, path: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if path is not None:
        env["PYTHONPATH"] = str(Path(path).resolve())
    return env


def run(repeat: int, baselines: list[str] | None = None, labels: list[str] | None = None,
        bytecode: bool = True) -> dict[str, Any]:
    wb = _workbench()
    work = Path(tempfile.mkdtemp(prefix="wb-startup-"))
    store = work / "store"
    ours = _env(bytecode)
    if not bytecode:  # as a checkout run with PYTHONDONTWRITEBYTECODE=1 has it
        for root in [REPO, *(Path(b) for b in baselines or [])]:
            for cache in (root / "workbench").rglob("__pycache__"):
                shutil.rmtree(cache, ignore_errors=True)
    try:
        subprocess.run([*wb, "ingest", str(EXAMPLE), "--store", str(store)], check=True,
                       stdout=subprocess.DEVNULL, env=ours)
        commands: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "import duckdb, pyarrow": ([sys.executable, "-c", "import duckdb, pyarrow"], ours),
            "--help": ([*wb, "--help"], ours),
            "traces": ([*wb, "traces", "--store", str(store)], ours),
            "show": ([*wb, "show", "4bf92f35", "--store", str(store)], ours),
        }
        commands.update({k: (c, ours) for k, c in _ingest_rows([sys.executable]).items()})
        for i, baseline in enumerate(baselines or []):
            label = (labels or [])[i] if i < len(labels or []) else (
                "baseline" if i == 0 else f"baseline {i + 1}")
            env = _env(bytecode, baseline)
            commands.update({f"{k} ({label})": (c, env)
                             for k, c in _ingest_rows([sys.executable]).items()})
        for cmd, env in commands.values():  # warm the page cache and the bytecode
            _time(cmd, env, work)
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
        for _ in range(repeat):
            for name, (cmd, env) in commands.items():
                times[name].append(_time(cmd, env, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(t[0] for t in times["import duckdb, pyarrow"])
    rows = []
    for name, ts in times.items():
        med = statistics.median(t[0] for t in ts)
        rows.append({"command": name, "median_seconds": round(med, 4),
                     "cpu_seconds": round(statistics.median(t[1] for t in ts), 4),
                     "ratio": round(med / base, 2), "target": TARGETS.get(name)})
    failures = [r["command"] for r in rows if r["target"] and r["ratio"] > r["target"]]
    return {"repeat": repeat, "bytecode": bytecode, "rows": rows, "failures": [],
            "over_target": failures}


def report(doc: dict[str, Any]) -> None:
    print(f"median of {doc['repeat']} interleaved runs, each in a fresh process"
          + ("" if doc["bytecode"] else ", the workbench's bytecode not cached") + "\n")
    print(f"{'command':<44} {'seconds':>8} {'CPU s':>7} {'ratio':>7} {'target':>7}")
    for r in doc["rows"]:
        target = f"<= {r['target']}" if r["target"] else ""
        print(f"{r['command']:<44} {r['median_seconds']:>8.3f} {r['cpu_seconds']:>7.3f} "
              f"{r['ratio']:>6.2f}x {target:>7}")
    print("\nratio = command / `python -c 'import duckdb, pyarrow'`; "
          + ("every target met" if not doc["over_target"]
             else "over target: " + ", ".join(doc["over_target"])))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--baseline", metavar="DIR", action="append",
                    help="also time the ingest rows from this checkout of another commit "
                         "(twice: two checkouts)")
    ap.add_argument("--baseline-label", metavar="NAME", action="append",
                    help="the name of each --baseline's rows, in order")
    ap.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                    help="remove the workbench's cached bytecode and run without caching it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    return finish(run(args.repeat, args.baseline, args.baseline_label, args.bytecode),
                  args.json, report)


if __name__ == "__main__":
    sys.exit(main())
