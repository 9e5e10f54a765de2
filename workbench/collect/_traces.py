"""The traces being received: each in a store journal of its own, committed when idle.

Every accepted span is redacted and appended, as an OTLP/JSON line, to the journal of
its trace (``STORE/_journals/collect-TRACE-RUN-ENV.jsonl``) before the exporter gets
its answer. A trace that has received nothing for ``idle`` seconds, every trace at
shutdown, and the least recently active ones when more than ``max_traces`` are open,
are committed together: their journals ingested as one batch (format ``otlp``, in the
environment named in the journal's name), then removed. A span that arrives for a
trace already committed (or already in the store) is refused: a stored trace is never
appended to. Journals a killed collector left are committed by the next one to start
(``commit_orphans``), each in the environment it was received in.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import tempfile
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..ingest import ingest
from ..model import WorkbenchError
from ..store import Journal, Store
from ._request import line

__all__ = ["PREFIX", "Committer", "Open", "Traces", "commit_orphans"]

PREFIX = "collect-"
_SAFE = re.compile(r"[0-9a-f]{1,64}")
_GONE = ("ALREADY_INGESTED", "TRACE_EXISTS")

Note = Callable[[str], None]


def _name(trace_id: str, run: str, env: str) -> str:
    safe = trace_id if _SAFE.fullmatch(trace_id) else hashlib.sha256(
        trace_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{PREFIX}{safe}-{run}-{env}"


def _env_of(path: Path) -> str:
    return path.stem.split("-", 3)[3]


@dataclass
class Open:
    """A trace still receiving spans."""

    trace_id: str
    journal: Journal
    spans: int = 0
    last: float = 0.0


@dataclass
class Traces:
    """The open traces of one collector run and what was committed."""

    store: Store
    env: str
    idle: float
    max_traces: int
    note: Note
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    open: dict[str, Open] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)
    committed: list[str] = field(default_factory=list)
    spans_committed: int = 0
    spans_lost: int = 0

    def __post_init__(self) -> None:
        self.closed = self.store.trace_ids() if self.store.exists else set()

    def is_closed(self, trace_id: str) -> bool:
        return trace_id in self.closed

    def add(self, trace_id: str, items: list[dict[str, Any]], spans: int, now: float) -> None:
        """Journal one request's spans of a trace (redacted already)."""
        t = self.open.get(trace_id)
        if t is None:
            t = self.open[trace_id] = Open(trace_id, self.store.journal(
                _name(trace_id, self.run, self.env)))
        t.journal.append(line(items))
        t.spans += spans
        t.last = now

    def due(self, now: float, *, everything: bool = False,
            most: int | None = None) -> list[Open]:
        """Take the traces to commit now (idle ones, the oldest past ``max_traces``, or
        all; ``most`` of them at most); their later spans are refused from here on."""
        if everything:
            out = list(self.open.values())
        else:
            out = [t for t in self.open.values() if now - t.last >= self.idle]
            extra = len(self.open) - len(out) - self.max_traces
            if extra > 0:
                rest = sorted((t for t in self.open.values() if now - t.last < self.idle),
                              key=lambda t: t.last)
                out += rest[:extra]
        out = out[:most]
        for t in out:
            del self.open[t.trace_id]
            self.closed.add(t.trace_id)
        return out

    def commit(self, batch: Sequence[Open], committer: Committer | None = None) -> None:
        """Ingest the traces' journals as one batch and remove them (run in a thread;
        ``committer``: the process that ingests, see ``Committer``)."""
        if not batch:
            return
        for t in batch:
            t.journal.close()
        paths = [t.journal.path for t in batch]
        if committer is None:
            ok = _commit(self.store, paths, self.env, self.note)
        else:
            ok = committer.commit(self.store, paths, self.env, self.note)
        for t in batch:
            if t.journal.path in ok:
                self.committed.append(t.trace_id)
                self.spans_committed += t.spans
            else:
                self.spans_lost += t.spans


class Committer:
    """Ingests in a process of its own, at a lower priority: the receiver's process
    keeps its interpreter (and the CPU, when short) for answering exporters, and a
    commit that falls behind under load catches up later, its journals waiting on disk."""

    def __init__(self) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        self.pool: ProcessPoolExecutor | _InProcess = ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"),
            initializer=_lower_priority, initargs=(os.getpid(),))
        self.pool.submit(_warm)  # the child imports the ingest code now, not at commit

    def commit(self, store: Store, paths: list[Path], env: str, note: Note) -> set[Path]:
        from concurrent.futures.process import BrokenProcessPool
        try:
            done, notes = self.pool.submit(_commit_job, str(store.root),
                                           [str(p) for p in paths], env).result()
        except BrokenProcessPool:  # the child was killed (out of memory?): commit here
            note("the committing process died; committing in the receiver from now on")
            self.pool = _InProcess()
            return _commit(store, paths, env, note)
        for text in notes:
            note(text)
        return {Path(p) for p in done}

    def close(self) -> None:
        self.pool.shutdown(wait=True)


class _InProcess:
    """What stands in for the child's pool once the child is gone."""

    def submit(self, fn: Any, *args: Any) -> Any:
        from concurrent.futures import Future
        f: Future[Any] = Future()
        f.set_result(fn(*args))
        return f

    def shutdown(self, wait: bool = True) -> None:
        pass


def _lower_priority(parent: int) -> None:
    """The committing child: nicer than the receiver, its output not the receiver's,
    and killed with it (a commit cut short is rolled back by the store; its journals
    wait for the next collector)."""
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


def _commit_job(root: str, paths: list[str], env: str) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    done = _commit(Store(Path(root)), [Path(p) for p in paths], env, notes.append)
    return [str(p) for p in done], notes


def _commit(store: Store, paths: list[Path], env: str, note: Note) -> set[Path]:
    """Commit the journals ``paths`` as one batch and remove them; the paths done. A
    journal whose trace the store already holds (committed before a crash left the
    journal behind) is only removed. The rest are read as one file (ingest pays a few
    milliseconds per file); if that fails, one at a time, and a journal refused alone is
    named through ``note`` and removed."""
    have = store.trace_ids() if store.exists else set()
    done = {p for p in paths if p.stem.split("-")[1] in have}
    for p in done:
        store.drop_journal(p)
    todo = [p for p in paths if p not in done]
    if not todo:
        return done
    try:
        _ingest_together(store, todo, env)
    except WorkbenchError as exc:
        if len(todo) > 1:
            for p in todo:
                done |= _commit(store, [p], env, note)
            return done
        if exc.code not in _GONE:
            note(f"could not commit {todo[0].name}: error[{exc.code}]: {exc.message}")
            store.drop_journal(todo[0])
            return done
    for p in todo:
        store.drop_journal(p)
    return done | set(todo)


def _ingest_together(store: Store, paths: list[Path], env: str) -> None:
    """``ingest`` of the journals' lines as one OTLP/JSON lines file (beside the system's
    temporary files, private, removed after)."""
    if len(paths) == 1:
        ingest(paths, store, format="otlp", workers=1, redact=True, env=env)
        return
    with tempfile.TemporaryDirectory(prefix="workbench-collect-") as tmp:
        run = paths[0].stem.split("-")[2]
        joined = Path(tmp) / f"collect-{run}-{len(paths)}-traces.jsonl"
        with open(joined, "wb") as out:
            for p in paths:
                with open(p, "rb") as f:
                    shutil.copyfileobj(f, out)
        ingest([joined], store, format="otlp", workers=1, redact=True, env=env)


def commit_orphans(store: Store, note: Note) -> list[str]:
    """Commit the journals a killed collector left; the journal names committed."""
    by_env: dict[str, list[Path]] = {}
    for path in store.orphan_journals():
        if path.name.startswith(PREFIX) and path.stem.count("-") >= 3:
            by_env.setdefault(_env_of(path), []).append(path)
    done: list[str] = []
    for env, paths in by_env.items():
        empty = [p for p in paths if p.stat().st_size == 0]
        for p in empty:
            store.drop_journal(p)
        full = [p for p in paths if p not in empty]
        if full:
            done += sorted(p.stem for p in _commit(store, full, env, note))
    return done
