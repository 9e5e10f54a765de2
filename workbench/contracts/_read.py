"""Reading descriptors from files: one descriptor per file, a manifest of several, or a
folder of them.

A descriptor file is YAML or JSON holding one descriptor (``version: 1`` and ``tool``)
or a manifest ``{version: 1, tools: [descriptor, …]}`` whose items may leave out
``version``. A folder is read file by file (``*.yaml``, ``*.yml``, ``*.json``, sorted).
``read_tools`` returns one ``ToolSet`` for everything it was given, so a tool described
twice anywhere is refused. Other formats (MCP ``tools/list``, provider tool lists,
OpenAPI) are read by the importers; ``read_tools`` hands a file that is not a
descriptor to them (``SOURCES``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from ..model import InputError, NotFoundError
from ..model import loads as json_loads
from ._descriptor import VERSION, Descriptor, Provenance, ToolSet, descriptor_from_dict
from ._errors import ContractError, ContractVersionError, UnknownSourceError

__all__ = ["SOURCES", "Source", "is_descriptor_doc", "load_document", "read_tools"]

#: a source format: (name, sniff(doc) -> score 0-100, read(doc, file) -> descriptors)
Source = tuple[str, Callable[[Any], int], Callable[[Any, str], list[Descriptor]]]
_SUFFIXES = (".yaml", ".yml", ".json")


def load_document(path: Path) -> Any:
    """The YAML or JSON document in a file; ``ContractError`` naming the file and line
    when it is neither."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {path}", code="FILE_NOT_FOUND",
                            hint="check the path", file=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", code="UNREADABLE",
                         file=str(path)) from None
    if not data.strip():
        raise ContractError(f"{path} is empty", file=str(path))
    try:
        return json_loads(data)
    except ValueError:
        pass
    try:
        return yaml.safe_load(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ContractError(f"{path} is not UTF-8 text", file=str(path)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ContractError(f"{path}{line}: neither JSON nor YAML "
                            f"({getattr(exc, 'problem', None) or exc})", file=str(path)) from None


def is_descriptor_doc(doc: Any) -> bool:
    """Whether a document is a descriptor or a manifest of descriptors."""
    return isinstance(doc, dict) and "version" in doc and ("tool" in doc or (
        "tools" in doc and isinstance(doc["tools"], list)
        and all(isinstance(t, dict) and "tool" in t for t in doc["tools"])))


def _descriptors(doc: dict[str, Any], file: str) -> list[Descriptor]:
    if "tool" in doc:
        return [_with_file(descriptor_from_dict(doc, file), file)]
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise ContractVersionError(f"{file}: descriptor version {version} is newer than this "
                                   f"workbench reads ({VERSION})", file=file)
    extra = sorted(set(doc) - {"version", "tools"})
    if extra:
        raise ContractError(f"{file}: a manifest holds `version` and `tools` only, not "
                            f"{', '.join(map(repr, extra))}", file=file)
    return [_with_file(descriptor_from_dict({"version": version, **t}, f"{file} tools[{i}]"),
                       file) for i, t in enumerate(doc["tools"])]


def _with_file(d: Descriptor, file: str) -> Descriptor:
    from dataclasses import replace
    src = d.source or Provenance("descriptor")
    return replace(d, source=replace(src, file=src.file or file))


#: importers of other formats, registered by ``_import`` (name, sniff, read)
SOURCES: list[Source] = []


def _read_file(path: Path) -> list[Descriptor]:
    doc = load_document(path)
    if is_descriptor_doc(doc):
        return _descriptors(doc, str(path))
    scored = [(sniff(doc), name, read) for name, sniff, read in SOURCES]
    best = max(scored, default=(0, "", None), key=lambda s: s[0])
    if best[0] <= 0 or best[2] is None:
        raise UnknownSourceError(f"{path}: not a descriptor, and no known tool list or API "
                                 "document", file=str(path))
    return best[2](doc, str(path))


def read_tools(paths: Iterable[str | os.PathLike[str]]) -> ToolSet:
    """Every descriptor in the files and folders given, as one set."""
    out = ToolSet()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in _SUFFIXES
                           and not any(part.startswith(".") for part in f.relative_to(p).parts))
            if not files:
                raise ContractError(f"{p} holds no descriptor files (*.yaml, *.yml, *.json)",
                                    file=str(p))
        else:
            files = [p]
        for f in files:
            for d in _read_file(f):
                out.add(d)
    return out
