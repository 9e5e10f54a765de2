"""``shadow``: the old build and the new build on the same frozen fixtures.

Green tests are a rumor; the old binary is a witness. Both builds run on every fixture;
their JSON output is canonicalized (``Canon``), hashed (sha256 of the canonical bytes)
and compared. Each mismatch names the fixture and the changed paths with their old and
new values, and — with ``out`` — leaves ``NAME.old`` and ``NAME.new`` (the canonical
documents, indented) side by side for review. A build that fails on a fixture is
reported for that fixture. Fixtures are read-only: nothing is written under the
fixtures folder, and a build that modifies a fixture is reported.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from ..model import InputError, NotFoundError, UsageError
from ..store import atomic_write
from ._builds import BuildRun, parse_command, run_build
from ._canon import canonicalize
from ._canonfile import Canon
from ._digest import decimal_text, digest
from ._values import PathChange, diff_values

__all__ = ["FixtureResult", "ShadowResult", "fixtures_in", "shadow"]

R = TypeVar("R")

EXIT_PATH = "$exit"
_SUFFIXES = (".old", ".new", ".old.stdout", ".old.stderr", ".new.stdout", ".new.stderr")


@dataclass
class FixtureResult:
    """One fixture: ``status`` is ``same``, ``changed`` or ``failed``."""

    fixture: str
    status: str
    old: BuildRun
    new: BuildRun
    old_digest: str | None = None
    new_digest: str | None = None
    paths: list[PathChange] = field(default_factory=list)
    problem: str | None = None
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "fixture": self.fixture, "status": self.status,
            "paths": [p.to_dict() for p in self.paths],
            "old_digest": self.old_digest, "new_digest": self.new_digest,
            "old": self.old.to_dict(), "new": self.new.to_dict(), "files": self.files}
        if self.problem:
            out["problem"] = self.problem
        return out


@dataclass
class ShadowResult:
    results: list[FixtureResult]
    out: Path | None = None

    @property
    def mismatches(self) -> list[FixtureResult]:
        return [r for r in self.results if r.status != "same"]

    def to_dict(self) -> dict[str, Any]:
        return {"fixtures": len(self.results),
                "same": sum(r.status == "same" for r in self.results),
                "mismatches": [r.to_dict() for r in self.mismatches],
                "out": str(self.out) if self.out is not None else None}


def fixtures_in(folder: Path, glob: str | None = None) -> list[Path]:
    """The fixture files: every file under ``folder`` (hidden ones aside), sorted,
    those matching ``glob`` (matched from the right: ``*.json`` at any depth)."""
    if not folder.exists():
        raise NotFoundError(f"no fixtures folder {folder}", code="FILE_NOT_FOUND",
                            hint="check the path", file=str(folder))
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder", code="NOT_A_DIRECTORY",
                         hint="FIXTURES_DIR is the folder that holds the fixtures")
    out = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts) and (
                glob is None or PurePosixPath(rel.as_posix()).match(glob)):
            out.append(p)
    if not out:
        raise InputError(f"no fixtures in {folder}" + (f" match {glob!r}" if glob else ""),
                         code="NO_FIXTURES",
                         hint="a shadow run over nothing proves nothing; check the folder")
    return out


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shadow(old: str, new: str, fixtures_dir: str | os.PathLike[str], *,
           canon: Canon | None = None, out: str | os.PathLike[str] | None = None,
           glob: str | None = None, timeout: float = 120.0,
           jobs: int | None = None) -> ShadowResult:
    """Run both builds (commands with ``{fixture}``) on every fixture and compare."""
    old_argv, new_argv, folder, files, out_dir = plan_shadow(old, new, fixtures_dir,
                                                             glob, out)
    canon = canon or Canon()

    def one(path: Path) -> FixtureResult:
        before = _sha(path)
        r_old = run_build(old_argv, path, timeout)
        r_new = run_build(new_argv, path, timeout)
        result = compare(path.relative_to(folder).as_posix(), r_old, r_new, canon)
        if _sha(path) != before:
            result.status = "failed"
            result.problem = "a build modified the fixture (fixtures are read-only inputs)"
        return result

    results = each_fixture(one, files, jobs)
    if out_dir is not None:
        for r in results:
            r.files = _write(out_dir, r, canon)
    return ShadowResult(results, out_dir)


def plan_shadow(old: str, new: str, fixtures_dir: str | os.PathLike[str], glob: str | None,
                out: str | os.PathLike[str] | None
                ) -> tuple[list[str], list[str], Path, list[Path], Path | None]:
    """Both builds' argv, the fixtures folder and its files, and the checked ``--out``
    folder: what every shadow run starts from."""
    old_argv, new_argv = parse_command(old, "--old"), parse_command(new, "--new")
    folder = Path(fixtures_dir)
    files = fixtures_in(folder, glob)
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        _check_out(out_dir, folder)
    return old_argv, new_argv, folder, files, out_dir


def each_fixture(one: Callable[[Path], R], files: list[Path], jobs: int | None) -> list[R]:
    """``one`` on every fixture, in order, on up to ``jobs`` threads (the builds are
    processes; at most 4 by default)."""
    workers = max(1, jobs if jobs is not None else min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, files))


def _check_out(out: Path, folder: Path) -> None:
    o, f = out.resolve(), folder.resolve()
    if o == f or f in o.parents:
        raise UsageError(f"--out {out} is inside the fixtures folder {folder}",
                         code="OUT_INSIDE_FIXTURES",
                         hint="fixtures are read-only inputs; write the results elsewhere")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file", hint="give a folder for NAME.old/NAME.new")


def compare(name: str, old: BuildRun, new: BuildRun, canon: Canon) -> FixtureResult:
    """Canonicalize both outputs and diff them (exit statuses included)."""
    if not old.ok or not new.ok:
        sides = [s for s, r in (("old", old), ("new", new)) if not r.ok]
        problem = "; ".join(f"{s} build: {r.failure}: {r.message}" for s, r in
                            (("old", old), ("new", new)) if not r.ok)
        res = FixtureResult(name, "failed", old, new, problem=problem)
        if "old" not in sides:
            res.old_digest = digest(canonicalize(old.doc, canon))
        if "new" not in sides:
            res.new_digest = digest(canonicalize(new.doc, canon))
        return res
    c_old, c_new = canonicalize(old.doc, canon), canonicalize(new.doc, canon)
    d_old, d_new = digest(c_old), digest(c_new)
    paths: list[PathChange] = []
    if old.exit_code != new.exit_code:
        paths.append(PathChange(EXIT_PATH, old.exit_code, new.exit_code))
    if d_old != d_new:
        paths.extend(diff_values(c_old, c_new))
    status = "changed" if paths else "same"
    return FixtureResult(name, status, old, new, d_old, d_new, paths)


def pretty(value: Any, indent: int = 0) -> str:
    """The canonical value, indented (sorted keys, exact numbers)."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {pretty(value[k], indent + 1)}"
                 for k in sorted(value)]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(pad + pretty(v, indent + 1) for v in value) + "\n" + (
            "  " * indent) + "]"
    from decimal import Decimal
    if isinstance(value, Decimal):
        return decimal_text(value)
    return json.dumps(value, ensure_ascii=False)


def _write(out: Path, r: FixtureResult, canon: Canon) -> list[str]:
    """Leave this run's evidence for one fixture (and none from an earlier run)."""
    base = out / r.fixture
    for suffix in _SUFFIXES:
        base.with_name(base.name + suffix).unlink(missing_ok=True)
    if r.status == "same":
        return []
    written = []
    for side, run in (("old", r.old), ("new", r.new)):
        if run.ok:
            target = base.with_name(f"{base.name}.{side}")
            atomic_write(target, (pretty(canonicalize(run.doc, canon)) + "\n").encode("utf-8"))
            written.append(str(target))
        else:
            for stream, data in (("stdout", run.stdout), ("stderr", run.stderr)):
                target = base.with_name(f"{base.name}.{side}.{stream}")
                atomic_write(target, data)
                written.append(str(target))
    return written
