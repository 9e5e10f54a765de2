"""What the benchmark scripts share: running one measurement in a fresh interpreter
(peak RSS from ``wait4``, optionally the whole process tree sampled), warming the page
cache, and printing the result document."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["MB", "ChildFailed", "finish", "measure", "warm"]

MB = 1_000_000


class ChildFailed(RuntimeError):
    pass


def _tree_mb(root: int) -> float:
    """Memory of a process and all its descendants now: the sum of their PSS (RSS where
    PSS is unavailable), so worker processes count and shared pages count once."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(d))
    total_kb = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                key = b"Pss:"
                text = f.read()
        except OSError:
            try:
                with open(f"/proc/{pid}/status", "rb") as f:
                    key = b"VmRSS:"
                    text = f.read()
            except OSError:
                continue
        for line in text.splitlines():
            if line.startswith(key):
                total_kb += int(line.split()[1])
                break
    return total_kb * 1024 / MB


class _TreeSampler(threading.Thread):
    """Samples the memory of a process tree every ``interval`` seconds; keeps the peak."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak_mb = pid, interval, 0.0
        self.done = threading.Event()
        self.enabled = os.path.isdir("/proc")

    def run(self) -> None:
        while self.enabled and not self.done.is_set():
            with contextlib.suppress(Exception):  # a process vanished mid-read: skip it
                self.peak_mb = max(self.peak_mb, _tree_mb(self.pid))
            self.done.wait(self.interval)


def measure(cmd: list[str], label: str, *, cwd: Path | None = None,
            sample_tree: bool = False, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cmd``; the last JSON line it printed, plus ``wall_seconds``,
    ``peak_rss_mb`` (largest single process, from ``wait4``) and, with ``sample_tree``,
    ``peak_tree_mb`` (sampled sum over the process and its workers). ``env``: the
    child's environment (default: this one's)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        proc = subprocess.Popen(cmd, stdout=so, stderr=se, stdin=subprocess.DEVNULL,
                                cwd=str(cwd) if cwd else None, env=env)
        sampler = _TreeSampler(proc.pid) if sample_tree else None
        if sampler is not None:
            sampler.start()
        # wait4: rusage of the child, whose ru_maxrss is the largest of the child and the
        # descendants it waited for (max of one process, not their sum); KiB on Linux
        _, status, usage = os.wait4(proc.pid, 0)
        if sampler is not None:
            sampler.done.set()
            sampler.join()
        code = os.waitstatus_to_exitcode(status)
        so.seek(0)
        se.seek(0)
        text, err = so.read().decode(errors="replace"), se.read().decode(errors="replace")
    if code != 0:
        raise ChildFailed(f"{label} run failed (exit {code}):\n{err[-4000:]}")
    res: dict[str, Any] = json.loads([ln for ln in text.splitlines() if ln.startswith("{")][-1])
    res["wall_seconds"] = time.perf_counter() - t0
    res["peak_rss_mb"] = usage.ru_maxrss * 1024 / MB
    # CPU seconds of the child and the descendants it waited for (its workers)
    res["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    if sampler is not None:
        res["peak_tree_mb"] = sampler.peak_mb
    return res


def warm(*paths: Path) -> None:
    """Read files (or every Parquet file under folders) so the page cache is warm."""
    for path in paths:
        files = sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
        for p in files:
            with open(p, "rb") as f:
                while f.read(8 << 20):
                    pass


def finish(doc: dict[str, Any], as_json: bool,
           report: Callable[[dict[str, Any]], None]) -> int:
    """Print the document (as JSON, or the script's table); exit 1 on failures."""
    if as_json:
        json.dump(doc, sys.stdout, indent=2)
        print()
    else:
        report(doc)
    return 1 if doc["failures"] else 0
