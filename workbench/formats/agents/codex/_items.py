"""What one Codex response item or event message says: a tool call's arguments, its
output and the status the output reports.

Codex keeps the Responses API's items (``function_call`` with ``arguments`` as JSON
text, ``function_call_output`` with ``output`` as text that is often JSON of its own:
``{"output": "...", "metadata": {"exit_code": 1, "duration_seconds": 0.2}}``), plus
its own ``custom_tool_call`` (free-form ``input``: a patch), ``local_shell_call`` and
``web_search_call``. Newer shells answer in plain text that opens with ``Exit code: N``
or holds ``Process exited with code N``; a command the sandbox refused is answered
``failed in sandbox … exit code: N …``.
"""

from __future__ import annotations

import re
from typing import Any

from ..._decode import maybe_json
from ..._values import obj, single_text
from .._transcript import exit_status

__all__ = ["CALL_ITEMS", "OUTPUT_ITEMS", "call_fields", "event_status", "hosted_status",
           "output_fields"]

#: response items that are a tool call, and those that answer one (by ``call_id``)
CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call",
                        "web_search_call", "tool_search_call", "image_generation_call"})
OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output",
                          "tool_search_output", "mcp_tool_call_output"})
_ITEM_STATUS = {"completed": "ok", "failed": "error", "incomplete": "error"}
_EXIT = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)\s*$", re.M)
#: a command the sandbox refused: "failed in sandbox <kind> with execution error: …,
#: exit code: 2, stdout: …, stderr: …"
_SANDBOX = re.compile(r"^failed in sandbox\b(?:[^\n]*?exit code: (-?\d+))?")
_TEXT_ITEMS = ("input_text", "output_text", "text")


def call_fields(item: dict[str, Any]) -> tuple[str, Any, dict[str, Any]]:
    """``(name, args, attrs)`` of a call item."""
    t = str(item.get("type"))
    attrs: dict[str, Any] = {"codex.item_type": t}
    if isinstance(item.get("call_id"), str):
        attrs["gen_ai.tool.call.id"] = item["call_id"]
    for k in ("id", "status"):
        if item.get(k) is not None:
            attrs[f"codex.item_{k}"] = item[k]
    if t == "function_call":
        args = maybe_json(item.get("arguments"))
        return str(item.get("name") or ""), {} if args in (None, "") else args, attrs
    if t == "custom_tool_call":
        return str(item.get("name") or ""), item.get("input"), attrs
    if t == "local_shell_call":
        return "local_shell", item.get("action"), attrs
    return t.removesuffix("_call"), item.get("action", item.get("arguments")), attrs


def hosted_status(item: dict[str, Any]) -> str:
    """The status of a call that arrives complete (``web_search_call``)."""
    return _ITEM_STATUS.get(str(item.get("status")), "unset")


def output_fields(output: Any) -> dict[str, Any]:
    """``result``, ``status``, ``error`` and ``attrs`` of a call from its output."""
    attrs: dict[str, Any] = {}
    status, error = "ok", None
    value = maybe_json(output)
    if isinstance(value, dict) and "output" in value and isinstance(value.get("metadata"), dict):
        attrs["codex.output_metadata"] = value["metadata"]
        status, error = _exit(value["metadata"].get("exit_code"))
        value = maybe_json(value["output"])
    elif isinstance(value, dict) and "content" in value and "success" in value:
        attrs["codex.output_success"] = value["success"]  # an older rollout's payload
        if value["success"] is False:
            status, error = "error", {}
        value = maybe_json(value["content"])
    elif isinstance(value, list):
        value = maybe_json(single_text(value, _TEXT_ITEMS))
    elif isinstance(value, str):
        m = _EXIT.search(value[:2000])
        denied = _SANDBOX.match(value)
        if m:
            status, error = _exit(int(m.group(1)))
        elif denied:
            code = int(denied.group(1)) if denied.group(1) else None
            status, error = "error", {"code": "sandbox"} if code is None else {
                "code": "sandbox", "details": {"exit_code": code}}
    if error is not None:
        text = value if isinstance(value, str) else None
        error = {**({"message": text} if text else {"message": "the tool call failed"}),
                 **error}
    return {"result": value, "status": status, "error": error, "attrs": attrs}


def _exit(code: Any) -> tuple[str, dict[str, Any] | None]:
    status, error = exit_status(code)
    return ("ok", None) if status == "unset" else (status, error)


def event_status(payload: dict[str, Any]) -> tuple[str, dict[str, Any] | None] | None:
    """What an ``exec_command_end`` / ``patch_apply_end`` / ``mcp_tool_call_end`` says of
    its call's outcome, or None when it says nothing."""
    code = payload.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        status, err = exit_status(code)
        text = payload.get("stderr") or payload.get("aggregated_output") or ""
        return status, {"message": str(text) or f"exit code {code}", **err} if err else None
    if payload.get("success") is False:
        return "error", {"message": str(payload.get("stderr") or payload.get("stdout")
                                        or "failed")}
    result = obj(payload.get("result"))
    if "Err" in result:
        return "error", {"message": str(result["Err"])}
    return None
