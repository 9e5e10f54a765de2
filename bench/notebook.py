"""The notebook views on a big trace, measured in the kernel's process.

    python bench/notebook.py [--events 100000] [--repeat 3] [--json]

Builds one synthetic agent trace (a root, then turns of one model call and nine tool
calls; every 97th step fails; tool 2 of each turn uses a value of the turn's first tool
result), writes it as JSONL and ingests it into a scratch store. Then, in the same run:

* **cli**: ``workbench check RULES --trace ID --no-record`` in a fresh process (what a
  user runs in a terminal: start-up, the store-wide SQL engine, wording the findings);
* **ruleview**: ``RuleView(store, ID, rules=RULES).run()`` in this process (the same
  engine, the findings listed, grouped, the first page filled), and **first screen**:
  the part of it after the engine returned (grouping, labels, the first page);
* **timeline**: ``TraceView(store, ID)`` opened once, then redraws — the whole trace
  (bins), a 10,000-step window (bins), a 150-step window deep into it (event by event),
  back to the whole trace — each ``set_window`` timed (a new frame, a new chart spec, the
  table page).

Targets (issue 24): ruleview within **2x** the CLI check; the first screen within 1 s of
the run ending; every timeline redraw under 1 s at 100k events. Medians of ``--repeat``
runs; shared machines are noisy, so read the ratio. This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RULES = """version: 1
rules:
  tools-succeed:
    every:
      event: {kind: tool_call}
      where: {status: ok}
  model-before-tool:
    before:
      first: {kind: llm_call}
      then: {name: tool2}
  ids-are-set:
    every:
      event: {kind: tool_call}
      where: {args.id: {exists: true}}
"""


def _trace(n: int) -> Any:
    from workbench.model import Event, Ref, Trace

    ms = 1_000_000
    tid = "bench0notebook0000000000000000001"[:32]
    events = [Event(tid, "root", None, 0, "agent", "agent", 0, n * ms, "ok")]
    for i in range(1, n):
        turn = i - (i - 1) % 10
        kind = "llm_call" if i == turn else "tool_call"
        refs = (Ref(f"e{i - 1}", "args.id", "result.id"),) if i - turn == 2 else ()
        events.append(Event(tid, f"e{i}", "root" if i == turn else f"e{turn}", i, kind,
                            f"tool{i % 7}", i * ms, i * ms + ms // 2,
                            "error" if i % 97 == 0 else "ok", args={"id": f"x{i - 1}"},
                            result={"id": f"x{i}"}, refs=refs))
    return Trace.from_events(events)


def _store(n: int, work: Path) -> tuple[Any, str]:
    from workbench.formats.jsonl import write_jsonl
    from workbench.ingest import ingest
    from workbench.store import Store

    trace = _trace(n)
    src = work / "big.jsonl"
    with src.open("wb") as out:
        write_jsonl(trace.to_arrow().to_pylist(), out)
    store = Store(work / "store")
    ingest([src], store)
    return store, trace.trace_id


def _cli(store: Any, tid: str, rules: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "workbench", "check", str(rules), "--trace",
                           tid, "--no-record", "--store", str(store.root), "--json"],
                          capture_output=True, text=True)
    took = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"workbench check failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return took


def _ruleview(store: Any, tid: str, rules: Path) -> tuple[float, float, int]:
    from workbench.notebook import RuleView

    view = RuleView(store, tid, rules=rules)
    engine: list[float] = []
    real = view._check

    def timed(ruleset: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return real(ruleset)
        finally:
            engine.append(time.perf_counter() - t0)

    view._check = timed  # type: ignore[method-assign]  # the engine's share, measured
    t = time.perf_counter()
    found = view.run()
    took = time.perf_counter() - t
    return took, took - sum(engine), len(found)


def _timeline(store: Any, tid: str) -> dict[str, float]:
    from workbench.notebook import TraceView

    t = time.perf_counter()
    view = TraceView(store, tid)
    out = {"open": time.perf_counter() - t}
    first, last = view.timeline.span()
    for label, window in (("10k window", (40_000, 49_999)),
                          ("150 window", (52_120, 52_269)), ("whole again", (first, last))):
        t = time.perf_counter()
        view.set_window(*window)
        out[f"redraw {label}"] = time.perf_counter() - t
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wb-bench-notebook-") as tmp:
        work = Path(tmp)
        t = time.perf_counter()
        store, tid = _store(args.events, work)
        setup = time.perf_counter() - t
        rules = work / "rules.yaml"
        rules.write_text(RULES)
        cli, view, screen, tl = [], [], [], []
        found = 0
        for _ in range(args.repeat):   # interleaved
            cli.append(_cli(store, tid, rules))
            took, shown, found = _ruleview(store, tid, rules)
            view.append(took)
            screen.append(shown)
            tl.append(_timeline(store, tid))
    med = statistics.median
    doc: dict[str, Any] = {
        "events": args.events, "findings": found, "setup_s": round(setup, 2),
        "cli_check_s": round(med(cli), 3), "ruleview_s": round(med(view), 3),
        "ratio_ruleview_over_cli": round(med(view) / med(cli), 2),
        "first_screen_s": round(med(screen), 3),
        "timeline_s": {k: round(med([r[k] for r in tl]), 3) for k in tl[0]},
    }
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{args.events:,} events, {found:,} findings (setup {setup:.1f}s), "
          f"median of {args.repeat}")
    print(f"  cli check          {doc['cli_check_s']:8.3f} s")
    ratio = doc["ratio_ruleview_over_cli"]
    print(f"  RuleView.run       {doc['ruleview_s']:8.3f} s   ratio {ratio}x  (target <= 2x)")
    print(f"  first screen       {doc['first_screen_s']:8.3f} s   (target < 1 s after the run)")
    for k, v in doc["timeline_s"].items():
        print(f"  timeline {k:<16} {v:6.3f} s" + ("   (target < 1 s)" if "redraw" in k else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
