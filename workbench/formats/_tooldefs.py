"""Files that hold tool definitions, not traces.

A folder of an MCP server's tool snapshots, an OpenAPI document or a provider's tool
list is what ``workbench contract import`` reads; ingested, each would become a junk
trace of one event. ``tool_definition`` tells such a file by the shape of its whole
document (the head alone cannot tell a lone ``tools/list`` result from a session that
holds one):

- MCP: a tool object (``name`` and ``inputSchema``), a list of them, a ``tools/list``
  result (``{"tools": [...]}``, maybe with ``nextCursor``) or a lone JSON-RPC response
  carrying one;
- OpenAPI 3 and Swagger 2 documents (JSON or YAML);
- tool descriptors (``{"version", "tool"}``) and manifests of them;
- provider tool lists: OpenAI function tools (Chat Completions or Responses shape),
  Anthropic tools (``input_schema``), Gemini ``functionDeclarations``.

A session recording is never one: a list of JSON-RPC messages, a cassette, a request
body with ``messages`` or ``contents`` beside its ``tools`` all hold more than
definitions. The shapes here follow the contract importers (``workbench.contracts``),
which formats may not import.
"""

from __future__ import annotations

import re
from typing import Any

from ..model import LIMITS, InputError
from ._adapter import SourceFile
from ._decode import load_document, load_yaml

__all__ = ["TOOL_DEFINITION_HINT", "tool_definition", "tool_definition_error"]

TOOL_DEFINITION_HINT = "a tool definition: use `workbench contract import`"

_BOM = b"\xef\xbb\xbf"
# a key only tool definitions have, somewhere in the head: else nothing is parsed
_JSON_GATE = re.compile(rb'"(?:inputSchema|input_schema|parameters|functionDeclarations|'
                        rb'function_declarations|openapi|swagger)"\s*:|"tool"\s*:\s*"')
_API_GATE = re.compile(rb'"(?:openapi|swagger)"\s*:')
#: beyond this size only an API document is parsed whole (tool lists are small)
_LIST_BYTES = 4 << 20
_YAML_GATE = re.compile(rb"^['\"]?(?:openapi|swagger)['\"]?\s*:", re.M)


def _mcp_tool(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(x.get("name"), str) and isinstance(
        x.get("inputSchema"), dict)


def _anthropic_tool(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(x.get("name"), str) and isinstance(
        x.get("input_schema"), dict)


def _openai_tool(x: Any) -> bool:
    if not isinstance(x, dict) or x.get("type") != "function":
        return False
    fn = x.get("function")
    if isinstance(fn, dict):
        return isinstance(fn.get("name"), str)
    return isinstance(x.get("name"), str) and "parameters" in x


def _gemini_tool(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(
        x.get("functionDeclarations", x.get("function_declarations")), list)


def _descriptor(x: Any) -> bool:
    return isinstance(x, dict) and "version" in x and isinstance(x.get("tool"), str)


_ITEMS = (("an MCP tool", _mcp_tool), ("an Anthropic tool", _anthropic_tool),
          ("an OpenAI function tool", _openai_tool), ("a Gemini tool", _gemini_tool),
          ("a tool descriptor", _descriptor))


def _item(x: Any) -> str | None:
    for what, test in _ITEMS:
        if test(x):
            return what
    return None


def _listing(value: Any) -> str | None:
    """What a non-empty list of tool definitions (and nothing else) holds."""
    if not isinstance(value, list) or not value:
        return None
    kinds = {_item(x) for x in value}
    if None in kinds:
        return None
    return f"{kinds.pop() if len(kinds) == 1 else 'a tool definitions'} list"


def shape(doc: Any) -> str | None:
    """What tool definition a parsed document is, or None when it is not one."""
    what = _item(doc) or _listing(doc)
    if what is not None:
        return what
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("openapi"), str) and isinstance(doc.get("paths"), dict):
        return "an OpenAPI document"
    if "swagger" in doc and isinstance(doc.get("paths"), dict):
        return "a Swagger document"
    tools = doc.get("tools")
    if "version" in doc and isinstance(tools, list) and tools and all(
            isinstance(t, dict) and isinstance(t.get("tool"), str) for t in tools):
        return "a tool descriptor manifest"
    if _tools_only(doc):
        return "a tool descriptor manifest" if "version" in doc else "a tools/list result"
    result = doc.get("result")
    if doc.get("jsonrpc") == "2.0" and "method" not in doc and _tools_only(result):
        return "a tools/list response"
    return None


def _tools_only(doc: Any) -> bool:
    """A ``{"tools": [...]}`` listing whose other keys hold plain values (a cursor, a
    time to live) or name the server that listed them (``server_info``,
    ``capabilities``), not messages or contents: a snapshot, not a request body."""
    if not isinstance(doc, dict) or not (_listing(doc.get("tools")) or doc.get("tools") == []):
        return False
    return all(k in _BESIDE_TOOLS or not isinstance(v, (list, dict))
               for k, v in doc.items())


#: what a snapshot keeps beside its tools: the server that listed them
_BESIDE_TOOLS = frozenset({"tools", "_meta", "server_info", "serverInfo", "server",
                           "capabilities"})


def tool_definition(source: SourceFile) -> str | None:
    """What tool definition the file holds (``an MCP tool``, ``an OpenAPI document`` …),
    or None when it is no such document (or cannot be read as one: the adapters then
    say why)."""
    head = source.head.removeprefix(_BOM).lstrip()
    if source.size > LIMITS["contract_bytes"].value:
        return None
    try:
        if head[:1] in (b"{", b"["):
            gate = _JSON_GATE if source.size <= _LIST_BYTES else _API_GATE
            if not gate.search(head):
                return None
            return shape(load_document(source))
        if _YAML_GATE.search(head):
            return shape(load_yaml(source))
    except (InputError, ValueError, RecursionError):
        return None
    return None


def tool_definition_error(source: SourceFile, what: str) -> InputError:
    """The refusal of a tool-definition file named on its own (``TOOL_DEFINITION``)."""
    return InputError(f"{source.display}: {what}, not a trace", code="TOOL_DEFINITION",
                      hint=TOOL_DEFINITION_HINT + f" {source.display}", file=source.display)
