"""Trace-level facts gathered from mapped OTel spans.

``TraceFacts`` collects what the spans say about their trace (models, providers,
tool definitions, the root task, resources) and yields one ``TraceInfo`` per trace;
``user_task`` finds the first user message in a prompt-like value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...model import dumps
from .._adapter import RawEvent, TraceInfo
from .._decode import maybe_json
from ._value import SpanScope

__all__ = ["TraceFacts", "user_task"]


def _text_of(m: dict[str, Any]) -> str | None:
    c = m.get("content", m.get("parts"))
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        texts = []
        for p in c:
            if isinstance(p, str):
                texts.append(p)
            elif type(p) is dict and p.get("type", "text") in ("text", "input_text"):
                t = p.get("text", p.get("content"))
                if isinstance(t, str):
                    texts.append(t)
        return "\n".join(texts) or None
    return None


def user_task(value: Any) -> str | None:
    """The first user message's text in a prompt-like value (a message list, a
    ``{"messages": ...}`` or ``{"prompt": ...}`` object, an ADK ``new_message``)."""
    value = maybe_json(value)
    if isinstance(value, list):
        for m in value:
            if type(m) is dict and (m.get("role") in ("user", "human")
                                    or m.get("type") == "human"):
                t = _text_of(m)
                if t and t.strip():
                    return t.strip()
        return None
    if type(value) is dict:
        if isinstance(value.get("prompt"), str):
            return value["prompt"].strip() or None
        for key in ("messages", "contents", "new_message"):
            if key in value:
                return user_task(value[key] if key != "new_message" else [value[key]])
        if value.get("role") in ("user", "human"):
            return user_task([value])
    return None


def _tool_key(t: Any) -> str:
    if type(t) is dict:
        n = t.get("name")
        if n is None and type(t.get("function")) is dict:
            n = t["function"].get("name")
        if isinstance(n, str):
            return n
    return dumps(t)


@dataclass(slots=True)
class _Facts:
    models: dict[Any, None] = field(default_factory=dict)
    providers: dict[Any, None] = field(default_factory=dict)
    tools: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)
    task: str | None = None
    task_rank: int = 9


_PROVIDER_KEYS = ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
_MODEL_KEYS = ("gen_ai.request.model", "gen_ai.response.model", "llm.model_name")


class TraceFacts:
    """What the spans of a file say about their traces; ``infos()`` yields one
    ``TraceInfo`` per trace, in order of first appearance."""

    def __init__(self) -> None:
        self._facts: dict[str, _Facts] = {}

    def add(self, ev: RawEvent, scope: SpanScope | None) -> None:
        f = self._facts.get(ev.trace_id)
        if f is None:
            f = self._facts[ev.trace_id] = _Facts()
        if scope is not None and scope.resource_key is not None \
                and scope.resource_key not in f.resources:
            f.resources[scope.resource_key] = scope.resource or {}
        kind = ev.kind
        if kind != "llm_call" and kind != "agent":
            return
        a = ev.attrs
        for k in _PROVIDER_KEYS:
            v = a.get(k)
            if type(v) is str:
                f.providers[v] = None
                break
        for k in _MODEL_KEYS:
            v = a.get(k)
            if type(v) is str:
                f.models[v] = None
        if kind == "llm_call":
            if type(ev.args) is dict and ev.args.get("tools"):
                self.add_tools(ev.trace_id, ev.args["tools"])
            if f.task_rank > 2:
                self._task(f, 2, ev.args.get("messages") if type(ev.args) is dict else None)
        else:
            defs = a.get("gen_ai.tool.definitions")
            if defs is not None:
                d = maybe_json(defs)
                self.add_tools(ev.trace_id, d if isinstance(d, list) else [d])
            rank = 0 if ev.parent_id is None else 1
            if f.task_rank > rank:
                self._task(f, rank, ev.args)

    def _task(self, f: _Facts, rank: int, value: Any) -> None:
        t = user_task(value) if value is not None else None
        if t:
            f.task, f.task_rank = t, rank

    def add_tools(self, trace_id: str, tools: list[Any]) -> None:
        f = self._facts.setdefault(trace_id, _Facts())
        for t in tools:
            f.tools.setdefault(_tool_key(t), t)

    def infos(self) -> Iterator[TraceInfo]:
        for tid, f in self._facts.items():
            versions: dict[str, Any] = {}
            if f.models:
                versions["models"] = list(f.models)
            if f.providers:
                versions["providers"] = list(f.providers)
            resources = list(f.resources.values())
            for r in resources:
                sdk = {k[len("telemetry.sdk."):]: v for k, v in r.items()
                       if k.startswith("telemetry.sdk.")}
                if sdk:
                    versions["sdk"] = sdk
                    break
            for r in resources:
                if r.get("service.name") is not None:
                    svc = {"name": r["service.name"]}
                    if r.get("service.version") is not None:
                        svc["version"] = r["service.version"]
                    versions["service"] = svc
                    break
            if not (f.task or f.tools or versions or resources):
                continue
            yield TraceInfo(trace_id=tid, root_task=f.task, tools=list(f.tools.values()),
                            versions=versions,
                            attrs={"resources": resources} if resources else {})
