"""The stored values do not change: every table a known set of inputs is ingested into
has the content pinned here, with redaction on (under a fixed key) and off.

Inputs: the kept corpus (``tests/corpus/``, every folder in one ingest, refused files
included by code) and generated traces: the bench"s OTLP GenAI generator at 600 spans as
collector JSON lines, the same spans as one OTLP/JSON document and as OTLP protobuf,
and our JSONL written from the stored events (``seq`` and ``refs`` left out of every
other trace, so they are inferred). The collector file is also read by two worker
processes, which must store the very same content.

What is pinned is a digest of each table"s *rows* (every column, values as JSON, rows
sorted), not the Parquet bytes: a file"s bytes depend on the writer"s version and its
row groups, and ``traces`` carries the commit time and the batch id, which differ on
every run (those two columns are left out, and ``source_path`` is pinned by file name).

The generator's output is part of what is pinned: a change to ``bench/_otlpgen.py``
that changes its spans needs the pins printed again, and says so in its commit.
``python tests/unit/ingest/test_stored_pins.py`` prints the current digests.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from workbench.ingest import ingest
from workbench.store import Store

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "corpus"
KEY = bytes(range(32))
SPANS = 600
_VARYING = {"traces": ("ingested_at", "batch")}

#: case -> redaction -> table -> [rows, sha256 of the sorted rows]
PINS: dict[str, dict[str, dict[str, list[Any]]]] = {
    "corpus": {
        "redact": {
            "events": [832,
                "deb17b128f5f93cd26b5a29e9edc86649a42fed7392186ddb0b30a5dc6d3a05d"],
            "traces": [105,
                "f1d68f8067fafd666a4af6b5da0dd1d3ef7f4accf9c91b188b1267c6ebed51f8"],
            "refused": [],
        },
        "no-redact": {
            "events": [832,
                "7bf0b4ed8bd40cbfc9bad4f70dbd9f09d856b5727addb70198a768979a344880"],
            "traces": [105,
                "f9ad8392305dfac1a8b55bc2942f080c8f1ed280705659b15d7e0fb756bbfde7"],
            "refused": [],
        },
    },
    "otlp-collector": {
        "redact": {
            "events": [600,
                "60685860f4dc026a5a550eff68f93842868b08f69b90d0c2ddcddbeafaca904d"],
            "traces": [9,
                "6a94cb27f1ed066ad2db2a802fdd547bdef843126f1c9452a10c969756658c43"],
            "refused": [],
        },
        "no-redact": {
            "events": [600,
                "0d6843fcbeffe5e3c72d701fe950321bf47b7feed1178f7e416b9d751cd3fd3b"],
            "traces": [9,
                "d17aa0df70680f051fa5af4a323d18744883473c9c120243a692e73ef53c00a3"],
            "refused": [],
        },
    },
    "otlp-document": {
        "redact": {
            "events": [600,
                "60685860f4dc026a5a550eff68f93842868b08f69b90d0c2ddcddbeafaca904d"],
            "traces": [9,
                "f370cfd2d4f9b820a54ff26925d17bb0d0f2c4803a9a0fd1bd802fbe7467f5c4"],
            "refused": [],
        },
        "no-redact": {
            "events": [600,
                "0d6843fcbeffe5e3c72d701fe950321bf47b7feed1178f7e416b9d751cd3fd3b"],
            "traces": [9,
                "99584d0544a1787559c0b97b810dc228f31b9ba86813f9ae4a0ccbde55ce35cd"],
            "refused": [],
        },
    },
    "otlp-protobuf": {
        "redact": {
            "events": [600,
                "60685860f4dc026a5a550eff68f93842868b08f69b90d0c2ddcddbeafaca904d"],
            "traces": [9,
                "717eb7c43a9a7a1cce9d3e070f83dccd81030916f9324a101d6dffa8f188c00b"],
            "refused": [],
        },
        "no-redact": {
            "events": [600,
                "0d6843fcbeffe5e3c72d701fe950321bf47b7feed1178f7e416b9d751cd3fd3b"],
            "traces": [9,
                "0155eba3504ace437452fc0ca00c60a87aa77b9ab4fb689fb6a71f858835959c"],
            "refused": [],
        },
    },
    "jsonl": {
        "redact": {
            "events": [600,
                "60685860f4dc026a5a550eff68f93842868b08f69b90d0c2ddcddbeafaca904d"],
            "traces": [9,
                "9568ece93fccb03c918b63e16bd1de8686b2cf4287a0378a6ea4fe0e6cd5f497"],
            "refused": [],
        },
        "no-redact": {
            "events": [600,
                "0d6843fcbeffe5e3c72d701fe950321bf47b7feed1178f7e416b9d751cd3fd3b"],
            "traces": [9,
                "031cba89913a889945b958612448a5ffdcc910e0b1a4e1b15bfddbff85f3f57b"],
            "refused": [],
        },
    },
}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("_otlpgen", REPO / "bench" / "_otlpgen.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _collector(folder: Path) -> Path:
    path = folder / "spans.otlp.jsonl"
    if not path.exists():
        _generator().generate(path, n_events=SPANS, seed=7)
    return path


def _document(folder: Path) -> Path:
    docs = [json.loads(line) for line in _collector(folder).read_text().splitlines()]
    path = folder / "spans.otlp.json"
    path.write_text(json.dumps({"resourceSpans": [rs for d in docs for rs in d["resourceSpans"]]},
                               indent=1))
    return path


def _protobuf(folder: Path) -> Path:
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

    docs = [json.loads(line) for line in _collector(folder).read_text().splitlines()]
    doc = {"resourceSpans": [rs for d in docs for rs in d["resourceSpans"]]}
    for rs in doc["resourceSpans"]:
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                for k in ("traceId", "spanId", "parentSpanId"):
                    if sp.get(k):
                        sp[k] = base64.b64encode(bytes.fromhex(sp[k])).decode()
    path = folder / "spans.binpb"
    path.write_bytes(ParseDict(doc, TracesData()).SerializeToString())
    return path


def _jsonl(folder: Path) -> Path:
    from workbench.formats import JSONL_HEADER
    from workbench.model import event_dict

    store = Store(folder / "for-jsonl")
    ingest([_collector(folder)], store, redact=False, workers=1)
    rows = store.sql("SELECT * FROM events ORDER BY trace_id, seq").to_pylist()
    bare = set(sorted({r["trace_id"] for r in rows})[::2])
    lines = [json.dumps(JSONL_HEADER)]
    for r in rows:
        ev = event_dict(r)
        if r["trace_id"] in bare:
            del ev["seq"], ev["refs"]
        lines.append(json.dumps(ev))
    path = folder / "spans.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


_INPUTS = {"otlp-collector": _collector, "otlp-document": _document,
           "otlp-protobuf": _protobuf, "jsonl": _jsonl}


def _canonical(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


def digests(root: Path, refused: list[tuple[str, str]]) -> dict[str, list[Any]]:
    """Rows and a content digest of every table the store holds."""
    out: dict[str, list[Any]] = {}
    for table in sorted(p.name for p in root.iterdir() if p.is_dir() and p.name[0] != "_"):
        texts = []
        for f in sorted((root / table).rglob("*.parquet")):
            for row in pq.read_table(f, partitioning=None).to_pylist():
                for col in _VARYING.get(table, ()):
                    del row[col]
                if "source_path" in row:
                    row["source_path"] = Path(row["source_path"]).name
                texts.append(json.dumps({k: _canonical(v) for k, v in row.items()},
                                        sort_keys=True, ensure_ascii=False))
        texts.sort()
        out[table] = [len(texts), hashlib.sha256("\n".join(texts).encode()).hexdigest()]
    out["refused"] = sorted(refused)  # type: ignore[assignment]
    return out


def stored(case: str, redact: bool, folder: Path, workers: int = 1) -> dict[str, list[Any]]:
    inputs = folder / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    path = CORPUS if case == "corpus" else _INPUTS[case](inputs)
    root = folder / f"store-{case}-{redact}-{workers}"
    result = ingest([path], Store(root), redact=KEY if redact else False, workers=workers)
    refused = [(Path(r["path"]).name, r["code"]) for r in result.refused]
    return digests(root, refused)


CASES = ["corpus", *_INPUTS]


@pytest.mark.parametrize("redact", [True, False], ids=["redact", "no-redact"])
@pytest.mark.parametrize("case", CASES)
def test_stored_rows_are_pinned(tmp_path_factory, case, redact):
    folder = tmp_path_factory.mktemp(case)
    got = stored(case, redact, folder)
    assert got == PINS[case]["redact" if redact else "no-redact"]


def test_two_workers_store_the_pinned_rows(tmp_path):
    assert stored("otlp-collector", True, tmp_path, workers=2) == PINS["otlp-collector"]["redact"]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        now = {c: {("redact" if r else "no-redact"): stored(c, r, Path(tmp) / c / str(r))
                   for r in (True, False)} for c in CASES}
        json.dump(now, sys.stdout, indent=1)
        print()
