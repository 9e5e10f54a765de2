"""Adapter ``swe-agent``: SWE-agent trajectories (``.traj``).

A ``.traj`` file is one JSON object: ``trajectory`` (the steps: ``action``, ``observation``,
``response``, ``thought``, ``execution_time``, ``state``), ``history`` (the chat messages,
with OpenAI-style ``tool_calls`` when the agent used function calling), ``info``
(``exit_status``, ``submission``, ``model_stats``) and ``replay_config``.

The trajectory is the source of truth: each step is one model turn (``llm_call``) and the
action it ran (one ``tool_call``, its child). The history adds the messages before the
first model turn (system prompt, demonstrations, the issue) and, for the step whose
action it repeats (the k-th assistant message, when its ``action`` equals the step's),
the function name, arguments and tool-call id. Its tool messages only repeat the steps'
observations and are not read again. A file with no trajectory (``history`` only) is read
as a message list, tool results paired with their calls by ``tool_call_ids``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid, malformed
from ..._decode import load_document, maybe_json
from ..._pairing import UNANSWERED, add_flag, derived_id, under_prompts
from ..._values import call_arguments, obj, tool_output
from ._messages import (
    SweHistory,
    assistant_event,
    first_assistant,
    get,
    message_event,
    tool_status,
    trace_info,
)

__all__ = ["SWE_AGENT", "SweAgentAdapter"]

_START = re.compile(rb"^\s*\{")
_TRAJ = re.compile(rb'"trajectory"\s*:\s*\[')
_HIST = re.compile(rb'"history"\s*:\s*\[')
_INFO = re.compile(rb'"info"\s*:\s*\{')
_STEP = (re.compile(rb'"observation"\s*:'), re.compile(rb'"(?:thought|response)"\s*:'))
_MSG = (re.compile(rb'"message_type"\s*:\s*"'), re.compile(rb'"agent"\s*:\s*"'),
        re.compile(rb'"role"\s*:\s*"'))
_HINT = ("a SWE-agent .traj file is one JSON object with a 'trajectory' list of steps and "
         "a 'history' list")


class SweAgentAdapter:
    """SWE-agent ``.traj`` trajectories."""

    name = "swe-agent"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _START.match(head) is None:
            return 0
        if _TRAJ.search(head):
            if _HIST.search(head) or _INFO.search(head):
                return 95
            return 85 if all(p.search(head) for p in _STEP) else 0
        if _HIST.search(head) and all(p.search(head) for p in _MSG):
            return 75  # a history-only trajectory: chat messages with SWE-agent's own keys
        return 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        if type(doc) is not dict or not ("trajectory" in doc or "history" in doc):
            raise invalid(source, "not a SWE-agent trajectory: expected an object with "
                          "'trajectory' and 'history'", hint=_HINT)
        steps, history = doc.get("trajectory"), doc.get("history", [])
        for key, value in (("trajectory", steps), ("history", history)):
            if value is not None and not isinstance(value, list):
                raise invalid(source, f"'{key}' is not a list (got {type(value).__name__})",
                              hint=_HINT)
        tid = derived_id(source.sha256, "swe-agent")
        config = maybe_json(doc.get("replay_config"))
        config = config if type(config) is dict else {}
        model = get(config, "agent", "model", "name")
        model = model if isinstance(model, str) and model else None
        with malformed(source, "the trajectory", hint=_HINT):
            if steps:
                events = _step_events(tid, steps, history or [], model, source)
            else:
                events = SweHistory(tid, model, source).read(history or [])
            info = trace_info(tid, doc, config, history or [], model, source)
        if not events:
            raise invalid(source, "no trajectory steps or history messages in the file",
                          hint=_HINT)
        yield info
        yield from events


SWE_AGENT = SweAgentAdapter()


def _step_events(tid: str, steps: list[Any], history: list[Any], model: str | None,
                 source: SourceFile) -> list[RawEvent]:
    start = first_assistant(history)
    events = [message_event(tid, f"m{i}", m, source, i) for i, m in enumerate(history[:start])]
    turns = [m for m in history[start:] if type(m) is dict and m.get("role") == "assistant"]
    calls: list[tuple[int, Any]] = []
    next_turn = 0
    for i, step in enumerate(steps):
        if type(step) is not dict:
            raise invalid(source, f"trajectory step {i} is not an object", hint=_HINT)
        # the first unused assistant message repeating this step's action, if any (one
        # the model had to redo, a format error, is skipped; none: the step stands alone)
        msg = None
        for j in range(next_turn, len(turns)):
            if turns[j].get("action") == step.get("action"):
                msg, next_turn = turns[j], j + 1
                break
        content = step.get("response")
        llm = assistant_event(tid, f"step-{i}", msg or {"role": "assistant",
                                                        "content": content}, model)
        if step.get("thought") not in (None, "", content):
            llm.attrs["swe_agent.thought"] = step["thought"]
        events.append(llm)
        action = step.get("action")
        if not isinstance(action, str) or not action.strip():
            continue
        tcs = msg.get("tool_calls") if msg is not None else None
        tc = tcs[0] if isinstance(tcs, list) and tcs and type(tcs[0]) is dict else None
        calls.append((i, get(tc, "id")))
        ev = RawEvent(trace_id=tid, event_id=f"step-{i}-action", parent_id=llm.event_id,
                      kind="tool_call", name=action.split()[0], args={"command": action})
        if tc is not None:
            fn = obj(tc.get("function"))
            ev.name = str(fn.get("name") or ev.name)
            ev.args = call_arguments(fn)
            ev.attrs["swe_agent.action"] = action
            if tc.get("id") is not None:
                ev.attrs["gen_ai.tool.call.id"] = tc["id"]
        if "observation" in step:
            ev.result = tool_output(step["observation"])
            ev.status, ev.error = tool_status(ev.result)
        else:
            add_flag(ev, UNANSWERED)
        for key in ("execution_time", "state", "extra_info"):
            if step.get(key) not in (None, "", {}):
                ev.attrs[f"swe_agent.{key}"] = maybe_json(step[key])
        events.append(ev)
    _use_call_ids(events, calls)
    under_prompts(events)
    return events


def _use_call_ids(events: list[RawEvent], calls: list[tuple[int, Any]]) -> None:
    """The tool-call ids become event ids when the file has them for every step and
    never reuses one (replayed demonstrations do)."""
    ids = [c for _, c in calls]
    if not ids or not all(isinstance(c, str) and c for c in ids) or len(set(ids)) < len(ids):
        return
    rename = {f"step-{i}-action": c for i, c in calls}
    taken = {e.event_id for e in events}
    if taken & set(ids):
        return
    for e in events:
        e.event_id = rename.get(e.event_id, e.event_id)
