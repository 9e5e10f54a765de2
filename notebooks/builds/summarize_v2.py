"""A toy "build" for the shadow-diff notebook: the candidate version (v2).

The same report as ``summarize_v1.py`` after a "refactoring" with two regressions a
shadow run should catch: the wall time became a float (``6810.0`` where v1 printed
``6810``), and failed steps are numbered from 1 (v1, like the traces, counts from 0).

    python summarize_v2.py FIXTURE.jsonl
"""

import datetime as dt
import json
import sys


def events(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if "event_id" in r]


def report(evs):
    tools = {}
    for e in evs:
        if e["kind"] == "tool_call":
            tools[e["name"]] = tools.get(e["name"], 0) + 1
    failed = [{"step": i, "kind": e["kind"], "name": e["name"]}
              for i, e in enumerate(evs, 1) if e.get("status") == "error"]
    starts = [e["start_ns"] for e in evs if e.get("start_ns") is not None]
    ends = [e["end_ns"] for e in evs if e.get("end_ns") is not None]
    usage = {"input_tokens": 0, "output_tokens": 0}
    for e in evs:
        attrs = e.get("attrs") or {}
        for k in usage:
            usage[k] += int(attrs.get(f"gen_ai.usage.{k}", 0) or 0)
    return {
        "trace_id": evs[0]["trace_id"] if evs else None,
        "generated_at": dt.datetime.now(dt.UTC).isoformat(),
        "steps": len(evs),
        "tool_calls": tools,
        "failed": failed,
        "wall_ms": round((max(ends) - min(starts)) / 1e6, 3) if starts and ends else None,
        "usage": usage,
    }


if __name__ == "__main__":
    print(json.dumps(report(events(sys.argv[1]))))
