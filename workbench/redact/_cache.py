"""Files the detectors build once and keep between processes (the prefilter's
compiled database, the gazetteer's folded names), in the user cache directory:
``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/trace-workbench``, else
``~/.cache/trace-workbench``. Each file is named by a hash of what it was built from,
written whole or not at all, and rebuilt by its owner when it fails to read."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "cached_json", "read_cached", "write_cached"]


def cache_dir() -> Path:
    """Where the built files are kept."""
    env = os.environ.get("WORKBENCH_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trace-workbench"


def read_cached(path: Path) -> bytes | None:
    """The file's bytes, or None when it is missing or unreadable."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_cached(path: Path, data: bytes) -> bool:
    """Writes ``data`` whole (a reader sees all of it or no file); False when the
    directory cannot be written (a read-only home: the next process builds again)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


def cached_json(name: str, sources: tuple[Any, ...], build: Callable[[], Any]) -> Any:
    """``build()`` (JSON data), kept as ``NAME-<hash of sources>.json``. A one-element
    tuple of a distribution name among ``sources`` stands for its installed version
    (``("faker",)``), so an upgrade builds again."""
    def version(x: Any) -> Any:
        if isinstance(x, tuple) and len(x) == 1 and isinstance(x[0], str):
            try:
                return (x[0], importlib.metadata.version(x[0]))
            except importlib.metadata.PackageNotFoundError:
                return x
        return x
    key = hashlib.sha256(repr([version(x) for x in sources]).encode()).hexdigest()[:32]
    path = cache_dir() / f"{name}-{key}.json"
    data = read_cached(path)
    if data is not None:
        try:
            return json.loads(data)
        except ValueError:
            pass  # corrupt: built again
    built = build()
    write_cached(path, json.dumps(built, ensure_ascii=False).encode())
    return built
