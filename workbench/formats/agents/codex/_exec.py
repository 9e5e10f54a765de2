"""Adapter ``codex-exec``: the JSONL events ``codex exec --json`` prints.

``thread.started`` (the thread id), then per prompt ``turn.started`` … ``turn.completed``
(with the turn's token usage) or ``turn.failed``, and between them ``item.started`` /
``item.updated`` / ``item.completed`` carrying one thread item each: ``agent_message``,
``reasoning``, ``command_execution`` (command, aggregated output, exit code, status),
``file_change``, ``mcp_tool_call`` (server, tool, arguments, result, error),
``collab_tool_call``, ``web_search``, ``todo_list``, ``plan``, ``error``; and ``error``
lines. An item seen several times (started, updated, completed; the same ``id`` within a
turn) is one event holding its last state.

Each turn is an ``agent`` event; each run of reasoning and agent messages one
``llm_call`` under it (the stream states no request boundaries: a tool item ends a run);
each tool item a ``tool_call`` under the run before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....model import InvalidTraceError
from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid
from ..._decode import maybe_json
from ..._pairing import UNANSWERED, add_flag, derived_id
from ..._values import obj
from .._transcript import Transcript, exit_status
from ._lines import head_objects, read_lines

__all__ = ["CODEX_EXEC", "CodexExecAdapter"]

_TYPES = frozenset({"thread.started", "turn.started", "turn.completed", "turn.failed",
                    "item.started", "item.updated", "item.completed"})
_TOOLS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search",
                    "collab_tool_call"})
_MODEL = frozenset({"agent_message", "reasoning"})
_STATUS = {"completed": "ok", "failed": "error", "declined": "error", "in_progress": "unset"}


class CodexExecAdapter:
    """``codex exec --json`` event streams."""

    name = "codex-exec"
    file_order = True

    def sniff(self, source: SourceFile) -> int:
        found = any(rec is not None and rec.get("type") in _TYPES
                    for rec in head_objects(source))
        return 95 if found else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        yield from read_lines(source, ExecStream(source))


CODEX_EXEC = CodexExecAdapter()


class ExecStream:
    """The events of one ``codex exec --json`` output, one trace."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.t = Transcript(derived_id(source.sha256, "codex-exec"))
        self.turns = 0
        self.turn: RawEvent | None = None
        self.step: RawEvent | None = None  # the run of model output being read
        self.items: dict[tuple[int, str], tuple[RawEvent, int | None]] = {}
        self.threads: list[str] = []

    def add(self, n: int, rec: Any) -> None:
        if type(rec) is not dict or not isinstance(rec.get("type"), str):
            raise invalid(self.source, f"line {n} is not a codex exec event (an object "
                          "with a type)", line=n)
        t = rec["type"]
        if t == "thread.started":
            tid = rec.get("thread_id")
            if isinstance(tid, str) and tid and tid not in self.threads:
                self.threads.append(tid)
                if len(self.threads) == 1 and not self.t.events:
                    self.t.trace_id = self.t.info.trace_id = tid
        elif t == "turn.started":
            self.turns += 1
            self.step = None
            self.turn = self.t.add("agent", "codex exec", None, f"turn-{self.turns}")
        elif t in ("turn.completed", "turn.failed"):
            self.turn_end(n, rec)
        elif t.startswith("item."):
            item = rec.get("item")
            if type(item) is not dict:
                raise invalid(self.source, f"line {n}: {t} without an item object", line=n)
            self.item(n, item)
        elif t == "error":
            self.t.add("error", "error", None, f"e{n}", parent=self.parent(), status="error",
                       error={"message": str(rec.get("message"))})
        else:
            self.t.add("other", t, None, f"e{n}", parent=self.parent(),
                       result={k: v for k, v in rec.items() if k != "type"})

    def parent(self) -> str | None:
        return self.turn.event_id if self.turn is not None else None

    def turn_end(self, n: int, rec: dict[str, Any]) -> None:
        turn = self.turn or self.t.add("agent", "codex exec", None, f"turn-end-{n}")
        usage = rec.get("usage")
        if isinstance(usage, dict):
            turn.attrs["codex.usage"] = usage
            for key in ("input_tokens", "output_tokens"):
                if isinstance(usage.get(key), int):
                    turn.attrs[f"gen_ai.usage.{key}"] = usage[key]
        if rec["type"] == "turn.failed":
            turn.status = "error"
            turn.error = {"message": str(obj(rec.get("error")).get("message", rec.get("error")))}
        else:
            turn.status = "ok"
        self.turn = self.step = None

    def item(self, n: int, item: dict[str, Any]) -> None:
        typ = str(item.get("type"))
        iid = item.get("id")
        key = (self.turns, iid) if isinstance(iid, str) and iid else None
        seen = self.items.get(key) if key else None
        if seen is not None:
            if seen[1] is not None:
                seen[0].result["messages"][seen[1]] = item
            else:
                fill(seen[0], item)
            return
        index: int | None = None
        if typ in _MODEL:
            if self.step is None:
                self.step = self.t.add("llm_call", "assistant", None, f"step-{n}",
                                       parent=self.parent(), status="ok",
                                       result={"messages": []})
            ev = self.step
            index = len(ev.result["messages"])
            ev.result["messages"].append(item)
        elif typ in _TOOLS:
            parent = self.step.event_id if self.step is not None else self.parent()
            ev = self.t.add("tool_call", typ, iid, f"item-{n}", parent=parent)
            self.step = None
            fill(ev, item)
        elif typ == "todo_list":
            ev = self.t.add("state", "todo_list", iid, f"item-{n}", parent=self.parent())
            fill(ev, item)
        elif typ == "error":
            ev = self.t.add("error", "error", iid, f"item-{n}", parent=self.parent(),
                            status="error", error={"message": str(item.get("message"))})
        else:
            ev = self.t.add("other", typ, iid, f"item-{n}", parent=self.parent())
            fill(ev, item)
        if key:
            self.items[key] = (ev, index)

    def finish(self) -> Iterator[RawEvent | TraceInfo]:
        if not self.t.events:
            raise InvalidTraceError(f"{self.source.display}: no turns or items in the file",
                                    file=self.source.display)
        for ev in self.t.events:
            if ev.kind == "tool_call" and ev.status == "unset":
                add_flag(ev, UNANSWERED)
        if len(self.threads) > 1:
            self.t.info.attrs["codex.thread_ids"] = self.threads
        yield from self.t.finish("codex", prompts=False)


def fill(ev: RawEvent, item: dict[str, Any]) -> None:
    """Set ``ev`` from the latest state of its item."""
    typ = item.get("type")
    rest = {k: v for k, v in item.items() if k not in ("id", "type")}
    status = _STATUS.get(str(item.get("status")), "unset")
    if typ == "command_execution":
        ev.args = {"command": item.get("command")}
        ev.result = item.get("aggregated_output")
        code = item.get("exit_code")
        by_code, err = exit_status(code)
        if status != "unset" and by_code != "unset":
            status = by_code if status == "ok" else "error"
        ev.error = None if status != "error" else {
            "message": str(item.get("aggregated_output") or item.get("status")),
            **(err or ({"details": {"exit_code": code}} if code is not None else {}))}
        if item.get("status") == "declined":
            ev.error = {"code": "declined", "message": "the command was declined"}
    elif typ == "file_change":
        ev.args = {"changes": item.get("changes")}
        ev.error = {"message": "the patch failed"} if status == "error" else None
    elif typ == "mcp_tool_call":
        ev.name = str(item.get("tool") or "")
        ev.args = maybe_json(item.get("arguments"))
        ev.result = item.get("result")
        ev.attrs["codex.mcp_server"] = item.get("server")
        err = item.get("error")
        ev.error = {"message": str(obj(err).get("message", err))} if err else None
        if err and status != "unset":
            status = "error"
    elif typ == "web_search":
        ev.args = {k: item.get(k) for k in ("query", "action") if k in item}
        status = "ok"  # the item is complete when seen; it has no status of its own
    elif typ == "collab_tool_call":
        ev.name = str(item.get("tool") or "collab_tool_call")
        ev.args = {k: item.get(k) for k in ("prompt", "sender_thread_id",
                                             "receiver_thread_ids") if k in item}
        ev.result = item.get("agents_states")
    else:  # todo_list, plan and items this reader does not know: as they are
        ev.result = rest
        return
    ev.status = status
    if isinstance(item.get("id"), str):
        ev.attrs["codex.item_id"] = item["id"]
    ev.attrs["codex.item_status"] = item.get("status")
