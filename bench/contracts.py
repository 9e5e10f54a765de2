"""Tool contracts: importing a large OpenAPI document, next to reading and meta-checking
the same document with json and jsonschema alone.

Input: ``_openapigen.py``'s seeded OpenAPI 3.1 document of ``--operations`` operations
(default 2,000: about 400 resources over shared components, a recursive one among
them), or your own with ``--input FILE``. Each method runs ``--repeat`` times (default
3), interleaved, each run in a fresh interpreter that has imported what it needs before
the clock starts; the median is printed.

- ``import``: ``workbench.contracts.read_tools([FILE])``: parse, one descriptor per
  operation with its components under its own ``$defs``, each descriptor checked
  against the descriptor schema and its input and output as JSON Schema.
- ``baseline``: ``json.load`` and jsonschema's own ``check_schema`` (2020-12) once on
  every schema the document holds (each component, each operation's parameter, body
  and response schemas): what reading and checking it takes with no descriptor built.
- ``lint``: ``lint`` of the imported descriptors for all four providers (import not
  timed).
- ``diff``: two 500-tool manifests read (checked) and diffed (``diff_manifests``), with
  the diff alone beside it; target: the diff under 1 s.

Target: import of 2,000 operations in **< 5 s**. The ratio printed is import / baseline.

``--case openai``: OpenAI's published OpenAPI document (``tests/corpus/openai-openapi/``,
about 3 MB of YAML, 280-290 operations, recursive schemas; kept gzip-compressed and read
so by import) at its newer commit, with the older one for the diff:

- ``yaml``: the file decompressed and loaded with ``yaml.load(..., Loader=yaml.CSafeLoader)``,
  the baseline;
- ``import``: ``read_tools([FILE])``, as ``contract import`` reads it;
- ``lint``: ``lint`` of those descriptors for all four providers (import not timed);
- ``diff``: ``diff_tools`` of the older commit's descriptors against the newer's (both
  imports not timed; the time with them, as ``contract diff OLD NEW`` runs, is printed
  beside it).

Targets: import <= **3x** the YAML load; diff <= **2x** import; lint <= **2x** import.

``--case recorded``: ``contract diff --recorded`` against a generated store of
``--events`` events (default 100,000), in the same run as the plain diff of the same
tools (``_recordedcase.py`` says what is diffed). Target: ``diff --recorded`` **<= 5 s**;
the ratio printed is recorded / diff.

    python bench/contracts.py [--operations 2000] [--input FILE] [--repeat 3] [--json]
    python bench/contracts.py --case openai [--repeat 3] [--json]
    python bench/contracts.py --case recorded [--events 100000] [--store DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _measure import ChildFailed, finish, measure

TARGET_IMPORT_SECONDS = 5.0
METHODS = ("import", "baseline", "lint", "diff")
#: the named case: OpenAI's document at two commits (older, newer)
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "openai-openapi"
OPENAI = (CORPUS / "openapi-d089641.yaml.gz", CORPUS / "openapi-f85dbe2.yaml.gz")
OPENAI_METHODS = ("yaml", "import", "lint", "diff")
#: targets of the named case: each method's time over the one it is held to
OPENAI_TARGETS = {"import": ("yaml", 3.0), "lint": ("import", 2.0), "diff": ("import", 2.0)}


def _quiet_imports() -> None:
    # as the CLI does: the IRI grammar jsonschema compiles where rfc3987-syntax is
    # installed is never used for these checks
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]


def _schemas(doc: dict[str, Any]) -> list[Any]:
    """Every schema an OpenAPI document holds in the places an importer reads."""
    found = list(((doc.get("components") or {}).get("schemas") or {}).values())
    for item in (doc.get("paths") or {}).values():
        for op in item.values() if isinstance(item, dict) else ():
            if not isinstance(op, dict):
                continue
            for p in op.get("parameters") or []:
                if isinstance(p, dict) and "schema" in p:
                    found.append(p["schema"])
            bodies = [op.get("requestBody") or {}, *(op.get("responses") or {}).values()]
            for b in bodies:
                for media in (b.get("content") or {}).values() if isinstance(b, dict) else ():
                    if isinstance(media, dict) and "schema" in media:
                        found.append(media["schema"])
    return found


def run_import(path: Path) -> dict[str, Any]:
    _quiet_imports()
    from workbench.contracts import read_tools

    t0 = time.perf_counter()
    tools = read_tools([path])
    return {"seconds": time.perf_counter() - t0, "tools": len(tools)}


def run_baseline(path: Path) -> dict[str, Any]:
    _quiet_imports()
    import jsonschema

    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    schemas = _schemas(doc)
    for s in schemas:
        jsonschema.Draft202012Validator.check_schema(s)
    return {"seconds": time.perf_counter() - t0, "schemas": len(schemas)}


def run_lint(path: Path) -> dict[str, Any]:
    _quiet_imports()
    from workbench.contracts import lint, read_tools

    tools = read_tools([path])
    t0 = time.perf_counter()
    problems = lint(tools.values())
    return {"seconds": time.perf_counter() - t0, "tools": len(tools), "problems": len(problems)}


# --- contract diff: two 500-tool manifests -------------------------------------------
# Two 500-tool manifests of MCP-sized schemas from contracts_diff.py's generator (the
# second with 25 fields changed, renamed and removed), read the checked way
# (descriptor_from_dict: meta-schema, refs) and diffed; contracts_diff.py compares the
# diff alone with DeepDiff and a json.dumps comparison.
def diff_manifests(path: Path) -> dict[str, Any] | None:
    """Seconds to read and diff two 500-tool manifests, and the diff alone."""
    from contracts_diff import make_manifests

    from workbench.contracts import ToolSet, descriptor_from_dict, diff_tools

    m = make_manifests(500, 25, 0)
    t0 = time.perf_counter()
    old = ToolSet(descriptor_from_dict({"version": 1, **d}, "old") for d in m["old"])
    new = ToolSet(descriptor_from_dict({"version": 1, **d}, "new") for d in m["edited"])
    t1 = time.perf_counter()
    result = diff_tools(old, new)
    t2 = time.perf_counter()
    return {"seconds": t2 - t0, "diff_seconds": t2 - t1, "tools": len(old),
            "changes": len(result.changes)}


def run_yaml(path: Path) -> dict[str, Any]:
    import gzip

    import yaml

    t0 = time.perf_counter()
    data = path.read_bytes()
    doc = yaml.load(gzip.decompress(data) if path.suffix == ".gz" else data,
                    Loader=yaml.CSafeLoader)
    return {"seconds": time.perf_counter() - t0, "paths": len(doc.get("paths") or {})}


def run_diff_docs(path: Path) -> dict[str, Any]:
    _quiet_imports()
    from workbench.contracts import diff_tools, read_tools

    t0 = time.perf_counter()
    old, new = read_tools([OPENAI[0]]), read_tools([path])
    t1 = time.perf_counter()
    result = diff_tools(old, new)
    t2 = time.perf_counter()
    return {"seconds": t2 - t1, "with_imports": t2 - t0, "tools": len(new),
            "changes": len(result.changes)}


def _child(method: str, path: Path, case: str) -> dict[str, Any] | None:
    if method == "diff":
        return run_diff_docs(path) if case == "openai" else diff_manifests(path)
    return {"import": run_import, "baseline": run_baseline, "lint": run_lint,
            "yaml": run_yaml}[method](path)


def run_openai(args: argparse.Namespace) -> dict[str, Any]:
    """The named case: each method in a fresh interpreter, interleaved, medians."""
    path = OPENAI[1]
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in OPENAI_METHODS}
    failures: list[str] = []
    for _ in range(args.repeat):
        for m in OPENAI_METHODS:
            cmd = [sys.executable, __file__, "--one", m, "--case", "openai", "--input",
                   str(path)]
            try:
                res = measure(cmd, m)
            except ChildFailed as exc:
                failures.append(str(exc))
                continue
            if res.get("seconds") is not None:
                runs[m].append(res)
    rows = {m: {**rs[0], "seconds": statistics.median(r["seconds"] for r in rs),
                "peak_rss_mb": max(r["peak_rss_mb"] for r in rs)}
            for m, rs in runs.items() if rs}
    ratios = {m: rows[m]["seconds"] / rows[base]["seconds"]
              for m, (base, _) in OPENAI_TARGETS.items() if m in rows and base in rows}
    return {"case": "openai", "file": path.name, "older": OPENAI[0].name,
            "bytes": path.stat().st_size, "repeat": args.repeat, "rows": rows,
            "ratios": ratios, "targets_met": {m: r <= OPENAI_TARGETS[m][1]
                                              for m, r in ratios.items()},
            "failures": failures}


def report_openai(doc: dict[str, Any]) -> None:
    print(f"OpenAI's OpenAPI document {doc['file']} ({doc['bytes'] / 1e6:.2f} MB gzip), "
          f"diffed against {doc['older']}; median of {doc['repeat']} runs, each in a fresh "
          "interpreter\n")
    what = {"yaml": lambda r: f"yaml.load CSafeLoader, {r['paths']} paths",
            "import": lambda r: f"{r['tools']} descriptors",
            "lint": lambda r: f"{r['problems']} problems over 4 providers",
            "diff": lambda r: f"{r['changes']} changes over {r['tools']} tools (with both "
                              f"imports, as `contract diff` runs: {r['with_imports']:.3f} s)"}
    print(f"{'method':<8} {'seconds':>9} {'peak RSS':>10}  what")
    for m in OPENAI_METHODS:
        r = doc["rows"].get(m)
        if r is None:
            print(f"{m:<8} {'-':>9} {'-':>10}  not measured")
            continue
        print(f"{m:<8} {r['seconds']:>9.3f} {r['peak_rss_mb']:>7,.0f} MB  {what[m](r)}")
    print()
    for m, ratio in doc["ratios"].items():
        base, target = OPENAI_TARGETS[m]
        print(f"ratio {m} / {base}: {ratio:.2f}x (target <= {target:.0f}x: "
              f"{'met' if doc['targets_met'][m] else 'NOT met'})")
    for line in doc["failures"]:
        print("FAILED:", line)


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = None
    if args.input:
        path = Path(args.input)
    else:
        from _openapigen import generate

        tmp = tempfile.TemporaryDirectory(prefix="wb-contracts-")
        path = Path(tmp.name) / "api.json"
        path.write_text(json.dumps(generate(args.operations, args.seed)), encoding="utf-8")
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in METHODS}
    failures: list[str] = []
    try:
        for _ in range(args.repeat):
            for m in METHODS:
                cmd = [sys.executable, __file__, "--one", m, "--input", str(path)]
                try:
                    res = measure(cmd, m)
                except ChildFailed as exc:
                    failures.append(str(exc))
                    continue
                if res.get("seconds") is not None:
                    runs[m].append(res)
    finally:
        size = path.stat().st_size
        if tmp is not None:
            tmp.cleanup()
    rows = {m: {**rs[0], "seconds": statistics.median(r["seconds"] for r in rs),
                "peak_rss_mb": max(r["peak_rss_mb"] for r in rs)}
            for m, rs in runs.items() if rs}
    ratio = (rows["import"]["seconds"] / rows["baseline"]["seconds"]
             if "import" in rows and "baseline" in rows else None)
    return {"operations": rows.get("import", {}).get("tools"), "bytes": size,
            "repeat": args.repeat, "rows": rows, "ratio_import_baseline": ratio,
            "target_met": rows["import"]["seconds"] < TARGET_IMPORT_SECONDS
            if "import" in rows else None, "failures": failures}


def report(doc: dict[str, Any]) -> None:
    print(f"OpenAPI document: {doc['operations']} operations, {doc['bytes'] / 1e6:.2f} MB; "
          f"median of {doc['repeat']} runs, each in a fresh interpreter\n")
    print(f"{'method':<10} {'seconds':>9} {'peak RSS':>10}  what")
    what = {"import": lambda r: f"{r['tools']} descriptors",
            "baseline": lambda r: f"{r['schemas']} schemas meta-checked",
            "lint": lambda r: f"{r['problems']} problems over 4 providers",
            "diff": lambda r: f"read + diff of 2 x {r['tools']} tools; the diff alone "
                              f"{r['diff_seconds']:.3f} s (target < 1 s), {r['changes']} "
                              "changes"}
    for m in METHODS:
        r = doc["rows"].get(m)
        if r is None:
            print(f"{m:<10} {'-':>9} {'-':>10}  not measured")
            continue
        print(f"{m:<10} {r['seconds']:>9.3f} {r['peak_rss_mb']:>7,.0f} MB  "
              f"{what.get(m, lambda r: '')(r)}")
    if doc["ratio_import_baseline"] is not None:
        print(f"\nratio (import / baseline): {doc['ratio_import_baseline']:.2f}x; import "
              f"{doc['rows']['import']['seconds']:.3f} s (target < {TARGET_IMPORT_SECONDS:.0f} "
              f"s: {'met' if doc['target_met'] else 'NOT met'})")
    for line in doc["failures"]:
        print("FAILED:", line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--operations", type=int, default=2000)
    ap.add_argument("--input", metavar="FILE", help="an OpenAPI document of your own")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--case", choices=("generated", "openai", "recorded"), default="generated",
                    help="openai: OpenAI's published document (tests/corpus/openai-openapi); "
                         "recorded: diff --recorded against a generated store")
    ap.add_argument("--events", type=int, default=100_000,
                    help="--case recorded: the store's events")
    ap.add_argument("--store", metavar="DIR",
                    help="--case recorded: where the generated store is kept (reused)")
    ap.add_argument("--one", choices=(*METHODS, "yaml", "recorded"),
                    help=argparse.SUPPRESS)  # one run, in a child
    args = ap.parse_args(argv)
    if args.case == "recorded":
        import _recordedcase

        if args.one is not None:
            print(json.dumps(_recordedcase.child(args.one, Path(args.store),
                                                 Path(args.input))))
            return 0
        return finish(_recordedcase.run(args, __file__), args.json, _recordedcase.report)
    if args.one is not None:
        print(json.dumps(_child(args.one, Path(args.input), args.case) or {"seconds": None}))
        return 0
    if args.case == "openai":
        return finish(run_openai(args), args.json, report_openai)
    return finish(run(args), args.json, report)


if __name__ == "__main__":
    sys.exit(main())
