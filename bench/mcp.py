"""`workbench mcp` tool-call latency against the CLI an agent would otherwise run.

A store of ``--copies`` copies of the example incident (each its own trace id, checked
against the example's rules: 5 findings a copy). One `workbench mcp` server is started
with the official SDK's stdio client; ``list_findings`` and ``show_finding`` are called
``--repeat`` times each over it. In the same run, `workbench findings --json` and
`workbench show TRACE --json` run as fresh processes (what an agent without MCP
calls). The script prints the median of each and the ratio CLI / MCP.

    python bench/mcp.py [--copies 50] [--repeat 20] [--json]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _measure import finish

# this file is named like the SDK's package: keep its folder off the import path, or
# `import mcp` would find this script
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent]

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "traces" / "examples" / "archive-incident.otlp.json"
RULES = REPO / "traces" / "examples" / "archive-incident.rules.yaml"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def _workbench() -> list[str]:
    script = Path(sys.executable).with_name("workbench")
    return [str(script)] if script.exists() else [sys.executable, "-m", "workbench"]


def _store(root: Path, copies: int) -> Path:
    wb, store = _workbench(), root / "store"
    subprocess.run([*wb, "ingest", str(EXAMPLE), "--store", str(root / "one")], check=True,
                   capture_output=True)
    jsonl = subprocess.run([*wb, "export", TRACE, "--store", str(root / "one")],
                           check=True, capture_output=True, text=True)
    files = []
    for i in range(copies):
        f = root / f"copy-{i}.jsonl"
        f.write_text(jsonl.stdout.replace(TRACE, f"{i:032x}"))
        files.append(str(f))
    subprocess.run([*wb, "ingest", *files, "--store", str(store)], check=True,
                   capture_output=True)
    subprocess.run([*wb, "check", str(RULES), "--store", str(store)], capture_output=True)
    return store


def _cli(cmd: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def _mcp(store: Path, repeat: int) -> dict[str, Any]:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=_workbench()[0], args=[
        *_workbench()[1:], "mcp", "--store", str(store)])

    async def go() -> dict[str, Any]:
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            started = time.perf_counter() - t0
            first = await s.call_tool("list_findings", {"limit": 1})
            fid = first.structured_content["findings"][0]["id"]
            await s.call_tool("show_finding", {"finding": fid})  # warm
            out: dict[str, list[float]] = {"list_findings": [], "show_finding": []}
            for _ in range(repeat):
                for name, args in (("list_findings", {}), ("show_finding", {"finding": fid})):
                    t = time.perf_counter()
                    r = await s.call_tool(name, args)
                    out[name].append(time.perf_counter() - t)
                    assert not r.is_error, r.content
            total = first.structured_content["total"]
            return {"start": started, "times": out, "findings": total}
    result: dict[str, Any] = anyio.run(go)
    return result


def run(copies: int, repeat: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="wb-mcp-bench-"))
    try:
        store = _store(root, copies)
        wb = _workbench()
        mcp = _mcp(store, repeat)
        cli_repeat = max(3, repeat // 2)
        findings = _cli([*wb, "findings", "--json", "--store", str(store)], cli_repeat)
        show = _cli([*wb, "show", f"{0:032x}", "--json", "--store", str(store)], cli_repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in mcp["times"].items()}
    rows = [
        {"call": "list_findings (MCP, stdio)", "median_seconds": med["list_findings"],
         "baseline": "workbench findings --json", "baseline_seconds":
         statistics.median(findings)},
        {"call": "show_finding (MCP, stdio)", "median_seconds": med["show_finding"],
         "baseline": "workbench show TRACE --json", "baseline_seconds":
         statistics.median(show)},
    ]
    for r in rows:
        r["ratio"] = round(r["baseline_seconds"] / r["median_seconds"], 1)
        r["median_seconds"] = round(r["median_seconds"], 4)
        r["baseline_seconds"] = round(r["baseline_seconds"], 4)
    return {"copies": copies, "findings": mcp["findings"], "repeat": repeat,
            "server_start_seconds": round(mcp["start"], 3), "rows": rows, "failures": []}


def report(doc: dict[str, Any]) -> None:
    print(f"{doc['findings']} findings in {doc['copies']} traces; server started and "
          f"initialized in {doc['server_start_seconds']:.2f} s; medians of {doc['repeat']} "
          "calls (CLI: fresh processes)\n")
    print(f"{'call':<28} {'seconds':>8}   {'baseline':<28} {'seconds':>8} {'CLI/MCP':>8}")
    for r in doc["rows"]:
        print(f"{r['call']:<28} {r['median_seconds']:>8.4f}   {r['baseline']:<28} "
              f"{r['baseline_seconds']:>8.3f} {r['ratio']:>7.1f}x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    return finish(run(args.copies, args.repeat), args.json, report)


if __name__ == "__main__":
    sys.exit(main())
