"""Trace diff: our aligned diff against DeepDiff (and two naive baselines) on the same data.

    python bench/diff.py [--sizes 1000,10000,100000] [--deepdiff-max 10000] [--repeat 3] [--json]

For each size N, a deterministic (seeded) agent trace A of N events — tool calls, HTTP
calls and model calls whose arguments carry ids, paths and amounts and whose results
carry statuses and small lists — and a trace B made from A by changing 1 % of all leaf
fields (spread over the events), deleting 5 events and inserting 5 new ones. The truth
(which events changed, which were added, which removed) is known from the construction.

Methods, all on the same in-memory data, in one process, one after the other:

* **ours**: ``workbench.diff_traces(A, B)`` on ``Trace`` objects (building the ``Trace``
  objects is not timed; it is reported apart);
* **ours+canon**: the same with a canon that drops one path and symbolizes ids
  (``drop: [attrs.request_id]``, ``symbolize: ["*_id"]``), the walk every event then takes;
* **deepdiff**: ``deepdiff.DeepDiff(docs_a, docs_b)`` over the lists of event documents
  (``{kind, name, status, args, result, error, attrs}``), its defaults (order matters),
  up to ``--deepdiff-max`` events (DeepDiff takes minutes at 100k: the output says when a
  size was skipped); from the bench environment (bench/README.md);
* **positional**: events paired by index, then compared — what a join on seq does;
* **difflib**: ``difflib.SequenceMatcher`` over (kind, name, args) keys, the quadratic
  trap, up to ``--difflib-max`` events.

Each method's accuracy is "events reported changed / added / removed" against the truth:
an insertion must not make every later event look changed. Targets: ours aligns exactly,
diffs 100k events in under 1 s, and is >= 50x faster than DeepDiff at 10k events.
This is a measurement, not a test: it exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import gc
import json
import platform
import random
import statistics
import sys
import time
from typing import Any

from _measure import ChildFailed, finish, measure

TARGET_SECONDS_100K = 1.0
TARGET_RATIO_10K = 50.0
TOOLS = ["search", "read_file", "apply_patch", "run_tests", "get_job", "list_projects",
         "archive_project", "charge"]


# --- the data --------------------------------------------------------------------------

def _event(rng: random.Random, i: int) -> dict[str, Any]:
    r = rng.random()
    if r < 0.15:
        kind, name = "llm_call", "claude-sonnet"
        args = {"messages": i % 7 + 3, "max_tokens": 1024}
        result = {"stop_reason": rng.choice(["tool_use", "end_turn"]),
                  "usage": {"input": rng.randrange(1000, 9000), "output": rng.randrange(50, 900)}}
    elif r < 0.3:
        kind, name = "http", rng.choice(["GET /v1/projects", "POST /v1/jobs", "GET /v1/jobs"])
        args = {"method": name.split()[0], "path": name.split()[1],
                "query": {"limit": 50, "cursor": f"c{rng.randrange(10**6)}"}}
        result = {"status": 200, "body": {"items": [{"id": f"p{rng.randrange(10**5)}",
                                                      "state": "active"} for _ in range(2)]}}
    else:
        kind, name = "tool_call", rng.choice(TOOLS)
        args = {"job_id": f"j{i}", "project_id": f"p{rng.randrange(10**5)}",
                "path": f"src/mod{rng.randrange(60)}.py", "amount": round(rng.random() * 100, 2)}
        result = {"status": rng.choice(["ok", "queued", "running", "captured"]),
                  "items": [{"id": f"x{rng.randrange(10**6)}", "n": rng.randrange(100)}
                            for _ in range(2)], "retry_allowed": rng.random() < 0.5}
    return {"kind": kind, "name": name, "status": "ok", "args": args, "result": result,
            "error": None, "attrs": {"request_id": f"rq-{rng.getrandbits(48):x}"}}


def _leaves(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _leaves(v, (*at, k))]
    if isinstance(doc, list):
        return [p for k, v in enumerate(doc) for p in _leaves(v, (*at, k))]
    return [at]


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for k in path[:-1]:
        doc = doc[k]
    doc[path[-1]] = value


def make_pair(n: int, seed: int = 0, edits: int = 5) -> dict[str, Any]:
    """Docs of A and B, and the truth: changed (A index, B index), added, removed."""
    rng = random.Random(seed)
    a = [_event(rng, i) for i in range(n)]
    b = copy.deepcopy(a)
    fields = [(i, p) for i, d in enumerate(b) for p in _leaves(d)
              if p[0] in ("args", "result", "attrs")]
    changed_a: set[int] = set()
    for i, path in rng.sample(fields, max(1, len(fields) // 100)):
        _set(b[i], path, f"changed-{rng.randrange(10**9)}")
        changed_a.add(i)
    gone = set(rng.sample(range(n), edits))
    keep = [i for i in range(n) if i not in gone]
    b_docs = [b[i] for i in keep]
    origin: list[int | None] = list(keep)
    for k in range(edits):
        at = rng.randrange(len(b_docs) + 1)
        b_docs.insert(at, _event(rng, n + k))
        origin.insert(at, None)
    truth = {"changed": sorted(i for i in changed_a if i not in gone),
             "added": [j for j, o in enumerate(origin) if o is None],
             "removed": sorted(gone)}
    return {"a": a, "b": b_docs, "truth": truth, "fields": len(fields)}


def _traces(pair: dict[str, Any]) -> tuple[Any, Any]:
    from workbench.model import Event, Trace

    def build(tid: str, docs: list[dict[str, Any]]) -> Trace:
        return Trace(tid, tuple(Event(tid, f"{tid}-{i}", None, i, d["kind"], d["name"], None,
                                      None, d["status"], d["args"], d["result"], d["error"],
                                      d["attrs"]) for i, d in enumerate(docs)))
    return build("a", pair["a"]), build("b", pair["b"])


# --- the methods -----------------------------------------------------------------------

def run_ours(ta: Any, tb: Any, canon: Any) -> dict[str, Any]:
    from workbench import diff_traces
    d = diff_traces(ta, tb, canon)
    return {"changed": sorted(c.a.seq for c in d.changed), "added": [e.seq for e in d.added],
            "removed": [e.seq for e in d.removed]}


def run_deepdiff(a: list[Any], b: list[Any]) -> dict[str, Any]:
    from deepdiff import DeepDiff
    dd = DeepDiff(a, b)
    changed: set[int] = set()
    added: list[int] = []
    removed: list[int] = []
    for kind, items in dd.items():
        for path in (items.keys() if hasattr(items, "keys") else items):
            p = str(path)
            idx = int(p[5:p.index("]")])  # root[12]...
            if kind == "iterable_item_added" and p.count("[") == 1:
                added.append(idx)
            elif kind == "iterable_item_removed" and p.count("[") == 1:
                removed.append(idx)
            else:
                changed.add(idx)
    return {"changed": sorted(changed), "added": added, "removed": removed}


def run_positional(a: list[Any], b: list[Any]) -> dict[str, Any]:
    changed = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    return {"changed": changed, "added": list(range(len(a), len(b))),
            "removed": list(range(len(b), len(a)))}


def run_difflib(a: list[Any], b: list[Any]) -> dict[str, Any]:
    def key(d: dict[str, Any]) -> str:
        return json.dumps([d["kind"], d["name"], d["args"]], sort_keys=True)
    sm = difflib.SequenceMatcher(None, [key(d) for d in a], [key(d) for d in b],
                                 autojunk=False)
    changed, added, removed = [], [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            changed += [i for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                        if a[i] != b[j]]
        else:
            removed += range(i1, i2)
            added += range(j1, j2)
    return {"changed": changed, "added": added, "removed": removed}


def _accuracy(got: dict[str, Any], truth: dict[str, Any]) -> dict[str, Any]:
    exact = all(list(got[k]) == list(truth[k]) for k in ("changed", "added", "removed"))
    return {"changed": len(got["changed"]), "added": len(got["added"]),
            "removed": len(got["removed"]), "exact": exact}


def _time(fn: Any, repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


# --- the run ---------------------------------------------------------------------------

def _have_deepdiff() -> str | None:
    try:
        import deepdiff
    except ImportError:
        return None
    return str(getattr(deepdiff, "__version__", "?"))


def measure_size(n: int, args: argparse.Namespace, dd_version: str | None) -> dict[str, Any]:
    from workbench.diff import Canon
    pair = make_pair(n, seed=args.seed)
    truth = pair["truth"]
    t0 = time.perf_counter()
    ta, tb = _traces(pair)
    build_s = time.perf_counter() - t0
    canon = Canon.of(drop=["attrs.request_id"], symbolize=["*_id"])
    rows: dict[str, dict[str, Any]] = {}
    s, got = _time(lambda: run_ours(ta, tb, None), args.repeat)
    rows["ours"] = {"seconds": s, **_accuracy(got, truth)}
    s, got = _time(lambda: run_ours(ta, tb, canon), args.repeat)
    # the canon drops attrs.request_id: an event whose only change was there is now equal
    rows["ours+canon"] = {"seconds": s, **_accuracy(got, truth), "exact": None}
    s, got = _time(lambda: run_positional(pair["a"], pair["b"]), 1)
    rows["positional"] = {"seconds": s, **_accuracy(got, truth)}
    if n <= args.difflib_max:
        s, got = _time(lambda: run_difflib(pair["a"], pair["b"]), 1)
        rows["difflib"] = {"seconds": s, **_accuracy(got, truth)}
    else:
        rows["difflib"] = {"skipped": f"above --difflib-max {args.difflib_max}"}
    if dd_version is None:
        rows["deepdiff"] = {"skipped": "deepdiff is not installed (see bench/README.md)"}
    elif n > args.deepdiff_max:
        rows["deepdiff"] = {"skipped": f"above --deepdiff-max {args.deepdiff_max}"}
    else:
        s, got = _time(lambda: run_deepdiff(pair["a"], pair["b"]), 1)
        rows["deepdiff"] = {"seconds": s, **_accuracy(got, truth)}
    return {"events": n, "fields": pair["fields"], "truth": {k: len(v) for k, v in truth.items()},
            "trace_build_seconds": build_s, "methods": rows}


def report(doc: dict[str, Any]) -> None:
    print(f"trace diff: {doc['machine']}; DeepDiff {doc['deepdiff'] or 'not installed'}")
    print(f"{'events':>8} {'method':<11} {'seconds':>9} {'changed':>8} {'added':>6} "
          f"{'removed':>8}  aligned exactly")
    for r in doc["sizes"]:
        t = r["truth"]
        print(f"{r['events']:>8} {'truth':<11} {'':>9} {t['changed']:>8} {t['added']:>6} "
              f"{t['removed']:>8}  ({r['fields']} leaf fields, 1% changed)")
        for name, m in r["methods"].items():
            if "skipped" in m:
                print(f"{'':>8} {name:<11} {'skipped':>9}  {m['skipped']}")
                continue
            exact = "n/a (drops a path)" if m["exact"] is None else (
                "yes" if m["exact"] else "NO")
            print(f"{'':>8} {name:<11} {m['seconds']:>9.3f} {m['changed']:>8} {m['added']:>6} "
                  f"{m['removed']:>8}  {exact}")
        print(f"{'':>8} (building the two Trace objects: {r['trace_build_seconds']:.3f} s, "
              f"not in ours; peak RSS of the run {r['peak_rss_mb']:,.0f} MB)")
    for line in doc["verdicts"]:
        print(line)
    for line in doc["failures"]:
        print("FAILED:", line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--deepdiff-max", type=int, default=10_000,
                    help="largest size DeepDiff runs on (it takes minutes at 100k)")
    ap.add_argument("--difflib-max", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5, help="runs of ours per size (median)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, in a child
    args = ap.parse_args(argv)
    dd = _have_deepdiff()
    if args.one is not None:
        print(json.dumps(measure_size(args.one, args, dd)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    verdicts: list[str] = []
    failures: list[str] = []
    results = []
    for n in sizes:  # each size in a fresh interpreter: no heap left over from the last
        cmd = [sys.executable, __file__, "--one", str(n), "--deepdiff-max",
               str(args.deepdiff_max), "--difflib-max", str(args.difflib_max), "--repeat",
               str(args.repeat), "--seed", str(args.seed)]
        try:
            res = measure(cmd, f"{n} events")
        except ChildFailed as exc:
            failures.append(str(exc))
            continue
        res.pop("wall_seconds", None)
        results.append(res)
    for r in results:
        ours = r["methods"]["ours"]
        if not ours["exact"]:
            verdicts.append(f"MISMATCH: ours did not find exactly the truth at {r['events']}")
        ddm = r["methods"]["deepdiff"]
        if "seconds" in ddm:
            ratio = ddm["seconds"] / ours["seconds"]
            r["ratio_deepdiff"] = ratio
            target = " (target >= 50x: " + ("met" if ratio >= TARGET_RATIO_10K else
                                             "NOT met") + ")" if r["events"] == 10_000 else ""
            verdicts.append(f"ratio (deepdiff / ours) at {r['events']} events: {ratio:,.0f}x"
                            f"{target}")
        if r["events"] == 100_000:
            ok = ours["seconds"] < TARGET_SECONDS_100K
            verdicts.append(f"ours at 100,000 events: {ours['seconds']:.3f} s (target < 1 s: "
                            f"{'met' if ok else 'NOT met'}); with the canon "
                            f"{r['methods']['ours+canon']['seconds']:.3f} s")
    if dd is None:
        verdicts.append("DeepDiff is not installed here: no ratio. Create the bench "
                        "environment (bench/README.md) to measure it.")
    elif any("skipped" in r["methods"]["deepdiff"] for r in results):
        verdicts.append(f"DeepDiff ran up to --deepdiff-max {args.deepdiff_max} events only "
                        "(capped: it takes minutes beyond)")
    doc = {"machine": f"{platform.machine()}, Python {platform.python_version()}",
           "deepdiff": dd, "sizes": results, "verdicts": verdicts, "failures": failures}
    finish(doc, args.json, report)
    return 1 if failures else 0  # a crashed child; a misalignment is a MISMATCH line


if __name__ == "__main__":
    sys.exit(main())
