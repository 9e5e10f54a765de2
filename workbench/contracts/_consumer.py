"""Consumer contracts: what one workflow depends on in the tools it calls
(docs/contracts.md, "Consumer contracts").

A consumer contract is YAML::

    version: 1
    consumer: triage-agent
    tools:
      projects.list:
        reads: [result.items[*].owner, result.items[*].id]
        sends: [args.owner]
        branches_on: {result.items[*].state: [active, archived]}
        retries_on: [rate_limited]
        paginates: {cursor: result.next_cursor, sends: args.cursor}
        assumes_order: result.items[*].created_at
      projects.archive: {}

Every tool listed is one the workflow calls; ``reads``, ``branches_on``, ``paginates.cursor``
and ``assumes_order`` are paths into the result (``result.…``), ``sends`` and
``paginates.sends`` paths into the arguments (``args.…``), in the path syntax rules use.
Read against the tools it was written for (``OLD`` of a diff), every tool must be
described there, every path must be declared by its schema, every value branched on must
be one its enum allows and every code retried on one its error envelope lists; anything
else is ``ConsumerError`` naming the file, the line, the tool and the path.

``Consumer.dependencies`` is the model other checks reuse; ``consumer_findings`` says
which consumers a set of changes touches, and through what.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..config import ConfigFile, Node
from ..model import STAR, PathSyntaxError, parse_path
from ._descriptor import Descriptor
from ._errors import ConsumerError
from .schema import shape, value_key

__all__ = ["Consumer", "ConsumerFinding", "Dependency", "consumer_findings", "load_consumer",
           "parse_consumer"]

VERSION = 1
_TOOL_KEYS = ("reads", "sends", "branches_on", "retries_on", "paginates", "assumes_order")
#: the kinds of change that concern a tool as a whole (a consumer that calls it depends on them)
TOOL_KINDS = frozenset({"tool-removed", "side-effect-changed", "auth-scope-changed",
                        "idempotency-changed", "timeout-changed"})


@dataclass(frozen=True)
class Dependency:
    """One thing a consumer depends on: it ``calls`` a tool, ``reads`` / ``sends`` a
    path, ``branches_on`` values at a path, ``retries_on`` error codes, ``paginates``
    with a cursor (path) or ``assumes_order`` of a path."""

    consumer: str
    tool: str
    what: str
    path: str | None = None
    values: tuple[Any, ...] = ()
    line: int | None = None

    def touches(self, tool: str, kind: str, path: tuple[Any, ...]) -> bool:
        """Whether a change of ``kind`` at ``path`` (segments, ``args``/``result``/a
        descriptor field first) of ``tool`` touches this dependency."""
        if tool != self.tool:
            return False
        if kind in TOOL_KINDS or path in (("description",), ("deprecated",)):
            return self.what == "calls"
        if path[:1] == ("errors",):
            return self.what == "retries_on" and path[-1] in self.values
        if self.path is None:
            return False
        mine = parse_path(self.path).segments
        n = min(len(mine), len(path))
        return all(_same(a, b) for a, b in zip(mine[:n], path[:n], strict=True))


def _same(a: Any, b: Any) -> bool:
    if a is STAR or b is STAR:
        return a is b or isinstance(a, int) or isinstance(b, int)
    return bool(a == b)


@dataclass(frozen=True)
class Consumer:
    """A consumer contract: its name, its file, and what it depends on."""

    name: str
    file: str | None
    dependencies: tuple[Dependency, ...]

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(d.tool for d in self.dependencies if d.what == "calls")

    def on(self, tool: str) -> list[Dependency]:
        return [d for d in self.dependencies if d.tool == tool]


@dataclass(frozen=True)
class ConsumerFinding:
    """Change number ``change`` (its index in the list given) touches ``dependency``."""

    change: int
    dependency: Dependency

    @property
    def consumer(self) -> str:
        return self.dependency.consumer


class _ChangeLike(Protocol):
    @property
    def tool(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def segments(self) -> tuple[Any, ...]: ...


def consumer_findings(changes: Sequence[_ChangeLike],
                      consumers: Iterable[Consumer]) -> list[ConsumerFinding]:
    """Every (change, dependency) pair where the change touches what a consumer declares,
    in change order."""
    deps = [d for c in consumers for d in c.dependencies]
    by_tool: dict[str, list[Dependency]] = {}
    for d in deps:
        by_tool.setdefault(d.tool, []).append(d)
    return [ConsumerFinding(i, d) for i, ch in enumerate(changes)
            for d in by_tool.get(ch.tool, ()) if d.touches(ch.tool, ch.kind, ch.segments)]


# --- reading -----------------------------------------------------------------------------

_FILE = ConfigFile("consumer contract", ConsumerError, keys=("consumer", "tools"),
                   shape="a consumer contract is a mapping with `version: 1`, `consumer` and "
                         "`tools`")


def _lines(node: Node, at: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    """The line of every key, value and item, by its path in the document."""
    out.setdefault(at, node.line)
    for k, v in node.entries():
        key = (*at, k.value)
        out[key] = k.line
        _lines(v, key, out)
    for i, v in enumerate(node.items()):
        _lines(v, (*at, i), out)


class _Reader:
    def __init__(self, file: str, lines: dict[tuple[Any, ...], int]) -> None:
        self.file, self.lines, self.name = file, lines, "?"

    def fail(self, at: tuple[Any, ...], text: str, tool: str | None = None,
             path: str | None = None, line: int | None = None) -> ConsumerError:
        line = line or next((self.lines[at[:i]] for i in range(len(at), -1, -1)
                             if at[:i] in self.lines), None)
        what = ", ".join(x for x in (f"consumer {self.name}", tool and f"tool {tool}",
                                     path and f"path {path}") if x)
        return _FILE.error(self.file, text, line, part=what, tool=tool, path=path)

    def paths(self, tool: str, at: tuple[Any, ...], value: Any, root: str) -> list[str]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(p, str) for p in items):
            raise self.fail(at, f"`{at[-1]}` is a path or a list of paths", tool)
        for i, p in enumerate(items):
            where = at if isinstance(value, str) else (*at, i)
            try:
                segs = parse_path(p).segments
            except PathSyntaxError as exc:
                raise self.fail(where, exc.message, tool, p) from None
            if segs[:1] != (root,):
                raise self.fail(where, f"`{at[-1]}` paths start with `{root}`", tool, p)
        return list(items)

    def line(self, at: tuple[Any, ...]) -> int | None:
        return self.lines.get(at)


def _tool_deps(r: _Reader, tool: str, spec: Any) -> list[Dependency]:
    at = ("tools", tool)
    spec = {} if spec is None else spec
    if not isinstance(spec, dict):
        raise r.fail(at, "a tool's entry is a mapping (or empty)", tool)
    extra = sorted(set(spec) - set(_TOOL_KEYS))
    if extra:
        raise r.fail((*at, extra[0]), f"unknown key {extra[0]!r} (expected one of "
                     f"{', '.join(_TOOL_KEYS)})", tool)
    c = r.name
    out = [Dependency(c, tool, "calls", line=r.line(at))]
    for what, root in (("reads", "result"), ("sends", "args")):
        if what in spec:
            for i, p in enumerate(r.paths(tool, (*at, what), spec[what], root)):
                out.append(Dependency(c, tool, what, p,
                                      line=r.line((*at, what, i)) or r.line((*at, what))))
    branches = spec.get("branches_on", {})
    if not isinstance(branches, dict):
        raise r.fail((*at, "branches_on"), "`branches_on` maps a result path to the values "
                     "the workflow branches on", tool)
    for p, values in branches.items():
        where = (*at, "branches_on", p)
        r.paths(tool, where, str(p), "result")
        if not isinstance(values, list) or not values:
            raise r.fail(where, "list the values the workflow branches on", tool, str(p))
        out.append(Dependency(c, tool, "branches_on", str(p), tuple(values), r.line(where)))
    codes = spec.get("retries_on", [])
    if not isinstance(codes, list) or not all(isinstance(x, str) for x in codes):
        raise r.fail((*at, "retries_on"), "`retries_on` is a list of error codes", tool)
    if codes:
        out.append(Dependency(c, tool, "retries_on", None, tuple(codes),
                              r.line((*at, "retries_on"))))
    out += _paging(r, tool, spec)
    return out


def _paging(r: _Reader, tool: str, spec: dict[str, Any]) -> list[Dependency]:
    at = ("tools", tool)
    out: list[Dependency] = []
    pages = spec.get("paginates")
    if pages is not None:
        if not isinstance(pages, dict) or "cursor" not in pages or \
                set(pages) - {"cursor", "sends"}:
            raise r.fail((*at, "paginates"), "`paginates` is {cursor: RESULT_PATH, "
                         "sends: ARGS_PATH}", tool)
        for key, root in (("cursor", "result"), ("sends", "args")):
            if key in pages:
                where: tuple[Any, ...] = (*at, "paginates", key)
                p = r.paths(tool, where, pages[key], root)[0]
                out.append(Dependency(r.name, tool, "paginates", p, line=r.line(where)))
    if "assumes_order" in spec:
        where = (*at, "assumes_order")
        for p in r.paths(tool, where, spec["assumes_order"], "result"):
            out.append(Dependency(r.name, tool, "assumes_order", p, line=r.line(where)))
    return out


def parse_consumer(text: str, file: str,
                   tools: Mapping[str, Descriptor] | None = None) -> Consumer:
    """A consumer contract from its YAML text; checked against ``tools`` when given."""
    node = _FILE.parse_yaml(text, file)
    doc = None if node is None else node.value
    lines: dict[tuple[Any, ...], int] = {}
    if node is not None:
        _lines(node, (), lines)
    r = _Reader(file, lines)
    if not isinstance(doc, dict) or "consumer" not in doc or "tools" not in doc:
        raise r.fail((), "a consumer contract is a mapping with `version: 1`, `consumer` and "
                     "`tools`")
    r.name = str(doc["consumer"])
    if doc.get("version") != VERSION:
        raise r.fail(("version",), f"`version` must be {VERSION}, not {doc.get('version')!r}")
    extra = sorted(set(doc) - {"version", "consumer", "tools"})
    if extra:
        raise r.fail((extra[0],), f"unknown key {extra[0]!r}")
    if not isinstance(doc["tools"], dict) or not doc["tools"]:
        raise r.fail(("tools",), "`tools` maps each tool the workflow calls to what it uses")
    deps = [d for tool, spec in doc["tools"].items() for d in _tool_deps(r, str(tool), spec)]
    consumer = Consumer(r.name, file, tuple(deps))
    if tools is not None:
        _check(r, consumer, tools)
    return consumer


def load_consumer(path: str | os.PathLike[str],
                  tools: Mapping[str, Descriptor] | None = None) -> Consumer:
    """The consumer contract in a file, checked against ``tools`` when given."""
    return parse_consumer(_FILE.read(path), str(path), tools)


# --- checking against the tools ----------------------------------------------------------

def _check(r: _Reader, consumer: Consumer, tools: Mapping[str, Descriptor]) -> None:
    for d in consumer.dependencies:
        at = ("tools", d.tool)
        if d.tool not in tools:
            raise r.fail(at, "the tools it was checked against do not describe this tool",
                         d.tool, line=d.line)
        desc = tools[d.tool]
        if d.what == "retries_on":
            codes = desc.errors.codes if desc.errors else ()
            bad = [x for x in d.values if codes and x not in codes]
            if bad:
                raise r.fail((*at, "retries_on"), f"error code {bad[0]!r} is not in the "
                             f"tool's error envelope ({', '.join(codes)})", d.tool, line=d.line)
            continue
        if d.path is None:
            continue
        segs = parse_path(d.path).segments
        schema = desc.output if segs[0] == "result" else desc.input
        found = _find(schema, segs[1:])
        if found is _MISSING:
            raise r.fail(at, "the tool's schema declares no such path", d.tool, d.path,
                         line=d.line)
        if d.what == "branches_on" and found is not None:
            allowed = shape(schema, found).enum
            bad = [v for v in d.values
                   if allowed is not None and value_key(v) not in {value_key(a) for a in allowed}]
            if bad:
                raise r.fail((*at, "branches_on", d.path), f"value {bad[0]!r} is not one the "
                             f"schema allows ({', '.join(map(repr, allowed or ()))})",
                             d.tool, d.path, line=d.line)


_MISSING = object()


def _find(root: Any, segs: tuple[Any, ...]) -> Any:
    """The raw sub-schema at ``segs``; None when the schema there says nothing (it cannot
    be checked, so it is accepted); ``_MISSING`` when the schema declares no such path."""
    raw = root
    for seg in segs:
        sh = shape(root, raw)
        if sh.union is not None:
            hits = [h for m in sh.union if (h := _find_in(root, m, seg)) is not _MISSING]
            if not hits:
                return _MISSING
            raw = hits[0]
        else:
            raw = _find_in(root, raw, seg)
        if raw is _MISSING or raw is None:
            return raw
    return raw


def _find_in(root: Any, raw: Any, seg: Any) -> Any:
    sh = shape(root, raw)
    says_nothing = (sh.types is None and not sh.properties and sh.items is None
                    and not sh.prefix and sh.additional in ("open",) and sh.union is None)
    if says_nothing:
        return None
    if isinstance(seg, str):
        if seg in sh.properties:
            return sh.properties[seg]
        return sh.additional if isinstance(sh.additional, dict) else _MISSING
    if isinstance(seg, int) and seg < len(sh.prefix):
        return sh.prefix[seg]
    if sh.allows("array") and sh.items is not None:
        return sh.items
    if seg is STAR and isinstance(sh.additional, dict):
        return sh.additional
    if seg is STAR and sh.allows("array") and sh.items is None:
        return None
    return _MISSING
