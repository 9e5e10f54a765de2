"""Would the DuckDB engine's SQL, transpiled to Spark SQL by SQLGlot, keep its meaning?

    python bench/spark_transpile.py [--json]

Ingests the bundled examples (traces/examples) into a temporary store, runs every
bundled rules file with the DuckDB engine while recording each query it sends (with its
bound parameters, inlined as literals), transpiles each query with SQLGlot (read
``duckdb``, write ``spark``) and runs it on a local Spark session over the same Parquet
files (views ``events`` and ``traces``). Each query lands in one class:

* ``transpile-error``: SQLGlot cannot translate it;
* ``spark-error``: Spark refuses or fails to run the translation;
* ``needs-python``: it calls the ``schema`` test, a Python function DuckDB is given;
* ``different``: it runs, but its rows differ from DuckDB's (sorted, as text);
* ``same``: the same rows.

docs/scale.md records the outcome, which decided how the Spark engine runs rules. Needs
the bench environment (``sqlglot``, bench/requirements.txt) and the ``spark`` extra.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from workbench.ingest import ingest
from workbench.rules import _sqlcond, load_rules
from workbench.rules._sql import sql_violations
from workbench.store import Store

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "traces" / "examples"


def _literal(value: Any) -> str:
    return exp.convert(value).sql("duckdb")


def _inline(sql: str, args: dict[str, Any]) -> str:
    return re.sub(r"\$(p\d+)\b", lambda m: _literal(args[m.group(1)]), sql)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args()
    from pyspark.sql import SparkSession

    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "store")
        ingest([EXAMPLES / "archive-incident.otlp.json"], store)
        for sub in sorted(p for p in (EXAMPLES / "rules").iterdir() if p.is_dir()):
            ingest(sorted(sub.glob("*.jsonl")), store)
        captured: list[tuple[str, str, list[tuple[Any, ...]]]] = []
        original = _sqlcond.Query.run

        def recording(self: _sqlcond.Query, con: Any, sql: str) -> list[tuple[Any, ...]]:
            rows = original(self, con, sql)
            captured.append((sql, _inline(sql, self.args(sql)), rows))
            return rows

        _sqlcond.Query.run = recording  # type: ignore[method-assign]
        files = sorted([EXAMPLES / "archive-incident.rules.yaml",
                        *EXAMPLES.glob("rules/**/rules.yaml")])
        for f in files:
            con = store.connect()
            try:
                sql_violations(con, load_rules(f), None)
            finally:
                con.close()
        _sqlcond.Query.run = original  # type: ignore[method-assign]

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").getOrCreate())
        spark.sparkContext.setLogLevel("OFF")
        for table in ("events", "traces"):
            paths = [str(p) for p in store.files(table)]
            spark.read.parquet(*paths).createOrReplaceTempView(table)
        classes: collections.Counter[str] = collections.Counter()
        reasons: dict[str, list[str]] = collections.defaultdict(list)
        for raw, inlined, want in captured:
            if _sqlcond.SCHEMA_UDF in raw:
                classes["needs-python"] += 1
                continue
            try:
                spark_sql = sqlglot.transpile(inlined, read="duckdb", write="spark")[0]
            except Exception as exc:
                classes["transpile-error"] += 1
                reasons["transpile-error"].append(str(exc).splitlines()[0][:160])
                continue
            try:
                got = [tuple(r) for r in spark.sql(spark_sql).collect()]
            except Exception as exc:
                classes["spark-error"] += 1
                reasons["spark-error"].append(str(exc).strip().splitlines()[0][:160])
                continue
            same = sorted(map(repr, got)) == sorted(map(repr, want))
            classes["same" if same else "different"] += 1
        spark.stop()
    doc = {"rules_files": len(files), "queries": len(captured), "classes": dict(classes),
           "examples": {k: sorted(set(v))[:5] for k, v in reasons.items()}}
    if opts.json:
        print(json.dumps(doc, indent=1))
    else:
        print(f"{len(captured)} DuckDB queries from {len(files)} rules files")
        for k in ("same", "different", "spark-error", "transpile-error", "needs-python"):
            print(f"  {k:16} {classes.get(k, 0)}")
        for k, v in doc["examples"].items():
            print(f"{k}:")
            for line in v:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
