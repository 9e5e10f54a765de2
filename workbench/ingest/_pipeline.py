"""``ingest``: files in, one committed store batch out, or nothing at all.

Read (adapter) -> redact and stage (columnar, bounded memory) -> finalize (sort, seq,
refs, orphans) -> commit (under the store lock). Any error before the commit leaves the
store as it was: the staging area is removed and no commit record is written.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..formats import (
    ODD_VALUE_ERRORS,
    Adapter,
    RawEvent,
    SourceFile,
    TraceInfo,
    open_source,
    split_lines,
)
from ..model import (
    TRACES,
    InputError,
    InvalidTraceError,
    NotFoundError,
    StoreError,
    UsageError,
    WorkbenchError,
    trace_row,
)
from ..store import Scratch, Store
from ._finalize import TraceStats, finalize
from ._labels import Labels, check_label
from ._memory import (
    memory_budget,
    partitions_for,
    sort_memory,
)
from ._partial import Refusals, pick_sources, readable
from ._registry import adapter_for
from ._stage import Stager, warm_up
from ._workers import Workers, preload_for, processes_for, run_jobs

if TYPE_CHECKING:
    from ..redact import Redactor

__all__ = ["IngestProgress", "IngestResult", "TraceSummary", "check_env", "ingest"]

_ORD_BITS = 40  # file order within a part; parts of up to 2**40 events
_RETRIES = 3
#: events read before redaction asks the prefilter about their new ids in one scan
_PRIME_EVENTS = 256


@dataclass(frozen=True)
class IngestProgress:
    phase: str          # "read", "write"
    events: int
    file: str | None = None


@dataclass(frozen=True)
class TraceSummary:
    trace_id: str
    events: int
    format: str
    source: str
    tool_calls: int = 0
    orphans: int = 0


@dataclass
class IngestResult:
    """What an ingest stored (``traces``), passed over (``skipped``: already stored, not
    a trace file, a tool definition), refused (``refused``: a file of a folder or of
    several named that could not be read, with its code, message and hint) and read
    into the trace of another file (``merged``: a sub-agent's side file, ``into`` the
    trace id, ``source`` the file the trace is reported from)."""

    traces: list[TraceSummary] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    batch: str | None = None
    refused: list[dict[str, str]] = field(default_factory=list)
    merged: list[dict[str, str]] = field(default_factory=list)

    @property
    def events(self) -> int:
        return sum(t.events for t in self.traces)

    @property
    def partial(self) -> bool:
        """Some files were refused while the others were stored (exit status 4)."""
        return bool(self.refused)

    def to_dict(self) -> dict[str, Any]:
        return {
            "traces": [{"trace_id": t.trace_id, "events": t.events, "format": t.format,
                        "source": t.source, "tool_calls": t.tool_calls, "orphans": t.orphans}
                       for t in self.traces],
            "events": self.events,
            "skipped": self.skipped,
            "refused": self.refused,
            "merged": self.merged,
            "batch": self.batch,
        }


def _expand(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, bool]]:
    """Files to read; ``True`` marks a file found inside a named directory."""
    out: list[tuple[Path, bool]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend((f, True) for f in sorted(p.rglob("*")) if f.is_file() and not any(
                part.startswith(".") for part in f.relative_to(p).parts))
        else:
            out.append((p, False))
    return out


def _merge_info(into: dict[str, TraceInfo], info: TraceInfo) -> None:
    have = into.get(info.trace_id)
    if have is None:
        into[info.trace_id] = TraceInfo(info.trace_id, info.root_task, list(info.tools),
                                        dict(info.versions), dict(info.attrs))
        return
    have.root_task = have.root_task or info.root_task
    have.tools.extend(t for t in info.tools if t not in have.tools)
    for k, v in info.versions.items():
        have.versions.setdefault(k, v)
    have.attrs.update(info.attrs)


def _read(adapter: Adapter, source: SourceFile, src: int, stager: Stager,
          infos: dict[str, TraceInfo], report: Callable[[int], None] | None) -> int:
    n = 0
    red = stager.redactor
    pending: list[RawEvent] = []  # redacting: events whose new ids are asked at once

    def add(events: Iterable[RawEvent]) -> None:
        nonlocal n
        for ev in events:
            stager.add(ev, src)
            n += 1
            if report is not None and n % 10000 == 0:
                report(stager.rows)

    def flush() -> None:
        if red is not None and len(pending) > 1:
            # their ids and names: mostly new, and listed without a walk (the strings of
            # the values would need one, which costs about what it spares)
            red.prime([v for ev in pending for v in (ev.trace_id, ev.event_id, ev.parent_id,
                                                     ev.name)])
        add(pending)
        pending.clear()

    try:
        try:
            for item in adapter.read(source):
                if isinstance(item, RawEvent):
                    if red is None:
                        add((item,))
                        continue
                    pending.append(item)
                    if len(pending) >= _PRIME_EVENTS:
                        flush()
                else:
                    if red is not None:  # keyed by its id as the events hold it
                        item.trace_id = stager.ident(item.trace_id)
                    _merge_info(infos, item)
        except BaseException:
            flush()  # the events read before a failure come first, with their own errors
            raise
        flush()
    except WorkbenchError as exc:
        if "file" not in exc.details and isinstance(exc, InputError):
            exc.message = f"{source.display}: {exc.message}"
            exc.args = (exc.message,)
        raise
    except ODD_VALUE_ERRORS as exc:  # an adapter's own guard (``malformed``) missed it
        raise InvalidTraceError(
            f"{source.display}: not a readable {adapter.name} file ({type(exc).__name__}: "
            f"{str(exc)[:200]})", file=source.display) from None
    return n


@dataclass
class _Part:
    """One unit of reading: a file, or a byte range of a large line-based file."""

    index: int
    src: int
    source: SourceFile
    adapter: str
    work: Scratch
    partitions: int
    key: bytes | None = None  # the store's redaction key; None: --no-redact
    lenient: bool = False  # a file that cannot be read is refused, not raised


@dataclass
class _Staged:
    src: int
    rows: int
    files: dict[int, list[Path]]
    infos: dict[str, TraceInfo]
    hits: dict[str, Counter[str]]
    error: InputError | None = None  # the part's file cannot be read (``lenient``)


def _stage_part(part: _Part, report: Callable[[int], None] | None = None) -> _Staged:
    adapter = adapter_for(part.adapter)
    # the staged text a process buffers stays about 64 MiB however many partitions
    stager = Stager(part.work.sub(f"part-{part.index:04d}"), partitions=part.partitions,
                    bytes_per_file=max(4 << 20, min(32 << 20, (64 << 20) // part.partitions)),
                    ord_base=part.index << _ORD_BITS,
                    file_order=bool(getattr(adapter, "file_order", False)),
                    redactor=None if part.key is None else _redactor(part.key))
    infos: dict[str, TraceInfo] = {}
    try:
        rows = _read(adapter, part.source, part.src, stager, infos, report)
        stager.flush()
    except InputError as exc:
        if not part.lenient:
            raise
        return _Staged(part.src, 0, {}, {}, {}, error=exc)
    return _Staged(part.src, rows, stager.files, infos, stager.hits)


def _size(files: list[tuple[Path, bool]]) -> int:
    """Bytes to read, before hashing tells which files are new."""
    total = 0
    for p, _ in files:
        with contextlib.suppress(OSError):  # open_source names the problem
            total += p.stat().st_size
    return total


def _plan(sources: list[tuple[SourceFile, Adapter]], work: Scratch, workers: int,
          key: bytes | None, partitions: int, lenient: bool) -> list[_Part]:
    parts: list[_Part] = []
    for i, (src, adapter) in enumerate(sources):
        splittable = getattr(adapter, "splittable", None)
        pieces = [src]
        if workers > 1 and splittable is not None and splittable(src):
            pieces = split_lines(src, workers * 16, workers=workers)
        first = len(parts)  # not in the generator: the list grows while it runs
        parts.extend(_Part(first + k, i, piece, adapter.name, work, partitions, key, lenient)
                     for k, piece in enumerate(pieces))
    return parts


def _report_file(report: Callable[[int, str | None], None], file: str, n: int) -> None:
    report(n, file)


def _stage_all(parts: list[_Part], workers: Workers,
               report: Callable[[int, str | None], None]) -> list[_Staged]:
    if workers.n <= 1 or len(parts) <= 1:
        out = []
        for p in parts:
            out.append(_stage_part(p, functools.partial(_report_file, report, p.source.display)))
        return out
    staged = run_jobs(_stage_part, parts, workers)
    report(sum(s.rows for s in staged), None)
    return staged


def ingest(paths: Sequence[str | os.PathLike[str]], store: Store, *, format: str = "auto",
           progress: Callable[[IngestProgress], None] | None = None,
           workers: int | None = None, redact: bool | bytes = True,
           env: str = "default", memory: int | str | None = None,
           strict: bool = False, scenario: str | None = None,
           build: str | None = None, source_name: str | None = None) -> IngestResult:
    """Read the files into one new store batch. Re-ingesting a file adds nothing.

    A folder, or several files named together: a file that is recognised but cannot be
    read is refused (``result.refused``: path, code, message, hint) and contributes
    nothing while every other file is stored; ``strict`` raises on the first such file
    instead, and nothing is stored. A file named alone raises. Files in a folder that
    no format recognises, or that hold tool definitions, are skipped.

    ``redact`` (the default): secrets and personal data become keyed tokens under the
    store's key before anything is written, staging included (docs/redact.md); the
    ``traces.redaction`` column records what was done. Bytes: under this key instead
    (``read_trace`` gives both files of a diff one key).

    ``workers``: processes for reading and finalizing (default: one per core, up to 4,
    when the input is 32 MiB or more; else 1; never more than ``memory`` holds). The
    result does not depend on it.

    ``source_name``: what the stored traces name as their source in place of the files'
    paths, for files a receiver wrote for itself (``workbench collect``'s batches).

    ``memory``: bytes (or a size such as ``"1.5GB"``) for this process and its workers
    together (default ``$WORKBENCH_INGEST_MEMORY``, else 1.5 GB; docs/ingest.md).
    When another process commits one of the same files while this one is reading, the
    commit is refused and the ingest starts again without that file.

    ``scenario`` and ``build``: what every trace read is a run of, and of which build of
    the agent (docs/statistics.md); where not given, a trace's OTLP resource attributes
    ``workbench.scenario`` and ``workbench.build`` name them, else they stay null.
    """
    check_env(env)
    labels = Labels(env, check_label("--scenario", scenario), check_label("--build", build))
    budget = memory_budget(memory)
    forced = None if format == "auto" else adapter_for(format)
    run = functools.partial(_ingest_once, paths, store, forced, progress, workers, redact,
                            labels, budget, strict, source_name)
    for _attempt in range(_RETRIES):
        try:
            return run()
        except StoreError as exc:
            if exc.code not in ("ALREADY_INGESTED", "TRACE_EXISTS") or not _lost_race(
                    paths, store):
                raise
    return run()


_ENV_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def check_env(name: str) -> str:
    """An environment name (``ingest --env``, ``replay --env``): 1-64 letters, digits,
    ``.``, ``_`` or ``-``, starting with a letter or digit; else ``ENV_INVALID``."""
    if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
        raise UsageError(f"--env {name!r} is not an environment name", code="ENV_INVALID",
                         hint="1-64 letters, digits, '.', '_' or '-' (e.g. staging, prod-eu)")
    return name


def _lost_race(paths: Sequence[str | os.PathLike[str]], store: Store) -> bool:
    """Whether one of these files was committed by someone else meanwhile."""
    known = store.source_hashes()
    for p, _ in _expand(paths):
        try:
            if open_source(p).sha256 in known:
                return True
        except (InputError, NotFoundError):
            continue
    return False


def _ingest_once(paths: Sequence[str | os.PathLike[str]], store: Store, forced: Adapter | None,
                 progress: Callable[[IngestProgress], None] | None,
                 requested: int | None, redact: bool | bytes, env: Labels,
                 budget: int, strict: bool, source_name: str | None = None) -> IngestResult:
    files = _expand(paths)
    # the worker processes start now, importing the ingest code while the files are
    # hashed (hashlib lets go of the interpreter, so this process warms up meanwhile too)
    threading.Thread(target=warm_up, daemon=True).start()
    # several files, or a folder: a file that cannot be read is refused, the rest stored
    refusals = Refusals(lenient=not strict and (len(files) > 1 or any(d for _, d in files)))
    preload = preload_for(redact)
    with Workers(processes_for(_size(files), requested, budget), preload) as pool:
        return _ingest_files(files, pool, store, forced, progress, requested, redact, env,
                             budget, refusals, source_name)


def _ingest_files(files: list[tuple[Path, bool]], pool: Workers,
                  store: Store, forced: Adapter | None,
                  progress: Callable[[IngestProgress], None] | None,
                  requested: int | None, redact: bool | bytes, env: Labels,
                  budget: int, refusals: Refusals,
                  source_name: str | None = None) -> IngestResult:
    result = IngestResult(refused=refusals.refused)
    sources = pick_sources(files, store, forced, result.skipped, refusals)
    if not sources:
        return result

    def report(n: int, phase: str = "read", file: str | None = None) -> None:
        if progress is not None:
            progress(IngestProgress(phase, n, file))

    if processes_for(sum(s.size for s, _ in sources), requested, budget) < pool.n:
        pool.close()  # the files already in the store left little to read
        pool = Workers(1)
    workers = pool.n
    sort = sort_memory(budget, workers)
    n_parts = partitions_for(sum(s.size for s, _ in sources), workers, sort)
    key = (redact if isinstance(redact, bytes) else store.redaction_key()) if redact else None
    # what the store records of each file's path: a token in a file name is redacted too
    shown = [source_name if source_name is not None else
             s.display if key is None else _redactor(key).value(s.display) for s, _ in sources]
    with store.stage() as batch:
        work = batch.scratch()
        staged = _stage_all(_plan(sources, work, workers, key, n_parts, refusals.lenient),
                            pool, lambda n, file: report(n, "read", file))
        staged = readable(staged, sources, store, work, sort, refusals)
        if not staged:
            return result
        _, infos, hits = _gather(staged, len(sources), key)
        partitions = [[f for part in staged for f in part.files.get(p, [])]
                      for p in range(n_parts)]
        stats = finalize(partitions, batch, work.sub("final"), None, pool,
                         lambda n: report(n, "write"), memory=sort, checked=True)
        kept = sorted({part.src for part in staged})
        batch.write("traces", _traces(batch.id, stats, infos, sources, shown,
                                      None if key is None else hits, env))
        batch.commit(sources=[{"path": shown[i], "sha256": sources[i][0].sha256,
                               "format": sources[i][1].name, "size": sources[i][0].size}
                              for i in kept],
                     trace_ids=list(stats))
        result.batch = batch.id
    for tid, st in stats.items():
        adapter = sources[st.src][1]
        result.traces.append(TraceSummary(tid, st.events, adapter.name, shown[st.src],
                                          st.counts.get("tool_call", 0), st.orphans))
        result.merged.extend({"path": shown[i], "into": tid, "source": shown[st.src]}
                             for i in st.srcs if i != st.src)
    return result


def _gather(staged: list[_Staged], sources: int, key: bytes | None
            ) -> tuple[list[int], dict[str, TraceInfo], dict[str, Counter[str]]]:
    """Events per source, trace metadata (redacted with ``key``) and replacements per
    trace, merged over the staged parts."""
    rows = [0] * sources
    infos: dict[str, TraceInfo] = {}
    hits: dict[str, Counter[str]] = {}
    for part in staged:
        rows[part.src] += part.rows
        for info in part.infos.values():
            _merge_info(infos, info)
        for tid, counts in part.hits.items():
            hits.setdefault(tid, Counter()).update(counts)
    if key is not None:
        _redact_infos(infos, _redactor(key), hits)
    return rows, infos, hits


def _redactor(key: bytes) -> Redactor:
    """A ``Redactor``: redaction is imported by the first ingest that redacts, so that
    ``--no-redact`` does not load the detectors."""
    from ..redact import Redactor

    return Redactor(key)


def _redact_infos(infos: dict[str, TraceInfo], redactor: Redactor,
                  hits: dict[str, Counter[str]]) -> None:
    """Trace-level metadata (root task, tool definitions, versions, attrs) redacted in
    place, counting into each trace's hits."""
    for tid, info in infos.items():
        redactor.hits = hits.setdefault(tid, Counter())
        info.root_task = redactor.value(info.root_task)
        info.tools = redactor.value(info.tools)
        info.versions = redactor.value(info.versions)
        info.attrs = redactor.value(info.attrs)


def _redaction(hits: dict[str, Counter[str]] | None, trace_id: str) -> dict[str, Any]:
    """The ``traces.redaction`` column of one trace."""
    if hits is None:
        return {"ingest": "off"}
    from ..redact import DETECTORS

    counts = hits.get(trace_id, Counter())
    return {"ingest": "on", "detectors": len(DETECTORS), "hits": dict(sorted(counts.items()))}


def _traces(batch_id: str, stats: dict[str, TraceStats], infos: dict[str, TraceInfo],
            sources: list[tuple[SourceFile, Adapter]], shown: list[str],
            hits: dict[str, Counter[str]] | None, labels: Labels | None = None) -> pa.Table:
    """The batch's ``traces`` table."""
    now = dt.datetime.now(dt.UTC)
    rows = []
    for tid, st in stats.items():
        src, adapter = sources[st.src]
        info = infos.get(tid) or TraceInfo(tid)
        labels = labels or Labels()
        scenario, build = labels.of(info)
        rows.append(trace_row(
            trace_id=tid, source_format=adapter.name, source_path=shown[st.src],
            source_sha256=src.sha256, ingested_at=now, batch=batch_id, events=st.events,
            start_ns=st.start_ns, end_ns=st.end_ns, root_task=info.root_task,
            tools=info.tools, versions=info.versions, redaction=_redaction(hits, tid),
            attrs={**info.attrs, "counts": st.counts, "orphans": st.orphans},
            env=labels.env, scenario=scenario, build=build))
    return pa.Table.from_pylist(rows, schema=TRACES)
