"""``shape``'s reading of an answer: the schema declared for the answer's media type, and
what it is held to — the body, or each item of a stream (an SSE event's data, an NDJSON
line). An answer whose media type declares no schema is not judged, and why is said.

- The answer's media type is its ``Content-Type`` without parameters; an answer without
  one is read as JSON (recorders that keep no headers). A declared media type matches
  exactly, then a JSON answer (``…/json``, ``…+json``) takes the first JSON media type
  declared, then ``type/*`` and ``*/*``.
- A text/event-stream answer (its events, as the HTTP adapters keep them) is judged
  event by event: with a ``schema`` (how OpenAI's document declares its streams) each
  event's data is; an event whose data is not JSON (the ``[DONE]`` sentinel, a
  keep-alive) or that has no data is not. With OpenAPI 3.2's ``itemSchema`` the event
  itself is (``data`` as its text), and its decoded data by the ``contentSchema`` of
  ``data``.
- NDJSON / JSON Lines / JSON text sequences: each non-empty line (record) is one item.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model import JSONDecodeError, dumps
from ..model import loads as json_loads
from ._http import Exchange
from ._openapi import Media, Operation
from ._validate import Complaint, complaints

__all__ = ["Refusal", "refusals"]

_JSON = re.compile(r"^[^/]+/([^/]*\+)?json$")
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True, slots=True)
class Refusal:
    """One way the answer breaks its schema: the complaint at its first occurrence, the
    value it was about (the body, or the item) with the path inside it, and in how many
    of the stream's items it occurs (1 for a whole body)."""

    complaint: Complaint
    value: Any
    inside: str
    count: int = 1
    items: int = 1


def _essence(ctype: str | None) -> str:
    return (ctype or "").split(";")[0].strip().lower()


def _pick(declared: Mapping[str, Media], name: str) -> Media | None:
    if name in declared:
        return declared[name]
    if _JSON.match(name):
        hit = next((m for n, m in declared.items() if _JSON.match(n)), None)
        if hit is not None:
            return hit
    return declared.get(name.split("/")[0] + "/*") or declared.get("*/*")


def _items(media: Media, name: str, body: Any) -> list[tuple[str, Any, Any]] | None:
    """(path, value, schema) of each value judged; None: the body is not a stream of
    that media type as recorded."""
    if not media.items:
        return [("body", body, media.schema)]
    if name == "text/event-stream":
        events = body.get("events") if isinstance(body, dict) else None
        if not isinstance(events, list):
            return None
        out: list[tuple[str, Any, Any]] = []
        for i, ev in enumerate(events):
            if not isinstance(ev, dict) or "data" not in ev:
                continue
            data, at = ev["data"], f"body.events[{i}]"
            if media.event:
                out.append((at, {**ev, "data": data if isinstance(data, str) else dumps(data)},
                            media.schema))
                if media.data is not None and not isinstance(data, str):
                    out.append((f"{at}.data", data, media.data))
            elif not isinstance(data, str):
                out.append((f"{at}.data", data, media.schema))
        return out
    if not isinstance(body, str):
        return [("body[0]", body, media.schema)]  # one line, decoded when recorded
    lines = [t for t in re.split(r"[\n\x1e]", body) if t.strip()]
    out = []
    for i, line in enumerate(lines):
        try:
            value: Any = json_loads(line)
        except JSONDecodeError:
            value = line
        out.append((f"body[{i}]", value, media.schema))
    return out


def refusals(op: Operation, x: Exchange) -> tuple[list[Refusal], str | None]:
    """How the answer breaks the schema of its media type, or why it was not judged."""
    declared = op.answer_media(x.status or 0)
    name = _essence(x.header("content-type", True)) or "application/json"
    if not declared:
        return [], "its status declares no body schema"
    media = _pick(declared, name)
    if media is None:
        return [], f"no schema declared for {name} answers"
    items = _items(media, name, x.resp_body)
    if items is None:
        return [], f"a {name} answer whose body was not recorded as a stream"
    if not items:
        return [], f"a {name} answer with no item to judge (no event data is JSON)"
    first: dict[tuple[str, str], Refusal] = {}
    where: dict[tuple[str, str], set[str]] = {}
    for at, value, schema in items:
        for c in complaints(schema, value, at):
            key = (_INDEX.sub("[]", c.at) if media.items else c.at, c.keyword)
            first.setdefault(key, Refusal(c, value, c.at[len(at):]))
            where.setdefault(key, set()).add(at)
    return [Refusal(r.complaint, r.value, r.inside, len(where[k]), len(items))
            for k, r in first.items()], None
