"""Committing received traces: their journal lines ingested as one batch, in a process of
its own.

The lines of the traces to commit (OTLP/JSON documents, redacted already) are written to
one private temporary file and ingested (format ``otlp``, redacted again, which changes
nothing) as one batch: ingest pays a few milliseconds per file, so never one file per
trace. When that batch is refused, each trace is tried alone and a trace refused alone
is named through ``note``. The ingest runs in a child process at a lower priority: the
receiver keeps its interpreter (and the CPU, when short) for answering exporters, and a
commit that falls behind under load catches up later, the journals waiting on disk.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..ingest import ingest
from ..model import WorkbenchError
from ..store import Store

__all__ = ["Committer", "Note"]

Note = Callable[[str], None]
#: the store holds the trace already: committed before a crash left its lines behind
_GONE = ("ALREADY_INGESTED", "TRACE_EXISTS")


class Committer:
    """Commits ``(trace id, lines)`` groups, in a child process (``child=False``: here)."""

    def __init__(self, store: Store, *, child: bool = True) -> None:
        self.store = store
        self.pool: Any = _InProcess()
        if child:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            self.pool = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_child_setup, initargs=(os.getpid(),))
            self.pool.submit(_warm)  # the child imports the ingest code now

    def commit(self, traces: Sequence[tuple[str, list[bytes]]], env: str,
               note: Note) -> set[str]:
        """Commit the traces; the ids committed (or found in the store already)."""
        if not traces:
            return set()
        with tempfile.TemporaryDirectory(prefix="workbench-collect-") as tmp:
            joined = Path(tmp) / f"collect-{len(traces)}-traces.jsonl"
            _write(joined, traces)
            if self._ingest(joined, env, note) in ("ok", "gone"):
                return {tid for tid, _ in traces}
            if len(traces) == 1:
                return set()
            done: set[str] = set()
            for i, (tid, lines) in enumerate(traces):
                one = Path(tmp) / f"collect-trace-{i}.jsonl"
                _write(one, [(tid, lines)])
                outcome = self._ingest(one, env, note, report=True)
                if outcome in ("ok", "gone"):
                    done.add(tid)
            return done

    def _ingest(self, path: Path, env: str, note: Note, *, report: bool = False) -> str:
        from concurrent.futures.process import BrokenProcessPool
        try:
            outcome, message = self.pool.submit(_ingest_job, str(self.store.root),
                                                str(path), env).result()
        except BrokenProcessPool:  # the child was killed (out of memory?): commit here
            note("the committing process died; committing in the receiver from now on")
            self.pool = _InProcess()
            outcome, message = _ingest_job(str(self.store.root), str(path), env)
        if outcome == "refused" and report:
            note(f"could not commit a trace: {message}")
        return str(outcome)

    def close(self) -> None:
        self.pool.shutdown(wait=True)


def _write(path: Path, traces: Sequence[tuple[str, list[bytes]]]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        for _, lines in traces:
            out.writelines(lines)


#: what a collected trace names as its source (``traces.source_path``): the receiver,
#: not the temporary file it committed from
SOURCE_NAME = "otlp/http (workbench collect)"


def _ingest_job(root: str, path: str, env: str) -> tuple[str, str]:
    """``("ok" | "gone" | "refused", message)`` of ingesting one file."""
    try:
        ingest([path], Store(Path(root)), format="otlp", workers=1, redact=True, env=env,
               source_name=SOURCE_NAME)
    except WorkbenchError as exc:
        if exc.code in _GONE:
            return "gone", exc.message
        return "refused", f"error[{exc.code}]: {exc.message}"
    return "ok", ""


class _InProcess:
    """The child's pool, here: what stands in for it once the child is gone."""

    def submit(self, fn: Any, *args: Any) -> Any:
        from concurrent.futures import Future
        f: Future[Any] = Future()
        f.set_result(fn(*args))
        return f

    def shutdown(self, wait: bool = True) -> None:
        pass


def _child_setup(parent: int) -> None:
    """The committing child: nicer than the receiver, its output not the receiver's,
    and killed with it (a commit cut short is rolled back by the store; the lines wait
    in their journals for the next collector)."""
    with contextlib.suppress(OSError):
        os.nice(10)
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the receiver died before the line above
        os._exit(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def _warm() -> None:
    from ..ingest import ingest as _  # noqa: F401
