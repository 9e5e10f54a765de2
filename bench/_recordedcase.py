"""``bench/contracts.py --case recorded``: ``contract diff --recorded`` against a store of
``--events`` events (default 100,000, written by ``_storegen.py``), in the same run as the
plain ``contract diff`` of the same two sets of tools.

The tools are the generated store's (``list_projects``, ``request_approval``,
``archive_project`` destructive, ``get_job``, ``retry_job``, ``charge`` external send, the
coding tools) as two manifests: NEW renames ``list_projects``' ``team`` argument (every
recorded listing is refused), adds a value to ``get_job``'s ``status`` (branched on:
``retry_job`` follows ``failed``), changes ``request_approval``'s description (its
answers flow into ``archive_project``) and adds a result field to ``read_file``.

- ``diff``: both manifests read and diffed (``read_tools`` + ``diff_tools``), as
  ``contract diff OLD NEW`` runs;
- ``recorded``: the same, then the store's tool calls loaded and every change judged
  against them (``Traffic.load`` + ``judge_recorded``), as ``--recorded`` runs.

Target: ``recorded`` **<= 5 s**; the ratio printed is recorded / diff.
"""

from __future__ import annotations

import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _measure import ChildFailed, measure

TARGET_SECONDS = 5.0
METHODS = ("diff", "recorded")

_OBJ = {"type": "object"}


def _tools() -> list[dict[str, Any]]:
    def tool(name: str, effect: str, args: dict[str, Any], out: dict[str, Any] | None = None,
             description: str = "") -> dict[str, Any]:
        d: dict[str, Any] = {"tool": name, "side_effect": effect,
                             "description": description or f"{name} tool",
                             "input": {"type": "object", "properties": args}}
        if out is not None:
            d["output"] = {"type": "object", "properties": out}
        return d

    s = {"type": "string"}
    return [
        tool("search", "read_only", {"query": s, "limit": {"type": "integer"}},
             {"hits": {"type": "array", "items": s}, "total": {"type": "integer"}}),
        tool("read_file", "read_only", {"path": s}, {"path": s, "bytes": {"type": "integer"}}),
        tool("apply_patch", "write", {"path": s}),
        tool("run_tests", "read_only", {"target": s, "workers": {"type": "integer"}}),
        tool("lint", "read_only", {"target": s, "workers": {"type": "integer"}}),
        tool("list_projects", "read_only", {"team": s, "limit": {"type": "integer"}},
             {"items": {"type": "array", "items": _OBJ}}),
        tool("request_approval", "read_only", {"project_id": s, "action": s},
             {"approved": {"type": "boolean"}, "project_id": s},
             "Ask for approval of one action."),
        tool("archive_project", "destructive", {"project_id": s},
             {"project_id": s, "state": s}),
        tool("get_job", "read_only", {"job_id": s},
             {"job_id": s, "status": {"enum": ["failed", "done", "running", "paused"]},
              "retry_allowed": {"type": "boolean"}}),
        tool("retry_job", "idempotent_write", {"job_id": s}, {"job_id": s, "status": s}),
        tool("charge", "external_send", {"cart_id": s, "amount": {"type": "integer"}}, None),
    ]


def _sides(folder: Path) -> tuple[Path, Path]:
    old = _tools()
    new = copy.deepcopy(old)
    by = {d["tool"]: d for d in new}
    props = by["list_projects"]["input"]["properties"]
    props["team_id"] = props.pop("team")
    by["get_job"]["output"]["properties"]["status"]["enum"].append("cancelled")
    by["request_approval"]["description"] = "Ask a person to approve one action."
    by["read_file"]["output"]["properties"]["sha256"] = {"type": "string"}
    paths = folder / "old.json", folder / "new.json"
    for p, tools in zip(paths, (old, new), strict=True):
        p.write_text(json.dumps({"version": 1, "tools": tools}))
    return paths


def child(method: str, store: Path, folder: Path) -> dict[str, Any]:
    """One measured run (in a fresh interpreter): the clock starts after the imports."""
    # as the CLI does: the IRI grammar jsonschema compiles where rfc3987-syntax is
    # installed is never used for these checks
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    from workbench.contracts import Traffic, diff_tools, judge_recorded, read_tools
    from workbench.store import Store

    old_path, new_path = folder / "old.json", folder / "new.json"
    t0 = time.perf_counter()
    old, new = read_tools([old_path]), read_tools([new_path])
    result = diff_tools(old, new)
    out: dict[str, Any] = {"changes": len(result.changes)}
    if method == "recorded":
        traffic = Traffic.load(Store(store))
        result = judge_recorded(result, old, new, traffic)
        assert result.recorded is not None
        out.update(calls=len(traffic.calls), traces=len(traffic.traces),
                   touching=result.recorded["changes_touching"],
                   errors=result.counts()["error"])
    out["seconds"] = time.perf_counter() - t0
    return out


def run(args: Any, script: str) -> dict[str, Any]:
    sys.path.insert(0, str(Path(script).parent))
    from _storegen import generate

    store = Path(args.store) if args.store else Path(tempfile.gettempdir()) / \
        f"workbench-bench-recorded-{args.events}-{args.seed}"
    stats = generate(store, args.events, seed=args.seed)
    folder = Path(tempfile.mkdtemp(prefix="workbench-bench-recorded-"))
    _sides(folder)
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in METHODS}
    failures: list[str] = []
    for _ in range(args.repeat):
        for m in METHODS:
            cmd = [sys.executable, script, "--case", "recorded", "--one", m,
                   "--store", str(store), "--input", str(folder)]
            try:
                runs[m].append(measure(cmd, m))
            except ChildFailed as exc:
                failures.append(str(exc))
    rows = {m: {**rs[0], "seconds": statistics.median(r["seconds"] for r in rs),
                "peak_rss_mb": max(r["peak_rss_mb"] for r in rs)}
            for m, rs in runs.items() if rs}
    ratio = (rows["recorded"]["seconds"] / rows["diff"]["seconds"]
             if len(rows) == len(METHODS) else None)
    return {"case": "recorded", "events": stats["events"], "store": str(store),
            "repeat": args.repeat, "rows": rows, "ratio": ratio,
            "target_seconds": TARGET_SECONDS,
            "target_met": "recorded" in rows
            and rows["recorded"]["seconds"] <= TARGET_SECONDS, "failures": failures}


def report(doc: dict[str, Any]) -> None:
    print(f"contract diff --recorded against a store of {doc['events']:,} events "
          f"({doc['store']}); median of {doc['repeat']} runs, each in a fresh interpreter\n")
    print(f"{'method':<9} {'seconds':>9} {'peak RSS':>10}  what")
    for m in METHODS:
        r = doc["rows"].get(m)
        if r is None:
            print(f"{m:<9} {'-':>9} {'-':>10}  not measured")
            continue
        what = (f"{r['changes']} changes" if m == "diff" else
                f"{r['changes']} changes judged against {r['calls']:,} tool calls in "
                f"{r['traces']:,} traces: {r['touching']} touch them, {r['errors']} errors")
        print(f"{m:<9} {r['seconds']:>9.3f} {r['peak_rss_mb']:>8.0f}MB  {what}")
    if doc["ratio"] is not None:
        print(f"\nrecorded / diff: {doc['ratio']:.1f}x; target: recorded <= "
              f"{doc['target_seconds']:.0f} s: {'met' if doc['target_met'] else 'NOT met'}")
    for line in doc["failures"]:
        print("FAILED:", line)
