"""Importing Anthropic tools: ``[{name, description, input_schema}]``, and a Messages
request body holding them in ``tools``.

``name`` → ``tool``, ``description``, ``input_schema`` → ``input``. Anthropic says
nothing else a descriptor holds (no title, output, error envelope, side-effect class,
timeout, cancellation, auth, idempotency, deprecation or revision): they stay empty and
are listed in ``source.unknown``. ``strict``, ``cache_control`` and ``input_examples``
are request options, not contract: not kept. Server tools (``web_search``,
``code_execution``, …, which carry a versioned ``type`` and no ``input_schema``) are the
provider's, not contracts: skipped.
"""

from __future__ import annotations

import functools
from typing import Any

from .._descriptor import Descriptor
from .._source import CONTRACT_FIELDS, Source, build, unique

__all__ = ["SOURCE", "UNKNOWN"]

#: the descriptor fields an Anthropic tool cannot say
UNKNOWN = tuple(f for f in CONTRACT_FIELDS if f not in ("description", "input"))


def _is_tool(item: Any) -> bool:
    return (isinstance(item, dict) and isinstance(item.get("name"), str)
            and isinstance(item.get("input_schema"), dict)
            and item.get("type", "custom") == "custom")


def _is_server_tool(item: Any) -> bool:
    return (isinstance(item, dict) and isinstance(item.get("type"), str)
            and item["type"] != "custom" and "input_schema" not in item)


def _tool_list(value: Any) -> bool:
    return (isinstance(value, list) and any(_is_tool(t) for t in value)
            and all(_is_tool(t) or _is_server_tool(t) for t in value))


def sniff(doc: Any) -> int:
    if _tool_list(doc):
        return 90
    if isinstance(doc, dict) and _tool_list(doc.get("tools")):
        return 88 if {"model", "messages", "max_tokens"} & set(doc) else 85
    return 0


def read(doc: Any, file: str) -> list[Descriptor]:
    items, prefix = (doc["tools"], "tools") if isinstance(doc, dict) else (doc, "")
    return unique(((f"{prefix}[{i}]", functools.partial(build, "anthropic", file,
                    f"{prefix}[{i}]", {"tool": t["name"], "description": t.get("description"),
                                       "input": t["input_schema"]}, UNKNOWN))
                   for i, t in enumerate(items) if _is_tool(t)), file)


SOURCE: Source = ("anthropic", sniff, read)
