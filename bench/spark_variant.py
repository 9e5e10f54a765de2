"""Would Spark 4's VARIANT type let the condition tree compile to Spark SQL exactly?

    python bench/spark_variant.py [--json]

The rule language types a JSON value as Python does (``model.json_type``: ``1`` an
integer, ``1.0`` and ``-0.0`` numbers, ``10**40`` an integer) and keys ``same``/``per``
by the canonical JSON of the value (``rules._conditions.same_key``: numbers as floats,
so ``-0.0`` keeps its sign). A Spark SQL compilation of the condition tree would read
values with ``parse_json``/``try_variant_get`` and type them with
``schema_of_variant``. For each JSON document below this runs both on a local Spark
session and prints, per document, what each side says and whether they agree:

* ``type``: the JSON Schema type of ``$.a``, Spark's mapped from ``schema_of_variant``
  the best way there is (integral types and ``DECIMAL(p,0)`` -> integer, other decimals
  and doubles -> number, ``VOID`` -> null);
* ``key``: the ``same`` key of ``$.a`` (Spark: ``'n'`` and the DOUBLE of a number, else
  ``to_json`` of the value);
* ``read``: whether the document is read at all (``try_parse_json`` not NULL).

Also probes ``[*]`` in a ``variant_get`` path. docs/scale.md records the outcome.
Needs the ``spark`` extra and Java 17.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.model import dumps, json_type, loads

DOCS = ['{"a": 1}', '{"a": 1.0}', '{"a": -0.0}', '{"a": 0.1}', '{"a": 1e2}',
        '{"a": 9007199254740993}', '{"a": 12345678901234567890}',
        '{"a": 1234567890123456789012345678901234567890}', '{"a": "x\\u00e9\\n"}',
        '{"a": true}', '{"a": null}', '{"a": [1, "b"]}', '{"a": {"z": 1, "b": 2}}',
        '{"a": 1, "a": 2}']

_SQL = """SELECT try_parse_json(j) IS NOT NULL AS read,
  schema_of_variant(try_variant_get(try_parse_json(j), '$.a', 'variant')) AS schema,
  to_json(try_variant_get(try_parse_json(j), '$.a', 'variant')) AS text,
  CAST(try_variant_get(try_parse_json(j), '$.a', 'double') AS STRING) AS dbl
FROM VALUES (:j) AS t(j)"""


def _spark_type(schema: str | None) -> str | None:
    if schema is None:
        return None
    s = schema.upper()
    if s in ("BIGINT", "INT", "SMALLINT", "TINYINT") or (s.startswith("DECIMAL(")
                                                       and s.endswith(",0)")):
        return "integer"
    if s.startswith("DECIMAL(") or s in ("DOUBLE", "FLOAT"):
        return "number"
    return {"STRING": "string", "BOOLEAN": "boolean", "VOID": "null"}.get(
        s, "array" if s.startswith("ARRAY") else "object" if s.startswith("OBJECT") else s)


def _python(doc: str) -> dict[str, Any]:
    v = loads(doc)["a"]
    key = dumps(float(v)) if isinstance(v, int | float) and not isinstance(v, bool) \
        else dumps(v)
    return {"read": True, "type": json_type(v), "key": key}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    opts = ap.parse_args(argv)
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    rows = []
    for doc in DOCS:
        r = spark.sql(_SQL, args={"j": doc}).collect()[0]
        number = _spark_type(r.schema) in ("integer", "number")
        key = (dumps(float(r.dbl)) if number and r.dbl is not None else r.text)
        spark_side = {"read": bool(r.read), "type": _spark_type(r.schema), "key": key}
        py = _python(doc)
        rows.append({"doc": doc, "python": py, "spark": spark_side, "schema": r.schema,
                     "agree": {k: py[k] == spark_side[k] for k in py}})
    try:
        spark.sql("SELECT variant_get(parse_json('{\"a\":[1]}'), '$.a[*]')").collect()
        star = "accepted"
    except Exception as exc:  # the refusal is the finding
        star = str(exc).split("\n")[0][:120]
    spark.stop()
    if opts.json:
        print(json.dumps({"documents": rows, "star_path": star}, indent=1))
        return 0
    print(f"{'document':48} {'python type/key':28} {'spark schema -> type/key':40} agree")
    for r in rows:
        p, s = r["python"], r["spark"]
        bad = [k for k, ok in r["agree"].items() if not ok]
        print(f"{r['doc']:48} {p['type'] + ' ' + str(p['key']):28} "
              f"{str(r['schema']) + ' -> ' + str(s['type']) + ' ' + str(s['key']):40} "
              f"{'yes' if not bad else 'NO: ' + ', '.join(bad)}")
    print(f"[*] in a variant_get path: {star}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
