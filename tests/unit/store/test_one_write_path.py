"""Nothing outside ``workbench/store`` writes under a store's root (ARCHITECTURE.md).

The commands that write a store run here, in this process — ingest (redacting, one
process and two), a refused ingest, check with findings recorded, minimize, promote,
export, diff (which ingests into throwaway stores) — while every write is watched:
each file opened for writing, rename, removal, link and folder Python makes (audit
events) and each Parquet file pyarrow is asked to write. A write whose path is under
the root of any ``Store`` made meanwhile must come from ``workbench/store``: the
innermost workbench frame doing it, not counting the store's general file helpers
(``_files.py``, ``_output.py``: they write wherever their caller says), must be in that
package.

A second, static check covers code the commands do not reach: outside
``workbench/store`` no module calls a Parquet or Arrow file writer, but the fixtures'
own folder writer.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import workbench
from tests.support import EXAMPLES, run
from workbench.ingest import ingest
from workbench.store import Store

PKG = Path(os.path.realpath(Path(workbench.__file__).parent))
STORE_PKG = PKG / "store"
#: atomic_write & co., and the writer of a user's output file (``--out``): they write
#: where their caller says
GENERAL = {str(STORE_PKG / "_files.py"), str(STORE_PKG / "_output.py")}
EXAMPLE = EXAMPLES / "archive-incident.otlp.json"
RULES = EXAMPLES / "archive-incident.rules.yaml"
TRACE = "4bf92f35"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: audit events that change the file system, and which of their arguments are paths
_PATH_EVENTS = {"os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,),
                "os.link": (0, 1), "os.symlink": (0, 1), "os.truncate": (0,),
                "os.chmod": (0,), "shutil.rmtree": (0,)}
#: Parquet and Arrow file writers: the module attribute and the argument holding the path
_WRITERS = [("pyarrow.parquet", "write_table", 1), ("pyarrow.parquet", "write_to_dataset", 1),
            ("pyarrow.dataset", "write_dataset", 1), ("pyarrow.feather", "write_feather", 1)]


class Watch:
    """Writes under the roots of the stores made while it is active."""

    def __init__(self) -> None:
        self.roots: list[str] = []
        self.offences: list[str] = []
        self.by_store: list[str] = []

    def check(self, what: str, path: Any) -> None:
        if isinstance(path, int) or path is None:
            return
        real = os.path.realpath(os.fsdecode(path))
        if not any(real == r or real.startswith(r + os.sep) for r in self.roots):
            return
        where = _writer_frame()
        if where is None:  # the test itself, setting something up
            return
        line = f"{what} {real} from {where}"
        (self.by_store if where.startswith(str(STORE_PKG)) else self.offences).append(line)


def _writer_frame() -> str | None:
    """``file:line`` of the innermost workbench frame on the stack that is not one of the
    store's general file helpers; None when no workbench code is on the stack."""
    frame = sys._getframe(1)
    while frame is not None:
        name = os.path.realpath(frame.f_code.co_filename)
        if name.startswith(str(PKG) + os.sep) and name not in GENERAL:
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return None


_ACTIVE: list[Watch] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _ACTIVE:
        return
    watch = _ACTIVE[-1]
    if event == "open":
        path, _mode, flags = args
        if isinstance(flags, int) and flags & _WRITE_FLAGS:
            watch.check("open", path)
    elif event in _PATH_EVENTS:
        for i in _PATH_EVENTS[event]:
            watch.check(event, args[i] if i < len(args) else None)


_HOOKED: list[bool] = []


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Watch]:
    if not _HOOKED:  # an audit hook stays for the process; it does nothing unless active
        sys.addaudithook(_audit)
        _HOOKED.append(True)
    w = Watch()
    init = Store.__init__

    def registering(self: Store, root: Any) -> None:
        init(self, root)
        w.roots.append(os.path.realpath(self.root))
    monkeypatch.setattr(Store, "__init__", registering)
    for module, name, arg in _WRITERS:
        _watch_function(monkeypatch, w, module, name, arg)
    original = pq.ParquetWriter

    class Watched(original):  # type: ignore[misc,valid-type]
        def __init__(self, where: Any, *a: Any, **k: Any) -> None:
            w.check("ParquetWriter", where)
            super().__init__(where, *a, **k)
    monkeypatch.setattr(pq, "ParquetWriter", Watched)
    _ACTIVE.append(w)
    try:
        yield w
    finally:
        _ACTIVE.remove(w)


def _watch_function(monkeypatch: pytest.MonkeyPatch, w: Watch, module: str, name: str,
                    arg: int) -> None:
    mod = pytest.importorskip(module)
    real = getattr(mod, name)

    def watched(*a: Any, **k: Any) -> Any:
        w.check(name, a[arg] if len(a) > arg else k.get("where", k.get("base_dir")))
        return real(*a, **k)
    monkeypatch.setattr(mod, name, watched)


def _jsonl(path: Path, trace_id: str, n: int = 40) -> Path:
    path.write_text("".join(
        f'{{"trace_id": "{trace_id}", "event_id": "e{i}", "kind": "tool_call", "name": "t", '
        f'"start_ns": {i}, "end_ns": {i + 1}, "status": "ok", "args": {{"i": {i}}}, '
        f'"result": {{"id": "x{i}"}}}}\n' for i in range(n)))
    return path


def test_only_the_store_package_writes_under_a_store_root(tmp_path, capsys, watch):
    store, out = tmp_path / "store", tmp_path / "out"
    out.mkdir()
    assert run(capsys, "ingest", EXAMPLE, "--store", store)[0] == 0
    ingest([_jsonl(tmp_path / f"{i}.jsonl", f"t{i}") for i in range(3)], Store(store),
           workers=2)
    assert run(capsys, "ingest", _jsonl(tmp_path / "again.jsonl", "t0", 5), "--store",
               store)[0] == 2  # TRACE_EXISTS: staged, then thrown away
    assert run(capsys, "check", RULES, "--store", store, "--sarif", out / "r.sarif",
               "--junit", out / "r.xml")[0] == 1
    assert run(capsys, "minimize", TRACE, "--rules", RULES, "--rule",
               "approval-before-archive", "--store", store, "--out", out / "min.jsonl")[0] == 0
    assert run(capsys, "promote", TRACE, "--rules", RULES, "--name", "archive", "--store",
               store, "--fixtures", out / "fixtures")[0] == 0
    assert run(capsys, "export", TRACE, "--store", store, "--out", out / "t.jsonl")[0] == 0
    assert run(capsys, "diff", EXAMPLE, out / "min.jsonl", "--html", out / "d.html")[0] == 1
    assert watch.offences == []
    # the watch saw the store's own writes: data files, commit records, the key
    seen = "\n".join(watch.by_store)
    for what in ("ParquetWriter", "write_table", "os.rename", "_commits", "redaction.key"):
        assert what in seen, f"no {what} among the watched writes"


def test_the_watch_names_a_write_from_outside_the_store_package(tmp_path, capsys, watch):
    store = tmp_path / "store"
    assert run(capsys, "ingest", EXAMPLE, "--store", store)[0] == 0
    # a user may point --out anywhere, even into the store: the watch must see it
    assert run(capsys, "export", TRACE, "--store", store, "--out", store / "t.jsonl")[0] == 0
    assert watch.offences and all("workbench/cli/_export.py" in o for o in watch.offences)


# -- the static check -------------------------------------------------------------------

#: Parquet/Arrow writer calls outside workbench/store, and why each may stay
ALLOWED = {"fixtures/_write.py": "a fixture version's trace.parquet, in the fixtures folder",
           "redact/_parquet.py": "redact apply's copy of a user's Parquet file: encoded in "
                                 "memory, then written with atomic_write",
           "rules/_spark.py": "the Spark shuffle plan's trace -> partition table, Arrow IPC "
                              "bytes in memory handed to the executors; no file",
           "rules/_sparktask.py": "a Spark task's partitions as Arrow IPC blocks in memory, "
                                  "which Spark moves as bytes; no file"}
_WRITER_NAMES = {"write_table", "ParquetWriter", "write_to_dataset", "write_dataset",
                 "write_feather", "new_file", "new_stream", "OSFile", "output_stream"}


def _writer_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name in _WRITER_NAMES:
                out.append(f"{path.relative_to(PKG)}:{node.lineno} {name}")
    return out


def test_no_parquet_writer_outside_the_store_package():
    found = [c for p in sorted(PKG.rglob("*.py"))
             if not p.is_relative_to(STORE_PKG) and p.relative_to(PKG).as_posix() not in ALLOWED
             for c in _writer_calls(p)]
    assert found == [], "write Parquet through store.Batch (or add a reason to ALLOWED)"
    for rel in ALLOWED:  # an allowance nobody needs any more goes
        assert _writer_calls(PKG / rel), f"{rel} writes no Parquet: drop it from ALLOWED"
