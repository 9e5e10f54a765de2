"""Pairing shared by the transcript, trajectory and log adapters.

Sources split one tool call in two (Anthropic ``tool_use`` / ``tool_result``, OpenAI
``tool_calls`` / ``role: tool``, MCP request / response, an action and its observation).
The model holds one event per call, so adapters open an event when the call appears and
complete it when its result does, whatever order results arrive in. What is never
answered, and results naming no call, are kept and flagged (``attrs["workbench.flags"]``):

- ``unanswered``: a call whose result never came; its status stays ``unset``;
- ``unmatched``: a result whose call is not in the source (an unknown id); kept as an
  event of its own so nothing the source recorded is lost.

Sources with no ids of their own get ids derived from the file's content
(``derived_id``), so ingesting the same file twice gives the same ids.

Turns (``under_prompts``): a chat or agent source states no containment between a user
prompt and the model calls answering it, yet the prompt is their cause. A model call
the source gives no parent is the child of the user prompt that opened its turn; the
order of the messages stays in ``seq``.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Iterator
from typing import Any

from ..model import FLAGS_KEY
from ._adapter import RawEvent

__all__ = ["UNANSWERED", "UNMATCHED", "CallPairer", "add_flag", "derived_id", "under_prompts",
           "unique_id"]

UNANSWERED = "unanswered"
UNMATCHED = "unmatched"


def under_prompts(events: Iterable[RawEvent]) -> None:
    """Each ``llm_call`` without a parent becomes the child of the latest user prompt
    (a ``message`` named ``user``) before it in ``events`` (recording order); parents
    the source gave are kept, and a model call before any prompt stays a root."""
    prompt: str | None = None
    for ev in events:
        if ev.kind == "message" and ev.name == "user":
            prompt = ev.event_id
        elif ev.kind == "llm_call" and ev.parent_id is None and prompt is not None:
            ev.parent_id = prompt


def add_flag(event: RawEvent, flag: str) -> None:
    """Add ``flag`` to the event's ``workbench.flags`` (once)."""
    flags = event.attrs.get(FLAGS_KEY)
    if not isinstance(flags, list):
        flags = []
    if flag not in flags:
        event.attrs[FLAGS_KEY] = [*flags, flag]


def derived_id(*parts: object, length: int = 32) -> str:
    """A stable lower-case hex id from ``parts`` (e.g. the source's sha256 and a
    session name): 32 digits for a trace id, 16 for an event id."""
    text = json.dumps([str(p) for p in parts], ensure_ascii=True)  # unambiguous joining
    h = hashlib.sha256(text.encode("ascii"))
    return h.hexdigest()[:length]


def unique_id(taken: set[str], preferred: Any, fallback: str) -> str:
    """``preferred`` when it is a string not yet in ``taken``, else ``fallback``; a taken
    id gets ``-2``, ``-3`` … The id is added to ``taken``."""
    base = preferred if isinstance(preferred, str) and preferred else fallback
    eid, n = base, 1
    while eid in taken:
        n += 1
        eid = f"{base}-{n}"
    taken.add(eid)
    return eid


class CallPairer:
    """Open calls by key, completed by their results in any order.

    A key seen again while its first call is still open (tau-bench reuses tool-call
    ids) queues behind it: results then pair with the calls in the order the calls were
    made, which is pairing by position.
    """

    def __init__(self) -> None:
        self._open: OrderedDict[Hashable, list[RawEvent]] = OrderedDict()

    def open(self, key: Hashable, event: RawEvent) -> None:
        """Record ``event`` as a call awaiting the result for ``key``."""
        self._open.setdefault(key, []).append(event)

    def close(self, key: Hashable) -> RawEvent | None:
        """The oldest open call for ``key``, now answered; None if there is none."""
        queue = self._open.get(key)
        if not queue:
            return None
        event = queue.pop(0)
        if not queue:
            del self._open[key]
        return event

    def peek(self, key: Hashable) -> RawEvent | None:
        queue = self._open.get(key)
        return queue[0] if queue else None

    def __contains__(self, key: Hashable) -> bool:
        return bool(self._open.get(key))

    def __len__(self) -> int:
        return sum(len(q) for q in self._open.values())

    def unanswered(self) -> Iterator[RawEvent]:
        """Flag every call still open ``unanswered`` and yield it (in opening order per
        key); the pairer is then empty."""
        for queue in self._open.values():
            for event in queue:
                add_flag(event, UNANSWERED)
                yield event
        self._open.clear()
