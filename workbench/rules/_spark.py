"""The Spark engine: the same rules over the store's Parquet files on Apache Spark.

Rules are trace-local, so the plan is: Spark scans the committed ``events`` files (the
paths the commit records name, as the DuckDB views read them), keeps the traces in
scope, and deals whole traces into partitions balanced by the ``traces`` table's event
counts (a trace larger than a partition's share gets one to itself); each partition is
judged on an executor by the DuckDB engine's own SQL (``_sql.sql_violations``) in a
DuckDB of the task's own (``_sparktask``). No rule is written twice: every body runs
the query it runs on the DuckDB engine, so the violations are that engine's, exactly;
they are worded on the driver by ``word``, as the DuckDB engine's are, so findings,
signatures and messages are identical. docs/scale.md says why not Spark SQL compiled or
transpiled from the DuckDB queries (``bench/spark_transpile.py``).

What fails is said with a code, never a traceback and never a quiet fall back to
another engine: ``SPARK_UNAVAILABLE`` (no PySpark, no Java, executors whose Python lacks
the workbench), ``SPARK_MASTER_UNREACHABLE`` (a master URL that cannot be parsed or
reached), ``SPARK_STORE_UNREADABLE`` (a data file Spark cannot read) and
``SPARK_RULE_UNSUPPORTED`` (a rule whose body cannot be shipped to the executors: which
rule, and why).
"""

from __future__ import annotations

import heapq
import os
import pickle
import re
import shutil
import socket
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import duckdb
import pyarrow as pa

from ..model import EVENTS, WorkbenchError
from ..store import Store
from ._engine import Violation, word
from ._findings import Finding
from ._rule import RuleSet
from ._sparktask import COUNTED, Piece, TaskLimits, judge_partitions, judge_pieces

__all__ = ["SPARK_INSTALL_HINT", "SparkEngine", "SparkError", "balance", "java_available",
           "spark_failure"]

SPARK_INSTALL_HINT = ("install the Spark extra (pip install 'trace-workbench[spark]') and "
                      "Java 17 or later (java on PATH, or JAVA_HOME set); "
                      "or use --engine duckdb")
_OUT = "rule int, trace_id string, events array<string>"
_CONNECT_SECONDS = 5.0
_LOG4J = Path(__file__).with_name("spark-log4j2.properties")  # errors only, on stderr


class SparkError(WorkbenchError):
    """The Spark engine cannot run: no PySpark or Java, a master it cannot reach, store
    files it cannot read, or a rule it cannot ship (the code says which)."""

    code = "SPARK_UNAVAILABLE"
    default_hint = SPARK_INSTALL_HINT


def java_available() -> bool:
    """A ``java`` Spark can start: ``$JAVA_HOME/bin/java``, else one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        return os.access(Path(home) / "bin" / "java", os.X_OK)
    return shutil.which("java") is not None


def _check_master(master: str) -> None:
    """A standalone master (``spark://host:port[,host:port]``) must answer a TCP
    connection, else Spark would retry for a minute before giving up; other masters
    (``local[*]``, ``yarn``, ``k8s://``) Spark checks itself."""
    if not master.startswith("spark://"):
        return
    for hostport in master[len("spark://"):].split(","):
        parts = urlsplit("//" + hostport)
        try:
            host, port = parts.hostname, parts.port
        except ValueError:
            host, port = None, None
        if not host or port is None:
            raise SparkError(f"cannot parse the Spark master {master!r}",
                             code="SPARK_MASTER_UNREACHABLE",
                             hint="give --spark-master as spark://HOST:PORT, local[N], "
                                  "yarn or k8s://URL")
        try:
            socket.create_connection((host, port), timeout=_CONNECT_SECONDS).close()
            return
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
    raise SparkError(f"the Spark master {master} does not answer ({reason})",
                     code="SPARK_MASTER_UNREACHABLE",
                     hint="start the master, or check its host and port; "
                          "--spark-master local[*] runs Spark on this machine")


def _session(master: str | None, partitions: int | None) -> Any:
    if not java_available():
        raise SparkError("the Spark engine needs Java, and none was found")
    try:
        with warnings.catch_warnings():  # PySpark's warnings about pandas versions
            warnings.simplefilter("ignore", FutureWarning)
            from pyspark.sql import SparkSession
    except ImportError:
        raise SparkError("the Spark engine needs PySpark, which is not installed") from None
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = "local[*]"  # else spark-submit started this process: its master
    if master is not None:
        _check_master(master)
    if master is None or master.startswith("local"):
        # executors on this machine run this interpreter, which has the workbench
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    quiet = f"-Dlog4j2.configurationFile={_LOG4J.as_uri()}"
    builder = SparkSession.builder
    if master is not None:
        builder = builder.master(master)
    builder = (builder.appName("workbench check")
               .config("spark.driver.extraJavaOptions", quiet)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true"))
    if partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(partitions))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            spark = builder.getOrCreate()
    except Exception as exc:  # the JVM's reasons come as Java exceptions of many kinds
        raise SparkError(f"Spark did not start on {master or 'the submitted master'}: "
                         f"{_first_line(exc)}",
                         code="SPARK_MASTER_UNREACHABLE",
                         hint="check --spark-master and the cluster; "
                              + SPARK_INSTALL_HINT) from None
    spark.sparkContext.setLogLevel("ERROR")
    _quiet_tasks(spark)
    if partitions is not None:  # exactly these: adaptive execution would merge them
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
        spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")
    return spark


def _quiet_tasks(spark: Any) -> None:
    """A failed task's error (a Python traceback from an executor) is not logged on the
    driver's stderr: the job's failure reaches ``violations``, which says it with a code
    (``spark_failure``) or raises it as the bug it is."""
    try:
        jvm = spark.sparkContext._jvm
        level = jvm.org.apache.logging.log4j.Level.OFF
        for name in ("org.apache.spark.executor.Executor",
                     "org.apache.spark.scheduler.TaskSetManager"):
            jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, level)
    except Exception:  # another logging back end: its messages stay
        pass


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _shippable(rules: RuleSet) -> None:
    """Each rule's body must travel to the executors (pickled), or the rule is named."""
    for rule in rules:
        try:
            pickle.dumps(rule)
        except Exception as exc:
            raise SparkError(
                f"rule {rule.id!r} cannot run on Spark: its {type(rule.body).__name__} body "
                f"cannot be sent to the executors ({_first_line(exc)})",
                code="SPARK_RULE_UNSUPPORTED",
                hint="run this rule with --engine duckdb, or make its body picklable"
            ) from None


def _slots(spark: Any, master: str | None) -> int:
    """The tasks one executor runs at once: ``local[N]``'s N, else the executor's
    cores, each divided by ``spark.task.cpus``."""
    conf = spark.sparkContext.getConf()
    cores = conf.get("spark.executor.cores", None)
    if cores is None:
        cores = spark.sparkContext.defaultParallelism if (master or "local").startswith(
            "local") else 1
    return max(1, int(cores) // _task_cpus(spark))


def _task_cpus(spark: Any) -> int:
    return max(1, int(spark.sparkContext.getConf().get("spark.task.cpus", "1")))


def balance(counts: Sequence[tuple[str, int]], parts: int) -> dict[str, int]:
    """Each trace's partition, so that the partitions' event counts are even: the
    largest trace first, each to the lightest partition so far (a trace larger than a
    partition's share gets one of its own)."""
    heap = [(0, p) for p in range(parts)]
    out: dict[str, int] = {}
    for tid, n in sorted(counts, key=lambda c: (-c[1], c[0])):
        load, p = heapq.heappop(heap)
        out[tid] = p
        heapq.heappush(heap, (load + n, p))
    return out


def _skewed(counts: Sequence[tuple[str, int]], parts: int) -> bool:
    """Whether one trace holds more than half a partition's share of the events: then
    hashing trace ids would leave partitions uneven, and ``balance`` deals them."""
    total = sum(n for _, n in counts)
    return parts > 1 and max(n for _, n in counts) * 2 * parts > total


def _keys(spark: Any, parts: int) -> list[int]:
    """For each partition p, a number Spark's hash partitioning sends to p (it places
    a row by ``pmod(hash(key), parts)``): asked of Spark, not re-implemented."""
    from pyspark.sql import functions as F

    need: dict[int, int] = {}
    span = 0
    while len(need) < parts:
        rows = (spark.range(span, span + 64 * parts)
                .select("id", F.pmod(F.hash("id"), F.lit(parts)).alias("p")).collect())
        for r in rows:
            need.setdefault(int(r["p"]), int(r["id"]))
        span += 64 * parts
    return [need[p] for p in range(parts)]


class SparkEngine:
    """The ``Engine`` that runs the rules on Spark over the store's files: ``master`` a
    Spark master URL (default ``local[*]``, or under ``spark-submit`` the master it was
    given), ``partitions`` how many tasks the work is dealt into (default: two per task
    slot). ``shuffle``: Spark reads the events and deals whole traces into partitions
    (a shuffle); else (the default) each task's DuckDB reads whole pieces of the events
    files itself, which a trace never crosses (docs/store.md), and no event crosses the
    network."""

    def __init__(self, master: str | None = None, partitions: int | None = None,
                 shuffle: bool = False) -> None:
        self.master = master
        self.partitions = partitions
        self.shuffle = shuffle

    def violations(self, store: Store, rules: RuleSet,
                   trace_ids: Sequence[str] | None) -> list[Violation]:
        files = [str(p.resolve()) for p in store.files("events")]
        if not files or not len(rules) or (trace_ids is not None and not trace_ids):
            return []
        spark = _session(self.master, self.partitions)
        _shippable(rules)
        slots = _slots(spark, self.master)
        limits = TaskLimits(slots=slots, threads=_task_cpus(spark))
        found = None if self.shuffle else self._pieces(spark, store, rules, trace_ids,
                                                        files, limits)
        if found is None:  # asked for, or the files do not keep every trace whole
            found = self._shuffled(spark, store, rules, trace_ids, files, limits)
        ids = [r.id for r in rules]
        out = [Violation(ids[rule], tid, tuple(events)) for rule, tid, events in found]
        # rule by rule, then by trace; within a trace the DuckDB engine's (step) order
        out.sort(key=lambda v: (ids.index(v.rule), v.trace_id))
        return out

    def _pieces(self, spark: Any, store: Store, rules: RuleSet,
                trace_ids: Sequence[str] | None, files: list[str],
                limits: TaskLimits) -> list[tuple[int, str, list[str]]] | None:
        """The shuffle-free plan: pieces of files dealt to tasks by their rows. None
        when a task saw part of a trace (a store whose files were written before a trace
        lived in one events file: docs/store.md), and the shuffle plan must judge."""
        parts = self.partitions or 2 * limits.slots
        pieces = file_pieces(store, files, parts)
        if not pieces:
            return []
        tasks = min(parts, len(pieces))
        placed = balance([(str(i), p.rows) for i, p in enumerate(pieces)], tasks)
        dealt: list[list[Piece]] = [[] for _ in range(tasks)]
        for i, p in enumerate(pieces):
            dealt[placed[str(i)]].append(p)
        scope = None if trace_ids is None else list(trace_ids)
        judge = judge_pieces(rules, limits, EVENTS.names, scope)
        try:
            rdd = spark.sparkContext.parallelize(dealt, tasks)
            rows = rdd.mapPartitions(lambda it: judge(p for ps in it for p in ps)).collect()
        except Exception as exc:
            known = spark_failure(exc, store.root)
            if known is None:
                raise
            raise known from None
        whole = dict(_event_counts(store, None))
        found = []
        for rule, tid, events in rows:
            if rule != COUNTED:
                found.append((rule, tid, list(events)))
            elif whole.get(tid) != int(events[0]):
                return None
        return found

    def _shuffled(self, spark: Any, store: Store, rules: RuleSet,
                  trace_ids: Sequence[str] | None, files: list[str],
                  limits: TaskLimits) -> list[tuple[int, str, list[str]]]:
        """The shuffle plan: Spark reads the events and deals whole traces into
        partitions balanced by the ``traces`` table's event counts."""
        counts = _event_counts(store, trace_ids)
        if not counts:
            return []
        from pyspark.sql import functions as F
        from pyspark.sql.pandas.types import from_arrow_schema

        parts = max(1, min(len(counts), self.partitions or 2 * limits.slots))
        try:
            with warnings.catch_warnings():  # PySpark's warnings about pandas versions
                warnings.simplefilter("ignore", FutureWarning)
                events = spark.read.schema(from_arrow_schema(EVENTS)).parquet(*files)
                if _skewed(counts, parts):  # deal by event counts: a join says where
                    keys = _keys(spark, parts)
                    placed = balance(counts, parts)
                    assign = spark.createDataFrame(pa.table(
                        {"trace_id": list(placed),
                         "_part": [keys[p] for p in placed.values()]}))
                    # an inner join: the scope too
                    events = events.join(F.broadcast(assign), "trace_id")
                else:  # many traces of like sizes: hashing their ids deals them evenly
                    if trace_ids is not None:
                        events = events.filter(F.col("trace_id").isin(list(trace_ids)))
                    events = events.withColumn("_part", F.col("trace_id"))
                judged = (events.repartition(parts, "_part").select(*EVENTS.names)
                          .mapInArrow(judge_partitions(rules, limits, EVENTS.names), _OUT))
                found = judged.collect()
        except Exception as exc:
            known = spark_failure(exc, store.root)
            if known is None:
                raise
            raise known from None
        return [(row["rule"], row["trace_id"], list(row["events"])) for row in found]

    def findings(self, store: Store, rules: RuleSet,
                 trace_ids: Sequence[str] | None) -> list[Finding]:
        return word(store, rules, self.violations(store, rules, trace_ids))


def file_pieces(store: Store, files: list[str], parts: int) -> list[Piece]:
    """The events files cut into pieces of about ``1/parts`` of all rows, at row-group
    boundaries: a piece is a range of trace ids (its first row group's smallest id up to
    the next piece's), read from the files' own statistics. Exact whatever the row
    groups' statistics: the range is a filter, the statistics only skip row groups."""
    import pyarrow.parquet as pq

    groups: list[tuple[str, list[tuple[str | None, int]]]] = []
    for f in files:
        try:
            meta = pq.ParquetFile(f).metadata
        except (OSError, pa.ArrowException) as exc:
            raise SparkError(f"cannot read the store {store.root}: {f}: {_first_line(exc)}",
                             code="SPARK_STORE_UNREADABLE",
                             hint="the store's files must be readable Parquet at the paths "
                                  "its commit records name (docs/scale.md)") from None
        col = meta.schema.to_arrow_schema().get_field_index("trace_id")
        rgs = []
        for i in range(meta.num_row_groups):
            rg = meta.row_group(i)
            stats = rg.column(col).statistics if col >= 0 else None
            low = stats.min if stats is not None and stats.has_min_max else None
            rgs.append((low if isinstance(low, str) else None, rg.num_rows))
        groups.append((f, rgs))
    total = sum(n for _, rgs in groups for _, n in rgs)
    if not total:
        return []
    size = max(1, -(-total // max(1, parts)))
    out: list[Piece] = []
    for f, rgs in groups:
        cuts: list[tuple[str | None, int]] = []  # (lo, rows) of each piece
        for low, n in rgs:
            # a new piece starts at a row group whose smallest id is past the last cut
            # (cuts strictly increase, so the ranges split every id once)
            if not cuts or (cuts[-1][1] >= size and low is not None
                            and (cuts[-1][0] is None or low > cuts[-1][0])):
                cuts.append((low if cuts else None, n))
            else:
                cuts[-1] = (cuts[-1][0], cuts[-1][1] + n)
        for i, (lo, n) in enumerate(cuts):
            hi = cuts[i + 1][0] if i + 1 < len(cuts) else None
            out.append(Piece(f, lo, hi, n))
    return out


def _event_counts(store: Store, trace_ids: Sequence[str] | None) -> list[tuple[str, int]]:
    """(trace id, events) of the traces in scope, from the ``traces`` files alone (the
    events files are Spark's to read, and to report unreadable)."""
    files = [str(p) for p in store.files("traces")]
    if not files:
        return []
    con = duckdb.connect()
    try:
        rows = con.execute('SELECT "trace_id", "events" FROM read_parquet(?)',
                           [files]).fetchall()
    except duckdb.Error as exc:
        raise store.read_error(exc) from None
    finally:
        con.close()
    if trace_ids is not None:
        scope = set(trace_ids)
        rows = [r for r in rows if r[0] in scope]
    return [(str(t), int(n)) for t, n in rows]


_UNREADABLE = ("PATH_NOT_FOUND", "FileNotFoundException", "AccessDeniedException",
               "Permission denied", "CANNOT_READ_FILE", "FAILED_READ_FILE",
               "is not a Parquet file",
               # the whole-files plan: the executors' DuckDB reads the files
               "Cannot open file", "No files found that match", "No magic bytes found")
_NO_MODULE = re.compile(r"No module named '(workbench|duckdb|pyarrow|orjson|jsonschema)[.']")


def spark_failure(exc: BaseException, root: Path) -> SparkError | None:
    """The coded error for a Spark job's failure that is not a bug: store files it cannot
    list or read, or executors whose Python lacks the workbench (told by Spark's
    messages, not its types: they reach Python as one Java exception or another)."""
    text = str(exc)
    if any(s in text for s in _UNREADABLE):
        return SparkError(f"Spark cannot read the store {root}: {_first_line(exc)}",
                          code="SPARK_STORE_UNREADABLE",
                          hint="the executors must read the store's files at the same "
                               "paths (docs/scale.md); check its permissions")
    missing = _NO_MODULE.search(text)
    if missing:
        return SparkError(f"the Spark executors cannot import {missing.group(1)}",
                          hint="install the workbench with its dependencies (duckdb, "
                               "pyarrow, ...) in the executors' Python, or ship an "
                               "environment with spark.archives (docs/scale.md)")
    return None
