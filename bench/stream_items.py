"""The streamed OTLP path: ``formats._decode.stream_items`` (bounded in depth) against
``ijson.items`` (unbounded: it builds every event's path as text) on the same document,
in the same run; prints both times and the ratio.

    python bench/stream_items.py [MB]      (default 50)

The document is the bundled incident's resourceSpans repeated to about MB megabytes,
held in memory (the page cache is not what is measured)."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import ijson

from workbench.formats._decode import stream_items

EXAMPLE = Path(__file__).resolve().parents[1] / "traces" / "examples" / \
    "archive-incident.otlp.json"


def main() -> None:
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 50.0
    doc = json.loads(EXAMPLE.read_text())
    one = len(json.dumps(doc["resourceSpans"]).encode())
    doc["resourceSpans"] = doc["resourceSpans"] * max(1, int(mb * 1e6 / one))
    data = json.dumps(doc).encode()
    times = {}
    for name, items in (("ijson.items", lambda f: ijson.items(f, "resourceSpans.item",
                                                               use_float=True)),
                        ("stream_items", lambda f: stream_items(f, "resourceSpans.item"))):
        start = time.perf_counter()
        n = sum(1 for _ in items(io.BytesIO(data)))
        times[name] = time.perf_counter() - start
    print(json.dumps({"mb": round(len(data) / 1e6, 1), "items": n,
                      "seconds": {k: round(v, 2) for k, v in times.items()},
                      "ratio": round(times["stream_items"] / times["ijson.items"], 2)}))


if __name__ == "__main__":
    main()
