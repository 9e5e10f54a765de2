"""Causal parents of a Claude Code session's events.

A transcript links every line to the line before it (``parentUuid``): that is the
conversation's *threading*, one chain as long as the session, not what caused what.
Parents here are causes, and the order of the messages stays in ``seq``:

- a ``Task`` / ``Agent`` call whose result names its sub-agent (``agentId``) is followed
  by an ``agent`` event, ``agent-<agentId>``: the sub-agent's run, the call's child;
- a user prompt opens a turn: its parent is the agent it was given to (null in the main
  conversation; a sub-agent's prompt → its run, else the ``Task`` call that started it);
- an ``llm_call`` → the prompt of its turn (no prompt in the file: its agent, or null);
- a ``tool_call`` → the ``llm_call`` whose message holds its ``tool_use`` (a result whose
  call is not in the file → the ``llm_call`` its line follows, else its line's own link,
  kept dangling for the pipeline to flag ``orphan``);
- anything else (system lines, ``isMeta`` user text, a compaction's marker) → the turn it
  happened in, else its agent (the run, or the ``Task`` call), else null; the SDK
  stream's closing ``result`` (an ``agent`` event too) stays a root.

Which agent a line belongs to is read from the same links: ``parent_tool_use_id`` (the
SDK stream) names the ``Task`` call; a transcript's sidechain line follows ``parentUuid``
back to the sub-agent's first line, whose spawner is the ``Task`` call whose result
carries the same ``agentId`` (else the one running at that time). A sub-agent recorded in
a file of its own (``<session>/subagents/agent-<agentId>.jsonl``) has no ``Task`` call
in that file: its agent is ``agent-<agentId>``, the run the session's file holds, which
the pipeline finds when both files are ingested (alone: a dangling parent, flagged
``orphan``). Claude Code's compaction agents (``acompact-…``) are started by no call:
their events have no agent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..._adapter import RawEvent
from ._records import Link

__all__ = ["causal_parents", "run_id"]

Spawner = Callable[[RawEvent], "RawEvent | None"]
#: what an event's agent is: the ``Task`` call (its run resolved later), the run's id when
#: the call is in another file, or None for the main conversation
Agent = RawEvent | str | None


def run_id(agent_id: str) -> str:
    """The event id of a sub-agent's run, the same in the session's file and the agent's."""
    return f"agent-{agent_id}"


def _named_run(ev: RawEvent) -> str | None:
    """The run a sidechain event's own ``agentId`` names (none for a compaction agent)."""
    aid = ev.attrs.get("claude_code.agent_id")
    if isinstance(aid, str) and aid and not aid.startswith("acompact"):
        return run_id(aid)
    return None


def _sidechain(ev: RawEvent) -> bool:
    return ev.attrs.get("claude_code.is_sidechain") is True


class _Agents:
    """Each event's agent (``Agent``): the ``Task`` call that started it, the run another
    file holds, or None for the main conversation."""

    def __init__(self, links: Mapping[int, Link], absorbed: Mapping[tuple[str, str], RawEvent],
                 tools: Mapping[tuple[str, str], RawEvent], spawner: Spawner) -> None:
        self.links, self.absorbed, self.tools, self.spawner = links, absorbed, tools, spawner
        self.memo: dict[int, Agent] = {}

    def of(self, ev: RawEvent) -> Agent:
        chain: list[RawEvent] = []
        seen: set[int] = set()
        cur = ev
        agent: Agent = None
        while True:
            if id(cur) in self.memo:
                agent = self.memo[id(cur)]
                break
            chain.append(cur)
            seen.add(id(cur))
            nxt = self._step(cur)
            if isinstance(nxt, _Found):
                agent = nxt.agent
                break
            if id(nxt) in seen:  # links in a loop: no agent is named
                break
            cur = nxt
        for c in chain:
            self.memo[id(c)] = agent
        return agent

    def _step(self, ev: RawEvent) -> RawEvent | _Found:
        """The event whose agent ``ev`` shares, or the agent found (``_Found``)."""
        link = self.links.get(id(ev))
        if isinstance(link, RawEvent):
            return link
        if link is not None and link[0] == "tool":
            return _Found(self.tools.get((ev.trace_id, link[1])))
        if link is not None and link[0] == "uuid":
            target = self.absorbed.get((ev.trace_id, link[1]))
            if target is not None and target is not ev and (
                    _sidechain(target) or not _sidechain(ev)):
                return target
        return _Found(self.started(ev))

    def started(self, ev: RawEvent) -> Agent:
        """The agent of a line that leads to no other: a sidechain's first line."""
        if not _sidechain(ev):
            return None
        return self.spawner(ev) or _named_run(ev)


class _Found:
    """The end of a walk: the agent found (``Agent``)."""

    __slots__ = ("agent",)

    def __init__(self, agent: Agent) -> None:
        self.agent = agent


def causal_parents(events: Sequence[RawEvent], links: Mapping[int, Link],
                   absorbed: Mapping[tuple[str, str], RawEvent],
                   tools: Mapping[tuple[str, str], RawEvent], spawner: Spawner,
                   runs: Mapping[int, RawEvent]) -> None:
    """Set ``parent_id`` on ``events`` (in file order) as the module says; ``runs`` maps
    ``id()`` of a Task call to its sub-agent's run (an event of ``events``)."""
    agents = _Agents(links, absorbed, tools, spawner)
    run_of = {id(runs[id(task)]): task for task in events if id(task) in runs}
    turns: dict[int | str | None, RawEvent] = {}  # an agent -> its open prompt
    for ev in events:
        found = agents.of(ev)
        agent = runs.get(id(found), found) if isinstance(found, RawEvent) else found
        key = id(agent) if isinstance(agent, RawEvent) else agent
        turn = turns.get(key)
        link = links.get(id(ev))
        parent: RawEvent | str | None
        if id(ev) in run_of:
            parent = run_of[id(ev)]
        elif ev.kind == "tool_call" and isinstance(link, RawEvent):
            parent = link
        elif ev.kind == "tool_call":
            parent = _lost_result(ev, link, absorbed) or turn or agent
        elif ev.kind == "agent":
            parent = None  # the SDK stream's closing result: the run itself
        elif ev.kind == "message" and ev.name == "user" \
                and ev.attrs.get("claude_code.isMeta") is not True:
            parent = agent
            turns[key] = ev
        else:
            parent = turn or agent
        pid = parent.event_id if isinstance(parent, RawEvent) else parent
        ev.parent_id = None if pid == ev.event_id else pid


def _lost_result(ev: RawEvent, link: Link,
                 absorbed: Mapping[tuple[str, str], RawEvent]) -> RawEvent | str | None:
    """A result whose call is not in the file: the turn its line follows, or the line's
    own dangling link (the call's line is missing: the pipeline flags it ``orphan``)."""
    if not isinstance(link, tuple) or link[0] != "uuid":
        return None
    target = absorbed.get((ev.trace_id, link[1]))
    if target is None:
        return link[1]
    return target if target.kind == "llm_call" else None
