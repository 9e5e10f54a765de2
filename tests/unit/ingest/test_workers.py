"""The worker pool: order kept, the first failure raised, dead workers reported, every
process ended. Jobs are standard-library functions, which a worker can import."""

from __future__ import annotations

import math
import operator
import os
import pickle
import sys
import types

import pytest

from workbench.ingest._workers import Workers, _Round, run_jobs


def test_results_come_back_in_job_order():
    jobs = list(range(1, 40))
    assert run_jobs(math.factorial, jobs, 3) == [math.factorial(j) for j in jobs]


def test_a_pool_serves_several_rounds_with_the_same_processes():
    with Workers(2) as pool:
        pids = [p.pid for p in pool._procs]
        assert len(pids) == 1  # this process is the other half of the pool
        assert pool.run(math.factorial, [5, 6, 7]) == [120, 720, 5040]
        assert pool.run(operator.neg, [1, 2, 3]) == [-1, -2, -3]
        assert [p.pid for p in pool._procs] == pids
        procs = list(pool._procs)
    assert all(p.poll() is not None for p in procs)  # ended with the pool


def test_a_worker_runs_jobs_and_carries_their_errors_back():
    with Workers(2) as pool:
        proc = pool._procs[0]
        r = _Round(os.readlink, ["/proc/self", "/proc/self"])  # the reading process' pid
        r.feed(proc)
        assert r.results == [str(proc.pid)] * 2 and r.errors == {}
        r = _Round(math.factorial, [-1, 3])
        r.feed(proc)
        assert isinstance(r.errors[0], ValueError)
        assert r.results == [None, None]  # nothing after a failure need run


def test_a_job_the_worker_cannot_import_is_an_error_of_that_job(monkeypatch):
    here_only = types.ModuleType("wb_module_of_this_process_only")
    here_only.Job = type("Job", (), {"__module__": here_only.__name__})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, here_only.__name__, here_only)
    with Workers(2) as pool:
        r = _Round(math.factorial, [here_only.Job()])  # type: ignore[attr-defined]
        r.feed(pool._procs[0])
        assert isinstance(r.errors[0], ModuleNotFoundError)
        r = _Round(math.factorial, [lambda: 0])  # cannot even be sent
        r.feed(pool._procs[0])
        assert isinstance(r.errors[0], (pickle.PicklingError, AttributeError))
        assert pool.run(math.factorial, [4, 5]) == [24, 120]  # the worker lives on


def test_the_first_failure_in_job_order_is_raised():
    with pytest.raises(ValueError, match="negative"):
        run_jobs(math.factorial, [3, -1, 4, -2, 5], 2)


def test_a_worker_that_died_is_an_error_not_a_hang():
    with Workers(2) as pool:
        pool._procs[0].kill()
        pool._procs[0].wait()
        with pytest.raises(RuntimeError, match="worker exited"):
            pool.run(math.factorial, list(range(20)))


def test_one_process_needs_no_workers():
    with Workers(1) as pool:
        assert pool._procs == []
        assert pool.run(math.factorial, [3, 4]) == [6, 24]
    assert run_jobs(math.factorial, [3], 4) == [6]


def test_close_is_safe_twice_and_an_error_ends_the_workers():
    pool = Workers(3)
    procs = list(pool._procs)
    pool.close()
    pool.close()
    assert all(p.poll() is not None for p in procs)
    with pytest.raises(KeyError), Workers(2) as pool:
        procs = list(pool._procs)
        raise KeyError("boom")
    assert all(p.poll() is not None for p in procs)


# -- workers started before their pool -------------------------------------------------

def _big_file(tmp_path, size=40 << 20):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as f:
        f.truncate(size)  # sparse: only its size counts here
    return path


def test_early_workers_are_taken_by_the_next_pool(tmp_path, monkeypatch):
    from workbench.ingest import _workers

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert _workers.start_workers([_big_file(tmp_path)], redact=True) == 1
    early = [p for _, p in _workers._EARLY]
    with Workers(2, ("workbench.redact",)) as pool:
        assert pool._procs == early  # the very process started early
        assert _workers._EARLY == []
        assert pool.run(math.factorial, [5, 6]) == [120, 720]
    assert early[0].poll() is not None


def test_early_workers_a_pool_does_not_need_end_at_once(tmp_path, monkeypatch):
    from workbench.ingest import _workers

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    # started to redact, but the pool's jobs will not: another kind of worker
    assert _workers.start_workers([_big_file(tmp_path)], redact=True) == 1
    early = [p for _, p in _workers._EARLY]
    with Workers(2) as pool:
        assert pool._procs != early and len(pool._procs) == 1
        assert early[0].poll() is not None
    # a pool of this process alone ends them too
    _workers.start_workers([_big_file(tmp_path)], redact=False)
    early = [p for _, p in _workers._EARLY]
    with Workers(1) as pool:
        assert pool._procs == [] and early[0].poll() is not None


def test_no_early_workers_for_small_inputs_folders_or_a_bad_budget(tmp_path):
    from workbench.ingest import _workers

    small = tmp_path / "small.jsonl"
    small.write_text("{}\n")
    assert _workers.start_workers([small]) == 0
    assert _workers.start_workers([tmp_path]) == 0  # a folder: listed by the ingest only
    assert _workers.start_workers([_big_file(tmp_path)], memory="lots") == 0
    assert _workers.start_workers([tmp_path / "missing"]) == 0
    assert _workers._EARLY == []


def test_early_workers_never_taken_end_at_exit(tmp_path, monkeypatch):
    from workbench.ingest import _workers

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    _workers.start_workers([_big_file(tmp_path)])
    early = [p for _, p in _workers._EARLY]
    _workers._end_early()  # what exit runs
    assert early and all(p.poll() is not None for p in early)
