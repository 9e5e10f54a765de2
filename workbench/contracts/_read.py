"""Reading descriptors from files: one descriptor per file, a manifest of several, or a
folder of them; any of them may be gzip-compressed (``.gz``).

A descriptor file is YAML or JSON holding one descriptor (``version: 1`` and ``tool``)
or a manifest ``{version: 1, tools: [descriptor, …]}`` whose items may leave out
``version``. A folder is read file by file (``*.yaml``, ``*.yml``, ``*.json``,
``*.jsonl``, sorted). ``read_tools`` returns one ``ToolSet`` for everything it was
given, so a tool described twice anywhere is refused. Other formats (MCP ``tools/list``
results and recordings, provider tool lists, OpenAPI) are read by the importers in
``SOURCES``: ``read_tools`` hands a document that is not a descriptor to the one whose
sniff scores it highest.
"""

from __future__ import annotations

import functools
import os
import stat
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from ..model import (
    LIMITS,
    InputError,
    InvalidJSONError,
    LimitExceededError,
    NotFoundError,
    within_depth,
)
from ..model import loads as json_loads
from ._descriptor import VERSION, Descriptor, Provenance, ToolSet, descriptor_from_dict
from ._errors import ContractError, ContractVersionError, UnknownSourceError
from ._notes import attempt
from ._source import Source
from .anthropic import SOURCE as ANTHROPIC
from .gemini import SOURCE as GEMINI
from .mcp import SOURCE as MCP
from .openai import SOURCE as OPENAI
from .openapi import SOURCE as OPENAPI

__all__ = ["SOURCES", "Source", "detect_source", "is_descriptor_doc", "load_document",
           "read_document", "read_tools"]

_BYTES, _DEPTH = LIMITS["contract_bytes"], LIMITS["contract_depth"]
_REPEATS = LIMITS["yaml_alias_nodes"]
_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")
#: libyaml's safe loader where PyYAML was built with it (about 20x faster), else PyYAML's
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_document(path: Path) -> Any:
    """The document in a file: JSON, JSON lines (a list of the lines' values) or YAML,
    each also gzip-compressed (``api.yaml.gz``: read as it decompresses, within the same
    ``contract_bytes``);
    ``InvalidJSONError`` for a ``.json`` file that is not JSON (line and column named),
    ``ContractError`` naming the file and line for anything else unreadable. Only a
    regular file is read, within ``contract_bytes``, and the document is refused past
    ``contract_depth`` before anything walks it."""
    data = _gunzip(path, _read_bounded(path))
    if not data.strip():
        raise ContractError(f"{path} is empty", file=str(path))
    doc = _parse(path, data)
    within_depth(doc, _DEPTH, str(path), repeats=_REPEATS, file=str(path))
    return doc


def _read_bounded(path: Path) -> bytes:
    """The bytes of a regular file, at most ``contract_bytes`` of them. Opened without
    blocking (a FIFO given as a file must not wait for a writer) and checked to be a
    regular file before a byte is read (``/dev/zero`` never ends)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise NotFoundError(f"no such file: {path}", code="FILE_NOT_FOUND",
                            hint="check the path", file=str(path)) from None
    except IsADirectoryError:
        raise _not_a_file(path, "a folder") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", code="UNREADABLE",
                         hint="check the file's permissions", file=str(path)) from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise _not_a_file(path, "a folder")
        if not stat.S_ISREG(mode):
            raise _not_a_file(path, "a device, a pipe or a socket, not a regular file")
        try:
            data = f.read(_BYTES.value + 1)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}", code="UNREADABLE",
                             hint="check the file's permissions", file=str(path)) from None
    if len(data) > _BYTES.value:
        raise _BYTES.breach(str(path), f"more than {_BYTES.value:,}", file=str(path))
    return data


def _gunzip(path: Path, data: bytes) -> bytes:
    """``data`` decompressed when it is gzip (every member), at most ``contract_bytes``
    of it: a small file that inflates past the bound is refused as it inflates."""
    if not data.startswith(b"\x1f\x8b"):
        return data
    out = bytearray()
    rest = data
    try:
        while rest:
            inflate = zlib.decompressobj(wbits=31)
            out += inflate.decompress(rest, _BYTES.value + 1 - len(out))
            if len(out) > _BYTES.value or inflate.unconsumed_tail:
                raise _BYTES.breach(str(path), f"more than {_BYTES.value:,} once "
                                    "decompressed", file=str(path))
            if not inflate.eof:
                raise ContractError(f"{path} is a truncated gzip file", file=str(path))
            rest = inflate.unused_data
    except zlib.error as exc:
        raise ContractError(f"{path} is not a readable gzip file ({exc})",
                            file=str(path)) from None
    return bytes(out)


def _suffix(path: Path) -> str:
    """The format's suffix, under a ``.gz``."""
    return Path(path.stem).suffix if path.suffix == ".gz" else path.suffix


def _not_a_file(path: Path, what: str) -> InputError:
    return InputError(f"{path} is {what}", code="NOT_A_FILE", file=str(path),
                      hint="name a descriptor or tool list file, or a folder of them")


def _parse(path: Path, data: bytes) -> Any:
    try:
        return json_loads(data)
    except LimitExceededError as exc:
        raise exc.at(str(path)) from None
    except ValueError as exc:
        if _suffix(path) == ".json":
            raise InvalidJSONError(f"{path}: invalid JSON: {exc}", file=str(path)) from None
    lines = _json_lines(data)
    if lines is not None:
        return lines
    try:
        return yaml.load(data.decode("utf-8"), Loader=_LOADER)
    except UnicodeDecodeError:
        raise ContractError(f"{path} is not UTF-8 text", file=str(path)) from None
    except ValueError:  # Python refuses an integer literal past its digit bound
        limit = LIMITS["integer_digits"]
        raise limit.breach(str(path), file=str(path)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ContractError(f"{path}{line}: neither JSON nor YAML "
                            f"({getattr(exc, 'problem', None) or exc})", file=str(path)) from None


def _json_lines(data: bytes) -> list[Any] | None:
    """The values of a JSON-lines file (two or more lines, each a JSON object), or None."""
    rows = [line for line in data.splitlines() if line.strip()]
    if len(rows) < 2 or not all(line.lstrip().startswith(b"{") for line in rows):
        return None
    try:
        return [json_loads(line) for line in rows]
    except ValueError:
        return None


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


#: the importers of other formats, each (name, sniff, read): the highest sniff reads
SOURCES: list[Source] = [MCP, OPENAI, ANTHROPIC, GEMINI, OPENAPI]


def detect_source(doc: Any) -> Source | None:
    """The importer whose sniff scores ``doc`` highest (the first on a tie), or None when
    none recognises it."""
    best: tuple[int, Source | None] = (0, None)
    for source in SOURCES:
        score = source[1](doc)
        if score > best[0]:
            best = (score, source)
    return best[1]


def read_document(doc: Any, file: str) -> list[Descriptor]:
    """The descriptors in one loaded document: a descriptor or manifest, or any format an
    importer recognises; ``UnknownSourceError`` otherwise."""
    if is_descriptor_doc(doc):
        return _descriptors(doc, file)
    source = detect_source(doc)
    if source is None:
        raise UnknownSourceError(f"{file}: not a descriptor, and no known tool list or API "
                                 "document", file=file)
    return source[2](doc, file)


def _read_file(path: Path) -> list[Descriptor]:
    return read_document(load_document(path), str(path))


def read_tools(paths: Iterable[str | os.PathLike[str]]) -> ToolSet:
    """Every descriptor in the files and folders given, as one set."""
    out = ToolSet()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and _suffix(f) in _SUFFIXES
                           and not any(part.startswith(".") for part in f.relative_to(p).parts))
            if not files:
                raise ContractError(f"{p} holds no descriptor files (*.yaml, *.yml, *.json, "
                                    "*.jsonl, each also .gz)", file=str(p))
        else:
            files = [p]
        for f in files:  # a file that cannot be read is refused alone (``attempt``)
            for d in attempt(functools.partial(_read_file, f), file=str(f), tool=None,
                             path=str(f)) or ():
                attempt(functools.partial(out.add, d), file=str(f), tool=d.tool,
                        path=str(f))
    return out
