"""What an ingest of many files does with the files it cannot read.

A folder, or several files named together, is read file by file: a file that is
recognised but cannot be read (truncated JSON, a limit broken, no events, a trace the
store already holds from another file, two events sharing an id) is *refused* — listed
with its code, message and hint, masked as every error is — and contributes nothing,
while every other file is stored (the CLI's exit status 4, "partial"). A file named on
its own, and any file under ``strict``, is refused by raising: nothing is stored.
Errors of the whole run (the store, the disk, the memory budget) are never a file's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from ..formats import (
    TOOL_DEFINITION_HINT,
    Adapter,
    SourceFile,
    open_source,
    tool_definition,
    tool_definition_error,
)
from ..model import (
    InputError,
    InvalidTraceError,
    NotFoundError,
    TraceExistsError,
    WorkbenchError,
)
from ..store import Scratch, Store
from ._finalize import check, sources_of
from ._registry import detect

__all__ = ["Refusals", "check_refusing", "pick_sources", "readable"]


class StagedPart(Protocol):
    """What staging gave of one part of a file (``_pipeline._Staged``)."""

    src: int
    rows: int
    files: dict[int, list[Path]]
    error: InputError | None


S = TypeVar("S", bound=StagedPart)


def _masked(text: str) -> str:
    from ..redact import masked  # redaction loads when a path or a message is shown

    return masked(text)


def _masked_error(exc: WorkbenchError) -> WorkbenchError:
    from ..redact import masked_error

    return masked_error(exc)


@dataclass
class Refusals:
    """The files refused so far; ``lenient``: refusing lists a file, else it raises."""

    lenient: bool
    refused: list[dict[str, str]] = field(default_factory=list)

    def refuse(self, display: str, exc: WorkbenchError) -> None:
        """List ``display`` as refused for ``exc`` (masked), or raise ``exc``."""
        if not self.lenient:
            raise exc
        safe = _masked_error(exc)
        self.refused.append({"path": _masked(display), "code": safe.code,
                             "message": safe.message, "hint": safe.hint})

    def opening(self, exc: WorkbenchError, from_dir: bool) -> bool:
        """Whether a file that could not be opened is refused: one in a folder (gone,
        unreadable), or one of several named that exists but cannot be read; a path
        named that does not exist is the caller's mistake (raised)."""
        return self.lenient and (from_dir or not isinstance(exc, NotFoundError))


def check_refusing(parts: list[tuple[int, list[Path]]], work: Scratch,
                   known: set[str] | None, memory: int, refusals: Refusals,
                   shown: Callable[[int], str]) -> set[int]:
    """``check`` the staged rows of ``parts`` (``(src, files)``); when a trace breaks a
    rule (two events sharing an id, a partial seq, a trace the store holds), the files
    that gave it rows are refused and the rest checked again. The refused ``src`` back."""
    dropped: set[int] = set()
    for attempt in range(len(parts) + 1):
        files = [f for src, fs in parts if src not in dropped for f in fs]
        if not files:
            break
        try:
            check(files, work.sub(f"check-{attempt}"), known, memory)
            break
        except (InputError, TraceExistsError) as exc:
            tid = exc.details.get("trace_id")
            if not refusals.lenient or not isinstance(tid, str):
                raise
            for src in sources_of(files, tid, work.sub(f"which-{attempt}"), memory):
                refusals.refuse(shown(src), exc)
                dropped.add(src)
    return dropped


def pick_sources(files: list[tuple[Path, bool]], store: Store, forced: Adapter | None,
                 skipped: list[dict[str, str]], refusals: Refusals
                 ) -> list[tuple[SourceFile, Adapter]]:
    """The files to read, each with its adapter; the rest skipped or refused."""
    known = store.source_hashes() if store.exists else set()
    sources: list[tuple[SourceFile, Adapter]] = []
    seen: set[str] = set()
    for path, from_dir in files:
        try:
            src = open_source(path)
        except (InputError, NotFoundError) as exc:
            if not refusals.opening(exc, from_dir):
                raise
            refusals.refuse(str(path), exc)
            continue
        if src.sha256 in known or src.sha256 in seen:
            skipped.append({"path": _masked(src.display), "reason": "already ingested"
                                   if src.sha256 in known else "same content as another file"})
            continue
        if src.size == 0 and from_dir:
            continue
        what = None if forced is not None else tool_definition(src)
        try:
            if what is not None:
                raise tool_definition_error(src, what)
            adapter = forced or detect(src)
        except InputError as exc:
            if from_dir:
                skipped.append({"path": _masked(src.display), "reason": (
                    TOOL_DEFINITION_HINT if what is not None else _not_a_trace(exc))})
            else:
                refusals.refuse(src.display, exc)
            continue
        seen.add(src.sha256)
        sources.append((src, adapter))
    return sources


def _not_a_trace(exc: InputError) -> str:
    """Why a file of a folder is passed over: no format knows it, and when its head said
    more (JSON that does not parse, a limit broken, another encoding), what."""
    if exc.code in ("UNKNOWN_FORMAT", "EMPTY_INPUT"):
        return "not a trace file"
    return f"not a trace file ({exc.code})"


def readable(staged: list[S], sources: list[tuple[SourceFile, Adapter]], store: Store,
             work: Scratch, memory: int, refusals: Refusals) -> list[S]:
    """The staged parts of the files that could be read, in full: a file whose reading
    failed, that gave no events, or whose traces break a rule across the batch (two
    events sharing an id, a partial seq, a trace the store holds) is refused whole."""
    bad: dict[int, InputError] = {}
    for part in staged:
        if part.error is not None:
            bad.setdefault(part.src, part.error)
    rows = Counter[int]()
    for part in staged:
        rows[part.src] += part.rows
    for i, (src, adapter) in enumerate(sources):
        if i not in bad and rows[i] == 0:
            bad[i] = InvalidTraceError(f"{src.display}: no events in this {adapter.name} file",
                                       file=src.display)
    for i, exc in sorted(bad.items()):
        refusals.refuse(sources[i][0].display, exc)
    staged = [part for part in staged if part.src not in bad]
    by_src: dict[int, list[Path]] = {}
    for part in staged:
        by_src.setdefault(part.src, []).extend(f for fs in part.files.values() for f in fs)
    dropped = check_refusing(sorted(by_src.items()), work.sub("check"),
                             store.trace_ids() if store.exists else None, memory, refusals,
                             lambda i: sources[i][0].display)
    return [part for part in staged if part.src not in dropped]
