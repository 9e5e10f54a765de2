"""Data-flow refs against a hand-labelled set from real recordings.

``tests/corpus/refs-labelled/labels.jsonl`` holds every candidate ref of the recordings
it names: the refs the rules before the protocol and direction checks produced
(``before``), the refs today's rules produce, and the equalities a loose matcher finds
that neither does (every argument leaf equal to an earlier result's leaf, strings of
3+ characters with a digit or 8+ characters, integers of 1000 or more), each labelled
by reading it: ``label`` (did the later value come from that earlier answer) and
``reason``. This script ingests the recordings (``corpus:`` files from the shared
corpus, ``$WORKBENCH_CORPUS`` or ``../shared/corpus``; the others from this repository),
infers refs and scores them on the traces the set covers: precision (labelled true
among the refs produced; a produced ref the set does not hold counts as wrong and is
listed) and recall (produced among the refs labelled true). ``--before`` prints the
figures of the earlier rules from the ``before`` column.

    python bench/refs_precision.py [--json] [--before] [--list]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "tests" / "corpus" / "refs-labelled" / "labels.jsonl"
TARGETS = {"precision": 0.95, "recall": 0.9}


def corpus_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_CORPUS") or ROOT.parent / "shared" / "corpus")


def read_labels(path: Path = LABELS) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def resolve(name: str, corpus: Path) -> Path:
    return corpus / name[len("corpus:"):] if name.startswith("corpus:") else ROOT / name


def _key(file: str, trace: str, event: str, path: str, source: str) -> tuple[str, ...]:
    return (file, trace, event, path, source)


def produced_refs(labels: list[dict[str, Any]], corpus: Path,
                  ) -> tuple[set[tuple[str, ...]], list[str]]:
    """The refs today's ingest infers on the labelled traces, and the files missing."""
    from workbench.ingest import read_trace

    traces: dict[str, set[str]] = defaultdict(set)
    for row in labels:
        traces[row["file"]].add(row["trace"])
    out: set[tuple[str, ...]] = set()
    missing: list[str] = []
    for name, wanted in sorted(traces.items()):
        path = resolve(name, corpus)
        if not path.is_file():
            missing.append(name)
            continue
        for trace in read_trace(path):
            if trace.trace_id not in wanted:
                continue
            for event in trace.events:
                for ref in event.refs:
                    out.add(_key(name, trace.trace_id, event.event_id, ref.path, ref.event_id))
    return out, missing


def score(labels: list[dict[str, Any]], produced: set[tuple[str, ...]],
          skip: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    """Precision and recall of ``produced`` on the labelled rows whose file is not in
    ``skip``."""
    rows = [r for r in labels if r["file"] not in skip]
    truth = {_key(r["file"], r["trace"], r["event"], r["path"], r["source"]): r["label"]
             for r in rows}
    produced = {k for k in produced if k[0] not in skip}
    tp = sum(1 for k in produced if truth.get(k) is True)
    wrong = sorted(k for k in produced if truth.get(k) is False)
    unlabelled = sorted(k for k in produced if k not in truth)
    missed = sorted(k for k, v in truth.items() if v and k not in produced)
    n = len(produced)
    positives = sum(1 for v in truth.values() if v)
    return {"labelled": len(truth), "labelled_true": positives,
            "labelled_false": len(truth) - positives, "produced": n, "true_positives": tp,
            "precision": tp / n if n else 1.0,
            "recall": tp / positives if positives else 1.0,
            "wrong": wrong, "unlabelled": unlabelled, "missed": missed}


def before(labels: list[dict[str, Any]], skip: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    """The same figures for the refs the earlier rules produced (``before``)."""
    produced = {_key(r["file"], r["trace"], r["event"], r["path"], r["source"])
                for r in labels if r["before"]}
    return score(labels, produced, skip)


def _line(name: str, s: dict[str, Any]) -> str:
    return (f"{name:8} produced {s['produced']:4}  true {s['true_positives']:4}  "
            f"precision {s['precision']:.3f}  recall {s['recall']:.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="one JSON document")
    ap.add_argument("--before", action="store_true", help="also the earlier rules' figures")
    ap.add_argument("--list", action="store_true", help="list wrong, unlabelled and missed refs")
    args = ap.parse_args(argv)
    labels = read_labels()
    produced, missing = produced_refs(labels, corpus_dir())
    skip = set(missing)
    now = score(labels, produced, skip)
    doc: dict[str, Any] = {"now": now, "missing_files": missing, "targets": TARGETS}
    if args.before:
        doc["before"] = before(labels, skip)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"{now['labelled']} labelled refs ({now['labelled_true']} true, "
          f"{now['labelled_false']} false) in {len({r['file'] for r in labels}) - len(skip)} "
          f"recordings; targets precision >= {TARGETS['precision']}, "
          f"recall >= {TARGETS['recall']}")
    if missing:
        print(f"skipped (not found): {', '.join(missing)}", file=sys.stderr)
    if args.before:
        print(_line("before", doc["before"]))
    print(_line("now", now))
    if args.list:
        for what in ("wrong", "unlabelled", "missed"):
            for k in now[what]:
                print(f"  {what}: {k[0]} {k[1][:12]} {k[2]} {k[3]} <- {k[4]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
