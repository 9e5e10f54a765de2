"""The MCP profile: a ``tools/list`` result (MCP 2025-11-25).

- the name SHOULD be 1–128 characters from ``[A-Za-z0-9_.-]`` (clients may refuse
  others);
- ``inputSchema`` is an object schema (``type: object``), JSON Schema 2020-12 unless it
  names another dialect; ``outputSchema`` too (any JSON value from the 2026-07-28
  revision on, which is not yet the one clients speak);
- every 2020-12 keyword is allowed.

Export writes ``{tools: [{name, title, description, inputSchema, outputSchema,
annotations, _meta}]}``: the side-effect class as annotations (``annotations_for``), and
every field MCP has no place for (revision, errors, timeout, cancellation, auth scope,
idempotency, deprecation) in ``_meta`` under ``workbench/``, which the importer reads
back. Nothing a descriptor says is lost.
"""

from __future__ import annotations

import re
from typing import Any

from .._descriptor import Descriptor
from .._profile import Profile, Report, ToolRules, declared, says_object
from ._import import META_FIELDS, META_PREFIX, annotations_for

__all__ = ["PROFILE"]

NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_RULES = ToolRules(
    names=NAME,
    bad_name=f"MCP tool names SHOULD match {NAME.pattern}: no slashes or colons",
    unknown_input="the input is unknown and MCP requires an inputSchema; export writes an "
    "open object (`{type: object}`)",
    stand_in={"type": "object"},
    not_object="an MCP inputSchema is `type: object`")


def convert(d: Descriptor, report: Report) -> dict[str, Any]:
    schema, _ = _RULES.check(d, report)
    if d.output is not None and not (isinstance(d.output, dict) and says_object(d.output)):
        report("/output", "type", "reject", "none",
               "an MCP outputSchema is `type: object` (any JSON value only from the "
               "2026-07-28 revision)")
    tool = declared(d, "title", "description")
    tool["inputSchema"] = schema
    if d.output is not None:
        tool["outputSchema"] = d.output
    hints = annotations_for(d.side_effect)
    if hints:
        tool["annotations"] = hints
    said = d.to_dict()
    meta = {META_PREFIX + f: said[f] for f in META_FIELDS if f in said}
    if meta:
        tool["_meta"] = meta
    return tool


PROFILE = Profile("mcp", convert, lambda tools: {"tools": tools},
                  ("tool", "title", "description", "input", "output", "side_effect",
                   *META_FIELDS))
