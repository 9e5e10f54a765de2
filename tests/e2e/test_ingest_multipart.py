"""Ingests large enough to be read by several processes in byte ranges (above the 32 MiB
threshold where ``ingest`` starts workers on its own): a folder of two ~20 MB OTLP
collector files, through the CLI in a subprocess, as a user runs it. Every span of both
files lands once (the parts of two files once shared numbers and staging files, which
ended in a spurious DUPLICATE_EVENT_ID)."""

import json
import subprocess
import sys

import pytest

SPANS = 23_000  # about 20 MB per file with the padding below


def collector_file(path, trace, n):
    pad = "x" * 300
    with open(path, "w") as f:
        for i in range(n):
            start = 1_700_000_000_000_000_000 + i * 1000
            span = {"traceId": f"{trace:032x}", "spanId": f"{trace:08x}{i:08x}",
                    "name": "execute_tool search", "startTimeUnixNano": str(start),
                    "endTimeUnixNano": str(start + 500),
                    "attributes": [
                        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                        {"key": "gen_ai.tool.name", "value": {"stringValue": "search"}},
                        {"key": "padding", "value": {"stringValue": pad}}]}
            f.write(json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [
                {"scope": {"name": "t"}, "spans": [span]}]}]}) + "\n")


@pytest.mark.slow
def test_a_folder_of_two_large_otlp_files_lands_whole(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for t in (1, 2):
        collector_file(src / f"part-{t}.jsonl", t, SPANS)
    assert sum(p.stat().st_size for p in src.iterdir()) > 32 << 20  # the split threshold
    store = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-m", "workbench", "--store", str(store), "ingest",
                           str(src), "--json"], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["events"] == 2 * SPANS
    assert sorted((t["trace_id"][-1], t["events"]) for t in doc["traces"]) == [
        ("1", SPANS), ("2", SPANS)]
    sql = subprocess.run([sys.executable, "-m", "workbench", "--store", str(store), "sql",
                          "SELECT count(DISTINCT event_id) AS ids, count(*) AS n FROM events",
                          "--json"], capture_output=True, text=True, timeout=600)
    assert sql.returncode == 0, sql.stderr
    assert json.loads(sql.stdout)["rows"] == [{"ids": 2 * SPANS, "n": 2 * SPANS}]
