"""Adapter ``openhands``: OpenHands event streams (saved trajectories).

The file is a JSON array of events, each ``{id, timestamp, source, message}`` plus either
``action`` and ``args`` or ``observation``, ``content``, ``extras`` and ``cause`` (the id
of the action it answers). Agent actions carry ``tool_call_metadata`` with the model's
whole response.

- a tool action (``run``, ``read``, ``edit``, ``browse``, ``ipython``, ``finish``,
  ``delegate`` ...) and the observation whose ``cause`` names it are one ``tool_call``;
  the model response it came from is one ``llm_call`` (shared by the calls of one
  response), the tool call's parent;
- ``message`` actions are ``message`` events (user, environment) or ``llm_call`` (agent);
  ``system`` is a ``message`` whose ``tools`` are the trace's tools;
  ``change_agent_state`` and cause-less ``agent_state_changed`` observations are ``state``;
- an observation answering one of those is folded into its event
  (``openhands.observations``); one whose cause is no action of the file is kept as a
  ``tool_call`` flagged ``unmatched``, its ``cause`` kept as its parent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid, malformed
from ..._decode import load_document, parse_time_ns
from ..._pairing import UNMATCHED, CallPairer, add_flag, derived_id, under_prompts
from ..._values import obj
from ._events import (
    fill_model,
    fill_result,
    llm_from_response,
    observation_note,
    report_event,
    tool_args,
)

__all__ = ["OPENHANDS", "OpenHandsAdapter"]

_START = re.compile(rb"^\s*\[\s*\{")
_KEYS = (re.compile(rb'"id"\s*:\s*\d'), re.compile(rb'"timestamp"\s*:\s*"'),
         re.compile(rb'"source"\s*:\s*"(?:agent|user|environment)"'),
         re.compile(rb'"(?:action|observation)"\s*:\s*"'))

_HINT = ("an OpenHands trajectory is a JSON array of events with 'id', 'source' and "
         "'action' or 'observation'")
_STATE = frozenset({"change_agent_state", "null"})
_UNOBSERVED = frozenset({"finish", "reject"})  # OpenHands never answers these


class OpenHandsAdapter:
    """OpenHands event-stream JSON (a list of actions and observations)."""

    name = "openhands"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _START.match(head) and all(p.search(head) for p in _KEYS):
            return 90
        return 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        if not isinstance(doc, list):
            raise invalid(source, "not an OpenHands event stream: expected a JSON array of "
                          f"events (got {type(doc).__name__})", hint=_HINT)
        tid = derived_id(source.sha256, "openhands")
        with malformed(source, "the event stream", hint=_HINT):
            events, info = _Stream(tid, source).convert(doc)
        if not events:
            raise invalid(source, "no events in the file", hint=_HINT)
        yield info
        yield from events


OPENHANDS = OpenHandsAdapter()


class _Stream:
    def __init__(self, tid: str, source: SourceFile) -> None:
        self.tid, self.source = tid, source
        self.slots: list[RawEvent | None] = []       # recording order
        self.pairer = CallPairer()                    # tool calls awaiting an observation
        self.quiet: dict[str, RawEvent] = {}          # finish / reject: no answer expected
        self.folding: dict[str, RawEvent] = {}        # messages, state: observations fold in
        self.absorbed: dict[str, str] = {}            # observation id -> its event's id
        self.responses: dict[str, RawEvent] = {}      # model response id -> llm_call
        self.info = TraceInfo(trace_id=tid)

    def convert(self, doc: list[Any]) -> tuple[list[RawEvent], TraceInfo]:
        observations: list[tuple[int, dict[str, Any], str, int | None]] = []
        for i, item in enumerate(doc):
            if type(item) is not dict:
                raise invalid(self.source, f"event {i} is not an object", hint=_HINT)
            eid = str(item["id"]) if item.get("id") is not None else f"e{i}"
            ts = parse_time_ns(item.get("timestamp"))
            if isinstance(item.get("action"), str):
                self._action(item, eid, ts)
            elif "observation" in item:
                self.slots.append(None)
                observations.append((len(self.slots) - 1, item, eid, ts))
            else:
                raise invalid(self.source, f"event {i} has neither 'action' nor "
                              "'observation'", hint=_HINT)
        for slot, obs, eid, ts in observations:  # after every action: causes may come later
            self.slots[slot] = self._observation(obs, eid, ts)
        list(self.pairer.unanswered())  # flags each call still open "unanswered"
        events = [e for e in self.slots if e is not None]
        under_prompts(events)
        return events, self.info

    def _event(self, item: dict[str, Any], eid: str, kind: str, name: str,
               ts: int | None) -> RawEvent:
        ev = RawEvent(trace_id=self.tid, event_id=eid, parent_id=None, kind=kind, name=name,
                      start_ns=ts, end_ns=ts if kind != "tool_call" else None)
        for key in ("source", "timeout", "llm_metrics"):
            if item.get(key) not in (None, "", {}):
                ev.attrs[f"openhands.{key}"] = item[key]
        self.slots.append(ev)
        return ev

    def _action(self, item: dict[str, Any], eid: str, ts: int | None) -> None:
        act, src = item["action"], item.get("source")
        args = obj(item.get("args"))
        tcm = obj(item.get("tool_call_metadata"))
        response = obj(tcm.get("model_response")) or None
        if act == "message" and src == "agent":
            ev = self._event(item, eid, "llm_call", "assistant", ts)
            ev.status = "ok"
            ev.result = {"messages": [{"role": "assistant", "content": args.get("content")}]}
            if response is not None:
                fill_model(ev, response)
                ev.name = str(ev.attrs.get("gen_ai.response.model") or ev.name)
                self.responses.setdefault(str(response.get("id") or eid), ev)
            self.folding[eid] = ev
        elif act in ("message", "system"):
            role = "system" if act == "system" else str(src or "user")
            ev = self._event(item, eid, "message", role, ts)
            ev.result = {"role": role, "content": args.get("content")}
            self.folding[eid] = ev
            if role == "user" and self.info.root_task is None and args.get("content"):
                self.info.root_task = str(args["content"])
            if act == "system":  # the agent's tools and versions
                tools = args.get("tools")
                self.info.tools.extend(tools if isinstance(tools, list) else [])
                self.info.versions.update({k: args[k] for k in ("openhands_version",
                                           "agent_class") if args.get(k)})
        elif act in _STATE:
            ev = self._event(item, eid, "state", act, ts)
            ev.result = {k: v for k, v in args.items() if k != "thought"} or None
            self.folding[eid] = ev
        else:
            self._tool(item, eid, ts, act, args, tcm, response)

    def _tool(self, item: dict[str, Any], eid: str, ts: int | None, act: str,
              args: dict[str, Any], tcm: dict[str, Any], response: dict[str, Any] | None
              ) -> None:
        llm = None
        if response is not None:
            rid = str(response.get("id") or f"{eid}-response")
            llm = self.responses.get(rid)
            if llm is None:
                llm = llm_from_response(self.tid, rid, response, ts)
                self.slots.append(llm)
                self.responses[rid] = llm
                if isinstance(response.get("model"), str):
                    self.info.versions.setdefault("model", response["model"])
        name = tcm.get("function_name")
        ev = self._event(item, eid, "tool_call", str(name) if name else act, ts)
        ev.parent_id = llm.event_id if llm is not None else None
        tool_args(ev, act, args, tcm, response)
        if act in _UNOBSERVED:
            self.quiet[eid] = ev
        else:
            self.pairer.open(eid, ev)

    def _observation(self, obs: dict[str, Any], eid: str, ts: int | None) -> RawEvent | None:
        cause = obs.get("cause")
        kind = obs.get("observation")
        if cause is None:  # not an answer: a state change the environment reported
            return report_event(self.tid, eid, obs, ts)
        key = str(cause)
        call = self.pairer.close(key) or self.quiet.pop(key, None)
        if call is not None:
            fill_result(call, obs, ts)
            self.absorbed[eid] = call.event_id
            return None
        if key in self.folding:
            target = self.folding[key]
            target.attrs.setdefault("openhands.observations", []).append(observation_note(obs))
            self.absorbed[eid] = target.event_id
            return None
        name = obj(obs.get("tool_call_metadata")).get("function_name") or kind or ""
        ev = RawEvent(trace_id=self.tid, event_id=eid, parent_id=self.absorbed.get(key, key),
                      kind="tool_call", name=str(name))
        fill_result(ev, obs, ts)
        add_flag(ev, UNMATCHED)
        return ev
