"""Adapter ``atif``: Agent Trajectory Interchange Format (Harbor's ``trajectory.json``).

One JSON object: ``schema_version`` (``"ATIF-v1.0"`` to ``"ATIF-v1.7"``), ``session_id``,
``agent`` (name, version, model, tool definitions), ``steps`` (each from ``system``,
``user`` or ``agent``: a message, the agent's reasoning, tool calls and the observation
results paired with them by ``source_call_id``, token metrics), ``final_metrics``,
``notes``, ``extra``; since v1.7 embedded ``subagent_trajectories`` resolved by
``trajectory_id``. Claude Code, Codex, OpenHands, Gemini CLI, mini-swe-agent and
Terminus runs are exported to it by Harbor.

- a ``system`` or ``user`` step is a ``message``; an ``agent`` step an ``llm_call``
  (``other`` named ``dispatch`` when ``llm_call_count`` is 0: no model ran);
- each tool call is a ``tool_call`` under its step, holding its observation result;
- a result naming no call is ``unmatched``; results without ``source_call_id`` pair in
  order with the step's open calls when they are as many, else each is an ``other``
  event named ``observation`` under the step;
- a ``subagent_trajectory_ref`` is an ``agent`` event under the call (or observation) it
  came with; an embedded sub-agent's steps hang under it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid, malformed
from ..._decode import load_document
from ..._pairing import derived_id
from ..._values import obj, text_of
from ._steps import HINT, AtifWalk, usage_attrs

__all__ = ["ATIF", "AtifAdapter"]

_START = re.compile(rb"^\s*\{")
_VERSION = re.compile(rb'"schema_version"\s*:\s*"ATIF-v\d')
_STEPS = (re.compile(rb'"steps"\s*:\s*\['), re.compile(rb'"step_id"\s*:\s*\d'),
          re.compile(rb'"source"\s*:\s*"(?:user|agent|system)"'))
_MAJOR = re.compile(r"^ATIF-v(\d+)\.(\d+)$")
_TOTALS = (("total_prompt_tokens", "gen_ai.usage.input_tokens"),
           ("total_completion_tokens", "gen_ai.usage.output_tokens"),
           ("total_cached_tokens", "gen_ai.usage.cache_read.input_tokens"))
_ROOT = frozenset({"schema_version", "session_id", "trajectory_id", "agent", "steps",
                   "notes", "final_metrics", "continued_trajectory_ref", "extra",
                   "subagent_trajectories"})


class AtifAdapter:
    """ATIF trajectories, v1.0 to v1.7."""

    name = "atif"
    file_order = True  # steps are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _START.match(head) is None:
            return 0
        if _VERSION.search(head):
            return 98  # the format names itself
        return 60 if all(p.search(head) for p in _STEPS) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        if type(doc) is not dict:
            raise invalid(source, "not an ATIF trajectory: expected a JSON object "
                          f"(got {type(doc).__name__})", hint=HINT)
        version = doc.get("schema_version")
        found = _MAJOR.match(version) if isinstance(version, str) else None
        if version is not None and (found is None or found.group(1) != "1"):
            raise invalid(source, f"schema_version {version!r} is not an ATIF 1.x version",
                          hint="this reader knows ATIF-v1.0 to ATIF-v1.7 (later 1.x "
                          "versions are read as 1.7)")
        tid = derived_id(source.sha256, "atif")
        with malformed(source, "the trajectory", hint=HINT):
            events = AtifWalk(tid, source).read(doc)
            info = _trace_info(tid, doc)
        if not events:
            raise invalid(source, "no steps in the trajectory", hint=HINT)
        yield info
        yield from events


ATIF = AtifAdapter()


def _trace_info(tid: str, doc: dict[str, Any]) -> TraceInfo:
    agent = obj(doc.get("agent"))
    task = None
    for step in doc.get("steps") or []:
        step = obj(step)
        if step.get("source") == "user" and not step.get("is_copied_context"):
            text = text_of(step.get("message"))
            if text and text.strip():
                task = text
                break
    tools = agent.get("tool_definitions")
    versions: dict[str, Any] = {}
    if agent.get("name") is not None or agent.get("version") is not None:
        versions["agent"] = {k: agent[k] for k in ("name", "version") if k in agent}
    if isinstance(agent.get("model_name"), str):
        versions["model"] = agent["model_name"]
    attrs: dict[str, Any] = {}
    for key in ("schema_version", "session_id", "trajectory_id", "notes",
                "continued_trajectory_ref", "extra", "final_metrics"):
        if doc.get(key) is not None:
            attrs[f"atif.{key}"] = doc[key]
    rest = {k: v for k, v in agent.items() if k != "tool_definitions"}
    if rest:
        attrs["atif.agent"] = rest
    attrs.update(usage_attrs(obj(doc.get("final_metrics")), _TOTALS))
    for key, value in doc.items():
        if key not in _ROOT:
            attrs[f"atif.{key}"] = value
    return TraceInfo(trace_id=tid, root_task=task,
                     tools=tools if isinstance(tools, list) else [], versions=versions,
                     attrs=attrs)
