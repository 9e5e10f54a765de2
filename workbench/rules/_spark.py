"""The Spark engine: the same rules over the store's Parquet files on Apache Spark.

Rules are trace-local, so each Spark task's DuckDB judges whole traces with the DuckDB
engine's own SQL (``_sql.sql_violations``, in ``_sparktask``). Two plans: whole pieces
of the committed ``events`` files, which a trace never crosses (the default: no event
crosses the network), or a shuffle, for files that may cut a trace: map tasks' DuckDB
read pieces and deal each event to its trace's partition (balanced by the ``traces``
table's event counts: a trace larger than a partition's share gets one to itself) as
Arrow blocks, which Spark moves as bytes without decoding a row. Either way the
executors' DuckDB reads the files, at the paths the commit records give or under a URI
(``_sparkfiles``). No rule is written twice: every body runs the query it runs on the
DuckDB engine, so the violations are that engine's, exactly; they are worded on the
driver by ``word``, as the DuckDB engine's are, so findings,
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
from ._sparkfiles import cut, footers, locate, remote_footers
from ._sparktask import COUNTED, Piece, TaskLimits, deal_pieces, judge_dealt, judge_pieces

__all__ = ["SPARK_INSTALL_HINT", "SparkEngine", "SparkError", "balance", "java_available",
           "spark_failure"]

SPARK_INSTALL_HINT = ("install the Spark extra (pip install 'trace-workbench[spark]') and "
                      "Java 17 or later (java on PATH, or JAVA_HOME set); "
                      "or use --engine duckdb")
_PLACED = pa.schema([("trace_id", pa.string()), ("_part", pa.int32())])
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


class SparkEngine:
    """The ``Engine`` that runs the rules on Spark over the store's files: ``master`` a
    Spark master URL (default ``local[*]``, or under ``spark-submit`` the master it was
    given), ``partitions`` how many tasks the work is dealt into (default: two per task
    slot). ``shuffle``: whole traces are dealt into partitions through Spark's shuffle;
    else (the default) each task's DuckDB reads whole pieces of the events files
    itself, which a trace never crosses (docs/store.md), and no event crosses the
    network. ``files_at``: a URI under which the executors read the store's files
    (``s3://bucket/store``; docs/scale.md), else the paths the commit records give."""

    def __init__(self, master: str | None = None, partitions: int | None = None,
                 shuffle: bool = False, files_at: str | None = None) -> None:
        self.master = master
        self.partitions = partitions
        self.shuffle = shuffle
        self.files_at = files_at

    def violations(self, store: Store, rules: RuleSet,
                   trace_ids: Sequence[str] | None) -> list[Violation]:
        try:
            files = locate(store.root, store.files("events"), self.files_at)
        except ValueError as exc:
            raise SparkError(str(exc), code="SPARK_STORE_UNREADABLE",
                             hint="give --spark-files a location DuckDB reads: "
                                  "s3://, gs://, az://, https://, file:// (docs/scale.md)"
                             ) from None
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
        pieces = file_pieces(store, files, parts, self._remote(spark))
        if not pieces:
            return []
        dealt = _dealt(pieces, min(parts, len(pieces)))
        scope = None if trace_ids is None else list(trace_ids)
        judge = judge_pieces(rules, limits, EVENTS.names, scope)
        try:
            rdd = spark.sparkContext.parallelize(dealt, len(dealt))
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
        """The shuffle plan, for files that may cut a trace: map tasks' DuckDB read
        pieces of the files and deal each event to its trace's partition (balanced by
        the ``traces`` table's event counts), Spark shuffles those Arrow blocks as bytes,
        and each partition's DuckDB judges whole traces."""
        counts = _event_counts(store, trace_ids)
        if not counts:
            return []
        parts = max(1, min(len(counts), self.partitions or 2 * limits.slots))
        placed = balance(counts, parts)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, _PLACED) as writer:
            writer.write_table(pa.table({"trace_id": list(placed),
                                         "_part": list(placed.values())}, schema=_PLACED))
        pieces = file_pieces(store, files, parts, self._remote(spark))
        if not pieces:
            return []
        dealt = _dealt(pieces, min(parts, len(pieces)))
        deal = deal_pieces(EVENTS.names, sink.getvalue().to_pybytes(), limits)
        judge = judge_dealt(rules, limits, EVENTS.names)
        try:
            sc = spark.sparkContext
            found = (sc.parallelize(dealt, len(dealt))
                     .mapPartitions(lambda it: deal(p for ps in it for p in ps))
                     .partitionBy(parts, _identity)
                     .mapPartitions(judge).collect())
        except Exception as exc:
            known = spark_failure(exc, store.root)
            if known is None:
                raise
            raise known from None
        return [(rule, tid, list(events)) for rule, tid, events in found]

    def _remote(self, spark: Any) -> Any:
        """The session whose executors read the footers, when the files are at a URI."""
        return None if self.files_at is None else spark

    def findings(self, store: Store, rules: RuleSet,
                 trace_ids: Sequence[str] | None) -> list[Finding]:
        return word(store, rules, self.violations(store, rules, trace_ids))


def _dealt(pieces: list[Piece], tasks: int) -> list[list[Piece]]:
    """Pieces dealt to ``tasks`` tasks, even by rows."""
    placed = balance([(str(i), p.rows) for i, p in enumerate(pieces)], tasks)
    dealt: list[list[Piece]] = [[] for _ in range(tasks)]
    for i, p in enumerate(pieces):
        dealt[placed[str(i)]].append(p)
    return dealt


def _identity(part: int) -> int:
    """The shuffle's partitioner: a record's key is its partition."""
    return part


def file_pieces(store: Store, files: list[str], parts: int,
                spark: Any = None) -> list[Piece]:
    """The events files cut into pieces of about ``1/parts`` of all rows, at row-group
    boundaries (``_sparkfiles.cut``), from the files' footers: read here, or with
    ``spark`` by the executors (files at a URI the driver need not read)."""
    try:
        if spark is None:
            groups = footers(files)
        else:
            rdd = spark.sparkContext.parallelize(files, max(1, min(len(files), 64)))
            groups = rdd.mapPartitions(remote_footers).collect()
    except (OSError, pa.ArrowException) as exc:
        raise SparkError(f"cannot read the store {store.root}: {_first_line(exc)}",
                         code="SPARK_STORE_UNREADABLE",
                         hint="the store's files must be readable Parquet at the paths "
                              "its commit records name (docs/scale.md)") from None
    except Exception as exc:
        known = spark_failure(exc, store.root)
        if known is None:
            raise
        raise known from None
    return cut(groups, parts)


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
                               "paths, or under --spark-files (docs/scale.md); check "
                               "its permissions")
    missing = _NO_MODULE.search(text)
    if missing:
        return SparkError(f"the Spark executors cannot import {missing.group(1)}",
                          hint="install the workbench with its dependencies (duckdb, "
                               "pyarrow, ...) in the executors' Python, or ship an "
                               "environment with spark.archives (docs/scale.md)")
    return None
