"""What one Claude Code record says, in a transcript line or an Agent SDK message alike:
the Anthropic message and its content blocks, the parent it names, whether it is a
sub-agent's, and the fields left over for attrs. No state: ``_map`` keeps it.
"""

from __future__ import annotations

from typing import Any

from ....model import InvalidTraceError
from ..._adapter import RawEvent, SourceFile
from ..._decode import maybe_json

__all__ = ["CONSUMED", "Link", "bad", "blocks_of", "fill_tool_result", "fill_tool_use",
           "finish_turn", "is_sidechain", "link_of", "llm_details", "record_extras", "text_of"]

#: record fields the mapping reads itself; any other field goes to attrs
CONSUMED = frozenset({
    "type", "uuid", "parentUuid", "sessionId", "session_id", "timestamp", "isSidechain",
    "message", "toolUseResult", "tool_use_result", "parent_tool_use_id", "requestId",
    "agentId", "cwd", "version", "userType", "gitBranch"})

#: a parent link still to resolve: the event itself, a line uuid, a tool_use id, or the
#: sub-agent's spawning Task call (``("task", "")``)
Link = RawEvent | tuple[str, str] | None


def bad(source: SourceFile, where: str, problem: str) -> InvalidTraceError:
    """The error for a record that is not what Claude Code writes."""
    line = int(where[5:]) if where.startswith("line ") else None
    return InvalidTraceError(f"{source.display}: {where}: {problem}", file=source.display,
                             line=line, hint="each line (or list item) must be one Claude Code "
                             "transcript line or Agent SDK message, as Claude Code writes them")


def blocks_of(content: Any, source: SourceFile, where: str) -> list[dict[str, Any]]:
    """A message's content blocks: none for text, an error for anything but blocks."""
    if content is None or isinstance(content, str):
        return []
    if not isinstance(content, list) or not all(type(b) is dict for b in content):
        raise bad(source, where, "message content must be text or a list of content blocks")
    return content


def is_sidechain(rec: dict[str, Any]) -> bool:
    """A sub-agent's line: ``isSidechain`` (transcripts), ``parent_tool_use_id`` (SDK)."""
    p = rec.get("parent_tool_use_id")
    return rec.get("isSidechain") is True or (isinstance(p, str) and p != "")


def link_of(rec: dict[str, Any]) -> Link:
    """The parent a record states: its ``parentUuid``; in an SDK stream, the Task call
    of ``parent_tool_use_id``; for a sub-agent's first line, the Task that spawned it."""
    p = rec.get("parentUuid") or rec.get("logicalParentUuid")  # the latter across a compaction
    if isinstance(p, str) and p:
        return ("uuid", p)
    p = rec.get("parent_tool_use_id")
    if isinstance(p, str) and p:
        return ("tool", p)
    if rec.get("isSidechain") is True:
        return ("task", "")
    return None


def record_extras(rec: dict[str, Any]) -> dict[str, Any]:
    """The record's fields the mapping does not read, as ``claude_code.*`` attrs."""
    return {f"claude_code.{k}": v for k, v in rec.items()
            if k not in CONSUMED and v is not None}


def text_of(content: Any) -> str | None:
    """The text of message content: a string, or the text blocks joined."""
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        parts = [b["text"] for b in content
                 if type(b) is dict and b.get("type") == "text" and isinstance(b.get("text"), str)]
        return "\n".join(parts).strip() or None
    return None


def _output(content: Any) -> Any:
    """A tool result's content: one text block reduced to its text, JSON text decoded."""
    if isinstance(content, list) and len(content) == 1 and type(content[0]) is dict \
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str):
        content = content[0]["text"]
    return maybe_json(content)


def llm_details(msg: dict[str, Any]) -> dict[str, Any]:
    """Model, response id and usage of an Anthropic message, as OTel GenAI attributes."""
    out: dict[str, Any] = {}
    model = msg.get("model")
    if isinstance(model, str) and model:
        out["gen_ai.request.model"] = out["gen_ai.response.model"] = model
    if isinstance(msg.get("id"), str):
        out["gen_ai.response.id"] = msg["id"]
    usage = msg.get("usage")
    if type(usage) is dict:
        out["anthropic.usage"] = usage
        for k in ("input_tokens", "output_tokens"):
            if isinstance(usage.get(k), int):
                out[f"gen_ai.usage.{k}"] = usage[k]
    return out


def finish_turn(ev: RawEvent, merged: dict[str, Any]) -> None:
    """An assistant API message, its lines merged, onto its ``llm_call`` event."""
    model = merged.get("model")
    if isinstance(model, str) and model:
        ev.name = model
    uuids = [u for u in ev.attrs.pop("claude_code.uuids", []) if isinstance(u, str)]
    if len(uuids) > 1:
        ev.attrs["claude_code.uuids"] = uuids
    ev.attrs.update(llm_details(merged))
    ev.result = {"messages": [merged]}
    if merged.get("stop_reason") is not None:
        ev.result["finish_reasons"] = [merged["stop_reason"]]
    if ev.attrs.get("claude_code.isApiErrorMessage") is True:
        ev.status, ev.error = "error", {"message": text_of(merged.get("content")) or "API error"}
    else:
        ev.status = "ok"


def fill_tool_use(ev: RawEvent, block: dict[str, Any]) -> None:
    """A ``tool_use`` block onto its ``tool_call`` event: name, input, id and the rest."""
    tuid = block.get("id")
    ev.name = block["name"] if isinstance(block.get("name"), str) else ""
    ev.args = maybe_json(block.get("input"))
    if isinstance(tuid, str) and tuid:
        ev.attrs["gen_ai.tool.call.id"] = tuid
    ev.attrs.update({f"anthropic.{k}": v for k, v in block.items()
                     if k not in ("type", "id", "name", "input") and v is not None})


def fill_tool_result(ev: RawEvent, rec: dict[str, Any], block: dict[str, Any]) -> None:
    """A ``tool_result`` block, and the record holding it, onto its ``tool_call`` event."""
    content = block.get("content")
    ev.result = _output(content)
    if block.get("is_error") is True:
        ev.status = "error"
        ev.error = {"message": text_of(content) or "tool error"}
    else:
        ev.status = "ok"
    extra = rec.get("toolUseResult", rec.get("tool_use_result"))
    for attr, value in (("claude_code.tool_use_result", extra),
                        ("claude_code.result_uuid", rec.get("uuid")),
                        ("claude_code.agent_id", rec.get("agentId")
                         or (extra.get("agentId") if type(extra) is dict else None))):
        if value is not None:
            ev.attrs[attr] = value
    ev.attrs.update({f"anthropic.{k}": v for k, v in block.items()
                     if k not in ("type", "tool_use_id", "content", "is_error")
                     and v is not None})
    if is_sidechain(rec):
        ev.attrs["claude_code.is_sidechain"] = True
