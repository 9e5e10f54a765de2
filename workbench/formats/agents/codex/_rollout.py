"""Adapter ``codex``: OpenAI Codex CLI session rollouts (``~/.codex/sessions/**/rollout-*.jsonl``).

One JSON object per line, ``{timestamp, type, payload}``: ``session_meta`` (the session's
id, cwd, CLI version, instructions), ``turn_context`` (the model and policies of the next
request), ``response_item`` (the Responses API items the model saw and said: messages,
reasoning, tool calls and their outputs paired by ``call_id``), ``event_msg`` (what the
CLI showed: token counts, mirrored messages, task and error notices, command ends) and
``compacted``. Rollouts written before the envelope existed open with a bare header
``{id, timestamp, instructions}`` and hold bare items and ``{"record_type": "state"}``
lines; they are read the same way.

A model response is the run of assistant-side items (reasoning, assistant messages,
calls) between input-side ones (user or developer messages, call outputs) and
``turn_context`` lines: one ``llm_call``, parent the user prompt of its turn; each call
in it a ``tool_call``, parent that ``llm_call``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....model import InvalidTraceError
from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid
from ..._decode import parse_time_ns
from ..._pairing import derived_id
from ..._values import text_of
from .._transcript import Transcript
from ._items import (
    CALL_ITEMS,
    OUTPUT_ITEMS,
    call_fields,
    event_status,
    hosted_status,
    output_fields,
)
from ._lines import head_objects, read_lines

__all__ = ["CODEX", "CodexAdapter"]

_ENVELOPE = frozenset({"session_meta", "response_item", "event_msg", "turn_context",
                       "compacted"})
#: event messages that repeat a response item (or the prompt) the file already holds
_MIRRORED = frozenset({"user_message", "agent_message", "agent_reasoning",
                       "agent_reasoning_raw_content", "agent_reasoning_section_break"})
_ERRORS = frozenset({"error", "stream_error"})
#: user messages Codex writes itself (the environment, AGENTS.md), not the user's prompt
_CONTEXT = ("<environment_context", "<user_instructions", "# AGENTS.md instructions",
            "<permissions", "<turn_aborted", "<user_shell_command")


class CodexAdapter:
    """Codex CLI session rollouts."""

    name = "codex"
    file_order = True  # lines are written in the order things happened

    def sniff(self, source: SourceFile) -> int:
        lines = head_objects(source)
        records = [r for r in lines if r is not None]
        if any(r.get("type") in _ENVELOPE and type(r.get("payload")) is dict for r in records):
            return 95
        first = lines[0] if lines else None
        if first is not None and _legacy_header(first) and (
                "instructions" in first or any(r.get("record_type") == "state" for r in records)):
            return 90
        return 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        yield from read_lines(source, Rollout(source))


CODEX = CodexAdapter()


def _legacy_header(rec: dict[str, Any]) -> bool:
    return isinstance(rec.get("id"), str) and "timestamp" in rec and "type" not in rec \
        and "payload" not in rec


class Rollout:
    """The records of one rollout, in file order, becoming one trace."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.t = Transcript(derived_id(source.sha256, "codex"))
        self.meta = False
        self.turn: RawEvent | None = None  # the model response being read
        self.prompt: str | None = None  # the latest user prompt (not Codex's context)
        self.model: str | None = None
        self.turn_id: Any = None
        self.last_total: Any = None
        self.pending: dict[str, Any] | None = None  # a token count before its response
        self.calls: dict[str, RawEvent] = {}

    # -- records ---------------------------------------------------------------------------
    def add(self, n: int, rec: Any) -> None:
        if type(rec) is not dict:
            raise invalid(self.source, f"line {n} is not a JSON object")
        if n == 1 and _legacy_header(rec):
            rec = {"timestamp": rec.get("timestamp"), "type": "session_meta", "payload": rec}
        elif rec.get("record_type") == "state":
            self.t.skip("state")
            return
        elif "payload" not in rec and isinstance(rec.get("type"), str) \
                and rec["type"] not in _ENVELOPE:  # a bare item of an older rollout
            rec = {"timestamp": rec.get("timestamp"), "type": "response_item", "payload": rec}
        typ, payload = rec.get("type"), rec.get("payload")
        if not isinstance(typ, str) or type(payload) is not dict:
            raise invalid(self.source, f"line {n} is not a Codex rollout line "
                          "({timestamp, type, payload})", line=n)
        ts = parse_time_ns(rec.get("timestamp"))
        if typ == "session_meta":
            self.session_meta(payload)
        elif typ == "turn_context":
            self.turn_context(payload)
        elif typ == "response_item":
            self.response_item(n, payload, ts)
        elif typ == "event_msg":
            self.event_msg(n, payload, ts)
        elif typ == "compacted":
            self.close()
            self.other(n, "compacted", payload, ts)
        else:
            self.t.skip(typ)

    def session_meta(self, p: dict[str, Any]) -> None:
        info = self.t.info
        if self.meta:  # a resumed or forked session repeats its origin's
            info.attrs.setdefault("codex.more_session_meta", []).append(p.get("id"))
            return
        self.meta = True
        if isinstance(p.get("id"), str) and p["id"] and not self.t.events:
            self.t.trace_id = info.trace_id = p["id"]
        for k, v in p.items():
            if k == "cli_version" and isinstance(v, str):
                info.versions["codex"] = v
            elif k != "id" and v is not None:
                info.attrs[f"codex.{k}"] = v

    def turn_context(self, p: dict[str, Any]) -> None:
        self.close()
        if isinstance(p.get("model"), str) and p["model"]:
            self.model = p["model"]
            self.t.info.versions.setdefault("model", self.model)
        self.turn_id = p.get("turn_id")
        self.t.info.attrs.setdefault("codex.turn_context", p)

    def response_item(self, n: int, p: dict[str, Any], ts: int | None) -> None:
        t = p.get("type")
        if t == "message" and p.get("role") != "assistant":
            self.close()
            self.message(n, p, ts)
        elif t in ("message", "reasoning"):
            self.open(n, p, ts)
        elif t in CALL_ITEMS:
            self.call(n, p, ts)
        elif t in OUTPUT_ITEMS:
            self.close()
            self.output(n, p, ts)
        else:
            self.close()
            self.other(n, str(t), p, ts)

    def message(self, n: int, p: dict[str, Any], ts: int | None) -> None:
        role = str(p.get("role") or "user")
        content = p.get("content")
        text = text_of(content) or ""
        ev = self.t.add("message", role, p.get("id"), f"m{n}", start_ns=ts, end_ns=ts,
                        result={"role": role, "content": content})
        if role == "user" and text.lstrip().startswith(_CONTEXT):
            ev.attrs["codex.context"] = True
        elif role == "user":
            self.prompt = ev.event_id
            if self.t.info.root_task is None and text:
                self.t.info.root_task = text
        for k, v in p.items():
            if k not in ("type", "role", "content", "id") and v is not None:
                ev.attrs[f"codex.{k}"] = v

    def open(self, n: int, p: dict[str, Any], ts: int | None) -> RawEvent:
        """The model response ``p`` belongs to (a new one when none is open)."""
        if self.turn is None:
            attrs: dict[str, Any] = {}
            if self.model:
                attrs["gen_ai.request.model"] = self.model
            if self.turn_id is not None:
                attrs["codex.turn_id"] = self.turn_id
            self.turn = self.t.add("llm_call", self.model or "assistant", None, f"m{n}",
                                   parent=self.prompt, status="ok", start_ns=ts, end_ns=ts,
                                   result={"messages": []}, attrs=attrs)
            if self.pending is not None:
                self.turn.attrs.update(self.pending)
                self.pending = None
        if ts is not None:
            self.turn.end_ns = ts
        self.turn.result["messages"].append(p)
        return self.turn

    def close(self) -> None:
        self.turn = None

    def call(self, n: int, p: dict[str, Any], ts: int | None) -> None:
        turn = self.open(n, p, ts)
        name, args, attrs = call_fields(p)
        cid = p.get("call_id")
        if isinstance(cid, str) and cid:
            ev = self.t.call(("call", cid), name, cid, f"m{n}-call", parent=turn.event_id,
                             args=args, start_ns=ts, attrs=attrs)
            self.calls.setdefault(cid, ev)
            return
        status = hosted_status(p)  # a hosted call arrives complete
        self.t.add("tool_call", name, p.get("id"), f"m{n}-call", parent=turn.event_id,
                   args=args, start_ns=ts, end_ns=ts, status=status, attrs=attrs,
                   result=p.get("result"),
                   error={"message": f"{p.get('type')} {p.get('status')}"}
                   if status == "error" else None)

    def output(self, n: int, p: dict[str, Any], ts: int | None) -> None:
        cid = p.get("call_id")
        key = ("call", cid if isinstance(cid, str) and cid else f"m{n}")
        ev = self.t.answer(key, f"m{n}-output", parent=self.prompt, start_ns=None)
        f = output_fields(p.get("output", p.get("result")))
        ev.result, ev.status, ev.error, ev.end_ns = f["result"], f["status"], f["error"], ts
        ev.attrs.update(f["attrs"])
        if p.get("type") != "function_call_output":
            ev.attrs["codex.output_type"] = p.get("type")
        if isinstance(cid, str) and cid:
            self.calls.setdefault(cid, ev)

    def event_msg(self, n: int, p: dict[str, Any], ts: int | None) -> None:
        t = str(p.get("type"))
        if t in _MIRRORED:
            if t == "user_message" and self.t.info.root_task is None \
                    and isinstance(p.get("message"), str) and p["message"]:
                self.t.info.root_task = p["message"]
            self.t.skip(t)
        elif t == "token_count":
            self.token_count(p)
        elif isinstance(p.get("call_id"), str) and p["call_id"] in self.calls:
            ev = self.calls[p["call_id"]]
            ev.attrs.setdefault("codex.events", []).append(p)
            said = event_status(p)
            if said is not None and (said[0] == "error" or ev.status == "unset"):
                ev.status, ev.error = said
        elif t in _ERRORS:
            self.t.add("error", t, None, f"e{n}", parent=self.prompt, start_ns=ts, end_ns=ts,
                       status="error", error={"message": str(p.get("message"))},
                       attrs={f"codex.{k}": v for k, v in p.items()
                              if k not in ("type", "message") and v is not None})
        else:
            self.other(n, t, p, ts)

    def token_count(self, p: dict[str, Any]) -> None:
        """A request's token usage, on the model response it belongs to: the open one,
        else the next (older rollouts count a request before its items)."""
        info = p.get("info")
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if not isinstance(info, dict) or total == self.last_total:
            self.t.skip("token_count")  # no usage yet, or a repeat of the last count
            return
        self.last_total = total
        usage = info.get("last_token_usage") if isinstance(info.get("last_token_usage"),
                                                             dict) else total
        attrs: dict[str, Any] = {"codex.usage": usage}
        if isinstance(usage, dict):
            for key in ("input_tokens", "output_tokens"):
                if isinstance(usage.get(key), int):
                    attrs[f"gen_ai.usage.{key}"] = usage[key]
        for k in ("rate_limits",):
            if p.get(k) is not None:
                attrs[f"codex.{k}"] = p[k]
        if self.turn is not None and "codex.usage" not in self.turn.attrs:
            self.turn.attrs.update(attrs)
        else:
            if self.pending is not None:
                self.t.skip("token_count")
            self.pending = attrs

    def other(self, n: int, name: str, p: dict[str, Any], ts: int | None) -> None:
        self.t.add("other", name, None, f"e{n}", parent=self.prompt, start_ns=ts, end_ns=ts,
                   result={k: v for k, v in p.items() if k != "type"})

    # -- the end ---------------------------------------------------------------------------
    def finish(self) -> Iterator[RawEvent | TraceInfo]:
        if not self.t.events:
            raise InvalidTraceError(f"{self.source.display}: no Codex messages, model turns "
                                    "or tool calls in the file", file=self.source.display)
        if self.pending is not None:
            self.t.skip("token_count")
        yield from self.t.finish("codex", prompts=False)
