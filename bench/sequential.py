"""The sequential runner's average run count against a fixed-N design with the same
error rates (docs/statistics.md "Sequential runs").

The fixed design: the fewest runs n and a violation count c such that FAIL (c or more
violations) has chance at most alpha at the good rate and PASS (fewer than c) chance at
most beta at the bad rate, from scipy's binomial distribution. The sequential test:
Wald's SPRT (``workbench.stats.SPRT``) with the same good and bad rates, alpha and beta,
truncated at ``--max`` runs; its chances of PASS, FAIL and INCONCLUSIVE and its
expected run count are exact (dynamic programming), and ``--simulate`` draws seeded
runs through the same ``SequentialState`` the runner uses as a cross-check. Prints the
ratio of expected runs, sequential / fixed, per true rate.

    python bench/sequential.py [--max-rate 0.05] [--alpha 0.05] [--beta 0.05]
                               [--max 1000] [--simulate 2000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random

from scipy.stats import binom

from workbench.stats import SPRT


def fixed_design(p0: float, p1: float, alpha: float, beta: float) -> tuple[int, int]:
    """The fewest runs n, and the critical violation count c, meeting both error rates."""
    for n in range(1, 100_000):
        # the smallest c whose false FAIL chance is at most alpha
        c = int(binom.isf(alpha, n, p0)) + 1
        while c > 0 and binom.sf(c - 2, n, p0) <= alpha:
            c -= 1
        if binom.sf(c - 1, n, p0) <= alpha and binom.cdf(c - 1, n, p1) <= beta:
            return n, c
    raise RuntimeError("no fixed design under 100,000 runs")


def simulate(test: SPRT, p: float, times: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    out = {"PASS": 0.0, "FAIL": 0.0, "INCONCLUSIVE": 0.0, "runs": 0.0}
    for _ in range(times):
        s = test.start()
        while s.verdict is None:
            s.add(rng.random() < p)
        out[s.verdict] += 1 / times
        out["runs"] += s.runs / times
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-rate", type=float, default=0.05)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--max", type=int, default=1000)
    ap.add_argument("--simulate", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    test = SPRT(a.max_rate, a.max, a.alpha, a.beta)
    n, c = fixed_design(test.p0, test.p1, a.alpha, a.beta)
    rows = []
    for p in (0.0, test.p0 / 2, test.p0, a.max_rate, test.p1, 2 * test.p1):
        oc = test.operating(p)
        row = {"rate": p, "sequential_runs": round(oc["runs"], 2), "fixed_runs": n,
               "ratio": round(oc["runs"] / n, 3), "pass": round(oc["PASS"], 4),
               "fail": round(oc["FAIL"], 4), "inconclusive": round(oc["INCONCLUSIVE"], 4),
               "fixed_fail": round(float(binom.sf(c - 1, n, p)), 4)}
        if a.simulate:
            sim = simulate(test, p, a.simulate, seed=int(p * 1e6))
            row["simulated_runs"] = round(sim["runs"], 2)
        rows.append(row)
    doc = {"sequential": test.to_dict(), "fixed": {"runs": n, "fail_at": c}, "rows": rows}
    if a.json:
        print(json.dumps(doc, indent=1))
        return
    print(f"SPRT good {test.p0:g} bad {test.p1:g} alpha {a.alpha:g} beta {a.beta:g}, at "
          f"most {a.max} runs; fixed design: {n} runs, FAIL at {c} or more violations")
    head = ["rate", "sequential_runs", "fixed_runs", "ratio", "pass", "fail",
            "inconclusive", "fixed_fail"] + (["simulated_runs"] if a.simulate else [])
    print("  ".join(f"{h:>15}" for h in head))
    for r in rows:
        print("  ".join(f"{r[h]:>15}" for h in head))


if __name__ == "__main__":
    main()
