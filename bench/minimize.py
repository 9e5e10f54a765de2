"""Oracle calls to minimize an incident: ours against plain ddmin and picire, beside the
information bound.

    python bench/minimize.py [--sizes 100,1000,10000] [--ks 1,2,4] [--seeds 3]
                             [--max-calls 20000] [--max-seconds 20] [--big 20000] [--json]

Synthetic agent traces (``_mintraces.py``: a random dependency DAG of parents and
data-flow refs, fixed seeds) with k culprit tool calls; the oracle fails while every
culprit is present and the candidate can replay (no missing dependency). In the same
run, on the same traces and oracle:

* **ours**: ``workbench.minimize.minimize_trace`` with no witness (the pure search:
  prefix search, then the verifying sweep; the oracle is a pure function, so it is
  marked deterministic and the final re-test, which guards flaky replays, is skipped);
* **ddmin**: classic ddmin with the same dependency closure and a cache (``_mintraces``);
* **picire**: picire 21.8's ``DD`` on the raw event list with its cache (bench
  environment only; the table says when it is not installed).

Each baseline gets ``--max-calls`` calls and ``--max-seconds`` seconds per run; a run
that hits either is marked and its smallest failure so far is judged.

The bound: identifying k culprits among n candidate events (every event of the trace
is a candidate) needs at least log2 C(n, k) yes/no answers. Proving the answer
1-minimal against an oracle that need not be monotone needs one more answer per kept
event whose removal leaves something (``proof``); any method that reports verified
1-minimality pays it (ddmin's last pass does). Two ratios are printed:
``s/bnd`` = our mean search calls / log2 C(n, k) per configuration (n, k), the
target being <= 1.3 (``worst`` is the worst single seed: with one culprit among 100
events even a perfect bisection needs 7 calls plus 1 to learn that one is enough,
1.2x); and ``all/(b+p)`` = all our calls / (log2 C(n, k) + proof). "ok"
means the result is exactly the culprits plus their dependencies, which for this
oracle is the one 1-minimal answer.

This is a measurement, not a test: it exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from typing import Any

from _mintraces import Counted, agent_trace, culprits, ddmin, picire_run

from workbench.minimize import minimize_trace
from workbench.model import Trace

TARGET = 1.3
SETUP = ("python -m venv .venv-bench && .venv-bench/bin/pip install -e . "
         "-r bench/requirements.txt")


def bound(n: int, k: int) -> float:
    return math.log2(math.comb(n, k))


def proof(trace: Trace, kept: set[str]) -> int:
    """Single-event removals of the answer that leave a non-empty candidate."""
    roots = {e.event_id for e in trace.events if e.event_id in kept
             and all(e.event_id in trace.closure([x]) for x in kept)}
    return len(kept) - len(roots)


class Incident:
    """The incident oracle for ours: fails while every culprit is present. It is a pure
    function of the candidate, so it says so and ours skips the final re-test (which
    guards flaky replays; the baselines do not re-test either)."""

    deterministic = True

    def __init__(self, want: set[str]) -> None:
        self.want = want

    def __call__(self, trace: Trace) -> bool:
        return self.want <= {e.event_id for e in trace.events}


def run_ours(trace: Trace, want: set[str], ns: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    r = minimize_trace(trace, Incident(want), whole_fails=True, max_calls=ns.max_calls,
                       max_seconds=ns.max_seconds)
    phases = r.calls_by_phase
    return {"calls": r.oracle_calls, "search": phases.get("search", 0)
            + phases.get("retest", 0), "verify": phases.get("sweep", 0),
            "seconds": time.perf_counter() - t0, "kept": set(r.kept_event_ids),
            "one_minimal": r.one_minimal, "stopped": r.stopped}


def run_baseline(name: str, trace: Trace, want: set[str],
                 ns: argparse.Namespace) -> dict[str, Any] | None:
    oracle = Counted(trace, want, ns.max_calls, ns.max_seconds)
    t0 = time.perf_counter()
    kept = ddmin(trace, oracle) if name == "ddmin" else picire_run(trace, oracle)
    if kept is None:
        return None
    return {"calls": oracle.calls, "seconds": time.perf_counter() - t0, "kept": kept,
            "stopped": oracle.stopped}


def case(n: int, k: int, seed: int, ns: argparse.Namespace,
         methods: list[str]) -> dict[str, Any]:
    trace = agent_trace(n, seed)
    want = culprits(trace, k, seed)
    answer = trace.closure(want)
    row: dict[str, Any] = {"n": n, "k": k, "seed": seed, "bound": bound(n, k),
                           "answer": len(answer), "proof": proof(trace, answer)}
    for m in methods:
        res = run_ours(trace, want, ns) if m == "ours" else run_baseline(m, trace, want, ns)
        if res is None:
            row[m] = None
            continue
        res["ok"] = res.pop("kept") == answer
        row[m] = res
    return row


def summarize(rows: list[dict[str, Any]], methods: list[str]) -> list[dict[str, Any]]:
    out = []
    for key in sorted({(r["n"], r["k"]) for r in rows}):
        group = [r for r in rows if (r["n"], r["k"]) == key]
        s: dict[str, Any] = {"n": key[0], "k": key[1], "bound": group[0]["bound"],
                             "answer": statistics.mean(r["answer"] for r in group),
                             "proof": statistics.mean(r["proof"] for r in group)}
        for m in methods:
            res = [r[m] for r in group if r.get(m) is not None]
            if not res:
                s[m] = None
                continue
            s[m] = {"calls": statistics.mean(x["calls"] for x in res),
                    "seconds": statistics.mean(x["seconds"] for x in res),
                    "ok": sum(x["ok"] for x in res), "runs": len(res),
                    "stopped": sum(x["stopped"] is not None for x in res)}
            if m == "ours":
                s[m]["search"] = statistics.mean(x["search"] for x in res)
                s[m]["verify"] = statistics.mean(x["verify"] for x in res)
                s[m]["one_minimal"] = sum(x["one_minimal"] for x in res)
                s[m]["search_ratio"] = s[m]["search"] / s["bound"]
                s[m]["total_ratio"] = s[m]["calls"] / (s["bound"] + s["proof"])
                s[m]["worst_search_ratio"] = max(x["search"] / r["bound"]
                                                 for x, r in zip(res, group, strict=True))
                s[m]["worst_total_ratio"] = max(
                    x["calls"] / (r["bound"] + r["proof"])
                    for x, r in zip(res, group, strict=True))
        out.append(s)
    return out


def _cell(res: dict[str, Any] | None) -> str:
    if res is None:
        return f"{'not installed':>22}"
    mark = "" if res["ok"] == res["runs"] else f" ({res['runs'] - res['ok']} wrong)"
    cut = "*" if res["stopped"] else ""
    return f"{res['calls']:>9,.0f}{cut:1} {res['seconds']:>7.2f}s{mark:>4}"


def report(doc: dict[str, Any]) -> None:
    print(f"minimize: oracle calls per run (mean of {doc['seeds']} seeds), "
          "ours vs ddmin vs picire; * = a run hit the budget "
          f"({doc['max_calls']:,} calls / {doc['max_seconds']:g} s)")
    head = (f"{'n':>6} {'k':>2} {'log2C':>6} {'|S|':>5} {'proof':>5} | {'ours':>6} "
            f"{'search':>6} {'verify':>6} {'s/bnd':>6} {'worst':>6} {'all/(b+p)':>9} "
            f"{'sec':>6} "
            f"{'1-min':>5} | {'ddmin calls':>22} | {'picire calls':>22}")
    print(head)
    print("-" * len(head))
    for s in doc["summary"]:
        o = s["ours"]
        print(f"{s['n']:>6,} {s['k']:>2} {s['bound']:>6.1f} {s['answer']:>5.1f} "
              f"{s['proof']:>5.1f} | {o['calls']:>6.1f} {o['search']:>6.1f} "
              f"{o['verify']:>6.1f} {o['search_ratio']:>5.2f}x "
              f"{o['worst_search_ratio']:>5.2f}x {o['total_ratio']:>8.2f}x "
              f"{o['seconds']:>6.2f} "
              f"{o['one_minimal']:>2}/{o['runs']:<2} | {_cell(s.get('ddmin'))} | "
              f"{_cell(s.get('picire'))}")
    worst = max(s["ours"]["search_ratio"] for s in doc["summary"])
    print(f"\nhighest mean search/bound over the configurations {worst:.2f}x (target <= "
          f"{TARGET}x: "
          f"{'met' if worst <= TARGET else 'NOT met'}); every result 1-minimal: "
          f"{'yes' if doc['all_one_minimal'] else 'NO'}")
    if not doc["picire"]:
        print(f"picire is not installed in this environment; create the bench "
              f"environment with `{SETUP}` and run `.venv-bench/bin/python bench/minimize.py`")
    for b in doc["big"]:
        o = b["ours"]
        print(f"big: n={b['n']:,} k={b['k']}: kept {b['answer']} events (culprits + "
              f"dependencies: {'yes' if o['ok'] else 'NO'}) in {o['calls']} oracle calls "
              f"({o['search']} search, {o['verify']} verify; log2 C = "
              f"{b['bound']:.1f}), {o['seconds']:.2f}s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--ks", default="1,2,4")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--max-calls", type=int, default=20000)
    ap.add_argument("--max-seconds", type=float, default=20.0)
    ap.add_argument("--big", type=int, default=20000,
                    help="also minimize one trace of this many events, k=2, ours only (0: no)")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ns = ap.parse_args(argv)
    try:
        import picire  # noqa: F401
        has_picire = True
    except ImportError:
        has_picire = False
    methods = ["ours", "ddmin"] + (["picire"] if has_picire else [])
    rows = [case(n, k, seed, ns, methods)
            for n in map(int, ns.sizes.split(",")) for k in map(int, ns.ks.split(","))
            for seed in range(ns.seeds)]
    big = [case(ns.big, 2, 0, ns, ["ours"])] if ns.big else []
    for b in big:
        b["ours"].update(ok=b["ours"]["ok"])
    summary = summarize(rows, methods)
    doc = {"seeds": ns.seeds, "max_calls": ns.max_calls, "max_seconds": ns.max_seconds,
           "picire": has_picire, "summary": summary, "big": big,
           "all_one_minimal": all(r["ours"]["one_minimal"] and r["ours"]["ok"]
                                  for r in rows + big),
           "failures": []}
    if ns.json:
        import json
        json.dump(doc, sys.stdout, indent=2, default=str)
        print()
    else:
        report(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
