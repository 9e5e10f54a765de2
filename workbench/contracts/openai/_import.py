"""Importing OpenAI function tools: Chat Completions ``[{type: function, function: {name,
description, parameters, strict}}]``, Responses ``[{type: function, name, description,
parameters, strict}]``, and a request or response body holding either in ``tools``.

``name`` → ``tool``, ``description``, ``parameters`` → ``input`` (a function without
``parameters`` takes none, as OpenAI documents: ``{type: object, properties: {}}``).
OpenAI says nothing else a descriptor holds: no title, output, error envelope,
side-effect class, timeout, cancellation, auth, idempotency, deprecation or revision;
they stay empty and are listed in ``source.unknown``. ``strict`` is how a request asks
for the schema, not part of the contract; it is not kept. Built-in tools (``web_search``,
``file_search``, ``mcp``, ``custom``, …) are the provider's, not contracts: skipped.
"""

from __future__ import annotations

import functools
from typing import Any

from .._descriptor import Descriptor
from .._errors import ContractError
from .._source import CONTRACT_FIELDS, Source, build, unique, where

__all__ = ["SOURCE", "UNKNOWN", "no_parameters"]
#: the descriptor fields an OpenAI tool cannot say
UNKNOWN = tuple(f for f in CONTRACT_FIELDS if f not in ("description", "input"))


def no_parameters() -> dict[str, Any]:
    """What a function without ``parameters`` takes: nothing."""
    return {"type": "object", "properties": {}}


def _function(item: Any) -> dict[str, Any] | None:
    """The function of a tool entry in either API's shape, or None."""
    if not isinstance(item, dict) or item.get("type") != "function":
        return None
    fn = item.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        return fn
    return item if isinstance(item.get("name"), str) else None


def _tool_list(value: Any) -> bool:
    return (isinstance(value, list) and any(_function(t) is not None for t in value)
            and all(isinstance(t, dict) and isinstance(t.get("type"), str) for t in value))


def sniff(doc: Any) -> int:
    if _tool_list(doc):
        return 90
    if isinstance(doc, dict) and _tool_list(doc.get("tools")):
        return 88 if {"model", "messages", "input"} & set(doc) else 85
    return 0


def _descriptor(item: dict[str, Any], file: str, at: str) -> Descriptor:
    fn = _function(item)
    if fn is None:
        raise ContractError(f"{where(file, at)}: an OpenAI function tool has a string `name`",
                            file=file, path=at)
    params = fn.get("parameters")
    return build("openai", file, at, {
        "tool": fn["name"], "description": fn.get("description"),
        "input": no_parameters() if params is None else params}, UNKNOWN)


def read(doc: Any, file: str) -> list[Descriptor]:
    items, prefix = (doc["tools"], "tools") if isinstance(doc, dict) else (doc, "")
    return unique(((f"{prefix}[{i}]", functools.partial(_descriptor, t, file, f"{prefix}[{i}]"))
                   for i, t in enumerate(items) if t.get("type") == "function"), file)


SOURCE: Source = ("openai", sniff, read)
