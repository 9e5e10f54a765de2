"""Adapter ``mini-swe-agent``: mini-SWE-agent trajectories (``*.traj.json``).

One JSON object: ``info`` (``exit_status``, ``submission``, ``model_stats``, ``config``,
``mini_version``), ``messages`` (``{role, content}``, with an ``extra`` object since
v1.x) and ``trajectory_format`` (``mini-swe-agent-1`` up to v1, ``mini-swe-agent-1.1``
from v2.0). The agent runs shell commands:

- v1 and v2 text models: the one fenced ```` ```bash ```` (v2: ````
  ```mswea_bash_command ````) block of an assistant message is the action (v2 lists the
  parsed actions in ``extra.actions``); the next message (``user``, or ``tool``) holding
  ``<returncode>N</returncode>`` and the output, or the timeout notice, is its result;
- v2 tool-calling models: OpenAI ``tool_calls`` and ``role: tool`` results paired by
  ``tool_call_id``.

Each action is a ``tool_call`` (named by the tool, ``bash`` for text actions, args
``{"command"}``) under the assistant turn (``llm_call``); a non-zero return code or a
timeout makes it an ``error``. The final submission (v1: the last ``user`` message, v2:
``role: exit``) completes the action that submitted; other messages are ``message``
events named by their role.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Iterator
from typing import Any

from ..._adapter import RawEvent, SourceFile, TraceInfo, invalid, malformed
from ..._decode import load_document, parse_time_ns
from ..._pairing import UNMATCHED, CallPairer, add_flag, derived_id, under_prompts
from ..._values import call_arguments, obj, text_of, tool_output

__all__ = ["MINI_SWE_AGENT", "MiniSweAgentAdapter"]

_START = re.compile(rb"^\s*\{")
_NAMED = re.compile(rb'"trajectory_format"\s*:\s*"mini-swe-agent')
_INFO = re.compile(rb'^\s*\{\s*"info"\s*:\s*\{')
_MINI = re.compile(rb'"mini_version"\s*:\s*"|"agent_type"\s*:\s*"minisweagent\.')
_HINT = ("a mini-swe-agent trajectory is one JSON object with 'info', 'messages' and "
         "'trajectory_format'")
#: the fenced action of a text model (v1 ``bash``, v2 ``mswea_bash_command``); a fence
#: whose closing backticks were cut at the end of the message still counts
_ACTION = re.compile(r"```(?:bash|mswea_bash_command)[ \t]*\n(.*?)(?:\n```|\n``?\s*\Z|\Z)",
                     re.S)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_OBSERVATION = re.compile(r"\s*(?:<exception>.*?</exception>\s*)?<returncode>", re.S)
_TIMEOUT = re.compile(r"\s*The last command <command>.*?</command> timed out", re.S)
_EXCEPTION = re.compile(r"<exception>(.*?)</exception>", re.S)
_TASK = (re.compile(r"<pr_description>\s*(?:Consider the following PR description:\s*)?"
                    r"(.*?)\s*</pr_description>", re.S),
         re.compile(r"Please solve this issue:\s*(.*?)\n\s*\nYou can execute", re.S))
_TEXT_ACTION = "bash"


class MiniSweAgentAdapter:
    """mini-SWE-agent ``.traj.json`` files (v1 and v2 formats)."""

    name = "mini-swe-agent"
    file_order = True  # messages are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if _START.match(head) is None:
            return 0
        if _NAMED.search(head):
            return 98
        return 95 if _INFO.match(head) and _MINI.search(head) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        doc = load_document(source)
        if type(doc) is not dict or not isinstance(doc.get("messages"), list):
            raise invalid(source, "not a mini-swe-agent trajectory: expected an object "
                          "with a 'messages' list", hint=_HINT)
        tid = derived_id(source.sha256, "mini-swe-agent")
        info = obj(doc.get("info"))
        model = obj(obj(info.get("config")).get("model")).get("model_name")
        model = model if isinstance(model, str) and model else None
        with malformed(source, "the trajectory", hint=_HINT):
            events = _Walk(tid, model, source).read(doc["messages"], info)
            trace = _trace_info(tid, doc, info, model)
        if not events:
            raise invalid(source, "no messages in the trajectory", hint=_HINT)
        yield trace
        yield from events


MINI_SWE_AGENT = MiniSweAgentAdapter()


class _Walk:
    def __init__(self, tid: str, model: str | None, source: SourceFile) -> None:
        self.tid, self.model, self.source = tid, model, source
        self.pairer = CallPairer()
        self.events: list[RawEvent] = []
        self.last_calls: list[RawEvent] = []  # the latest turn's actions

    def read(self, messages: list[Any], info: dict[str, Any]) -> list[RawEvent]:
        ids: Counter[str] = Counter(
            str(obj(c).get("id")) for m in messages
            for c in (obj(m).get("tool_calls") or []) if obj(c).get("id") is not None)
        self.ids = ids
        for i, m in enumerate(messages):
            if type(m) is not dict:
                raise invalid(self.source, f"message {i} is not an object", hint=_HINT)
            role = m.get("role")
            if role == "assistant":
                self._turn(i, m)
            elif role == "tool" or (role == "user" and _is_observation(m)):
                self._observation(i, m)
            elif self._submission(i, m, role, i == len(messages) - 1, info):
                continue
            else:
                name = role if isinstance(role, str) and role else "user"
                ev = RawEvent(trace_id=self.tid, event_id=f"m{i}", parent_id=None,
                              kind="message", name=name,
                              result={"role": name, "content": m.get("content")},
                              start_ns=_time(m))
                _extra_attrs(ev, m)
                self.events.append(ev)
        list(self.pairer.unanswered())  # flags each action never answered
        under_prompts(self.events)
        return self.events

    def _turn(self, i: int, m: dict[str, Any]) -> None:
        extra = obj(m.get("extra"))
        response = obj(extra.get("response"))
        msg = {k: v for k, v in m.items() if k != "extra"}
        ev = RawEvent(trace_id=self.tid, event_id=f"m{i}", parent_id=None, kind="llm_call",
                      name=self.model or str(response.get("model") or "assistant"),
                      status="ok", result={"messages": [msg]}, start_ns=_time(m))
        if self.model:
            ev.attrs["gen_ai.request.model"] = self.model
        for src, dst in (("model", "gen_ai.response.model"), ("id", "gen_ai.response.id")):
            if isinstance(response.get(src), str):
                ev.attrs[dst] = response[src]
        choices = response.get("choices")
        if isinstance(choices, list) and choices:
            reason = obj(choices[0]).get("finish_reason")
            if isinstance(reason, str):
                ev.attrs["gen_ai.response.finish_reasons"] = [reason]
        usage = obj(response.get("usage"))
        for src, dst in (("prompt_tokens", "gen_ai.usage.input_tokens"),
                         ("completion_tokens", "gen_ai.usage.output_tokens")):
            if isinstance(usage.get(src), int):
                ev.attrs[dst] = usage[src]
        cached = obj(usage.get("prompt_tokens_details")).get("cached_tokens")
        if isinstance(cached, int):
            ev.attrs["gen_ai.usage.cache_read.input_tokens"] = cached
        for key, value in extra.items():
            if key not in ("response", "actions", "timestamp"):
                ev.attrs[f"mini_swe_agent.{key}"] = value
        self.events.append(ev)
        self.last_calls = []
        calls = m.get("tool_calls")
        if isinstance(calls, list) and calls:
            for j, call in enumerate(calls):
                call = obj(call)
                cid = call.get("id")
                fn = obj(call.get("function"))
                eid = str(cid) if cid is not None and self.ids[str(cid)] == 1 \
                    else f"m{i}-call{j}"
                tc = RawEvent(trace_id=self.tid, event_id=eid, parent_id=ev.event_id,
                              kind="tool_call", name=str(fn.get("name") or ""),
                              args=call_arguments(fn), start_ns=ev.start_ns)
                if cid is not None:
                    tc.attrs["gen_ai.tool.call.id"] = cid
                self._open(str(cid) if cid is not None else ("pos",), tc)
            return
        actions = extra.get("actions")
        if isinstance(actions, list):
            commands = [obj(a).get("command") for a in actions]
        else:  # v1: exactly one fenced block is an action; none or several, no action
            found = _ACTION.findall(text_of(m.get("content")) or "")
            commands = found if len(found) == 1 else []
        for j, command in enumerate(commands):
            eid = f"m{i}-action" if len(commands) == 1 else f"m{i}-action{j}"
            self._open(("pos",), RawEvent(
                trace_id=self.tid, event_id=eid, parent_id=ev.event_id, kind="tool_call",
                name=_TEXT_ACTION, args={"command": command}, start_ns=ev.start_ns))

    def _open(self, key: Hashable, tc: RawEvent) -> None:
        self.pairer.open(key, tc)
        self.last_calls.append(tc)
        self.events.append(tc)

    def _observation(self, i: int, m: dict[str, Any]) -> None:
        cid = m.get("tool_call_id")
        key: Hashable = str(cid) if cid is not None else ("pos",)
        tc = self.pairer.close(key)
        if tc is None:  # an output no action of the file asked for: kept, flagged
            tc = RawEvent(trace_id=self.tid, event_id=f"m{i}", parent_id=None,
                          kind="tool_call", name="")
            if cid is not None:
                tc.attrs["gen_ai.tool.call.id"] = cid
            add_flag(tc, UNMATCHED)
            self.events.append(tc)
        content = m.get("content")
        text = text_of(content) or ""
        tc.result = tool_output(content)
        extra = obj(m.get("extra"))
        code = extra.get("returncode")
        if not isinstance(code, int):
            found = _RETURNCODE.search(text[:2000])
            code = int(found.group(1)) if found else obj(tc.result).get("returncode")
        tc.status = "ok"
        if isinstance(code, int) and not isinstance(code, bool):
            tc.attrs["mini_swe_agent.returncode"] = code
            if code != 0:
                tc.status = "error"
                tc.error = {"code": "nonzero_exit",
                            "message": f"the command exited with status {code}"}
        if _TIMEOUT.match(text):
            tc.status, tc.error = "error", {"code": "timeout",
                                            "message": "the command timed out"}
        found_exc = _EXCEPTION.search(text[:4000])
        exc = extra.get("exception_info") or (found_exc.group(1) if found_exc else None)
        if exc:
            tc.status = "error"
            tc.error = {"code": (tc.error or {}).get("code", "exception"), "message": exc}
        for key2, value in extra.items():
            if key2 not in ("returncode", "timestamp", "raw_output"):
                tc.attrs[f"mini_swe_agent.{key2}"] = value
        if tc.end_ns is None:
            tc.end_ns = _time(m)

    def _submission(self, i: int, m: dict[str, Any], role: Any, last: bool,
                    info: dict[str, Any]) -> bool:
        """The last message, when the run was submitted by the latest turn's action that
        got no output: it completes that action with the submission."""
        extra = obj(m.get("extra"))
        status = extra.get("exit_status", info.get("exit_status") if last else None)
        open_calls = [c for c in self.last_calls if c.result is None and c.status == "unset"]
        if role not in ("user", "exit") or not last or len(open_calls) != 1 \
                or not isinstance(status, str) or status.lower() != "submitted":
            return False
        tc = open_calls[0]
        self.pairer.close(tc.attrs.get("gen_ai.tool.call.id", ("pos",)))
        tc.result, tc.status = tool_output(m.get("content")), "ok"
        tc.end_ns = _time(m)
        tc.attrs["mini_swe_agent.exit_status"] = status
        tc.attrs["mini_swe_agent.exit_role"] = role
        for key, value in extra.items():
            if key not in ("exit_status", "timestamp"):
                tc.attrs[f"mini_swe_agent.{key}"] = value
        return True


def _is_observation(m: dict[str, Any]) -> bool:
    if isinstance(obj(m.get("extra")).get("returncode"), int):
        return True
    text = text_of(m.get("content")) or ""
    return bool(_OBSERVATION.match(text) or _TIMEOUT.match(text))


def _time(m: dict[str, Any]) -> int | None:
    ts = obj(m.get("extra")).get("timestamp", m.get("timestamp"))
    return parse_time_ns(ts) if isinstance(ts, int | float) else None


def _extra_attrs(ev: RawEvent, m: dict[str, Any]) -> None:
    for key, value in obj(m.get("extra")).items():
        if key != "timestamp":
            ev.attrs[f"mini_swe_agent.{key}"] = value
    for key, value in m.items():
        if key not in ("role", "content", "extra", "timestamp"):
            ev.attrs[f"mini_swe_agent.{key}"] = value


def _trace_info(tid: str, doc: dict[str, Any], info: dict[str, Any],
                model: str | None) -> TraceInfo:
    task = None
    for m in doc["messages"]:
        if type(m) is dict and m.get("role") == "user":
            text = text_of(m.get("content"))
            if text and text.strip():
                task = text
                for pattern in _TASK:
                    found = pattern.search(text)
                    if found:
                        task = found.group(1).strip()
                        break
                break
    attrs: dict[str, Any] = {}
    for key, value in info.items():
        if value not in (None, "", {}, []):
            attrs[f"mini_swe_agent.{key}"] = value
    for key, value in doc.items():
        if key not in ("info", "messages") and value is not None:
            attrs[f"mini_swe_agent.{key}"] = value
    versions: dict[str, Any] = {}
    if model:
        versions["model"] = model
    if isinstance(info.get("mini_version"), str):
        versions["mini-swe-agent"] = info["mini_version"]
    return TraceInfo(trace_id=tid, root_task=task, versions=versions, attrs=attrs)
