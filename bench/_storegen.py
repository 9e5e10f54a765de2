"""A deterministic (seeded) synthetic trace store, written straight into the store format.

    python bench/_storegen.py STORE --events N [--seed S] [--max-gb 4]

``workbench ingest`` runs at ~15k events/s, so a 10M-event store for a benchmark is
written here directly: DuckDB generates the rows with SQL (``range``, ``hash`` of the
seed for pseudo-randomness) and pyarrow writes them as zstd Parquet into a staged batch
(``Store.stage()``) with exactly the schemas ``workbench.model.EVENTS`` / ``TRACES`` and
the row groups of an ingest (DuckDB's ``COPY`` would name the list items of ``refs``
``element`` and make their fields nullable), each events file sorted by
``(trace_id, seq)``; the batch is committed like an ingest, with one source whose
sha256 is a hash of the parameters. Same parameters and DuckDB version, same rows.

Each trace has 50-200 events (the last trace is cut to hit the event count): an
``agent`` root spanning the trace, then blocks of four events, each block one episode:

* ``fix`` (always the first block, then 20 %): ``search``, ``read_file``, ``apply_patch``,
  ``run_tests`` tool calls; 10 % of them with a ``search`` that overlaps ``read_file``;
* ``archive`` (10 %): model call, ``request_approval``, ``archive_project`` (same
  ``project_id``), ``POST /v1/projects/{project_id}/archive``;
* ``job`` (20 %): model call, ``get_job`` (``status``, ``retry_allowed``), ``retry_job`` when
  allowed else ``read_file``, ``GET /v1/jobs/{job_id}``;
* ``charge`` (10 %): model call, ``charge`` (captured 97 %), a second ``charge`` of the same
  ``cart_id`` answered ``duplicate``, ``POST /v1/charges``;
* ``browse`` (40 %): model call, ``read_file`` or ``search``, ``list_projects``,
  ``GET /projects`` (``query.limit``).

A tool call followed by its HTTP request lasts 1.9 s and contains it (nested span, the
parent); other events last 0.3-0.7 s and start 1 s apart, so only the cases below overlap.
About 1 ‰ of blocks per case break a benchmark rule (``bench/check.py``), a few more are
near misses that must *not* count:

* archive: no approval; approval for another project; an approval still running when the
  archive starts; approval with ``approved: false`` (3 % more are refused and not archived);
* job: ``status`` ``paused``; ``status`` missing; ``retry_job`` after ``retry_allowed: false``;
  (near miss) ``retry_job`` while that ``get_job`` is still running;
* charge: the second charge ``captured`` too; (near miss) captured for another cart;
* fix: 0.3 % of traces never run ``run_tests`` (``lint`` instead);
* browse: ``GET /projects`` without ``query.limit``.

All events have start and end times; ids in ``args``/``result`` are strings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["GENERATOR", "generate", "source_sha256"]

GENERATOR = "bench/_storegen.py v1"
EVENTS_PER_FILE = 4_000_000  # as `workbench ingest` splits its events files
ROW_GROUP = 131_072
BASE_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z
SEC = 1_000_000_000

_TRACES = """
CREATE TEMP TABLE tr AS
WITH n AS (
  SELECT i AS t, (50 + u('n', i, 0) % 151)::BIGINT AS n FROM range({max_traces}) r(i)
), c AS (
  SELECT t, n, sum(n) OVER (ORDER BY t ROWS UNBOUNDED PRECEDING) - n AS off FROM n
)
SELECT t, printf('%016x%016x', hash({seed}, 'ta', t), hash({seed}, 'tb', t)) AS trace_id,
       least(n, {events} - off)::BIGINT AS n, off,
       ({base} + t * 60 * {sec} + (u('tb', t, 0) % 30000) * 1000000)::BIGINT AS base,
       u('nt', t, 0) < 3000 AS notests
FROM c WHERE off < {events}
"""

# Blocks of four events after the root; per block a type, a violation die `v` and a die
# `x`; per event a die `y`. Everything is a pure function of (seed, t, seq).
_EVENTS = """
WITH ev AS (
  SELECT t, trace_id, n, base, notests, unnest(range(n)) AS seq FROM tr
  WHERE t >= {lo} AND t < {hi}
), b AS (
  SELECT *, (seq - 1) // 4 AS blk, (seq - 1) % 4 AS pos FROM ev
), c AS (
  SELECT *,
    CASE WHEN seq = 0 THEN 'root' WHEN blk = 0 THEN 'fix'
         ELSE CASE WHEN u('bt', t, blk) < 100000 THEN 'archive'
                   WHEN u('bt', t, blk) < 300000 THEN 'job'
                   WHEN u('bt', t, blk) < 400000 THEN 'charge'
                   WHEN u('bt', t, blk) < 600000 THEN 'fix'
                   ELSE 'browse' END END AS bt,
    u('v', t, blk) AS v, u('x', t, blk) AS x, u('y', t, seq) AS y,
    printf('proj-%05d', u('p', t, blk) % 100000) AS project,
    printf('job-%06d', u('j', t, blk)) AS job,
    printf('cart-%06d', u('c', t, blk)) AS cart
  FROM b
), blk AS (
  SELECT *,
    -- archive
    NOT (v >= 3000 AND v < 34000) AS approved,
    -- job
    CASE WHEN v < 1000 THEN 'paused' WHEN v < 2000 THEN NULL
         ELSE (['queued', 'queued', 'running', 'running', 'succeeded', 'succeeded',
                'succeeded', 'failed', 'failed', 'failed'])[1 + x % 10] END AS job_status,
    CASE WHEN x % 10 < 2 AND v >= 1000 THEN NULL   -- queued: no retry_allowed at all
         ELSE x % 10 >= 7 AND (x // 10) % 10 < 6 AND v >= 2000 END AS retry_allowed,
    -- charge
    x % 100 < 97 AS captured
  FROM c
), k AS (
  SELECT *,
    CASE WHEN bt = 'root' THEN 'agent'
         WHEN bt = 'fix' THEN 'tool_call'
         WHEN pos = 0 THEN 'llm_call'
         WHEN pos = 3 THEN 'http'
         ELSE 'tool_call' END AS kind,
    CASE
      WHEN bt = 'root' THEN 'coding-agent'
      WHEN bt = 'fix' THEN CASE pos WHEN 0 THEN 'search' WHEN 1 THEN 'read_file'
                                    WHEN 2 THEN 'apply_patch'
                                    ELSE CASE WHEN notests THEN 'lint' ELSE 'run_tests' END END
      WHEN pos = 0 THEN (['claude-sonnet-4-5', 'gpt-4.1', 'claude-haiku-4-5'])[1 + y % 3]
      WHEN bt = 'archive' AND pos = 1 THEN
        CASE WHEN v < 1000 THEN 'list_projects' ELSE 'request_approval' END
      WHEN bt = 'archive' AND pos = 2 THEN
        CASE WHEN NOT approved AND v >= 4000 THEN 'search' ELSE 'archive_project' END
      WHEN bt = 'archive' THEN 'POST /v1/projects/{{project_id}}/archive'
      WHEN bt = 'job' AND pos = 1 THEN 'get_job'
      WHEN bt = 'job' AND pos = 2 THEN
        CASE WHEN retry_allowed OR (v >= 2000 AND v < 4000) THEN 'retry_job' ELSE 'read_file' END
      WHEN bt = 'job' THEN 'GET /v1/jobs/{{job_id}}'
      WHEN bt = 'charge' AND pos < 3 THEN 'charge'
      WHEN bt = 'charge' THEN 'POST /v1/charges'
      WHEN pos = 1 THEN CASE WHEN x % 2 = 0 THEN 'read_file' ELSE 'search' END
      WHEN pos = 2 THEN 'list_projects'
      ELSE 'GET /projects' END AS name
  FROM blk
), s AS (
  SELECT *,
    base + seq * {sec} + (y % 100) * 1000000 AS st,
    CASE
      WHEN bt = 'root' THEN 0
      WHEN pos = 2 AND bt <> 'fix' THEN 1900000000                    -- contains its HTTP call
      WHEN bt = 'archive' AND pos = 1 AND v >= 2000 AND v < 3000 THEN 1500000000
      WHEN bt = 'job' AND pos = 1 AND v >= 3000 AND v < 4000 THEN 1500000000
      WHEN bt = 'fix' AND pos = 0 AND x % 10 = 0 THEN 1500000000
      ELSE 300000000 + ((y // 100) % 400) * 1000000 END AS dur,
    kind = 'http' AND y % 100 = 7 AS failed,
    (['src/app.py', 'src/jobs.py', 'src/billing/charge.py', 'tests/test_jobs.py',
      'README.md', 'src/api/projects.py'])[1 + (x // 7) % 6] AS file
  FROM k
)
SELECT
  trace_id,
  printf('%016x', hash({seed}, 'eid', t, seq)) AS event_id,
  CASE WHEN seq = 0 THEN NULL
       WHEN kind = 'http' THEN printf('%016x', hash({seed}, 'eid', t, seq - 1))
       ELSE printf('%016x', hash({seed}, 'eid', t, 0)) END AS parent_id,
  seq::BIGINT AS seq, kind, name,
  CASE WHEN bt = 'root' THEN base ELSE st END::BIGINT AS start_ns,
  CASE WHEN bt = 'root' THEN base + (n + 1) * {sec} ELSE st + dur END::BIGINT AS end_ns,
  CASE WHEN failed THEN 'error' ELSE 'ok' END AS status,
  (CASE
    WHEN bt = 'root' THEN json_object('task', 'fix the failing job and clean up projects')
    WHEN kind = 'llm_call' THEN json_object(
      'model', name, 'max_tokens', 4096,
      'messages', [json_object('role', 'user', 'content',
        (['Look at the failing job and decide whether to retry it.',
          'Archive the projects that have been stale for ninety days.',
          'The customer asks why their cart was charged; check the charges.',
          'Run the tests again after the patch and report the result.'])[1 + y % 4]
        || ' ' || (['Use the tools; ask for approval before destructive actions.',
                    'Be brief.', 'Explain each step you take.'])[1 + (y // 4) % 3])])
    WHEN name = 'search' THEN json_object('query', 'def ' || split_part(file, '/', -1), 'limit', 20)
    WHEN name IN ('read_file', 'apply_patch') THEN json_object('path', file)
    WHEN name IN ('run_tests', 'lint') THEN json_object('target', 'tests/', 'workers', 2)
    WHEN name = 'list_projects' THEN json_object('team', 'team-a', 'limit', 50)
    WHEN name = 'request_approval' THEN json_object(
      'project_id', CASE WHEN v >= 1000 AND v < 2000 THEN project || '-b' ELSE project END,
      'action', 'archive', 'reason', 'stale for 90 days')
    WHEN name = 'archive_project' THEN json_object('project_id', project)
    WHEN name IN ('get_job', 'retry_job') THEN json_object('job_id', job)
    WHEN name = 'charge' THEN json_object(
      'cart_id', CASE WHEN pos = 2 AND v >= 1000 AND v < 2000 THEN cart || '-b' ELSE cart END,
      'amount_cents', 100 + x % 9900, 'currency', 'EUR',
      'idempotency_key', printf('idem-%08x', hash({seed}, 'ik', t, blk)))
    WHEN kind = 'http' THEN json_object(
      'method', split_part(name, ' ', 1),
      'url', 'https://api.example.com' || replace(replace(split_part(name, ' ', 2),
             '{{project_id}}', project), '{{job_id}}', job),
      'query', CASE WHEN name = 'GET /projects' THEN
                 CASE WHEN v < 1000 THEN json_object('team', 'team-a')
                      ELSE json_object('team', 'team-a', 'limit', 50) END
               ELSE json_object() END,
      'headers', json_object('authorization', 'Bearer «secret:bearer:7f3a»',
                             'content-type', 'application/json'))
    ELSE json_object() END)::VARCHAR AS args,
  (CASE
    WHEN bt = 'root' THEN json_object('outcome', 'done')
    WHEN kind = 'llm_call' THEN json_object(
      'stop_reason', 'tool_use',
      'content', [json_object('type', 'text', 'text',
        (['I will check the job status first.', 'Asking for approval.',
          'Reading the file to find the bug.', 'The tests pass now.'])[1 + y % 4])])
    WHEN name = 'search' THEN json_object('hits', [file, 'src/util.py'], 'total', 2 + x % 5)
    WHEN name = 'read_file' THEN json_object('path', file, 'bytes', 1000 + y % 20000,
                                             'sha', printf('%016x', hash({seed}, 'f', x)))
    WHEN name = 'apply_patch' THEN json_object('applied', true, 'hunks', 1 + x % 4)
    WHEN name = 'run_tests' THEN json_object('passed', 40 + x % 60, 'failed', 0)
    WHEN name = 'lint' THEN json_object('warnings', x % 3)
    WHEN name = 'list_projects' THEN json_object('items', [
      json_object('id', project, 'owner', 'team-a', 'state', 'stale'),
      json_object('id', printf('proj-%05d', (u('p', t, blk) + 1) % 100000),
                  'owner', 'team-b', 'state', 'active')], 'next_cursor', NULL)
    WHEN name = 'request_approval' THEN json_object(
      'approved', approved, 'approval_id', printf('apr-%06d', x),
      'project_id', CASE WHEN v >= 1000 AND v < 2000 THEN project || '-b' ELSE project END)
    WHEN name = 'archive_project' THEN json_object('project_id', project, 'state', 'archived')
    WHEN name = 'get_job' THEN CASE
      WHEN job_status IS NULL THEN json_object('job_id', job, 'retry_allowed', retry_allowed)
      WHEN retry_allowed IS NULL THEN json_object('job_id', job, 'status', job_status)
      ELSE json_object('job_id', job, 'status', job_status, 'retry_allowed', retry_allowed) END
    WHEN name = 'retry_job' THEN json_object('job_id', job, 'status', 'queued')
    WHEN name = 'charge' THEN json_object(
      'status', CASE WHEN pos = 1 THEN CASE WHEN captured THEN 'captured' ELSE 'declined' END
                     WHEN v < 2000 THEN 'captured' ELSE 'duplicate' END,
      'charge_id', printf('ch-%08x', hash({seed}, 'ch', t, seq)))
    WHEN kind = 'http' THEN json_object(
      'status', CASE WHEN failed THEN 503 WHEN name LIKE 'POST%' THEN 201 ELSE 200 END,
      'headers', json_object('content-type', 'application/json',
                             'x-request-id', printf('req-%012x', hash({seed}, 'rq', t, seq))),
      'body', CASE WHEN failed THEN json_object('error', 'service unavailable')
                   ELSE json_object('ok', true) END)
    ELSE json_object() END)::VARCHAR AS result,
  CASE WHEN failed THEN json_object('code', 'HTTP_503', 'message', 'service unavailable',
                                    'retryable', true)::VARCHAR END AS error,
  (CASE WHEN kind = 'llm_call' THEN json_object(
          'gen_ai.system', CASE WHEN name LIKE 'gpt%' THEN 'openai' ELSE 'anthropic' END,
          'gen_ai.usage.input_tokens', 500 + y % 30000,
          'gen_ai.usage.output_tokens', 20 + y % 800)
        WHEN bt = 'root' THEN json_object('service.name', 'coding-agent', 'runtime', 'py3.12')
        ELSE json_object() END)::VARCHAR AS attrs,
  CASE
    WHEN name = 'retry_job' AND NOT (v >= 3000 AND v < 4000) THEN
      [{{'event_id': printf('%016x', hash({seed}, 'eid', t, seq - 1)),
         'path': 'args.job_id', 'from_path': 'result.job_id'}}]
    WHEN name = 'archive_project' AND v >= 3000 THEN  -- an approval that ended earlier
      [{{'event_id': printf('%016x', hash({seed}, 'eid', t, seq - 1)),
         'path': 'args.project_id', 'from_path': 'result.project_id'}}]
    ELSE []::STRUCT(event_id VARCHAR, path VARCHAR, from_path VARCHAR)[] END AS refs
FROM s
ORDER BY trace_id, seq
"""


def source_sha256(events: int, seed: int, max_bytes: int) -> str:
    """The sha256 the store records as this generator's source: a hash of the parameters."""
    params = {"generator": GENERATOR, "events": events, "seed": seed, "max_bytes": max_bytes}
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()


def _connect(seed: int) -> Any:
    import duckdb

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"CREATE TEMP MACRO u(tag, a, b) AS "
                f"(hash({int(seed)}, tag, a, b) % 1000000)::BIGINT")
    return con


def _write(con: Any, sql: str, path: Path, schema: Any) -> None:
    """The rows of ``sql`` as zstd Parquet with exactly ``schema`` (names, order, types,
    nullability), written as ``workbench ingest`` writes its files."""
    import pyarrow.parquet as pq

    with pq.ParquetWriter(path, schema, compression="zstd") as w:
        for b in con.sql(sql).to_arrow_reader(ROW_GROUP):
            w.write_batch(b.cast(schema), row_group_size=ROW_GROUP)


def _stats(root: Path, sha: str, seconds: float, reused: bool) -> dict[str, Any]:
    from workbench.store import Store

    store = Store(root)
    files = store.files("events")
    traces = store.trace_ids()
    import pyarrow.parquet as pq
    events = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    nbytes = sum(f.stat().st_size for t in ("events", "traces") for f in store.files(t))
    return {"root": str(root), "events": events, "traces": len(traces), "bytes": nbytes,
            "events_bytes": sum(f.stat().st_size for f in files), "files": len(files),
            "sha256": sha, "seconds": seconds, "reused": reused}


def generate(root: str | Path, events: int, *, seed: int = 0, max_gb: float = 4.0,
             log: Any = None) -> dict[str, Any]:
    """Write a store of ``events`` events at ``root`` (new or empty), or stop before its
    events files pass ``max_gb`` GiB. A store at ``root`` already holding this exact
    generation is reused. Returns its statistics, with ``capped`` true when the size
    limit cut the event count."""
    from workbench.model import EVENTS, TRACES
    from workbench.store import Store

    root = Path(root)
    max_bytes = int(max_gb * (1 << 30))
    sha = source_sha256(events, seed, max_bytes)
    store = Store(root)
    if store.exists and sha in store.source_hashes():
        out = _stats(root, sha, 0.0, True)
        out["capped"] = out["events"] < events
        return out
    t0 = time.perf_counter()
    con = _connect(seed)
    con.execute(_TRACES.format(max_traces=events // 50 + 2, seed=int(seed), events=int(events),
                               base=BASE_NS, sec=SEC))
    bounds = con.execute("SELECT t, off, n FROM tr ORDER BY t").fetchall()
    ntr = len(bounds)
    written = 0
    import pyarrow.parquet as pq

    with store.stage() as batch:
        # DuckDB writes each file into the batch's scratch folder, where its size decides
        # the cap; the batch then writes it into the store (the store's one write path)
        scratch = batch.scratch().path
        lo = files = 0
        capped = False
        while lo < ntr and not capped:
            hi = lo
            while hi < ntr and bounds[hi][1] - bounds[lo][1] < EVENTS_PER_FILE:
                hi += 1
            while True:
                path = scratch / f"events-{files}.parquet"
                _write(con, _EVENTS.format(lo=lo, hi=hi, seed=int(seed), sec=SEC), path,
                       EVENTS)
                size = path.stat().st_size
                if written + size <= max_bytes:
                    break
                # over the cap: drop the file, keep the traces that fit at its bytes/event
                path.unlink()
                capped = True
                room = int((max_bytes - written) / (size / (bounds[hi - 1][1] + bounds[hi - 1][2]
                                                            - bounds[lo][1])) * 0.97)
                hi = lo
                while hi < ntr and bounds[hi][1] + bounds[hi][2] - bounds[lo][1] <= room:
                    hi += 1
                if hi == lo:
                    break
            if hi == lo:
                break
            written += size
            files += 1
            batch.write("events", pq.read_table(path, schema=EVENTS))
            path.unlink()
            if log:
                log(f"  events file {files}: traces {lo:,}-{hi - 1:,}, {size / 1e6:,.0f} MB")
            lo = hi
        kept = lo
        tpath = scratch / "traces.parquet"
        _write(con, f"""
          SELECT trace_id, 'synthetic' AS source_format, 'synthetic' AS source_path,
                       '{sha}' AS source_sha256, now()::TIMESTAMPTZ AS ingested_at,
                       '{batch.id}' AS batch, n AS events, base AS start_ns,
                       base + (n + 1) * {SEC} AS end_ns,
                       'fix the failing job and clean up projects' AS root_task,
                       '[]' AS tools, '{{"model":"claude-sonnet-4-5"}}' AS versions,
                       '{{}}' AS redaction, NULL::VARCHAR AS derived_from, '{{}}' AS attrs,
                       'default' AS env, NULL::VARCHAR AS scenario,
                       NULL::VARCHAR AS build
                FROM tr WHERE t < {kept} ORDER BY trace_id""", tpath, TRACES)
        batch.write("traces", pq.read_table(tpath, schema=TRACES))
        ids = [r[0] for r in con.execute(f"SELECT trace_id FROM tr WHERE t < {kept} "
                                         "ORDER BY trace_id").fetchall()]
        con.close()
        batch.commit(sources=[{"path": "synthetic", "sha256": sha, "format": "synthetic"}],
                     trace_ids=ids)
    out = _stats(root, sha, time.perf_counter() - t0, False)
    out["capped"] = out["events"] < events
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", help="a new or empty directory")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-gb", type=float, default=4.0, help="size cap of the events files (GiB)")
    ns = ap.parse_args(argv)
    stats = generate(ns.store, ns.events, seed=ns.seed, max_gb=ns.max_gb,
                     log=lambda m: print(m, file=sys.stderr))
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
