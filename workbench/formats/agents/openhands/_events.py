"""OpenHands actions and observations as events (the ``openhands`` adapter's helpers)."""

from __future__ import annotations

from typing import Any

from ..._adapter import RawEvent
from ..._decode import maybe_json, parse_time_ns
from ..._values import call_arguments, obj

__all__ = [
    "fill_result",
    "llm_from_response",
    "model_arguments",
    "obs_status",
    "observation_note",
    "report_event",
    "tool_args",
]


def llm_from_response(tid: str, eid: str, response: dict[str, Any],
                      ts: int | None) -> RawEvent:
    """The model turn of an OpenAI-style completion (``tool_call_metadata.model_response``)."""
    choices = [c for c in response.get("choices") or [] if type(c) is dict]
    model = response.get("model")
    # the response arrived by the time its first action was recorded (``ts``); its
    # ``created`` is epoch seconds while OpenHands timestamps are zone-less local time,
    # so it is kept as an attribute, not as a bound
    ev = RawEvent(trace_id=tid, event_id=eid, parent_id=None, kind="llm_call",
                  name=model if isinstance(model, str) and model else "assistant",
                  status="ok", end_ns=ts)
    created = parse_time_ns(response.get("created"))
    if created is not None:
        ev.attrs["openhands.response_created_ns"] = created
    result: dict[str, Any] = {"messages": [c["message"] for c in choices if "message" in c]}
    reasons = [c["finish_reason"] for c in choices if c.get("finish_reason") is not None]
    if reasons:
        result["finish_reasons"] = reasons
    ev.result = result
    fill_model(ev, response)
    return ev


def fill_model(ev: RawEvent, response: dict[str, Any]) -> None:
    """Model name, response id and usage of a completion, into the event's attrs."""
    if isinstance(response.get("model"), str):
        ev.attrs["gen_ai.response.model"] = response["model"]
    if response.get("id") is not None:
        ev.attrs["gen_ai.response.id"] = response["id"]
    usage = obj(response.get("usage"))
    for src, dst in (("prompt_tokens", "input"), ("completion_tokens", "output")):
        if isinstance(usage.get(src), int):
            ev.attrs[f"gen_ai.usage.{dst}_tokens"] = usage[src]


def model_arguments(response: dict[str, Any] | None, call_id: Any) -> Any:
    """The arguments the model gave the tool call ``call_id``, decoded; None if absent."""
    for choice in (response or {}).get("choices") or []:
        for tc in obj(obj(choice).get("message")).get("tool_calls") or []:
            if type(tc) is dict and call_id is not None and tc.get("id") == call_id:
                return call_arguments(tc.get("function"))
    return None


def tool_args(ev: RawEvent, act: str, args: dict[str, Any], tcm: dict[str, Any],
              response: dict[str, Any] | None) -> None:
    """A tool call's arguments: those the model gave it, when its response is in the file
    (the action's own ``args``, OpenHands' reading of them, then go to attrs); else the
    action's ``args``. The ``thought`` that came with the action goes to attrs."""
    own = {k: v for k, v in args.items() if k != "thought"}
    given = model_arguments(response, tcm.get("tool_call_id"))
    ev.args = given if given is not None else {k: maybe_json(v) for k, v in own.items()}
    if given is not None and own:
        ev.attrs["openhands.args"] = own
    ev.attrs["openhands.action"] = act
    if args.get("thought"):
        ev.attrs["openhands.thought"] = args["thought"]
    if tcm.get("tool_call_id") is not None:
        ev.attrs["gen_ai.tool.call.id"] = tcm["tool_call_id"]
    if tcm.get("total_calls_in_response") is not None:
        ev.attrs["openhands.total_calls_in_response"] = tcm["total_calls_in_response"]


def _exit_code(extras: dict[str, Any]) -> Any:
    meta = obj(extras.get("metadata"))
    code = meta.get("exit_code", extras.get("exit_code"))
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def obs_status(obs: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """``error`` for an ``error`` observation, ``success: false`` or a non-zero exit code
    (``-1``: the command had not finished when OpenHands stopped waiting); else ``ok``."""
    extras = obj(obs.get("extras"))
    code = _exit_code(extras)
    content, message = obs.get("content"), obs.get("message")
    text = content if isinstance(content, str) and content.strip() else message
    if obs.get("observation") == "error":
        err: dict[str, Any] = {"message": text if isinstance(text, str) else "error"}
        if isinstance(extras.get("error_id"), str) and extras["error_id"]:
            err["code"] = extras["error_id"]
        return "error", err
    if obs.get("success") is False or (code is not None and code != 0):
        fallback = f"exit code {code}" if code is not None else "success: false"
        err = {"message": message if isinstance(message, str) and message else fallback}
        if code is not None:
            err["details"] = {"exit_code": code}
        return "error", err
    return "ok", None


def fill_result(ev: RawEvent, obs: dict[str, Any], ts: int | None) -> None:
    """Complete a tool call with the observation that answers it."""
    ev.result = maybe_json(obs.get("content"))
    ev.end_ns = ts
    ev.status, ev.error = obs_status(obs)
    ev.attrs["openhands.observation"] = obs.get("observation")
    if obs.get("id") is not None:
        ev.attrs["openhands.observation_id"] = obs["id"]
    extras = obj(obs.get("extras"))
    if extras:
        ev.attrs["openhands.extras"] = extras
    code = _exit_code(extras)
    if code is not None:
        ev.attrs["openhands.exit_code"] = code
    for key in ("message", "success"):
        if obs.get(key) not in (None, ""):
            ev.attrs[f"openhands.observation_{key}"] = obs[key]


def observation_note(obs: dict[str, Any]) -> dict[str, Any]:
    """An observation folded into the event of the action it answers (a message, a state
    change): what it said, kept in that event's ``openhands.observations``."""
    note = {"id": obs.get("id"), "observation": obs.get("observation")}
    for key in ("message", "content", "extras"):
        if obs.get(key) not in (None, "", {}):
            note[key] = obs[key]
    return note


def report_event(tid: str, eid: str, obs: dict[str, Any], ts: int | None) -> RawEvent:
    """An observation answering no action (``agent_state_changed``): a ``state`` event,
    or ``other`` for any other kind."""
    kind = obs.get("observation")
    ev = RawEvent(trace_id=tid, event_id=eid, parent_id=None,
                  kind="state" if kind == "agent_state_changed" else "other",
                  name=str(kind or ""), start_ns=ts, end_ns=ts,
                  result=obj(obs.get("extras")) or maybe_json(obs.get("content")))
    for key in ("source", "message"):
        if obs.get(key) not in (None, ""):
            ev.attrs[f"openhands.{key}"] = obs[key]
    return ev
