"""Run picklable jobs in parallel: here and in worker processes
(``python -m workbench.ingest._worker_main``).

Not ``multiprocessing``: its spawn mode re-imports the caller's ``__main__`` (a user
script without a main guard would start over in every worker) and fork is unsafe once
DuckDB or Arrow threads exist.

A ``Workers`` pool of ``n`` runs jobs in this process and in ``n - 1`` workers. The
workers start at once, so that they import the ingest code while the caller is still
busy (hashing the input), and stay for several rounds (reading, then finalizing): each
pays its start-up once, and this process, which has everything imported already, pays
none. Jobs go to whoever is free next (a thread per worker feeds it), so a slow part
does not hold up a queue behind it. Frames on the pipes are a 4-byte length and a
pickle: ``(function name, job)`` out, ``("ok", result)`` or ``("err", exception)`` back.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import os
import pickle
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypeVar

from ..model import UsageError
from ._memory import DEFAULT_MEMORY, memory_budget, processes_within

__all__ = ["Workers", "preload_for", "processes_for", "run_jobs", "start_workers"]

J = TypeVar("J")
R = TypeVar("R")

#: allocations between young-generation collections while jobs run: a job holds a
#: batch of freshly parsed documents, which collecting every 700 allocations (the
#: default) would walk again and again
_YOUNG = 100_000
_LEN = struct.Struct(">I")
_BIG = (1 << 32) - 1  # longer frames go as a length of _BIG and an 8-byte length


def _send(f: IO[bytes], obj: Any) -> None:
    _write(f, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _write(f: IO[bytes], data: bytes) -> None:
    head = _LEN.pack(len(data)) if len(data) < _BIG else (
        _LEN.pack(_BIG) + struct.pack(">Q", len(data)))
    f.write(head)
    f.write(data)
    f.flush()


def _read_exact(f: IO[bytes], n: int) -> bytes | None:
    data = f.read(n)
    if data is None or len(data) == n:
        return data
    chunks = [data]
    got = len(data)
    while got < n:  # a short read: the rest is still on its way, or the end came
        more = f.read(n - got)
        if not more:
            return None
        chunks.append(more)
        got += len(more)
    return b"".join(chunks)


def _receive_bytes(f: IO[bytes]) -> bytes | None:
    """One frame's pickle, or None at the end of the stream."""
    head = _read_exact(f, _LEN.size)
    if head is None:
        return None
    (n,) = _LEN.unpack(head)
    if n == _BIG:
        big = _read_exact(f, 8)
        if big is None:
            return None
        (n,) = struct.unpack(">Q", big)
    return _read_exact(f, n)


def _receive(f: IO[bytes]) -> tuple[bool, Any]:
    """``(True, object)``, or ``(False, None)`` at the end of the stream."""
    data = _receive_bytes(f)
    return (False, None) if data is None else (True, pickle.loads(data))


@contextmanager
def _few_collections() -> Iterator[None]:
    """Jobs here as in a worker: young-generation collections every ``_YOUNG``
    allocations, and what was alive before (the caller's objects, imported modules)
    out of the collector's sight until the jobs are done."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], _YOUNG), *old[1:])
    freeze = gc.get_freeze_count() == 0  # a caller that froze objects keeps them frozen
    if freeze:
        gc.freeze()
    try:
        yield
    finally:
        if freeze:
            gc.unfreeze()
        gc.set_threshold(*old)


class _Round:
    """One ``run``: the jobs not started yet, and what came back."""

    def __init__(self, func: Callable[[Any], Any], jobs: Sequence[Any]) -> None:
        self.func, self.jobs = func, jobs
        self.name = f"{func.__module__}:{func.__qualname__}"
        self.todo = deque(range(len(jobs)))
        self.results: list[Any] = [None] * len(jobs)
        self.errors: dict[int, BaseException] = {}
        self.lock = threading.Lock()

    def take(self) -> int | None:
        with self.lock:
            return self.todo.popleft() if self.todo else None

    def done(self, job: int, ok: bool, value: Any) -> None:
        with self.lock:
            if ok:
                self.results[job] = value
            else:
                self.errors[job] = value
                self.todo.clear()  # what comes after a failure need not run

    def here(self) -> None:
        """Take jobs and run them in this process until none are left."""
        with _few_collections():
            while (job := self.take()) is not None:
                try:
                    value = self.func(self.jobs[job])
                except Exception as exc:
                    self.done(job, False, exc)
                else:
                    self.done(job, True, value)

    def feed(self, proc: subprocess.Popen[bytes]) -> None:
        """Take jobs and have worker ``proc`` run them, one at a time."""
        assert proc.stdin is not None and proc.stdout is not None
        while (job := self.take()) is not None:
            try:
                frame = pickle.dumps((self.name, self.jobs[job]), pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # a job that cannot be sent is that job's error
                self.done(job, False, exc)
                continue
            try:
                _write(proc.stdin, frame)
                ok, reply = _receive(proc.stdout)
            except OSError:  # a dead worker's pipe
                ok, reply = False, None
            except Exception as exc:  # a reply this process cannot unpickle
                self.done(job, False, exc)
                continue
            if not ok:
                self.done(job, False, RuntimeError(
                    f"an ingest worker exited with status {proc.wait()}"))
                return
            self.done(job, reply[0] == "ok", reply[1])


_PARALLEL_ABOVE = 32 << 20  # bytes of input before more processes pay for their start
_MAX_WORKERS = 4


def processes_for(total: int, requested: int | None, budget: int = DEFAULT_MEMORY) -> int:
    """Processes to use for ``total`` bytes of input: one per core for large inputs,
    none extra for small ones; never more than the memory ``budget`` holds."""
    if requested is not None:
        wanted = max(1, requested)
    else:
        wanted = (max(1, min(os.cpu_count() or 1, _MAX_WORKERS)) if total >= _PARALLEL_ABOVE
                  else 1)
    return processes_within(budget, wanted)


def preload_for(redact: object) -> tuple[str, ...]:
    """What a worker imports before it serves, beside the ingest code: redaction when
    the jobs will redact."""
    return ("workbench.redact",) if redact else ()


def _spawn(preload: Sequence[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "workbench.ingest._worker_main", *preload],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


#: workers started ahead of their pool (``start_workers``), with what they preload
_EARLY: list[tuple[tuple[str, ...], subprocess.Popen[bytes]]] = []
_EARLY_LOCK = threading.Lock()


def start_workers(paths: Iterable[str | os.PathLike[str]], *, redact: object = True,
                  memory: int | str | None = None) -> int:
    """Starts now the worker processes an ingest of ``paths`` will use, so that they
    import the ingest code while the caller is still importing it; the next ``Workers``
    with the same preload takes them (any it does not need end at once, any never
    taken end at exit). Counts as that ingest will: the named files' size, the memory
    budget. Starts none for a folder (listing it twice costs more than it saves) or
    when the budget does not parse (the ingest reports it). Returns how many started."""
    total = 0
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            return 0
        with contextlib.suppress(OSError):  # the ingest names the problem
            total += p.stat().st_size
    try:
        n = processes_for(total, None, memory_budget(memory))
    except UsageError:  # MEMORY_INVALID, MEMORY_TOO_SMALL: the ingest reports it
        return 0
    preload = tuple(preload_for(redact))
    with _EARLY_LOCK:
        if not _EARLY:
            atexit.register(_end_early)
        started = [(preload, _spawn(preload)) for _ in range(n - 1)]
        _EARLY.extend(started)
    return len(started)


def _take_early(preload: tuple[str, ...], n: int) -> list[subprocess.Popen[bytes]]:
    """Up to ``n`` early workers with this preload; the others end now."""
    with _EARLY_LOCK:
        early = _EARLY[:]
        _EARLY.clear()
    taken = [p for pre, p in early if pre == preload and p.poll() is None][:n]
    _end([p for _, p in early if p not in taken])
    return taken


def _end_early() -> None:
    with _EARLY_LOCK:
        early = _EARLY[:]
        _EARLY.clear()
    _end([p for _, p in early])


def _end(procs: list[subprocess.Popen[bytes]], kill: bool = False) -> None:
    """Lets workers end (their input ends); ``kill`` ends them at once."""
    for p in procs:
        if kill:
            p.kill()
        try:
            if p.stdin is not None:
                p.stdin.close()
        except OSError:
            pass
    for p in procs:
        p.wait()
        if p.stdout is not None:
            p.stdout.close()


class Workers:
    """``n``-fold parallelism for rounds of ``run``: this process and ``n - 1`` worker
    processes. Close it with ``close``, or use it as a context manager."""

    def __init__(self, n: int, preload: Sequence[str] = ()) -> None:
        """``preload``: modules each worker imports before it serves, beside the
        ingest code (redaction, when the jobs will redact)."""
        self.n = max(1, n)
        # workers ``start_workers`` started for this pool come first
        self._procs = _take_early(tuple(preload), self.n - 1)
        self._procs += [_spawn(preload) for _ in range(self.n - 1 - len(self._procs))]

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close(kill=exc is not None)

    def run(self, func: Callable[[J], R], jobs: Sequence[J]) -> list[R]:
        """``[func(job) for job in jobs]``, spread over the pool, order kept.

        The first job that raised (in job order) re-raises here once the running jobs
        have finished; jobs after a failure may not run. A ``WorkbenchError`` raised in
        a worker keeps its code.
        """
        if not self._procs or len(jobs) <= 1:
            return [func(j) for j in jobs]
        r = _Round(func, jobs)
        feeders = [threading.Thread(target=r.feed, args=(p,), daemon=True)
                   for p in self._procs[:len(jobs) - 1]]
        for t in feeders:
            t.start()
        try:
            r.here()
        except BaseException:  # an interrupt: the workers' jobs are not waited for
            self.close(kill=True)
            raise
        finally:
            for t in feeders:
                t.join()
        if r.errors:
            raise r.errors[min(r.errors)]
        return r.results

    def close(self, *, kill: bool = False) -> None:
        """Let the workers end (their input ends); ``kill`` ends them at once."""
        procs, self._procs = self._procs, []
        _end(procs, kill)


def run_jobs(func: Callable[[J], R], jobs: Sequence[J], workers: int | Workers) -> list[R]:
    """``[func(job) for job in jobs]`` with ``workers``-fold parallelism (a number, for a
    pool of this call only, or a running ``Workers`` pool), order kept."""
    if isinstance(workers, Workers):
        return workers.run(func, jobs)
    if workers <= 1 or len(jobs) <= 1:
        return [func(j) for j in jobs]
    with Workers(min(workers, len(jobs))) as pool:
        return pool.run(func, jobs)


def serve() -> None:
    """The worker side: jobs from stdin, results to stdout (anything else printed goes
    to stderr, so a library's progress bar cannot corrupt the results). Ends when the
    parent closes its input, without the interpreter's slow tear-down of every object."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    funcs: dict[str, Any] = {}
    _settle()
    gc.set_threshold(_YOUNG, *gc.get_threshold()[1:])
    while (data := _receive_bytes(inp)) is not None:
        try:
            name, job = pickle.loads(data)  # a job this process cannot import fails here
            func = funcs.get(name)
            if func is None:
                func = funcs[name] = _resolve(name)
            reply: tuple[str, Any] = ("ok", func(job))
        except Exception as exc:  # carried back to the parent, which raises it
            reply = ("err", exc)
        data = job = None
        try:
            _send(out, reply)
        except Exception as exc:  # an unpicklable result or exception: nothing was sent
            _send(out, ("err", RuntimeError(f"an ingest worker's reply failed: {exc!r}")))
        del reply
        _settle()  # what the job imported (pandas, on the first Arrow conversion) too
    out.close()
    sys.stderr.flush()
    os._exit(0)


def _settle() -> None:
    """Move what is alive now in a worker (imported modules, mostly) out of the
    collector's sight: full collections then walk the job's objects only."""
    gc.collect()
    gc.freeze()


def _resolve(name: str) -> Any:
    module, _, qual = name.partition(":")
    func: Any = importlib.import_module(module)
    for part in qual.split("."):
        func = getattr(func, part)
    return func
