"""``contract import``: descriptors from files and from the tool definitions traces
recorded, and writing them out, one YAML file per tool.

``import_tools`` reads every file (any format ``read_tools`` knows) and, with a store,
the ``tools`` of its traces (all, or those named); the same tool seen identically in
several traces is kept once, differently is refused. ``write_descriptors`` writes
``OUT/<tool>.yaml`` for each (``/`` in a name written ``%2F``): every file is staged
first and renamed into place only when all are ready, an existing file of other
content is refused unless ``force`` (one of the same content is left alone), so an
error leaves the folder as it was.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..model import LIMITS, InputError, NotFoundError, within_depth
from ..model import loads as json_loads
from ..store import Store, atomic_write_all
from ._descriptor import VERSION, Descriptor, ToolSet
from ._errors import DescriptorExistsError, DuplicateToolError
from ._notes import Refusal, Warned, collecting
from ._read import read_document, read_tools

__all__ = ["ImportResult", "Written", "dump_yaml", "file_name", "import_contracts",
           "import_summary", "import_tools", "manifest", "tools_from_store", "write_descriptors"]


def tools_from_store(store: Store, traces: Sequence[str] = ()) -> list[Descriptor]:
    """The descriptors of the tool definitions the store's traces recorded (each
    trace's ``tools`` read like a file, named ``store:TRACE_ID``)."""
    if not store.exists:
        raise NotFoundError(f"no store at {store.root}", code="STORE_NOT_FOUND",
                            hint="ingest traces first, or name the store with --store")
    ids = store.resolve_trace_ids(traces) if traces else None
    query = "SELECT trace_id, tools FROM traces"
    if ids is not None:
        query += " WHERE list_contains(?, trace_id)"
    rows = store.sql(query + " ORDER BY trace_id", [ids] if ids is not None else None)
    out: dict[str, Descriptor] = {}
    found: set[str] = set()
    for row in rows.to_pylist():
        doc = json_loads(row["tools"]) if row["tools"] else None
        if not doc:
            continue
        within_depth(doc, LIMITS["contract_depth"], f"store:{row['trace_id']}")
        found.add(row["trace_id"])
        for d in read_document(doc, f"store:{row['trace_id']}"):
            seen = out.setdefault(d.tool, d)
            if seen != d:
                where = [x.source.file if x.source else "?" for x in (seen, d)]
                raise DuplicateToolError(f"tool {d.tool} is defined differently in {where[0]} "
                                         f"and {where[1]}", tool=d.tool,
                                         hint="pick the traces of one version of the tools "
                                              "with --trace")
    missing = [t for t in (ids or []) if t not in found]
    if missing:
        raise NotFoundError(f"trace {missing[0]} recorded no tool definitions",
                            code="NO_TOOLS", hint="`workbench show TRACE` shows what it holds")
    return list(out.values())


def import_tools(paths: Sequence[str | os.PathLike[str]], *, store: Store | None = None,
                 traces: Sequence[str] = ()) -> ToolSet:
    """Every descriptor the files (and, with ``store``, its traces) hold, as one set."""
    tools = read_tools(paths) if paths else ToolSet()
    if store is not None:
        for d in tools_from_store(store, traces):
            tools.add(d)
    return tools


def import_summary(d: Descriptor) -> dict[str, Any]:
    """What ``--json`` says of one imported tool."""
    src = d.source
    return {"tool": d.tool, "format": src.format if src else None,
            "file": src.file if src else None, "unknown": list(src.unknown) if src else []}


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """YAML without anchors: descriptors of one document share schema objects, and a
    reader should see each written out. libyaml's emitter where PyYAML has it."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def manifest(tools: ToolSet) -> dict[str, Any]:
    """``{version: 1, tools: [descriptor, …]}``, which ``read_tools`` reads back."""
    items = []
    for d in tools.values():
        doc = d.to_dict()
        del doc["version"]
        items.append(doc)
    return {"version": VERSION, "tools": items}


def file_name(tool: str) -> str:
    """The file a tool's descriptor is written to (names may hold ``/``)."""
    return tool.replace("/", "%2F") + ".yaml"


@dataclass(frozen=True)
class Written:
    tool: str
    path: str
    status: str  # written | replaced | unchanged


def _plan(tools: ToolSet, out: Path, force: bool) -> list[tuple[Written, bytes]]:
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is a file, not a folder", code="OUT_NOT_A_DIRECTORY",
                         hint="name a folder (it is created when missing)")
    lower: dict[str, str] = {}
    plan = []
    for d in tools.values():
        name = file_name(d.tool)
        if name.lower() in lower:
            raise InputError(f"tools {lower[name.lower()]} and {d.tool} would share one file "
                             "on a case-insensitive file system", code="OUT_CLASH",
                             hint="rename one of them")
        lower[name.lower()] = d.tool
        path = out / name
        data = dump_yaml(d.to_dict()).encode("utf-8")
        status = "written"
        if path.exists():
            if path.read_bytes() == data:
                status = "unchanged"
            elif not force:
                raise DescriptorExistsError(f"{path} exists and describes tool {d.tool} "
                                            "differently", file=str(path), tool=d.tool)
            else:
                status = "replaced"
        plan.append((Written(d.tool, str(path), status), data))
    return plan


def write_descriptors(tools: ToolSet, out: str | os.PathLike[str], *,
                      force: bool = False) -> list[Written]:
    """Write ``OUT/<tool>.yaml`` for every tool, all or nothing."""
    folder = Path(out)
    plan = _plan(tools, folder, force)
    todo = [(w, data) for w, data in plan if w.status != "unchanged"]
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        atomic_write_all([(Path(w.path), data) for w, data in todo])
    except BaseException:
        if created and not any(folder.iterdir()):
            folder.rmdir()
        raise
    return [w for w, _ in plan]


@dataclass(frozen=True)
class ImportResult:
    """What ``contract import`` did: the descriptors, the files written, if any, the
    tools refused (each with its code, path and hint) and the constructs converted."""

    tools: ToolSet
    out: str | None = None
    written: tuple[Written, ...] = ()
    refused: tuple[Refusal, ...] = ()
    warnings: tuple[Warned, ...] = ()

    @property
    def partial(self) -> bool:
        """Whether some tools were refused (``contract import`` exits 4)."""
        return bool(self.refused)

    def to_dict(self) -> dict[str, Any]:
        """``{tools: [{tool, format, file, unknown}], out, refused, warnings}``, each tool
        with its ``path`` and ``status`` when written, or the ``manifest`` when not."""
        files = {w.tool: w for w in self.written}
        tools = []
        for d in self.tools.values():
            item = import_summary(d)
            if d.tool in files:
                item.update(path=files[d.tool].path, status=files[d.tool].status)
            tools.append(item)
        doc: dict[str, Any] = {"tools": tools, "out": self.out,
                               "refused": [r.to_dict() for r in self.refused],
                               "warnings": [w.to_dict() for w in self.warnings]}
        if self.out is None:
            doc["manifest"] = manifest(self.tools)
        return doc


def import_contracts(paths: Sequence[str | os.PathLike[str]], *, store: Store | None = None,
                     traces: Sequence[str] = (), out: str | os.PathLike[str] | None = None,
                     force: bool = False, strict: bool = False) -> ImportResult:
    """``contract import``: read everything, then (with ``out``) write every descriptor.
    A tool that cannot be used is refused on its own and listed (``refused``), the others
    imported; with ``strict`` the first refusal is raised and nothing is written, and so
    it is when every tool was refused (nothing to keep is no partial import)."""
    with collecting(strict=strict) as notes:
        tools = import_tools(paths, store=store, traces=traces)
    if notes.refused and not tools and notes.refused[0].error is not None:
        raise notes.refused[0].error
    said = (tuple(notes.refused), tuple(notes.warnings))
    if out is None:
        return ImportResult(tools, None, (), *said)
    return ImportResult(tools, str(out), tuple(write_descriptors(tools, out, force=force)),
                        *said)
