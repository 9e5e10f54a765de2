"""Importing MCP tool lists: ``tools/list`` results, the tools in a server's manifest,
and the ``tools/list`` responses inside a recorded session.

Accepted shapes: a JSON-RPC response ``{jsonrpc, id, result: {tools: […]}}``, a bare
result ``{tools: […]}``, a list of tool objects, one tool object, and a recording (an
MCP cassette or session file, JSON or JSON lines) whose messages hold ``tools/list``
responses; several responses (pages, or a list fetched again) are merged, and a tool
listed twice with different definitions is refused.

Each tool: ``name`` → ``tool``, ``title`` (else ``annotations.title``), ``description``,
``inputSchema`` → ``input``, ``outputSchema`` → ``output``, the annotations →
``side_effect`` (``side_effect_of``), and the fields MCP has no place for from ``_meta``
keys ``workbench/<field>`` (``META_PREFIX``), which ``contract export --provider mcp``
writes. docs/contracts.md ("Import") has the table and the reasons.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from .._descriptor import Descriptor
from .._errors import ContractError, DuplicateToolError, UnknownSourceError
from .._notes import attempt
from .._source import Source, build, where

__all__ = ["META_FIELDS", "META_PREFIX", "SOURCE", "annotations_for", "side_effect_of"]

META_PREFIX = "workbench/"
#: descriptor fields MCP has no field for, carried in ``_meta`` under ``META_PREFIX``
META_FIELDS: tuple[str, ...] = ("revision", "errors", "timeout_s", "cancellable",
                                "auth_scope", "idempotency", "deprecated")


def side_effect_of(annotations: Any) -> str | None:
    """The side-effect class the hints a server stated say, or None when they say none.

    Only hints that are present count (MCP's defaults, destructive and open-world, are a
    client's worst case, not something the server said). In order: ``readOnlyHint:
    true`` is ``read_only``; ``destructiveHint: true`` is ``destructive``;
    ``openWorldHint: true`` is ``external_send``; ``destructiveHint: false`` is
    ``idempotent_write`` with ``idempotentHint: true``, else ``write``; anything else
    (no annotations, or only hints that settle nothing) is None."""
    if not isinstance(annotations, dict):
        return None
    hint = {k: annotations.get(k) for k in ("readOnlyHint", "destructiveHint",
                                            "idempotentHint", "openWorldHint")}
    if hint["readOnlyHint"] is True:
        return "read_only"
    if hint["destructiveHint"] is True:
        return "destructive"
    if hint["openWorldHint"] is True:
        return "external_send"
    if hint["destructiveHint"] is False:
        return "idempotent_write" if hint["idempotentHint"] is True else "write"
    return None


def annotations_for(side_effect: str | None) -> dict[str, bool]:
    """The hints that say ``side_effect`` (``side_effect_of`` reads them back); every
    hint the class settles is written, so a client applying MCP's defaults reads no
    more danger than the class has. None writes no hint: MCP's defaults stand."""
    if side_effect is None:
        return {}
    if side_effect == "read_only":
        return {"readOnlyHint": True}
    if side_effect == "destructive":
        return {"readOnlyHint": False, "destructiveHint": True}
    if side_effect == "external_send":
        return {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True}
    return {"readOnlyHint": False, "destructiveHint": False,
            "idempotentHint": side_effect == "idempotent_write", "openWorldHint": False}


def _is_tool(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("name"), str) and (
        "inputSchema" in item)


def _tool_list(value: Any, empty: bool = False) -> bool:
    return isinstance(value, list) and (empty or bool(value)) and all(
        _is_tool(t) for t in value)


def _messages(doc: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, message)`` for the JSON-RPC messages of a recording: the document's own
    items, or those of its top-level lists, and one level inside each item (a
    cassette's ``payload``, a recorder's ``request`` and ``response``, a frame)."""
    tops: list[tuple[str, Any]] = []
    if isinstance(doc, list):
        tops.append(("", doc))
    elif isinstance(doc, dict):
        tops += [(k, v) for k, v in doc.items() if isinstance(v, list)]
    for name, items in tops:
        for i, item in enumerate(items):
            at = f"{name}[{i}]"
            if not isinstance(item, dict):
                continue
            if item.get("jsonrpc") == "2.0":
                yield at, item
                continue
            for k, v in item.items():
                if isinstance(v, dict) and v.get("jsonrpc") == "2.0":
                    yield f"{at}.{k}", v


def _listings(doc: Any) -> list[tuple[str, list[Any]]]:
    """The ``tools/list`` results of a recording, ``(where, tools)`` in file order: the
    responses to a ``tools/list`` request (by id), or, when the recording holds no
    requests, every response whose result lists tools."""
    asked: set[Any] = set()
    requests = False
    responses = []
    for at, msg in _messages(doc):
        if "method" in msg:
            requests = True
            if msg.get("method") == "tools/list" and "id" in msg:
                asked.add(_key(msg["id"]))
        elif isinstance(msg.get("result"), dict) and isinstance(msg["result"].get("tools"),
                                                                 list):
            responses.append((at, msg))
    return [(f"{at}.result", msg["result"]["tools"]) for at, msg in responses
            if not requests or _key(msg.get("id")) in asked]


def _key(value: Any) -> str:
    return f"{type(value).__name__}:{value}"


def sniff(doc: Any) -> int:
    if isinstance(doc, dict):
        result = doc.get("result")
        if doc.get("jsonrpc") == "2.0" and isinstance(result, dict) and _tool_list(
                result.get("tools"), empty=True):
            return 95
        if _tool_list(doc.get("tools")):
            return 90
        if _is_tool(doc):
            return 80
        if doc.get("tools") == [] and len(doc) <= 4:  # an empty listing, maybe paged
            return 30
    if _tool_list(doc):
        return 90
    if any(_tool_list(tools, empty=True) for _, tools in _listings(doc)):
        return 85
    return 20 if next(_messages(doc), None) is not None else 0  # a recording, no listing


def _tools(doc: Any) -> list[tuple[str, list[tuple[str, Any]]]]:
    """The document's listings, each ``(where, [(where, tool object)])``."""
    if isinstance(doc, dict) and doc.get("jsonrpc") == "2.0" and isinstance(
            doc.get("result"), dict):
        doc = doc["result"]
    if isinstance(doc, dict) and isinstance(doc.get("tools"), list):
        return [("tools", [(f"tools[{i}]", t) for i, t in enumerate(doc["tools"])])]
    if _is_tool(doc):
        return [("", [("", doc)])]
    if _tool_list(doc):
        return [("", [(f"[{i}]", t) for i, t in enumerate(doc)])]
    return [(at, [(f"{at}.tools[{i}]", t) for i, t in enumerate(tools)])
            for at, tools in _listings(doc)]


def _meta_fields(tool: dict[str, Any]) -> dict[str, Any]:
    meta = tool.get("_meta")
    if not isinstance(meta, dict):
        return {}
    return {f: meta[META_PREFIX + f] for f in META_FIELDS if META_PREFIX + f in meta}


def _descriptor(tool: Any, file: str, at: str) -> Descriptor:
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        raise ContractError(f"{where(file, at)}: an MCP tool is an object with a string "
                            "`name`", file=file, path=at)
    annotations = tool.get("annotations")
    title = tool.get("title")
    if title is None and isinstance(annotations, dict):
        title = annotations.get("title")
    fields: dict[str, Any] = {
        "tool": tool["name"], "title": title, "description": tool.get("description"),
        "input": tool.get("inputSchema"), "output": tool.get("outputSchema"),
        "side_effect": side_effect_of(annotations), **_meta_fields(tool)}
    unknown = [f for f in ("input", "output", "side_effect", *META_FIELDS)
               if fields.get(f) is None]
    return build("mcp", file, at, fields, unknown)


def read(doc: Any, file: str) -> list[Descriptor]:
    """Every tool of every listing; a name twice in one listing is refused, and so is a
    name that two listings (pages, or a list fetched again) define differently."""
    listings = _tools(doc)
    if not listings:
        raise UnknownSourceError(f"{file}: an MCP recording without a tools/list response: "
                                 "it names no tool definitions", file=file)
    out: dict[str, tuple[str, Descriptor]] = {}
    for listing, tools in listings:
        here: set[str] = set()
        for at, tool in tools:
            name = tool.get("name") if isinstance(tool, dict) else None
            d = attempt(functools.partial(_descriptor, tool, file, at), file=file,
                        tool=name if isinstance(name, str) else None, path=at)
            if d is None:
                continue
            seen = out.get(d.tool)
            if d.tool in here or (seen is not None and seen[1] != d):
                what = "twice" if d.tool in here else "twice with different definitions"
                attempt(functools.partial(_listed_twice, file, d.tool, what,
                                          seen[0] if seen else listing, at),
                        file=file, tool=d.tool, path=at)
                continue
            here.add(d.tool)
            out.setdefault(d.tool, (at, d))
    return [d for _, d in out.values()]


def _listed_twice(file: str, tool: str, what: str, first: str, at: str) -> Descriptor:
    raise DuplicateToolError(f"{file}: tool {tool} is listed {what} ({first} and {at})",
                             file=file, tool=tool, path=at)


SOURCE: Source = ("mcp", sniff, read)
