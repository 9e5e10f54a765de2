"""The events of one Inspect AI sample (``samples[i].events``) as workbench events.

- ``span_begin`` / ``span_end`` (same ``id``) -> one event: ``agent`` for spans of type
  ``solver``, ``agent`` or ``handoff``, ``other`` otherwise (``init``, ``tool``,
  ``scorer`` ...), from begin to end. Older logs' ``step`` begin/end pairs alike.
- ``model`` -> ``llm_call``; ``tool`` -> ``tool_call``; ``sample_init``, ``state``,
  ``store`` -> ``state``; ``score`` -> ``receipt``; ``error`` -> ``error``; anything
  else (``sandbox``, ``info``, ``logger``, ``input``, ``approval`` ...) -> ``other``.
- Parents are the source's: an event's ``span_id`` (a ``span_begin``'s ``parent_id``),
  else the innermost open ``step``, else the event whose nested ``events`` held it.
- ``attachment://<hash>`` references are replaced by the sample's attachment text.
"""

from __future__ import annotations

from typing import Any

from ..._adapter import RawEvent
from ..._decode import maybe_json, parse_time_ns
from ..._pairing import UNANSWERED, UNMATCHED, add_flag
from ..._values import obj, tool_error, tool_output

__all__ = ["SampleEvents", "resolve"]

_AGENT_SPANS = frozenset({"solver", "agent", "handoff"})
_COMMON = frozenset({"event", "timestamp", "completed", "span_id", "uuid", "pending"})
_USED: dict[str, frozenset[str]] = {
    "model": frozenset({"model", "input", "output", "tools", "config", "error"}),
    "tool": frozenset({"id", "function", "arguments", "result", "error", "events"}),
    "sample_init": frozenset({"sample", "state"}),
    "state": frozenset({"changes"}), "store": frozenset({"changes"}),
    "score": frozenset({"score", "target"}),
    "error": frozenset({"error"}),
    "sandbox": frozenset({"action", "cmd", "options", "file", "input", "result", "output"}),
    "info": frozenset({"data"}), "logger": frozenset({"message"}),
}
_KIND = {"model": "llm_call", "tool": "tool_call", "sample_init": "state", "state": "state",
         "store": "state", "score": "receipt", "error": "error"}


def resolve(value: Any, attachments: dict[str, Any]) -> Any:
    """``value`` with every ``attachment://<hash>`` string replaced by its text."""
    if isinstance(value, str):
        if value.startswith("attachment://"):
            return attachments.get(value[len("attachment://"):], value)
        return value
    if isinstance(value, list):
        return [resolve(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, attachments) for k, v in value.items()}
    return value


class SampleEvents:
    """Maps one sample's event list; ``events`` holds the result in recording order."""

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self.events: list[RawEvent] = []
        self.tools: dict[str, Any] = {}  # tool definitions the model was offered, by name
        self._spans: dict[str, RawEvent] = {}
        self._steps: list[tuple[str, RawEvent]] = []
        self._tool_spans: list[RawEvent] = []  # ``tool`` spans not yet tied to a tool event
        self._used: set[str] = set()
        self._n = 0

    def add_all(self, items: list[Any], parent: str | None = None) -> None:
        for item in items:
            if type(item) is dict:
                self.add(item, parent)

    def _id(self, own: Any, fallback: str) -> str:
        eid = own if isinstance(own, str) and own and own not in self._used else fallback
        while eid in self._used:
            eid += "'"
        self._used.add(eid)
        return eid

    def add(self, e: dict[str, Any], outer: str | None = None) -> None:
        self._n += 1
        etype = str(e.get("event") or "")
        start = parse_time_ns(e.get("timestamp"))
        if etype == "span_end":
            span = self._spans.get(str(e.get("id")))
            if span is not None:
                span.end_ns = start
                return
        elif etype == "step" and e.get("action") == "end":
            for i in range(len(self._steps) - 1, -1, -1):
                if self._steps[i][0] == str(e.get("name")):
                    self._steps[i][1].end_ns = start
                    del self._steps[i:]
                    return
        parent = e.get("span_id") if isinstance(e.get("span_id"), str) else None
        if parent is None and self._steps:
            parent = self._steps[-1][1].event_id
        parent = parent or outer
        if etype == "span_begin" or (etype == "step" and e.get("action") != "end"):
            self._span(e, etype, start, parent)
            return
        ev = RawEvent(self.trace_id, self._id(e.get("uuid"), f"e{self._n}"), parent,
                      _KIND.get(etype, "other"), etype or "event", start_ns=start,
                      end_ns=parse_time_ns(e.get("completed")))
        if etype == "model":
            self._model(ev, e)
        elif etype == "tool":
            self._tool(ev, e)
        else:
            self._plain(ev, etype, e)
        used = _USED.get(etype, frozenset())
        ev.attrs.update({f"inspect.{k}": v for k, v in e.items()
                         if k not in _COMMON and k not in used and v is not None})
        if e.get("pending"):
            ev.attrs["inspect.pending"] = True
        self.events.append(ev)
        nested = e.get("events")
        if etype in ("tool", "subtask") and isinstance(nested, list):
            self.add_all(nested, ev.event_id)

    def _span(self, e: dict[str, Any], etype: str, start: int | None,
              parent: str | None) -> None:
        kind = "agent" if e.get("type") in _AGENT_SPANS else "other"
        name = str(e.get("name") or e.get("type") or etype)
        if etype == "span_begin":
            sid = e.get("id")
            own_parent = e.get("parent_id")
            parent = own_parent if isinstance(own_parent, str) and own_parent else None
            if parent is None and e.get("span_id") != sid:
                parent = e.get("span_id") if isinstance(e.get("span_id"), str) else None
            ev = RawEvent(self.trace_id, self._id(sid, f"e{self._n}"), parent, kind, name,
                          start_ns=start)
            if isinstance(sid, str):
                self._spans[sid] = ev
            if e.get("type") == "tool":
                self._tool_spans.append(ev)
        else:
            ev = RawEvent(self.trace_id, self._id(None, f"step{self._n}"), parent, kind, name,
                          start_ns=start)
            self._steps.append((str(e.get("name")), ev))
        if e.get("type") is not None:
            ev.attrs["inspect.span_type"] = e["type"]
        if etype == "step":
            ev.attrs["inspect.step"] = True
        self.events.append(ev)

    def _model(self, ev: RawEvent, e: dict[str, Any]) -> None:
        output = obj(e.get("output"))
        tools = e.get("tools")
        tools = tools if isinstance(tools, list) else []
        for t in tools:
            if type(t) is dict and isinstance(t.get("name"), str):
                self.tools.setdefault(t["name"], t)
        ev.name = str(e.get("model") or output.get("model") or "assistant")
        ev.args = {"messages": e.get("input"), "params": e.get("config"),
                   "tools": [t.get("name") if type(t) is dict else t for t in tools]}
        choices = [c for c in output.get("choices") or [] if type(c) is dict]
        ev.result = {"messages": [c.get("message") for c in choices],
                     "finish_reasons": [c.get("stop_reason") for c in choices]}
        for key, value in (("gen_ai.request.model", e.get("model")),
                           ("gen_ai.response.model", output.get("model"))):
            if value:
                ev.attrs[key] = value
        usage = output.get("usage")
        if type(usage) is dict:
            for ours, theirs in (("input_tokens", "input_tokens"),
                                 ("output_tokens", "output_tokens")):
                if isinstance(usage.get(theirs), int):
                    ev.attrs[f"gen_ai.usage.{ours}"] = usage[theirs]
            ev.attrs["inspect.usage"] = usage
        rest = {k: v for k, v in output.items()
                if k not in ("model", "choices", "usage") and v is not None}
        if rest:
            ev.attrs["inspect.output"] = rest
        err = e.get("error") or output.get("error")
        if err:
            ev.status, ev.error = "error", {"message": str(err)}
        elif choices:
            ev.status = "ok"

    def _tool(self, ev: RawEvent, e: dict[str, Any]) -> None:
        ev.event_id = self._retag(ev.event_id, e.get("id"))
        ev.name = str(e.get("function") or "")
        ev.args = maybe_json(e.get("arguments"))
        if e.get("id") is not None:
            ev.attrs["inspect.tool_call_id"] = e["id"]
        self._tie(ev)
        if "result" in e:
            ev.result = tool_output(e.get("result"))
        ev.error = tool_error(e.get("error"))
        if ev.error is not None:
            ev.status = "error"
        elif e.get("pending") or ("result" not in e and e.get("completed") is None):
            add_flag(ev, UNANSWERED)
        else:
            ev.status = "ok"

    def _tie(self, ev: RawEvent) -> None:
        """Cross-link a tool event and the span its tool ran in: the earliest untied
        ``tool`` span of the same name under the same parent (Inspect writes the span
        just before the event; the event does not name it)."""
        for i, span in enumerate(self._tool_spans):
            if span.name == ev.name and span.parent_id == ev.parent_id:
                del self._tool_spans[i]
                ev.attrs["inspect.tool_span_id"] = span.event_id
                span.attrs["inspect.tool_event_id"] = ev.event_id
                return

    def _retag(self, positional: str, own: Any) -> str:
        """A tool event keeps its call id as its event id when that is free."""
        if isinstance(own, str) and own and own not in self._used:
            self._used.discard(positional)
            self._used.add(own)
            return own
        return positional

    def _plain(self, ev: RawEvent, etype: str, e: dict[str, Any]) -> None:
        if etype == "sample_init":
            ev.result = {"sample": e.get("sample"), "state": e.get("state")}
        elif etype in ("state", "store"):
            ev.result = e.get("changes")
        elif etype == "score":
            ev.args = {"target": e.get("target")} if "target" in e else None
            ev.result, ev.status = e.get("score"), "ok"
        elif etype == "error":
            err = obj(e.get("error")) or {"message": e.get("error")}
            ev.status = "error"
            ev.error = {"message": str(err.get("message") or "error")}
            if err.get("traceback"):
                ev.error["details"] = {"traceback": err["traceback"]}
        elif etype == "sandbox":
            ev.name = f"sandbox.{e.get('action') or 'call'}"
            ev.args = {k: e[k] for k in ("cmd", "options", "file", "input") if k in e}
            ev.result = {k: e[k] for k in ("result", "output") if k in e}
            code = e.get("result")
            if isinstance(code, int) and not isinstance(code, bool):
                ev.status = "ok" if code == 0 else "error"
                if code:
                    ev.error = {"code": f"EXIT_{code}", "message": f"exit status {code}"}
        elif etype == "info":
            ev.result = e.get("data")
        elif etype == "logger":
            ev.result = e.get("message")
        if etype in ("span_end", "step"):  # an end whose begin is not in the sample
            add_flag(ev, UNMATCHED)
