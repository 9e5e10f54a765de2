"""Adapter ``tau-bench``: tau-bench results files (trajectories with rewards).

tau-bench writes a JSON array of episode records ``{task_id, trial, reward, info,
traj}``; ``traj`` is the OpenAI-style conversation between the agent, the simulated user
and the tools. Each record becomes one trace (id derived from the file's hash, the
task id and the record's position). The messages go through the shared chat mapping
(``_chatlist.ChatList``): tool results pair with their calls by ``tool_call_id``, by
position when tau-bench reuses an id inside an episode. A tool output starting
``Error:`` (how the environment reports a raised exception) makes the call's status
``error``. The
reward becomes a final ``receipt`` event named ``reward``, and the record's ``info``
(ground-truth actions, reward breakdown, user instruction) goes to the trace attrs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ....model import InvalidTraceError
from ..._adapter import RawEvent, SourceFile, TraceInfo, malformed
from ..._decode import load_document
from ..._pairing import derived_id
from ...chat import ChatList

__all__ = ["TAU_BENCH", "TauBenchAdapter"]

_ARRAY_START = re.compile(rb"^\s*\[\s*\{")
_TRAJ = re.compile(rb'"traj"\s*:\s*\[')
_TASK_ID = re.compile(rb'"task_id"\s*:')
_REWARD = re.compile(rb'"reward"\s*:')
_INFO = re.compile(rb'"info"\s*:\s*\{')


class TauBenchAdapter:
    """tau-bench ``[{task_id, reward, info, traj}]`` results files."""

    name = "tau-bench"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _ARRAY_START.match(head) is None:
            return 0
        keyed = _TASK_ID.search(head) is not None and _REWARD.search(head) is not None
        if _TRAJ.search(head) is not None:
            return 90 if keyed else 0
        # a first record whose ``info`` fills the head: the keys before ``traj`` only
        return 60 if keyed and _INFO.search(head) is not None else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        if isinstance(doc, dict) and isinstance(doc.get("traj"), list):
            doc = [doc]  # one record saved on its own
        if not isinstance(doc, list) or not all(
                type(r) is dict and "traj" in r for r in doc):
            raise InvalidTraceError(
                f"{source.display}: not a tau-bench results file: expected a list of "
                "{task_id, reward, info, traj} records", file=source.display)
        if not doc:
            raise InvalidTraceError(f"{source.display}: no episodes in the file",
                                    file=source.display)
        for index, record in enumerate(doc):
            with malformed(source, f"episode {index}"):
                info, events = _episode(record, index, source)
            yield info
            yield from events


TAU_BENCH = TauBenchAdapter()


def _episode(record: dict[str, Any], index: int,
             source: SourceFile) -> tuple[TraceInfo, list[RawEvent]]:
    traj = record.get("traj")
    where = f"episode {index}"
    if not isinstance(traj, list):
        raise InvalidTraceError(f"{source.display}: {where}: traj is not a list",
                                file=source.display)
    task_id = record.get("task_id")
    tid = derived_id(source.sha256, task_id, index)
    events = ChatList(tid, source.display, f"{where}: message", "tau_bench",
                      error_prefix=True).read(traj)
    info = record.get("info")
    info = info if type(info) is dict else ({} if info is None else {"info": info})
    if "reward" in record:
        reward_info = info.get("reward_info")
        result: dict[str, Any] = {"reward": record["reward"]}
        if reward_info is not None:
            result["reward_info"] = reward_info
        events.append(RawEvent(tid, _free_id("reward", events), None, "receipt", "reward",
                               status="ok", result=result))
    if not events:
        raise InvalidTraceError(f"{source.display}: {where} has no messages",
                                file=source.display)
    attrs: dict[str, Any] = {k: record[k] for k in ("task_id", "trial", "reward")
                             if record.get(k) is not None}
    attrs.update({k: v for k, v in record.items()
                  if k not in ("task_id", "trial", "reward", "info", "traj")})
    if info:
        attrs["info"] = info
    return TraceInfo(trace_id=tid, root_task=_root_task(info, traj),
                     attrs={"tau_bench": attrs}), events


def _free_id(want: str, events: list[RawEvent]) -> str:
    used = {e.event_id for e in events}
    while want in used:
        want += "'"
    return want


def _root_task(info: dict[str, Any], traj: list[Any]) -> str | None:
    """The user simulator's instruction (the task of the episode), else the first user
    message."""
    task = info.get("task")
    if type(task) is dict and isinstance(task.get("instruction"), str) \
            and task["instruction"].strip():
        return str(task["instruction"])
    for m in traj:
        if type(m) is dict and m.get("role") == "user" and isinstance(m.get("content"), str):
            return str(m["content"])
    return None
