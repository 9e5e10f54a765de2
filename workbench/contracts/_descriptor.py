"""The descriptor: the versioned contract of one tool, and a set of them.

``descriptor.schema.json`` beside this module is the single source of truth for what a
descriptor holds; ``Descriptor`` is its typed form. A descriptor reads from a mapping
(YAML or JSON) that the schema file validates, whose ``input`` and ``output`` must be
usable JSON Schemas (``_jsonschema.check_schema``), and writes back to the same mapping
with its keys in the order people read them. Fields a source could not say stay empty
(None) and are listed in ``source.unknown``; nothing is guessed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import LIMITS
from ._errors import ContractError, ContractVersionError, DuplicateToolError, SchemaInvalidError
from .schema import check_schema, expanded_depth

__all__ = ["FIELDS", "SIDE_EFFECTS", "VERSION", "Deprecation", "Descriptor", "ErrorEnvelope",
           "Idempotency", "Provenance", "ToolSet", "descriptor_from_dict"]

VERSION = 1
#: side-effect classes, least to most dangerous
SIDE_EFFECTS: tuple[str, ...] = ("read_only", "idempotent_write", "write", "external_send",
                                 "destructive")
#: the descriptor's fields in the order they are written
FIELDS: tuple[str, ...] = ("version", "tool", "revision", "title", "description", "input",
                           "output", "errors", "side_effect", "timeout_s", "cancellable",
                           "auth_scope", "idempotency", "deprecated", "source")
_SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")


@dataclass(frozen=True)
class ErrorEnvelope:
    """The error codes a tool may return, and which of them a caller may retry."""

    codes: tuple[str, ...] = ()
    retryable: tuple[str, ...] = ()


@dataclass(frozen=True)
class Idempotency:
    """Where the idempotency key travels (``header:Idempotency-Key``, ``arg:request_id``,
    ``query:key``) and whether a call must carry it."""

    key: str
    required: bool = False

    @property
    def where(self) -> str:
        return self.key.split(":", 1)[0]

    @property
    def name(self) -> str:
        return self.key.split(":", 1)[1]


@dataclass(frozen=True)
class Deprecation:
    since: str | None = None
    replacement: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Where a descriptor came from: the source format, the file, and the descriptor
    fields that source cannot say."""

    format: str
    file: str | None = None
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Descriptor:
    """The contract of one tool (docs/contracts.md)."""

    tool: str
    revision: int | None = None
    title: str | None = None
    description: str | None = None
    input: Any = None
    output: Any = None
    errors: ErrorEnvelope | None = None
    side_effect: str | None = None
    timeout_s: float | None = None
    cancellable: bool | None = None
    auth_scope: tuple[str, ...] | None = None
    idempotency: Idempotency | None = None
    deprecated: Deprecation | None = None
    source: Provenance | None = field(default=None, compare=False)

    @property
    def namespace(self) -> str | None:
        """``projects`` for ``projects.archive``; None for a name without a dot."""
        return self.tool.rsplit(".", 1)[0] if "." in self.tool else None

    @property
    def danger(self) -> int:
        """The side-effect class's rank (``read_only`` 0 … ``destructive`` 4); an unknown
        class ranks as destructive: a gate that does not know must not let it through."""
        return SIDE_EFFECTS.index(self.side_effect) if self.side_effect else len(SIDE_EFFECTS) - 1

    @property
    def writes(self) -> bool:
        """Whether a call can change the world (anything but ``read_only``)."""
        return self.side_effect != "read_only"

    def to_dict(self) -> dict[str, Any]:
        """The descriptor as a mapping in ``FIELDS`` order; empty fields left out."""
        out: dict[str, Any] = {"version": VERSION, "tool": self.tool}
        for name in FIELDS[2:]:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, ErrorEnvelope):
                value = {"codes": list(value.codes), "retryable": list(value.retryable)}
            elif isinstance(value, Idempotency):
                value = {"key": value.key, "required": value.required}
            elif isinstance(value, Deprecation):
                value = {"since": value.since, "replacement": value.replacement}
            elif isinstance(value, Provenance):
                value = {"format": value.format, "file": value.file,
                         "unknown": list(value.unknown)}
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # loaded only when a descriptor is read

    schema = json.loads(_SCHEMA_FILE.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


@functools.lru_cache(maxsize=1)
def _compiled() -> Any:
    import fastjsonschema

    return fastjsonschema.compile(json.loads(_SCHEMA_FILE.read_text(encoding="utf-8")))


def _fits(doc: Mapping[str, Any]) -> bool:
    """Whether the schema file takes ``doc`` (compiled: about a hundred times faster
    than jsonschema, which is asked only to word a refusal)."""
    import fastjsonschema

    try:
        _compiled()(dict(doc))
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def _where(path: Iterator[Any] | Any) -> str:
    parts = list(path)
    return ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in parts
                    ).replace(".[", "[") or "(the descriptor)"


def descriptor_from_dict(doc: Any, file: str | None = None) -> Descriptor:
    """A descriptor from its mapping; ``ContractError`` (naming the file, the tool and
    the path) for anything the schema file or JSON Schema refuses."""
    where = file or "descriptor"
    if not isinstance(doc, Mapping):
        raise ContractError(f"{where}: a descriptor is a mapping with `version: 1` and `tool`",
                            file=file)
    tool = doc.get("tool") if isinstance(doc.get("tool"), str) else None
    named = f"{where}, tool {tool}" if tool else where
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise ContractVersionError(f"{named}: descriptor version {version} is newer than this "
                                   f"workbench reads ({VERSION})", file=file, tool=tool)
    depth = LIMITS["contract_depth"]
    for side in ("input", "output"):  # before anything below recurses into them
        found = expanded_depth(doc.get(side))  # at least its depth as written
        if found > depth.value:
            raise depth.breach(f"{named}, {side} with its $refs followed", found,
                               file=file, tool=tool, path=side)
    error = None if _fits(doc) else next(iter(sorted(
        _validator().iter_errors(dict(doc)), key=lambda e: list(map(str, e.absolute_path)))),
        None)
    if error is not None:
        raise ContractError(f"{named}, {_where(error.absolute_path)}: {error.message}",
                            file=file, tool=tool, path=_where(error.absolute_path))
    assert tool is not None  # the schema requires it
    for side in ("input", "output"):
        problem = check_schema(doc.get(side))
        if problem is not None:
            raise SchemaInvalidError(f"{named}, {side} {problem}", file=file, tool=tool,
                                     path=side)
    errors = doc.get("errors")
    idem = doc.get("idempotency")
    dep = doc.get("deprecated")
    src = doc.get("source")
    scope = doc.get("auth_scope")
    return Descriptor(
        tool=tool, revision=doc.get("revision"), title=doc.get("title"),
        description=doc.get("description"), input=doc.get("input"), output=doc.get("output"),
        errors=None if errors is None else ErrorEnvelope(tuple(errors.get("codes", ())),
                                                         tuple(errors.get("retryable", ()))),
        side_effect=doc.get("side_effect"),
        timeout_s=None if doc.get("timeout_s") is None else float(doc["timeout_s"]),
        cancellable=doc.get("cancellable"),
        auth_scope=None if scope is None else tuple(scope),
        idempotency=None if idem is None else Idempotency(idem["key"],
                                                          bool(idem.get("required", False))),
        deprecated=None if dep is None else Deprecation(dep.get("since"), dep.get("replacement")),
        source=None if src is None else Provenance(src.get("format", "descriptor"),
                                                   src.get("file"),
                                                   tuple(src.get("unknown", ()))))


class ToolSet(Mapping[str, Descriptor]):
    """Descriptors by tool name, in the order they were given; a name appears once."""

    def __init__(self, descriptors: Iterable[Descriptor] = ()) -> None:
        self._by_name: dict[str, Descriptor] = {}
        for d in descriptors:
            self.add(d)

    def add(self, d: Descriptor) -> None:
        before = self._by_name.get(d.tool)
        if before is not None:
            a = before.source.file if before.source else None
            b = d.source.file if d.source else None
            places = " and ".join(dict.fromkeys(p for p in (a, b) if p)) or "one set"
            raise DuplicateToolError(f"tool {d.tool} is described twice ({places})",
                                     tool=d.tool, file=b or a)
        self._by_name[d.tool] = d

    def __getitem__(self, name: str) -> Descriptor:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"ToolSet({list(self._by_name)})"
