"""Run picklable jobs in worker processes (``python -m workbench.ingest._worker_main``).

Not ``multiprocessing``: its spawn mode re-imports the caller's ``__main__`` (a user
script without a main guard would start over in every worker) and fork is unsafe once
DuckDB or Arrow threads exist. A worker reads one pickled ``(function, jobs)`` from
stdin and writes one pickled list of ``("ok", result)`` / ``("err", exception)``.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["run_jobs"]

J = TypeVar("J")
R = TypeVar("R")


def run_jobs(func: Callable[[J], R], jobs: Sequence[J], workers: int) -> list[R]:
    """``[func(job) for job in jobs]``, spread over ``workers`` processes, order kept.

    The first job that raised re-raises here (a ``WorkbenchError`` keeps its code).
    """
    if workers <= 1 or len(jobs) <= 1:
        return [func(j) for j in jobs]
    name = f"{func.__module__}:{func.__qualname__}"
    groups = [list(range(i, len(jobs), workers)) for i in range(min(workers, len(jobs)))]
    procs = []
    for idx in groups:
        p = subprocess.Popen([sys.executable, "-m", "workbench.ingest._worker_main"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert p.stdin is not None
        p.stdin.write(pickle.dumps((name, [jobs[i] for i in idx])))
        p.stdin.close()
        procs.append(p)
    results: list[Any] = [None] * len(jobs)
    failure: BaseException | None = None
    for p, idx in zip(procs, groups, strict=True):
        assert p.stdout is not None
        data = p.stdout.read()
        code = p.wait()
        if code != 0 or not data:
            failure = failure or RuntimeError(f"an ingest worker exited with status {code}")
            continue
        for i, (status, value) in zip(idx, pickle.loads(data), strict=True):
            if status == "err":
                failure = failure or value
            results[i] = value
    if failure is not None:
        raise failure
    return results


def serve() -> None:
    """The worker side: jobs from stdin, results to stdout (anything else printed goes
    to stderr, so a library's progress bar cannot corrupt the results)."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    name, jobs = pickle.loads(sys.stdin.buffer.read())
    module, _, qual = name.partition(":")
    func: Any = importlib.import_module(module)
    for part in qual.split("."):
        func = getattr(func, part)
    results = []
    for job in jobs:
        try:
            results.append(("ok", func(job)))
        except Exception as exc:  # carried back to the parent, which raises it
            results.append(("err", exc))
    out.write(pickle.dumps(results))
    out.close()
