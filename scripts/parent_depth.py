"""Per source format: files, events and the deepest parent chain of the trace corpus.

    python scripts/parent_depth.py [CORPUS] [--tests]

CORPUS defaults to ``$WORKBENCH_CORPUS``, else ``../shared/corpus`` next to the
repository; a folder holding files directly is read as one recording. ``--tests`` adds
the recordings kept under ``tests/corpus/``. Each folder is ingested whole into a fresh
temporary store, as ``workbench ingest FOLDER`` would; an event's depth is the number of
its ancestors (a root is 0), and the table prints the largest per format with the file
of the trace that holds it. docs/formats.md ("Parents") quotes it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from workbench.formats import open_source
from workbench.ingest import detect, ingest
from workbench.model import WorkbenchError
from workbench.store import Store

_ROWS = """
SELECT t.source_format, t.source_path, e.trace_id, e.event_id, e.parent_id
FROM events e JOIN traces t USING (trace_id)
"""


def corpus_dir(argv: list[str]) -> Path:
    if argv:
        return Path(argv[0])
    env = os.environ.get("WORKBENCH_CORPUS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "corpus"


def depths(parents: dict[str, str | None]) -> dict[str, int]:
    """Each event's number of ancestors within its trace (a dangling parent ends it)."""
    out: dict[str, int] = {}
    for start in parents:
        chain: list[str] = []
        node: str | None = start
        while node is not None and node in parents and node not in out and node not in chain:
            chain.append(node)
            node = parents[node]
        base = out[node] + 1 if node is not None and node in out else 0
        for n, e in enumerate(reversed(chain)):
            out[e] = base + n
    return out


class Tally:
    def __init__(self) -> None:
        self.files: dict[str, int] = defaultdict(int)
        self.traces: dict[str, int] = defaultdict(int)
        self.events: dict[str, int] = defaultdict(int)
        self.deepest: dict[str, tuple[int, str]] = {}

    def add_folder(self, folder: Path) -> None:
        for f in sorted(folder.rglob("*")):
            try:
                fmt = detect(open_source(f)).name if f.is_file() else None
            except WorkbenchError:
                fmt = None  # not a trace (SOURCE.md, notes): ingest skips it too
            if fmt is not None:
                self.files[fmt] += 1
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "store")
            ingest([folder], store)
            rows = store.sql(_ROWS).to_pylist()
        traces: dict[tuple[str, str, str], dict[str, str | None]] = defaultdict(dict)
        for r in rows:
            traces[(r["source_format"], r["source_path"], r["trace_id"])][r["event_id"]] = \
                r["parent_id"]
        for (fmt, path, _), parents in traces.items():
            self.traces[fmt] += 1
            self.events[fmt] += len(parents)
            deep = max(depths(parents).values())
            if fmt not in self.deepest or deep > self.deepest[fmt][0]:
                self.deepest[fmt] = (deep, Path(path).name)


def main(argv: list[str]) -> int:
    tests = "--tests" in argv
    root = corpus_dir([a for a in argv if a != "--tests"])
    folders: list[Path] = []
    if root.is_dir():  # a folder of files is one recording; a corpus, one per subfolder
        subs = [d for d in sorted(root.iterdir()) if d.is_dir() and d.name != "secrets"]
        folders = [root] if any(f.is_file() for f in root.iterdir()) else subs
    if tests:
        kept = Path(__file__).resolve().parents[1] / "tests" / "corpus"
        folders += [d for d in sorted(kept.iterdir()) if d.is_dir() and d.name != "__pycache__"]
    if not folders:
        print(f"no corpus at {root}; pass its path or set WORKBENCH_CORPUS", file=sys.stderr)
        return 2
    tally = Tally()
    for folder in folders:
        tally.add_folder(folder)
    print("| format | files | traces | events | max depth | deepest in |")
    print("|---|---|---|---|---|---|")
    for fmt in sorted(tally.files):
        deep, where = tally.deepest[fmt]
        print(f"| `{fmt}` | {tally.files[fmt]} | {tally.traces[fmt]} | {tally.events[fmt]} | "
              f"{deep} | "
              f"`{where}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
