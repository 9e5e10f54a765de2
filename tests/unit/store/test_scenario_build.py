"""``traces.scenario`` and ``traces.build`` (``ingest --scenario/--build``): kept per
trace, and null in a store written before the columns."""

from __future__ import annotations

import pyarrow.parquet as pq

from tests.support import EXAMPLES
from workbench.ingest import ingest
from workbench.store import Store

INCIDENT = EXAMPLES / "archive-incident.otlp.json"


def test_a_store_written_before_the_columns_reads_null(tmp_path):
    store = Store(tmp_path / "s")
    ingest([INCIDENT], store)
    (path,) = store.files("traces")
    old = pq.read_table(path).drop_columns(["scenario", "build"])
    pq.write_table(old, path)
    assert store.sql("SELECT scenario, build, env FROM traces").to_pylist() == [
        {"scenario": None, "build": None, "env": "default"}]
    other = tmp_path / "again.otlp.json"
    other.write_text(INCIDENT.read_text().replace("4bf92f3577b34da6", "5bf92f3577b34da6"))
    ingest([other], store, scenario="archive", build="1.0")
    assert sorted(store.sql("SELECT scenario, build FROM traces").to_pylist(),
                  key=str) == [{"scenario": "archive", "build": "1.0"},
                               {"scenario": None, "build": None}]
