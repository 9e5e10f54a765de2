"""Redaction speed on the ingest bench's OTLP spans (``bench/redact.py --speed``).

Each measured process ingests the generated file (``_otlpgen``, ``--speed-spans``
spans, seed 0) with one worker and redaction on, and times every ``Redactor.value``
call (ids, names, args, results, attributes; ``Redactor.ident`` too, where ids go
through it): the CPU the redaction costs, apart from parsing and writing. With
``--speed-baseline DIR`` (a checkout of another commit, e.g. ``git worktree add
../base HEAD~3``) the same child runs from that checkout too,
interleaved with ours, so both figures come from one run of a shared machine.

The child also reports, where the prefilter exists, how many strings reached the gate,
how many the prefilter passed to the exact gate and how many of those the exact gate
passed, and checks on every string that the prefilter rejected none the exact gate
passes (``--speed-check``; slower).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys, time, tempfile, os
src, check = sys.argv[1], sys.argv[2] == "1"
t0 = time.perf_counter()
import workbench.redact as wr
from workbench.redact import Redactor
imported = time.perf_counter() - t0
from workbench.ingest import ingest
from workbench.store import Store
spent = [0.0]
calls = [0]
orig = Redactor.value
clock = time.thread_time
def timed(self, v):
    t = clock()
    try:
        return orig(self, v)
    finally:
        spent[0] += clock() - t
        calls[0] += 1
Redactor.value = timed
if hasattr(Redactor, "ident"):  # ids: redacted through ident, where there is one
    orig_ident = Redactor.ident
    def timed_ident(self, v):
        t = clock()
        try:
            return orig_ident(self, v)
        finally:
            spent[0] += clock() - t
            calls[0] += 1
    Redactor.ident = timed_ident
gate = {}
try:
    from workbench.redact import _encoded, _prefilter
    t = time.perf_counter()
    pf = _prefilter.prefilter()
    gate["prefilter_first_use_seconds"] = time.perf_counter() - t
    if pf is not None:
        gate.update(build_seconds=pf.build_seconds, load_seconds=pf.load_seconds,
                    patterns=len(pf.patterns) if pf.patterns else None)
        counts = {"strings": 0, "prefilter_passed": 0, "exact_passed": 0, "missed": 0}
        passes, exact = pf.passes, _encoded.exact_gate
        def counted_passes(s):
            counts["strings"] += 1
            got = passes(s)
            counts["prefilter_passed"] += got
            if not got and check and exact(s):
                counts["missed"] += 1
            return got
        def counted_exact(s):
            got = exact(s)
            counts["exact_passed"] += got
            return got
        pf.passes = counted_passes
        _encoded.exact_gate = counted_exact
        gate["counts"] = counts
except ImportError:
    pass
with tempfile.TemporaryDirectory() as tmp:
    c0, w0 = time.process_time(), time.perf_counter()
    res = ingest([src], Store(os.path.join(tmp, "store")), workers=1)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
print(json.dumps({"redact_seconds": spent[0], "value_calls": calls[0], "ingest_cpu": cpu,
                  "ingest_wall": wall, "events": res.events, "import_seconds": imported,
                  "checked": check, **gate}))
"""


def spans_file(n: int, work: Path) -> Path:
    path = work / f"otlp-{n}.jsonl"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from _otlpgen import generate
        generate(path, n, seed=0)
    return path


def child(repo: Path, src: Path, check: bool) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(repo))
    out = subprocess.run([sys.executable, "-c", CHILD, str(src), "1" if check else "0"],
                         cwd=repo, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"the speed child failed in {repo}:\n{out.stderr[-3000:]}")
    doc: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return doc


def speed(spans: int, repeat: int, baseline: str | None, check: bool) -> dict[str, Any]:
    ours = HERE.parent
    work = Path(os.environ.get("WORKBENCH_BENCH_DIR") or tempfile.gettempdir()) / "redact-speed"
    work.mkdir(parents=True, exist_ok=True)
    src = spans_file(spans, work)
    repos = {"ours": ours} | ({"baseline": Path(baseline).resolve()} if baseline else {})
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in repos}
    for i in range(repeat):
        for name, repo in repos.items():
            runs[name].append(child(repo, src, check and name == "ours" and i == 0))
    out: dict[str, Any] = {"spans": spans, "file_bytes": src.stat().st_size, "runs": runs}
    for name, rs in runs.items():
        out[name] = {"redact_seconds_median": statistics.median(r["redact_seconds"] for r in rs),
                     "redact_seconds": [round(r["redact_seconds"], 2) for r in rs],
                     "ingest_cpu_median": statistics.median(r["ingest_cpu"] for r in rs)}
    if baseline:
        out["ratio"] = (out["ours"]["redact_seconds_median"]
                        / out["baseline"]["redact_seconds_median"])
    return out


def report_speed(doc: dict[str, Any]) -> None:
    print(f"\nRedaction speed, {doc['spans']:,} OTLP spans ({doc['file_bytes'] / 1e6:.0f} MB), "
          "CPU seconds inside Redactor.value and .ident (one worker):")
    for name in ("baseline", "ours"):
        if name in doc:
            d = doc[name]
            print(f"  {name:9} median {d['redact_seconds_median']:.2f} s  "
                  f"runs {d['redact_seconds']}  whole ingest CPU median "
                  f"{d['ingest_cpu_median']:.2f} s")
    if "ratio" in doc:
        print(f"  ours / baseline: {doc['ratio']:.2f}")
    first = doc["runs"]["ours"][0]
    counts = first.get("counts")
    if counts:
        n = max(counts["strings"], 1)
        print(f"  gate: {counts['strings']:,} strings; prefilter passed "
              f"{counts['prefilter_passed'] / n:.1%}, exact gate passed "
              f"{counts['exact_passed'] / n:.1%}; rejected by the prefilter but passed by "
              f"the exact gate: {counts['missed'] if first.get('checked') else 'not checked'}")
    if "prefilter_first_use_seconds" in first:
        built = first.get("build_seconds")
        loaded = first.get("load_seconds")
        how = (f"built in {built:.2f} s" if built is not None
               else f"cache loaded in {loaded:.4f} s")
        print(f"  prefilter: {first['patterns'] or 'cached'} patterns; first use "
              f"{first['prefilter_first_use_seconds']:.3f} s ({how})")
