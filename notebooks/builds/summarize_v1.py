"""A toy "build" for the shadow-diff notebook: the released version (v1).

Reads one trace in workbench JSONL and prints a JSON report of it: steps, tool calls
per tool, failed steps, wall time and token use. ``summarize_v2.py`` is the candidate
build with two regressions a shadow run should catch.

    python summarize_v1.py FIXTURE.jsonl
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
              for i, e in enumerate(evs) if e.get("status") == "error"]
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
        "wall_ms": (max(ends) - min(starts)) // 1_000_000 if starts and ends else None,
        "usage": usage,
    }


if __name__ == "__main__":
    print(json.dumps(report(events(sys.argv[1]))))
