"""Writing ATIF-v1.7: events (store rows) as one Agent Trajectory Interchange Format
document, which the ``atif`` adapter (and Harbor's tools) read back.

- a ``message`` is a ``user`` step (``system`` for system and developer messages,
  ``agent`` for an assistant's);
- an ``llm_call`` is an ``agent`` step: its assistant text, reasoning, model, token
  usage as ``metrics``; its ``tool_call`` children are the step's ``tool_calls`` and
  their results its ``observation`` (``source_call_id`` the call's id); an error's
  status and message go to the result's ``extra``;
- a tool call under no model call is an ``agent`` step of its own with
  ``llm_call_count: 0`` (a deterministic dispatch, v1.7);
- an ``agent`` event is an embedded sub-agent trajectory (``subagent_trajectories``,
  its ``trajectory_id`` the event id) referenced from the result of the call that
  started it, or from a ``system`` step when no call did;
- every other event (HTTP exchanges, state, ...) is a ``system`` step whose ``extra``
  holds it (``{"workbench": {kind, name, status, args, result, error}}``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ....model import dumps, event_dict

__all__ = ["ATIF_VERSION", "atif_rows"]

ATIF_VERSION = "ATIF-v1.7"
_USAGE = (("gen_ai.usage.input_tokens", "prompt_tokens"),
          ("gen_ai.usage.output_tokens", "completion_tokens"),
          ("gen_ai.usage.cache_read.input_tokens", "cached_tokens"))
_METRICS: dict[str, type | tuple[type, ...]] = {"cost_usd": (int, float), "prompt_token_ids": list,
            "completion_token_ids": list, "logprobs": list, "extra": dict}
_TURNS = frozenset({"llm_call"})
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def atif_rows(rows: list[dict[str, Any]], label: str,
              trace: dict[str, Any] | None = None) -> dict[str, Any]:
    """Events (store rows, JSON columns as text) as one ATIF-v1.7 trajectory; ``label``
    (the trace id or fixture) is its ``session_id``; ``trace`` (the traces row, JSON
    columns parsed) names the agent, its model and tools where it knows them."""
    events = [event_dict(r) for r in sorted(rows, key=lambda r: r["seq"])]
    return _Writer(events).document(label, trace or {})


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _iso(ns: Any) -> str | None:
    if not isinstance(ns, int):
        return None
    try:
        t = dt.datetime.fromtimestamp(ns // 1_000_000_000, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns % 1_000_000_000:09d}Z"


def _parts(value: Any) -> bool:
    """Whether ``value`` is a list of ATIF content parts (text, or an image by path)."""
    if not isinstance(value, list) or not value:
        return False
    for p in value:
        if not isinstance(p, dict):
            return False
        if p.get("type") == "text" and set(p) == {"type", "text"} \
                and isinstance(p["text"], str):
            continue
        src = p.get("source")
        if p.get("type") == "image" and set(p) == {"type", "source"} \
                and isinstance(src, dict) and set(src) == {"media_type", "path"} \
                and src["media_type"] in _IMAGE_TYPES and isinstance(src["path"], str):
            continue
        return False
    return True


def _text(value: Any) -> Any:
    """A message or result as ATIF holds it: a string or content parts, else JSON text."""
    if isinstance(value, str) or _parts(value):
        return value
    if value is None:
        return ""
    return dumps(value)


def _content(result: Any) -> Any:
    """The text of a message's ``{"role", "content"}`` result, or of an assistant
    message in ``{"messages": [...]}``."""
    if isinstance(result, dict) and "content" in result and "role" in result:
        return result["content"]
    return result


class _Writer:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.by_id = {e["event_id"]: e for e in events}
        self.children: dict[str | None, list[dict[str, Any]]] = {}
        for e in events:
            self.children.setdefault(e["parent_id"], []).append(e)
        self.owner = {e["event_id"]: self._owner(e) for e in events}
        self.call_ids: set[str] = set()

    def _owner(self, e: dict[str, Any]) -> str | None:
        """The nearest ``agent`` event above ``e`` (its trajectory), None for the root."""
        seen = {e["event_id"]}
        node = self.by_id.get(e["parent_id"]) if e["parent_id"] is not None else None
        while node is not None and node["event_id"] not in seen:
            if node["kind"] == "agent":
                return str(node["event_id"])
            seen.add(node["event_id"])
            node = self.by_id.get(node["parent_id"]) if node["parent_id"] is not None \
                else None
        return None

    def document(self, label: str, trace: dict[str, Any]) -> dict[str, Any]:
        versions = _dict(trace.get("versions"))
        known = _dict(_dict(trace.get("attrs")).get("atif.agent"))
        who = _dict(versions.get("agent"))
        service = _dict(versions.get("service")).get("name")  # an OTel trace's service
        agent: dict[str, Any] = {
            "name": str(known.get("name") or who.get("name") or service
                        or trace.get("source_format") or "unknown"),
            "version": str(known.get("version") or who.get("version") or "unknown")}
        model = versions.get("model")
        if isinstance(model, str) and model:
            agent["model_name"] = model
        tools = [t for t in (_tool(t) for t in trace.get("tools") or []) if t is not None]
        if tools:
            agent["tool_definitions"] = tools
        if isinstance(known.get("extra"), dict):
            agent["extra"] = known["extra"]
        doc = self._trajectory(None, agent)
        doc["session_id"] = label
        doc["notes"] = f"exported by the workbench from {label}"
        return doc

    def _trajectory(self, owner: str | None, agent: dict[str, Any]) -> dict[str, Any]:
        mine = [e for e in self.events if self.owner[e["event_id"]] == owner]
        consumed: set[str] = set()
        steps: list[dict[str, Any]] = []
        subs: list[dict[str, Any]] = []
        refs: dict[str, list[dict[str, Any]]] = {}  # call or observation -> its sub-agents
        for e in mine:
            parent = self.by_id.get(e["parent_id"]) if e["parent_id"] is not None else None
            if e["kind"] == "agent" and parent is not None and self.owner[
                    parent["event_id"]] == owner and (parent["kind"] == "tool_call" or (
                        parent["kind"] == "other" and parent["name"] == "observation")):
                refs.setdefault(parent["event_id"], []).append(self._ref(e))
        for e in mine:
            if e["event_id"] in consumed:
                continue
            kind = e["kind"]
            if kind in _TURNS or (kind == "other" and e["name"] == "dispatch"):
                steps.append(self._turn(e, consumed, refs))
            elif kind == "tool_call":
                consumed.add(e["event_id"])
                steps.append(self._dispatch(e, refs))
            elif kind == "message":
                steps.append(self._message(e, consumed, refs))
            elif kind == "agent":
                ref = self._ref(e)
                if "trajectory_path" not in ref:
                    sub_agent = {"name": e["name"] or "subagent", "version": "unknown"}
                    sub = self._trajectory(e["event_id"], sub_agent)
                    sub["trajectory_id"] = e["event_id"]
                    subs.append(sub)
                if not any(ref in v for v in refs.values()):
                    steps.append(self._step(e, "system", f"sub-agent {e['name']}", {
                        "observation": {"results": [{"subagent_trajectory_ref": [ref]}]}}))
            else:
                steps.append(self._step(e, "system", f"{kind}: {e['name']}", {
                    "extra": {"workbench": {k: e[k] for k in (
                        "kind", "name", "status", "args", "result", "error")}}}))
        for n, step in enumerate(steps, 1):
            step["step_id"] = n
        doc: dict[str, Any] = {"schema_version": ATIF_VERSION, "agent": agent, "steps": steps}
        totals = self._totals(mine)
        totals["total_steps"] = len(steps)
        doc["final_metrics"] = totals
        if subs:
            doc["subagent_trajectories"] = subs
        return doc

    @staticmethod
    def _step(e: dict[str, Any], source: str, message: Any,
              more: dict[str, Any] | None = None) -> dict[str, Any]:
        step: dict[str, Any] = {"step_id": 0, "source": source, "message": _text(message)}
        when = _iso(e["start_ns"])
        if when is not None:
            step["timestamp"] = when
        step.update(more or {})
        extra = e["attrs"].get("atif.extra")
        if isinstance(extra, dict) and "extra" not in step:
            step["extra"] = extra
        return step

    def _ref(self, e: dict[str, Any]) -> dict[str, Any]:
        """The reference to a sub-agent: embedded (``trajectory_id``, the event id) when
        its events are in the trace, else the file the source named."""
        path = e["attrs"].get("atif.trajectory_path")
        if isinstance(path, str) and path and not self.children.get(e["event_id"]):
            ref: dict[str, Any] = {"trajectory_path": path}
        else:
            ref = {"trajectory_id": e["event_id"]}
        sid, extra = e["attrs"].get("atif.session_id"), e["attrs"].get("atif.extra")
        if isinstance(sid, str):
            ref["session_id"] = sid
        if isinstance(extra, dict):
            ref["extra"] = extra
        return ref

    def _message(self, e: dict[str, Any], consumed: set[str],
                 refs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        source = "system" if e["name"] in ("system", "developer") else \
            "agent" if e["name"] in ("assistant", "model", "agent") else "user"
        step = self._step(e, source, _content(e["result"]))
        results = [self._loose(o, consumed, refs) for o in self.children.get(e["event_id"], [])
                   if o["kind"] == "other" and o["name"] == "observation"]
        if results:
            step["observation"] = {"results": results}
        return step

    def _turn(self, e: dict[str, Any], consumed: set[str],
              refs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        consumed.add(e["event_id"])
        msgs = e["result"].get("messages") if isinstance(e["result"], dict) else None
        msg = msgs[0] if isinstance(msgs, list) and msgs and isinstance(msgs[0], dict) \
            else {}
        step = self._step(e, "agent", msg.get("content"))
        attrs = e["attrs"]
        model = attrs.get("gen_ai.request.model") or (e["name"] if e["kind"] in _TURNS
                                                      else None)
        if isinstance(model, str) and model:
            step["model_name"] = model
        if isinstance(msg.get("reasoning_content"), str):
            step["reasoning_content"] = msg["reasoning_content"]
        if e["kind"] not in _TURNS:
            step["llm_call_count"] = 0
        else:
            metrics = self._metrics(attrs)
            if metrics:
                step["metrics"] = metrics
        kids = self.children.get(e["event_id"], [])
        calls = [c for c in kids if c["kind"] == "tool_call"]
        loose = [o for o in kids if o["kind"] == "other" and o["name"] == "observation"]
        self._calls(step, calls, refs, consumed)
        results = [self._loose(o, consumed, refs) for o in loose]
        if results:
            step.setdefault("observation", {"results": []})["results"].extend(results)
        return step

    def _dispatch(self, e: dict[str, Any],
                  refs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        step = self._step(e, "agent", "", {"llm_call_count": 0})
        self._calls(step, [e], refs, set())
        return step

    def _calls(self, step: dict[str, Any], calls: list[dict[str, Any]],
               refs: dict[str, list[dict[str, Any]]], consumed: set[str]) -> None:
        out, results = [], []
        for c in calls:
            consumed.add(c["event_id"])
            cid = c["attrs"].get("gen_ai.tool.call.id")
            cid = cid if isinstance(cid, str) and cid and cid not in self.call_ids \
                else c["event_id"]
            while cid in self.call_ids:
                cid += "'"
            self.call_ids.add(cid)
            args = c["args"]
            call: dict[str, Any] = {
                "tool_call_id": cid, "function_name": c["name"],
                "arguments": args if isinstance(args, dict) else
                ({} if args is None else {"value": args})}
            extra = c["attrs"].get("atif.extra")
            if isinstance(extra, dict):
                call["extra"] = extra
            out.append(call)
            if c["result"] is None and c["status"] == "unset" and c["event_id"] not in refs:
                continue  # never answered
            res: dict[str, Any] = {"source_call_id": cid}
            if c["result"] is not None:
                res["content"] = _text(c["result"])
            if c["status"] == "error":
                err = c["error"] if isinstance(c["error"], dict) else {}
                res["extra"] = {"status": "error", **({"error": err["message"]}
                                                      if isinstance(err.get("message"), str)
                                                      else {})}
            elif c["status"] == "unset":  # a result whose outcome the source did not say
                res["extra"] = {"status": "unset"}
            if c["event_id"] in refs:
                res["subagent_trajectory_ref"] = refs[c["event_id"]]
            results.append(res)
        if out:
            step["tool_calls"] = out
        if results:
            step["observation"] = {"results": results}

    @staticmethod
    def _loose(o: dict[str, Any], consumed: set[str],
               refs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
        """A result naming no call (an ``observation`` event)."""
        consumed.add(o["event_id"])
        res: dict[str, Any] = {}
        if o["result"] is not None:
            res["content"] = _text(o["result"])
        if o["event_id"] in refs:
            res["subagent_trajectory_ref"] = refs[o["event_id"]]
        return res

    @staticmethod
    def _metrics(attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {dst: attrs[src] for src, dst in _USAGE
                               if isinstance(attrs.get(src), int)
                               and not isinstance(attrs[src], bool)}
        more = attrs.get("atif.metrics")
        if isinstance(more, dict):
            for key, types in _METRICS.items():
                if isinstance(more.get(key), types) and not isinstance(more[key], bool):
                    out[key] = more[key]
        return out

    @staticmethod
    def _totals(events: list[dict[str, Any]]) -> dict[str, Any]:
        sums: dict[str, int] = {}
        for e in events:
            if e["kind"] not in _TURNS:
                continue
            for src, dst in _USAGE:
                v = e["attrs"].get(src)
                if isinstance(v, int) and not isinstance(v, bool):
                    sums["total_" + dst] = sums.get("total_" + dst, 0) + v
        return dict(sums)


def _tool(t: Any) -> dict[str, Any] | None:
    """A tool definition in OpenAI's function-calling shape (ATIF's), or None."""
    if not isinstance(t, dict):
        return None
    if t.get("type") == "function" and isinstance(t.get("function"), dict):
        return t
    name = t.get("name")
    if not isinstance(name, str) or not name:
        return None
    fn: dict[str, Any] = {"name": name}
    if isinstance(t.get("description"), str):
        fn["description"] = t["description"]
    schema = t.get("parameters", t.get("input_schema", t.get("inputSchema")))
    if isinstance(schema, dict):
        fn["parameters"] = schema
    return {"type": "function", "function": fn}
