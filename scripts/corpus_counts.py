"""Ingest every folder of the trace corpus and print what each yields (a Markdown table).

    python scripts/corpus_counts.py [CORPUS]

CORPUS defaults to ``$WORKBENCH_CORPUS``, else ``../shared/corpus`` next to the
repository. Each folder is ingested whole into a fresh temporary store, as
``workbench ingest FOLDER`` would, then counted with SQL over the ``events`` view:
events, ``tool_call`` events, events with status ``error``, events with a parent and
distinct traces. docs/formats.md quotes this table; the per-format corpus tests hold
the same numbers per file, established by reading the files.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from workbench.ingest import ingest
from workbench.store import Store

COUNTS = """
SELECT count(*),
       count(*) FILTER (WHERE kind = 'tool_call'),
       count(*) FILTER (WHERE status = 'error'),
       count(*) FILTER (WHERE parent_id IS NOT NULL),
       count(DISTINCT trace_id)
FROM events
"""


def corpus_dir(argv: list[str]) -> Path:
    if argv:
        return Path(argv[0])
    env = os.environ.get("WORKBENCH_CORPUS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "corpus"


def folder_row(folder: Path) -> tuple[str, str, int, list[int]]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store")
        result = ingest([folder], store)
        table = store.sql(COUNTS)
        counts = [int(table.column(i)[0].as_py()) for i in range(table.num_columns)]
    formats = ", ".join(f"`{f}`" for f in sorted({t.format for t in result.traces}))
    files = len({t.source for t in result.traces})
    return folder.name, formats, files, counts


def main(argv: list[str]) -> int:
    root = corpus_dir(argv)
    if not root.is_dir():
        print(f"no corpus at {root}; pass its path or set WORKBENCH_CORPUS", file=sys.stderr)
        return 2
    rows = [folder_row(d) for d in sorted(root.iterdir())
            if d.is_dir() and d.name != "secrets"]
    print("| folder | format | files | events | tool calls | errors | with parent | traces |")
    print("|---|---|---|---|---|---|---|---|")
    for name, formats, files, counts in rows:
        print(f"| `{name}/` | {formats} | {files} | " + " | ".join(map(str, counts)) + " |")
    totals = [sum(r[3][i] for r in rows) for i in range(5)]
    files = sum(r[2] for r in rows)
    print(f"| **total** | | {files} | " + " | ".join(map(str, totals)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
