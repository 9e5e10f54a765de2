"""Claude Code records (transcript lines or Agent SDK stream messages) to events.

``Session`` takes the records in file order and keeps every event until the file is
read: lines of one API message are merged, tool results pair with their calls in any
order, and the links each line states (``parentUuid``, ``parent_tool_use_id``) are kept
for ``_parents``, which turns them into causal parents. What one record says is
``_records``'s; the records only the Agent SDK stream has, ``_sdk``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....model import InvalidTraceError
from ..._adapter import RawEvent, SourceFile, TraceInfo
from ..._decode import parse_time_ns
from ..._pairing import UNMATCHED, CallPairer, add_flag, derived_id
from ._parents import causal_parents, run_id
from ._records import (
    Link,
    bad,
    blocks_of,
    fill_tool_result,
    fill_tool_use,
    finish_turn,
    is_sidechain,
    link_of,
    record_extras,
    text_of,
)
from ._sdk import control_request, run_result, system_init, task_started

__all__ = ["Session"]

#: the tools that start a sub-agent (``Agent`` since Claude Code 2.1)
TASK_TOOLS = frozenset({"Task", "Agent"})
_TRACE_FIELDS = (("cwd", "claude_code.cwd"), ("gitBranch", "claude_code.gitBranch"),
                 ("userType", "claude_code.userType"))


class Session:
    """Every trace of one file, built record by record; ``finish`` yields the result."""

    def __init__(self, source: SourceFile, first_session: str | None) -> None:
        self.source = source
        self.tid = first_session or derived_id(source.sha256, "claude-code")
        self.events: list[tuple[tuple[int, ...], RawEvent]] = []
        self.links: dict[int, Link] = {}
        self.ids: set[tuple[str, str]] = set()
        self.absorbed: dict[tuple[str, str], RawEvent] = {}  # (trace, line uuid) -> event
        self.tools: dict[tuple[str, str], RawEvent] = {}  # (trace, tool_use id) -> event
        self.turns: dict[tuple[str, str], tuple[RawEvent, dict[str, Any]]] = {}
        self.all_turns: list[tuple[RawEvent, dict[str, Any]]] = []
        self.pairer = CallPairer()
        self.early: dict[tuple[str, str], list[RawEvent]] = {}  # results before their call
        self.infos: dict[str, TraceInfo] = {}

    # -- records ---------------------------------------------------------------------------
    def add(self, n: int, where: str, rec: Any) -> None:
        if type(rec) is not dict or not isinstance(rec.get("type"), str):
            raise bad(self.source, where, "is not a Claude Code message (an object with a type)")
        sid = rec.get("sessionId") or rec.get("session_id")
        if isinstance(sid, str) and sid:
            self.tid = sid
        info = self.info(self.tid)
        for key, attr in _TRACE_FIELDS:
            if rec.get(key) not in (None, ""):
                info.attrs.setdefault(attr, rec[key])
        if isinstance(rec.get("version"), str):
            info.versions.setdefault("claude_code", rec["version"])
        typ = rec["type"]
        if typ in ("assistant", "user"):
            msg = rec.get("message")
            if type(msg) is not dict:
                raise bad(self.source, where, f"a {typ} record needs a message object")
            (self.assistant if typ == "assistant" else self.user)(n, rec, msg, where)
        elif typ == "system":
            self.system(n, rec)
        elif typ == "result":
            self.result(n, rec)
        elif typ == "summary":
            self.summary(rec)
        elif typ == "control_request" and self.control(rec):
            pass
        else:
            skipped = info.attrs.setdefault("claude_code.skipped", {})
            skipped[typ] = skipped.get(typ, 0) + 1

    def assistant(self, n: int, rec: dict[str, Any], msg: dict[str, Any], where: str) -> None:
        blocks = blocks_of(msg.get("content"), self.source, where)
        ts = parse_time_ns(rec.get("timestamp"))
        mid = msg.get("id")
        key = (self.tid, mid) if isinstance(mid, str) and mid else None
        turn = self.turns.get(key) if key else None
        if turn is None:
            ev = self.new(n, 0, rec, "llm_call", "assistant", f"m{n}", link_of(rec), ts)
            merged = {**msg, "content": list(blocks) if isinstance(msg.get("content"), list)
                      else msg.get("content")}
            ev.attrs["claude_code.uuids"] = [rec.get("uuid")]
            if isinstance(rec.get("requestId"), str):
                ev.attrs["anthropic.request_id"] = rec["requestId"]
            turn = (ev, merged)
            self.all_turns.append(turn)
            if key:
                self.turns[key] = turn
        else:
            ev, merged = turn
            if isinstance(merged.get("content"), list):
                merged["content"].extend(blocks)
            for field in ("stop_reason", "stop_sequence", "usage"):
                if msg.get(field) is not None:
                    merged[field] = msg[field]
            ev.end_ns = ts if ts is not None else ev.end_ns
            ev.start_ns = ev.start_ns if ev.start_ns is not None else ts
            ev.attrs["claude_code.uuids"].append(rec.get("uuid"))
            ev.attrs.update(record_extras(rec))
            self.absorb(rec, ev)
        for k, b in enumerate(blocks, 1):
            if b.get("type") == "tool_use":
                self.tool_use(n, k, rec, b, ev, ts)

    def tool_use(self, n: int, k: int, rec: dict[str, Any], block: dict[str, Any],
                 turn: RawEvent, ts: int | None) -> None:
        tuid = block.get("id")
        key = (self.tid, tuid) if isinstance(tuid, str) and tuid else None
        early = self.early.get(key) if key else None
        if early:
            ev = early.pop(0)
            if not early and key:
                del self.early[key]
        else:
            ev = self.new(n, k, rec, "tool_call", "", tuid if key else f"m{n}-tool{k}",
                          None, ts, absorb=False)
            if key:
                self.pairer.open(key, ev)
        ev.start_ns = ts
        self.links[id(ev)] = turn
        if key:
            self.tools.setdefault(key, ev)
        fill_tool_use(ev, block)

    def user(self, n: int, rec: dict[str, Any], msg: dict[str, Any], where: str) -> None:
        content = msg.get("content")
        blocks = blocks_of(content, self.source, where) if isinstance(content, list) else []
        results = [b for b in blocks if b.get("type") == "tool_result"]
        rest = [b for b in blocks if b.get("type") != "tool_result"]
        ts = parse_time_ns(rec.get("timestamp"))
        if rest or not results:
            shown = rest if results else content
            ev = self.new(n, 0, rec, "message", "user", f"m{n}", link_of(rec), ts)
            ev.result = {"role": msg.get("role", "user"), "content": shown}
            info = self.info(self.tid)
            text = text_of(shown)
            if info.root_task is None and text and not is_sidechain(rec) \
                    and rec.get("isMeta") is not True:
                info.root_task = text
        for k, b in enumerate(results, 1):
            self.tool_result(n, k, rec, b, ts)

    def tool_result(self, n: int, k: int, rec: dict[str, Any], block: dict[str, Any],
                    ts: int | None) -> None:
        tuid = block.get("tool_use_id")
        key = (self.tid, tuid) if isinstance(tuid, str) and tuid else None
        ev = self.pairer.close(key) if key else None
        if ev is None:
            ev = self.new(n, k, rec, "tool_call", "", tuid if key else f"m{n}-result{k}",
                          link_of(rec), None)
            if key:
                self.early.setdefault(key, []).append(ev)
                self.tools.setdefault(key, ev)
        self.absorb(rec, ev)
        ev.end_ns = ts
        fill_tool_result(ev, rec, block)

    def system(self, n: int, rec: dict[str, Any]) -> None:
        sub = rec.get("subtype")
        if sub == "init":
            system_init(self.info(self.tid), rec)
            return
        tool = self.tools.get((self.tid, str(rec.get("tool_use_id"))))
        if sub == "task_started" and tool is not None:
            task_started(tool, rec)
            self.absorb(rec, tool)
            return
        ts = parse_time_ns(rec.get("timestamp"))
        if "content" in rec:
            ev = self.new(n, 0, rec, "message", "system", f"m{n}", link_of(rec), ts)
            ev.result = {"role": "system", "content": rec["content"]}
            if rec.get("level") == "error":
                ev.status, ev.error = "error", {"message": text_of(rec["content"]) or "error"}
        else:
            ev = self.new(n, 0, rec, "other", sub if isinstance(sub, str) else "system",
                          f"e{n}", link_of(rec), ts)

    def result(self, n: int, rec: dict[str, Any]) -> None:
        ts = parse_time_ns(rec.get("timestamp"))
        run_result(self.new(n, 0, rec, "agent", "claude-code", f"e{n}", link_of(rec), ts,
                            extras=False), rec)

    def summary(self, rec: dict[str, Any]) -> None:
        leaf = rec.get("leafUuid")
        owner = next((t for (t, u) in self.absorbed if u == leaf), self.tid)
        self.info(owner).attrs.setdefault("claude_code.summaries", []).append(
            {k: v for k, v in rec.items() if k != "type"})

    def control(self, rec: dict[str, Any]) -> bool:
        """A ``control_request`` noted on the tool call it is about; False if none is."""
        said = control_request(rec)
        tool = self.tools.get((self.tid, said[0])) if said is not None else None
        if said is None or tool is None:
            return False
        tool.attrs.setdefault("claude_code.control", []).append(said[1])
        return True

    # -- helpers ---------------------------------------------------------------------------
    def info(self, tid: str) -> TraceInfo:
        return self.infos.setdefault(tid, TraceInfo(tid))

    def new(self, n: int, k: int, rec: dict[str, Any], kind: str, name: str, eid: Any,
            link: Link, ts: int | None, *, absorb: bool = True,
            extras: bool = True) -> RawEvent:
        base = rec.get("uuid") if kind != "tool_call" else eid
        if not isinstance(base, str) or not base:
            base = eid if isinstance(eid, str) and eid else f"e{n}"
        uid, i = base, 1
        while (self.tid, uid) in self.ids:
            i += 1
            uid = f"{base}-{i}"
        self.ids.add((self.tid, uid))
        ev = RawEvent(trace_id=self.tid, event_id=uid, parent_id=None, kind=kind, name=name,
                      start_ns=ts, end_ns=None if kind == "tool_call" else ts)
        if is_sidechain(rec):
            ev.attrs["claude_code.is_sidechain"] = True
        if absorb:
            if isinstance(rec.get("agentId"), str):
                ev.attrs["claude_code.agent_id"] = rec["agentId"]
            if extras:
                ev.attrs.update(record_extras(rec))
            self.absorb(rec, ev)
        self.events.append(((n, k), ev))
        self.links[id(ev)] = link
        return ev

    def absorb(self, rec: dict[str, Any], ev: RawEvent) -> None:
        uuid = rec.get("uuid")
        if isinstance(uuid, str) and uuid:
            self.absorbed.setdefault((self.tid, uuid), ev)

    # -- the end ---------------------------------------------------------------------------
    def finish(self) -> Iterator[RawEvent | TraceInfo]:
        if not self.events:
            raise InvalidTraceError(f"{self.source.display}: no Claude Code messages in the "
                                    "file", file=self.source.display)
        list(self.pairer.unanswered())
        for queue in self.early.values():
            for ev in queue:
                add_flag(ev, UNMATCHED)
        for ev, merged in self.all_turns:
            finish_turn(ev, merged)
        # Yielded in file order, which the adapter declares as the recording order
        # (``file_order``): line timestamps are too coarse to order by (a turn and the
        # tool call it asks for share one).
        runs = self.sub_agent_runs()
        ordered = [ev for _, ev in sorted(self.events, key=lambda item: item[0])]
        causal_parents(ordered, self.links, self.absorbed, self.tools, self.spawner, runs)
        yield from self.infos.values()
        yield from ordered

    def sub_agent_runs(self) -> dict[int, RawEvent]:
        """One ``agent`` event per Task / Agent call whose result names its sub-agent
        (``agentId``), right after the call: ``agent-<agentId>``, the id a sub-agent's
        own file names too (``run_id``). Keyed by ``id()`` of the call."""
        runs: dict[int, RawEvent] = {}
        for key, task in list(self.events):
            aid = task.attrs.get("claude_code.agent_id")
            if task.kind != "tool_call" or task.name not in TASK_TOOLS \
                    or not isinstance(aid, str) or not aid:
                continue
            eid = run_id(aid)
            if (task.trace_id, eid) in self.ids:
                continue
            self.ids.add((task.trace_id, eid))
            kind = task.args.get("subagent_type") if isinstance(task.args, dict) else None
            run = RawEvent(trace_id=task.trace_id, event_id=eid, parent_id=None, kind="agent",
                           name=kind if isinstance(kind, str) and kind else "sub-agent",
                           start_ns=task.start_ns, end_ns=task.end_ns, status=task.status,
                           attrs={"claude_code.agent_id": aid})
            if task.attrs.get("claude_code.is_sidechain") is True:
                run.attrs["claude_code.is_sidechain"] = True
            self.events.append(((*key, 1), run))
            runs[id(task)] = run
        return runs

    def spawner(self, ev: RawEvent) -> RawEvent | None:
        """The Task / Agent call that started a sub-agent whose first line is ``ev``."""
        tasks = [t for (tid, _), t in self.tools.items()
                 if tid == ev.trace_id and t.name in TASK_TOOLS and t is not ev]
        agent = ev.attrs.get("claude_code.agent_id")
        for t in tasks:
            if agent is not None and t.attrs.get("claude_code.agent_id") == agent:
                return t
        if agent is not None and any("claude_code.agent_id" in t.attrs for t in tasks):
            return None  # the calls name their agents, and none this one (a compaction's)
        start = ev.start_ns
        if start is None:
            return None
        inside = [t for t in tasks if t.start_ns is not None and t.start_ns <= start
                  and (t.end_ns is None or start <= t.end_ns)]
        return max(inside, key=lambda t: t.start_ns or 0) if inside else None

