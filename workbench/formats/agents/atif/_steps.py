"""ATIF steps as events (the ``atif`` adapter's walk over one trajectory and the
sub-agent trajectories it embeds).

Each trajectory's events are made in step order; a sub-agent's events follow the step
whose observation starts it, under an ``agent`` event that is the child of the call (or
observation) that started it. Turns are resolved per trajectory (``under_prompts``), so
a sub-agent's model calls never hang under the parent's prompt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from typing import Any

from ..._adapter import RawEvent, SourceFile, invalid
from ..._decode import parse_time_ns
from ..._pairing import UNMATCHED, CallPairer, add_flag, under_prompts
from ..._values import obj, tool_output

__all__ = ["HINT", "AtifWalk", "usage_attrs"]

HINT = ("an ATIF trajectory is one JSON object with 'schema_version' (\"ATIF-v1.x\"), "
        "'agent' and a 'steps' list")

#: ATIF metric names -> the OpenTelemetry GenAI usage attributes
_USAGE = (("prompt_tokens", "gen_ai.usage.input_tokens"),
          ("completion_tokens", "gen_ai.usage.output_tokens"),
          ("cached_tokens", "gen_ai.usage.cache_read.input_tokens"))
#: step fields read into columns or named attrs; any other field goes to ``atif.<field>``
_STEP_FIELDS = frozenset({"step_id", "timestamp", "source", "model_name", "message",
                          "reasoning_content", "tool_calls", "observation", "metrics",
                          "extra", "reasoning_effort", "llm_call_count",
                          "is_copied_context"})
_POSITION = "by-position"  # attrs note: a result without source_call_id paired in order


def usage_attrs(metrics: dict[str, Any], names: tuple[tuple[str, str], ...] = _USAGE
                ) -> dict[str, Any]:
    """The token counts of a metrics object under their ``gen_ai.usage.*`` names."""
    return {dst: metrics[src] for src, dst in names
            if isinstance(metrics.get(src), int) and not isinstance(metrics[src], bool)}


class AtifWalk:
    """The events of one ATIF document, sub-agents included, in recording order."""

    def __init__(self, tid: str, source: SourceFile) -> None:
        self.tid, self.source = tid, source
        self.taken: set[str] = set()
        self.call_ids: Counter[str] = Counter()

    def read(self, doc: dict[str, Any]) -> list[RawEvent]:
        self._count_ids(doc, 0)
        return self._trajectory(doc, "", None, "the trajectory")

    def _count_ids(self, doc: Any, depth: int) -> None:
        """How often each tool-call id appears in the document (a reused id is no event
        id); embedded sub-agents count too, as their events share the trace."""
        if type(doc) is not dict or depth > 32:
            return
        for step in doc.get("steps") or []:
            for call in obj(step).get("tool_calls") or []:
                cid = obj(call).get("tool_call_id")
                if isinstance(cid, str) and cid:
                    self.call_ids[cid] += 1
        for sub in doc.get("subagent_trajectories") or []:
            self._count_ids(sub, depth + 1)

    def _id(self, wanted: str | None, fallback: str) -> str:
        eid = wanted if wanted and self.call_ids[wanted] == 1 and wanted not in self.taken \
            else fallback
        while eid in self.taken:  # a fallback clashing with a source id
            eid += "'"
        self.taken.add(eid)
        return eid

    def _trajectory(self, doc: dict[str, Any], prefix: str, owner: str | None,
                    where: str) -> list[RawEvent]:
        steps = doc.get("steps")
        if not isinstance(steps, list):
            raise invalid(self.source, f"{where}: 'steps' is not a list "
                          f"(got {type(steps).__name__})", hint=HINT)
        agent = obj(doc.get("agent"))
        model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else None
        embedded: dict[str, dict[str, Any]] = {}
        for sub in doc.get("subagent_trajectories") or []:
            sid = obj(sub).get("trajectory_id")
            if isinstance(sid, str) and sid not in embedded:
                embedded[sid] = sub
        used: set[str] = set()
        own: list[RawEvent] = []      # this trajectory's events (turns resolved on these)
        out: list[list[RawEvent]] = []  # own events and sub-agents' runs, in order
        pairer = CallPairer()
        for i, step in enumerate(steps):
            if type(step) is not dict:
                raise invalid(self.source, f"{where}: step {i} is not an object", hint=HINT)
            made, subs = self._step(step, i, prefix, model, agent, pairer, embedded, used)
            own.extend(made)
            out.append(made)
            for ev, ref, sub_doc in subs:
                out.append(self._subagent(ev, ref, sub_doc, prefix, where))
        list(pairer.unanswered())  # flags each call never answered
        for sid, sub_doc in embedded.items():  # embedded but never referenced: kept
            if sid not in used:
                out.append(self._subagent(None, {"trajectory_id": sid}, sub_doc, prefix, where))
        under_prompts(own)
        for ev in own:
            if ev.parent_id is None and owner is not None:
                ev.parent_id = owner
        return [ev for part in out for ev in part]

    def _step(self, step: dict[str, Any], i: int, prefix: str, model: str | None,
              agent: dict[str, Any], pairer: CallPairer,
              embedded: dict[str, dict[str, Any]], used: set[str]
              ) -> tuple[list[RawEvent], list[tuple[RawEvent, dict[str, Any], Any]]]:
        sid = step.get("step_id")
        base = f"{prefix}step-{sid}" if isinstance(sid, int) and not isinstance(sid, bool) \
            else f"{prefix}step-i{i}"
        eid = self._id(None, base)
        ts = parse_time_ns(step.get("timestamp"))
        source = step.get("source")
        message = step.get("message")
        if source == "agent":
            ev = self._turn(eid, step, model, agent)
        else:
            role = source if isinstance(source, str) and source else "user"
            ev = RawEvent(trace_id=self.tid, event_id=eid, parent_id=None, kind="message",
                          name=role, result={"role": role, "content": message})
        ev.start_ns = ts
        ev.attrs.update(_step_attrs(step))
        made = [ev]
        calls = step.get("tool_calls") or []
        if not isinstance(calls, list):
            raise invalid(self.source, f"step {sid}: 'tool_calls' is not a list", hint=HINT)
        opened: list[tuple[Hashable, RawEvent]] = []
        for j, call in enumerate(calls):
            call = obj(call)
            cid = call.get("tool_call_id")
            key: Hashable = cid if isinstance(cid, str) and cid else (eid, j)
            tc = RawEvent(trace_id=self.tid, event_id=self._id(
                cid if isinstance(cid, str) else None, f"{eid}-call{j}"), parent_id=eid,
                kind="tool_call", name=str(call.get("function_name") or ""), start_ns=ts,
                args={} if call.get("arguments") is None else call.get("arguments"))
            if cid is not None:
                tc.attrs["gen_ai.tool.call.id"] = cid
            for field, value in call.items():
                if field not in ("tool_call_id", "function_name", "arguments"):
                    tc.attrs[f"atif.{field}"] = value
            pairer.open(key, tc)
            opened.append((key, tc))
            made.append(tc)
        subs: list[tuple[RawEvent, dict[str, Any], Any]] = []
        loose: list[dict[str, Any]] = []
        answered: set[str] = set()
        results = obj(step.get("observation")).get("results") or []
        if not isinstance(results, list):
            raise invalid(self.source, f"step {sid}: 'observation.results' is not a list",
                          hint=HINT)
        for k, res in enumerate(results):
            res = obj(res)
            scid = res.get("source_call_id")
            if scid is None:
                loose.append(res)
                continue
            target = pairer.close(scid)
            if target is None:  # names no call of the trajectory: kept, flagged
                target = RawEvent(trace_id=self.tid, event_id=self._id(None, f"{eid}-result{k}"),
                                  parent_id=eid, kind="tool_call", name="", start_ns=ts,
                                  attrs={"gen_ai.tool.call.id": scid})
                add_flag(target, UNMATCHED)
                made.append(target)
            answered.add(target.event_id)
            self._fill(target, res, subs, embedded, used)
        waiting = [(key, tc) for key, tc in opened if tc.event_id not in answered]
        if loose and len(loose) == len(waiting):
            # results naming no call, as many as the step's open calls: the step's own
            # actions' outputs (Terminus writes them so), paired in order
            for (key, _), res in zip(waiting, loose, strict=True):
                target = pairer.close(key)
                if target is not None:
                    target.attrs["atif.paired"] = _POSITION
                    self._fill(target, res, subs, embedded, used)
            loose = []
        for k, res in enumerate(loose):
            obs = RawEvent(trace_id=self.tid, event_id=self._id(None, f"{eid}-obs{k}"),
                           parent_id=eid, kind="other", name="observation", start_ns=ts)
            self._fill(obs, res, subs, embedded, used)
            made.append(obs)
        return made, subs

    def _turn(self, eid: str, step: dict[str, Any], model: str | None,
              agent: dict[str, Any]) -> RawEvent:
        step_model = step.get("model_name") if isinstance(step.get("model_name"), str) \
            else model
        msg: dict[str, Any] = {"role": "assistant", "content": step.get("message")}
        if step.get("reasoning_content") is not None:
            msg["reasoning_content"] = step["reasoning_content"]
        dispatch = step.get("llm_call_count") == 0  # no model ran: a deterministic step
        name = step_model or str(agent.get("name") or "assistant")
        ev = RawEvent(trace_id=self.tid, event_id=eid, parent_id=None,
                      kind="other" if dispatch else "llm_call",
                      name="dispatch" if dispatch else name, status="ok",
                      result={"messages": [msg]})
        if step_model:
            ev.attrs["gen_ai.request.model"] = step_model
        metrics = obj(step.get("metrics"))
        ev.attrs.update(usage_attrs(metrics))
        rest = {k: v for k, v in metrics.items() if k not in dict(_USAGE)}
        if rest:
            ev.attrs["atif.metrics"] = rest
        return ev

    def _fill(self, ev: RawEvent, res: dict[str, Any],
              subs: list[tuple[RawEvent, dict[str, Any], Any]],
              embedded: dict[str, dict[str, Any]], used: set[str]) -> None:
        ev.result = tool_output(res.get("content"))
        extra = res.get("extra")
        ev.status, ev.error = _status(extra)
        if extra is not None:
            ev.attrs["atif.result_extra"] = extra
        refs = res.get("subagent_trajectory_ref")
        if refs is not None:
            ev.attrs["atif.subagent_trajectory_ref"] = refs
        for ref in refs if isinstance(refs, list) else []:
            ref = obj(ref)
            rid = ref.get("trajectory_id")
            sub = embedded.get(rid) if isinstance(rid, str) else None
            if sub is not None and isinstance(rid, str):
                used.add(rid)
            subs.append((ev, ref, sub))

    def _subagent(self, parent: RawEvent | None, ref: dict[str, Any], sub: Any, prefix: str,
                  where: str) -> list[RawEvent]:
        """An ``agent`` event for a referenced (or embedded) sub-agent, its events under
        it when the document embeds it."""
        rid = ref.get("trajectory_id") or ref.get("session_id") or ref.get("trajectory_path")
        eid = self._id(None, f"{prefix}agent-{rid}" if isinstance(rid, str) and rid
                       else f"{prefix}agent-{len(self.taken)}")
        sub_agent = obj(obj(sub).get("agent"))
        run = RawEvent(trace_id=self.tid, event_id=eid,
                       parent_id=parent.event_id if parent is not None else None, kind="agent",
                       name=str(sub_agent.get("name") or "subagent"),
                       start_ns=parent.start_ns if parent is not None else None)
        for key in ("trajectory_id", "session_id", "trajectory_path", "extra"):
            if ref.get(key) is not None:
                run.attrs[f"atif.{key}"] = ref[key]
        if type(sub) is not dict:
            return [run]  # a file reference: the trajectory is another file
        run.status = "ok"
        for key, value in sub.items():
            if key not in ("steps", "subagent_trajectories", "agent"):
                run.attrs[f"atif.{key}"] = value
        if sub_agent:
            run.attrs["atif.agent"] = sub_agent
        inner = self._trajectory(sub, eid + "/", eid, f"{where}, sub-agent {rid}")
        return [run, *inner]


def _status(extra: Any) -> tuple[str, dict[str, Any] | None]:
    """A result's status: ``error`` when its ``extra`` says so (``is_error: true`` or
    ``status: "error"``, as some producers write; ATIF itself has no error field),
    ``unset`` when ``extra.status`` says the source did not know (the workbench's own
    export), else ``ok``."""
    x = obj(extra)
    if x.get("is_error") is True or x.get("status") == "error":
        why = x.get("error") or x.get("message") or "the tool reported an error"
        return "error", {"message": why if isinstance(why, str) else str(why)}
    return ("unset" if x.get("status") == "unset" else "ok"), None


def _step_attrs(step: dict[str, Any]) -> dict[str, Any]:
    attrs: dict[str, Any] = {"atif.step_id": step.get("step_id")}
    if step.get("timestamp") is not None:
        attrs["atif.timestamp"] = step["timestamp"]
    for key in ("reasoning_effort", "llm_call_count", "is_copied_context", "extra"):
        if step.get(key) is not None:
            attrs[f"atif.{key}"] = step[key]
    for key, value in step.items():
        if key not in _STEP_FIELDS:
            attrs[f"atif.{key}"] = value
    return attrs
