"""Small value helpers shared by the adapters that read chat-style messages.

Sources hand us loosely typed JSON: an object may be missing or be some other type,
message content is a string or a list of typed blocks, a tool's output may be JSON held
in a string, and images or audio may be inlined as long base64 strings. These helpers
read such values the same way in every adapter:

- ``obj``: a JSON object, or an empty one (so ``.get`` chains never fail);
- ``text_of``: the text of a message content (a string, or its text blocks joined);
- ``single_text`` / ``tool_output``: a tool result as the model sees it (a list holding
  one text block reduced to its text; JSON in a string decoded);
- ``call_arguments``: the arguments of an OpenAI-style ``function`` object, decoded;
- ``tool_error``: the error a tool result reports, as an event's ``error``;
- ``omit_media``: inline base64 payloads replaced by a short placeholder.
"""

from __future__ import annotations

import re
from typing import Any

from ._decode import maybe_json

__all__ = ["TEXT_BLOCK", "call_arguments", "obj", "omit_media", "single_text", "text_of",
           "tool_error", "tool_output"]

TEXT_BLOCK = ("text",)  # the type of a text block in Chat Completions and most logs
_MEDIA_MIN = 256  # base64 payloads shorter than this are kept as they are
_BARE_MIN = 1024  # a bare base64 string (no type, no data: prefix) must be this long
_MEDIA_KEYS = ("data", "b64_json", "result")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def text_of(content: Any) -> str | None:
    """The text of a message content: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        texts = [t for t in parts if isinstance(t, str)]
        return "\n".join(texts) if texts else None
    return None


def single_text(value: Any, types: tuple[str, ...] = TEXT_BLOCK) -> Any:
    """A list holding a single text block (of one of ``types``) reduced to its text;
    any other value as it is."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict) \
            and value[0].get("type") in types and isinstance(value[0].get("text"), str):
        return value[0]["text"]
    return value


def tool_output(value: Any) -> Any:
    """A tool result as the model holds it: a single text block reduced to its text,
    JSON in a string decoded."""
    return maybe_json(single_text(value))


def call_arguments(function: Any) -> Any:
    """The arguments of a tool call's ``function`` object (``{name, arguments}``), JSON
    text decoded; ``{}`` when it gives none (a tool that takes no arguments)."""
    args = maybe_json(obj(function).get("arguments"))
    return {} if args in (None, "") else args


def tool_error(err: Any) -> dict[str, Any] | None:
    """The error a tool result reports: a ``{type, message}`` object (Inspect's
    ``ToolCallError``) as its code and message, any other value that is not empty as
    the message; None when it reports none."""
    if isinstance(err, dict) and (err.get("message") or err.get("type")):
        return {k: v for k, v in (("code", err.get("type")), ("message", err.get("message")))
                if v is not None}
    return {"message": str(err)} if err else None


def omit_media(value: Any) -> Any:
    """``value`` with inline base64 media (images, audio, documents) replaced by a short
    placeholder naming its type and size, so events stay small and searchable."""
    if isinstance(value, list):
        return [omit_media(v) for v in value]
    if isinstance(value, dict):
        out = {k: omit_media(v) for k, v in value.items()}
        data = value.get("data")
        if value.get("type") == "base64" and isinstance(data, str):
            if len(data) >= _MEDIA_MIN:
                out["data"] = f"«base64 {value.get('media_type') or 'data'}: {len(data)} chars»"
            return out
        for key in _MEDIA_KEYS:  # bare base64: generated images, audio output
            v = value.get(key)
            if isinstance(v, str) and len(v) >= _BARE_MIN and _BASE64.fullmatch(v):
                out[key] = f"«base64 {value.get('format') or 'data'}: {len(v)} chars»"
        return out
    if isinstance(value, str) and value.startswith("data:") and len(value) >= _MEDIA_MIN:
        head, sep, data = value.partition(";base64,")
        if sep:
            return f"«base64 {head[5:] or 'data'}: {len(data)} chars»"
    return value
