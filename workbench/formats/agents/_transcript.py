"""The event list one agent session file becomes, shared by the Codex and Gemini CLI
adapters: events in recording order, ids unique in the trace, calls paired with their
results by key (``CallPairer``), results whose call is not in the file kept and flagged
``unmatched``, calls never answered flagged ``unanswered``, model turns hung under the
prompt of their turn (``under_prompts``)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from .._adapter import RawEvent, TraceInfo
from .._pairing import UNMATCHED, CallPairer, add_flag, under_prompts, unique_id

__all__ = ["Transcript", "exit_status"]


class Transcript:
    """One trace being built from a session file."""

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self.info = TraceInfo(trace_id)
        self.events: list[RawEvent] = []
        self.ids: set[str] = set()
        self.pairer = CallPairer()
        self.skipped: dict[str, int] = {}

    def unique(self, preferred: Any, fallback: str) -> str:
        """``preferred`` when it is a string not yet used in the trace, else ``fallback``;
        a taken id gets ``-2``, ``-3``."""
        return unique_id(self.ids, preferred, fallback)

    def add(self, kind: str, name: str, eid: Any, fallback: str, **fields: Any) -> RawEvent:
        """A new event, appended in recording order."""
        ev = RawEvent(trace_id=self.trace_id, event_id=self.unique(eid, fallback),
                      parent_id=fields.pop("parent", None), kind=kind, name=name, **fields)
        self.events.append(ev)
        return ev

    def call(self, key: Hashable, name: str, eid: Any, fallback: str, **fields: Any) -> RawEvent:
        """A tool call that awaits its result under ``key``."""
        ev = self.add("tool_call", name, eid, fallback, **fields)
        self.pairer.open(key, ev)
        return ev

    def answer(self, key: Hashable, fallback: str, **fields: Any) -> RawEvent:
        """The call open under ``key``, now answered; a result with no open call is kept
        as a ``tool_call`` of its own (name ``""``), flagged ``unmatched``."""
        ev = self.pairer.close(key)
        if ev is None:
            eid = key[-1] if isinstance(key, tuple) and key else None
            ev = self.add("tool_call", "", eid, fallback, **fields)
            add_flag(ev, UNMATCHED)
        return ev

    def skip(self, what: str) -> None:
        """Count a record not turned into an event (``<format>.skipped`` on the trace)."""
        self.skipped[what] = self.skipped.get(what, 0) + 1

    def finish(self, fmt: str, *, prompts: bool = True) -> Iterator[RawEvent | TraceInfo]:
        """The trace's metadata, then its events; open calls flagged ``unanswered``;
        with ``prompts``, model turns without a parent hung under their turn's prompt."""
        list(self.pairer.unanswered())
        if prompts:
            under_prompts(self.events)
        if self.skipped:
            self.info.attrs[f"{fmt}.skipped"] = dict(sorted(self.skipped.items()))
        yield self.info
        yield from self.events


def exit_status(code: Any) -> tuple[str, dict[str, Any] | None]:
    """``("ok", None)`` for exit code 0; ``("error", {"details": {"exit_code": n}})`` for
    any other integer; ``("unset", None)`` when there is none."""
    if isinstance(code, int) and not isinstance(code, bool):
        return ("ok", None) if code == 0 else ("error", {"details": {"exit_code": code}})
    return "unset", None
