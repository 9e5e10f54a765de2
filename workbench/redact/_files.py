"""Redacting and scanning files: ``workbench redact apply`` and ``workbench redact scan``.

A file is read as one JSON document when it parses as one, as JSONL when every
non-blank line is a JSON object or array, else as text. JSON stays JSON of the same
structure (re-indented like the input when something changed, byte for byte when
nothing did), JSONL is redacted line by line, text with the free-text detectors only.
A Parquet file (``.parquet``, or Parquet's magic bytes) is read column by column
(``_parquet``); one that is cut short, encrypted or not Parquet is refused by name, and
with ``keep_going`` left out and listed under ``errors`` instead.
Folders are walked (hidden files and folders skipped, as ingest does). Every check runs
before anything is written: a missing path, a file that is not UTF-8, an output folder
inside an input folder or an output that would overwrite an input refuses the whole
command. Each output file is written atomically (temporary file, fsync, rename).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import (
    EncodingError,
    InputError,
    NotFoundError,
    UsageError,
    WorkbenchError,
    dumps,
    loads,
)
from ..store import atomic_write
from ._detect import find, maybe
from ._parquet import is_parquet, read_parquet, redact_parquet, scan_parquet
from ._walk import Redactor, scan_value

__all__ = ["ApplyResult", "FileReport", "ScanHit", "ScanResult", "redact_files", "scan_files"]

_BOM = "\ufeff"


@dataclass(frozen=True)
class FileReport:
    """One redacted file: where it went, how it was read, what was replaced."""

    file: str
    out: str
    format: str                      # "json" | "jsonl" | "text" | "parquet"
    hits: dict[str, int]

    @property
    def changed(self) -> bool:
        return bool(self.hits)


@dataclass
class ApplyResult:
    out: Path
    key: str                         # "store" | "one-time"
    files: list[FileReport] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)

    @property
    def hits(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for f in self.files:
            total.update(f.hits)
        return dict(sorted(total.items()))

    def to_dict(self) -> dict[str, Any]:
        return {"files": [{"file": f.file, "out": f.out, "format": f.format,
                           "changed": f.changed, "hits": f.hits} for f in self.files],
                "hits": self.hits, "out": str(self.out), "key": self.key,
                "skipped": self.skipped, "errors": self.errors}


@dataclass(frozen=True)
class ScanHit:
    file: str
    path: str
    detector: str


@dataclass
class ScanResult:
    files: int = 0
    hits: list[ScanHit] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files,
                "hits": [{"file": h.file, "path": h.path, "detector": h.detector}
                         for h in self.hits],
                "skipped": self.skipped, "errors": self.errors}


def _error(f: Path, exc: WorkbenchError) -> dict[str, str]:
    return {"file": str(f), "code": exc.code, "message": exc.message, "hint": exc.hint}


def _check_inputs(files: list[tuple[Path, Path]], keep_going: bool,
                  errors: list[dict[str, str]]) -> list[tuple[Path, Path]]:
    """The inputs that can be read (each is read once here, before any output is
    written); an unreadable one refuses the command, or with ``keep_going`` is listed
    in ``errors`` and left out."""
    good = []
    for f, rel in files:
        try:
            if is_parquet(f):
                read_parquet(f)
            else:
                _read_text(f)
        except WorkbenchError as exc:
            if not keep_going:
                raise
            errors.append(_error(f, exc))
            continue
        good.append((f, rel))
    return good


# -- inputs -----------------------------------------------------------------------------

def _walk_dir(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _inputs(paths: Iterable[str | os.PathLike[str]], skipped: list[dict[str, str]]
            ) -> list[tuple[Path, Path]]:
    """``(file, name under the output folder)`` for every file to read."""
    out: list[tuple[Path, Path]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in _walk_dir(p):
                rel = f.relative_to(p)
                if f.name.startswith("."):
                    skipped.append({"path": str(f), "reason": "hidden file"})
                elif f.is_file():
                    out.append((f, rel))
        elif p.is_file():
            out.append((p, Path(p.name)))
        elif p.exists() or p.is_symlink():
            raise InputError(f"{p} is not a regular file or folder", code="NOT_A_FILE",
                             hint="name files or folders", file=str(p))
        else:
            raise NotFoundError(f"no such file: {p}", code="FILE_NOT_FOUND",
                                hint="check the path", file=str(p))
    return out


def _read_text(path: Path) -> str:
    """The file as text; a file that is not UTF-8 is refused with its line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", code="UNREADABLE",
                         file=str(path)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise EncodingError(f"{path}: not UTF-8 (line {line})", file=str(path), line=line,
                            hint="redaction reads text; convert the file to UTF-8 (iconv) "
                            "or leave it out") from None


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def _check_out(out: Path, files: Sequence[tuple[Path, Path]],
               paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The output file of each input; refuses outputs inside inputs or over them."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder", code="OUT_NOT_A_DIRECTORY",
                         hint="name a new or existing folder with --out")
    real_out = out.resolve()
    for raw in paths:
        p = Path(raw)
        if p.is_dir() and _inside(real_out, p.resolve()):
            raise UsageError(f"--out {out} is inside the input folder {p}",
                             code="OUT_INSIDE_INPUT",
                             hint="write the redacted copies to a folder outside the inputs")
    sources = {f.resolve(): f for f, _ in files}
    targets: dict[Path, Path] = {}
    result = []
    for f, rel in files:
        target = out / rel
        real = real_out / rel
        if real.resolve() in sources or (real.exists() and any(
                os.path.samefile(real, s) for s in sources)):
            raise UsageError(f"redacting {f} would overwrite the input {target}",
                             code="OUT_OVERWRITES_INPUT",
                             hint="write the redacted copies to another folder with --out")
        other = targets.setdefault(real, f)
        if other.resolve() != f.resolve():
            raise UsageError(f"{other} and {f} would both be written to {target}",
                             code="OUT_CLASH",
                             hint="redact them in two runs with different --out folders")
        result.append(target)
    return result


# -- reading a document -----------------------------------------------------------------

def _container(line: str) -> Any:
    s = line.strip()
    if s[:1] not in ("{", "["):
        return None
    try:
        doc = loads(s)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return doc if type(doc) in (dict, list) else None


def _document(text: str) -> tuple[str, Any]:
    """``("json", doc)``, ``("jsonl", [(line, doc|None)])`` or ``("text", text)``."""
    head = text.lstrip()[:1]
    if head in ("{", "[", '"'):
        try:
            return "json", loads(text)
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass
    lines = text.splitlines(keepends=True)
    docs = [(line, _container(line) if line.strip() else None) for line in lines]
    if any(d is not None for _, d in docs) and all(
            d is not None or not line.strip() for line, d in docs):
        return "jsonl", docs
    return "text", text


def _indent(text: str) -> int | str | None:
    """The indentation of a pretty-printed JSON file (None: it was compact)."""
    lines = text.strip().splitlines()
    if len(lines) < 2:
        return None
    second = lines[1]
    lead = second[:len(second) - len(second.lstrip())]
    if lead.startswith("\t"):
        return "\t"
    return len(lead) or 2


def _encode_like(value: Any, original: str) -> str:
    indent = _indent(original)
    text = (dumps(value) if indent is None
            else json.dumps(value, indent=indent, ensure_ascii=False))
    return text + "\n" if original.endswith("\n") else text


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _redact_text(text: str, redactor: Redactor) -> tuple[str, str]:
    """``(format, redacted text)`` of one file's content."""
    fmt, doc = _document(text)
    if fmt == "json":
        new = redactor.value(doc)
        return fmt, text if new is doc else _encode_like(new, text)
    if fmt == "jsonl":
        parts = []
        for line, d in doc:
            new = redactor.value(d) if d is not None else None
            parts.append(line if new is d else dumps(new) + _ending(line))
        return fmt, "".join(parts)
    return fmt, redactor.text(text)


# -- apply ------------------------------------------------------------------------------

def redact_files(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                 redactor: Redactor, *, key: str = "store", keep_going: bool = False
                 ) -> ApplyResult:
    """Write a redacted copy of every file under ``out`` (same relative names)."""
    result = ApplyResult(Path(out), key)
    files = _inputs(paths, result.skipped)
    _check_out(result.out, files, paths)
    files = _check_inputs(files, keep_going, result.errors)
    targets = _check_out(result.out, files, paths)
    for (f, _), target in zip(files, targets, strict=True):
        if is_parquet(f):
            result.files.append(_redact_parquet_file(f, target, redactor))
            continue
        text = _read_text(f)
        bom = text.startswith(_BOM)
        before = redactor.hits
        redactor.hits = Counter()
        try:
            fmt, new = _redact_text(text[1:] if bom else text, redactor)
            hits = dict(sorted(redactor.hits.items()))
        finally:
            before.update(redactor.hits)
            redactor.hits = before
        atomic_write(target, ((_BOM if bom else "") + new).encode("utf-8"))
        result.files.append(FileReport(str(f), str(target), fmt, hits))
    return result


def _redact_parquet_file(f: Path, target: Path, redactor: Redactor) -> FileReport:
    before = redactor.hits
    redactor.hits = Counter()
    try:
        data = redact_parquet(read_parquet(f), redactor)
        hits = dict(sorted(redactor.hits.items()))
    finally:
        before.update(redactor.hits)
        redactor.hits = before
    atomic_write(target, data if data is not None else f.read_bytes())
    return FileReport(str(f), str(target), "parquet", hits)


# -- scan -------------------------------------------------------------------------------

def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _without_digests(doc: Any) -> Any:
    """A fixture manifest without the values of its ``fields`` map: they are the
    manifest's own digests of the content (under field paths such as ``args.password``),
    not data; the keys are still scanned, and the content itself is in trace.parquet."""
    if (type(doc) is dict and doc.get("format") == "workbench-fixture"
            and type(doc.get("fields")) is dict):
        return {**doc, "fields": dict.fromkeys(doc["fields"])}
    return doc


def _scan_text(name: str, text: str) -> list[ScanHit]:
    fmt, doc = _document(text)
    if fmt == "json":
        return [ScanHit(name, p, d) for p, d in scan_value(_without_digests(doc))]
    if fmt == "jsonl":
        hits = []
        for n, (_, d) in enumerate(doc, 1):
            if d is not None:
                hits += [ScanHit(name, f"line {n}" if p == "$" else f"line {n} {p}", det)
                         for p, det in scan_value(d)]
        return hits
    if not maybe(text):
        return []
    return [ScanHit(name, f"line {_line_of(text, h.start)}", h.detector) for h in find(text)]


def scan_files(paths: Sequence[str | os.PathLike[str]], *, keep_going: bool = False
               ) -> ScanResult:
    """What the detectors still find in the files (paths and detector ids, no values).
    Nothing is printed before the end, so a bad file refuses it all, unless
    ``keep_going`` lists it under ``errors`` and goes on."""
    result = ScanResult()
    files = _inputs(paths, result.skipped)
    for f, _ in files:
        try:
            if is_parquet(f):
                hits = [ScanHit(str(f), p, d) for p, d in scan_parquet(read_parquet(f))]
            else:
                hits = _scan_text(str(f), _read_text(f).removeprefix(_BOM))
        except WorkbenchError as exc:
            if not keep_going:
                raise
            result.errors.append(_error(f, exc))
            continue
        result.files += 1
        result.hits += hits
    return result
