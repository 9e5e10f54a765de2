"""Recorded traffic as contracts see it: the store's tool calls, the data-flow refs
between them and what follows each (docs/contracts.md, "Recorded traffic").

``Traffic.load(store)`` reads every ``tool_call`` event (or those of the traces named) in
one query; arguments and results are parsed only when something asks for them, so a gate
that needs only the refs (reach, fields that flowed onward) reads no JSON at all.

- ``flows``: each ref from a tool call into a later tool call, its paths generalized
  (``result.items[3].id`` → ``result.items[*].id``): what the workflow *reads*;
- ``next_of``: the tool call that followed a call in its trace (None at the end);
- ``branches``: result values after which the next call differs;
- ``retries``: error codes a call failed with before the same call (same tool, same
  arguments) was made again;
- ``reach``: the destructive or external-send calls a tool's results flowed into,
  directly or through other calls.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import STAR, NotFoundError, format_path, linkable, parse_path
from ..model import loads as json_loads
from ..store import Store

__all__ = ["BRANCH_SUPPORT", "BRANCH_VALUES", "Branch", "Flow", "Recorded", "Traffic",
           "Witness", "general", "leaf_paths"]

#: a result value branched on is a short word or a boolean: an id is data
_WORD_LEN = 40
#: a path branched on takes at most this many values (an enum, not data) ...
BRANCH_VALUES = 8
#: ... and each value counted was seen at least this often
BRANCH_SUPPORT = 2
#: three digits in a row: a key that names a record, not a field
_ID_KEY = re.compile(r"\d{3}").search
#: how deep ``leaf_paths`` walks a value
_DEPTH = 32


@dataclass(frozen=True, slots=True)
class Witness:
    """Where something was seen: a trace and the step of the call."""

    trace_id: str
    step: int

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace_id, "step": self.step}


@dataclass(slots=True)
class Recorded:
    """One recorded tool call; ``args`` and ``result`` parsed on first use."""

    trace_id: str
    event_id: str
    seq: int
    name: str
    status: str
    raw_args: str | None
    raw_result: str | None
    raw_error: str | None
    refs: list[dict[str, str]]
    time_ns: int | None
    _parsed: dict[str, Any] = field(default_factory=dict)

    def _get(self, key: str, raw: str | None) -> Any:
        if key not in self._parsed:
            self._parsed[key] = json_loads(raw) if raw else None
        return self._parsed[key]

    @property
    def args(self) -> Any:
        return self._get("args", self.raw_args)

    @property
    def result(self) -> Any:
        return self._get("result", self.raw_result)

    @property
    def error_code(self) -> str | None:
        err = self._get("error", self.raw_error)
        code = err.get("code") if isinstance(err, dict) else None
        return None if code is None else str(code)

    @property
    def witness(self) -> Witness:
        return Witness(self.trace_id, self.seq)


@dataclass(frozen=True, slots=True)
class Flow:
    """A value of ``source``'s result (at ``from_path``) sent as ``target``'s argument
    (at ``path``); both paths generalized."""

    source: str
    from_path: str
    target: str
    path: str
    trace_id: str
    source_step: int
    target_step: int


@dataclass(frozen=True)
class Branch:
    """A result path of ``tool`` whose values are followed by different next calls:
    ``after[value]`` counts the next tool names (``None``: the trace ended)."""

    tool: str
    path: str
    after: dict[Any, Counter[str | None]]
    witnesses: dict[Any, Witness]


def _keyed(key: Any) -> bool:
    """An object key that is data, not a name (``credit_card_4421486``): a map keyed by
    ids reads as one path, ``payment_methods[*].id``."""
    return isinstance(key, int) or (isinstance(key, str) and _ID_KEY(key) is not None)


def general(path: str) -> str:
    """``path`` with every index, and every key that is an id, made ``[*]``."""
    if "[" not in path and _ID_KEY(path) is None:
        return path
    try:
        segs = parse_path(path).segments
    except ValueError:
        return path
    return format_path((segs[0], *(STAR if _keyed(s) else s for s in segs[1:])))


def leaf_paths(value: Any, root: str) -> Iterator[tuple[str, Any]]:
    """``(general path, value)`` of every scalar leaf (an empty container counts as one)."""
    stack: list[tuple[tuple[Any, ...], Any, int]] = [((root,), value, 0)]
    while stack:
        segs, v, depth = stack.pop()
        if isinstance(v, dict) and v and depth < _DEPTH:
            stack.extend(((*segs, STAR if _keyed(k) else k), x, depth + 1)
                         for k, x in reversed(v.items()))
        elif isinstance(v, list) and v and depth < _DEPTH:
            stack.extend(((*segs, STAR), x, depth + 1) for x in reversed(v))
        else:
            yield format_path(segs), v


def _word(v: Any) -> bool:
    """A value one branches on: a boolean or a short word (with a letter, not an id) —
    not data, not a number."""
    if isinstance(v, bool):
        return True
    return (isinstance(v, str) and 0 < len(v) <= _WORD_LEN and not linkable(v)
            and any(ch.isalpha() for ch in v))


def _branching(by_value: dict[Any, Counter[str | None]]) -> bool:
    """Whether the next call is decided by the value: few values (an enum, not data);
    every value seen at least ``BRANCH_SUPPORT`` times always followed by the same call;
    and two such values followed by different calls."""
    if len(by_value) > BRANCH_VALUES:
        return False
    decided = {}
    for v, after in by_value.items():
        if sum(after.values()) < BRANCH_SUPPORT:
            continue
        if len(after) > 1:
            return False
        decided[v] = next(iter(after))
    return len(set(decided.values())) > 1


class Traffic:
    """The tool calls of a store (or of some of its traces), grouped by trace."""

    def __init__(self, calls: Sequence[Recorded]) -> None:
        self.calls = list(calls)
        self.traces: dict[str, list[Recorded]] = {}
        for c in self.calls:
            self.traces.setdefault(c.trace_id, []).append(c)
        self._flows: list[Flow] | None = None
        self._by_tool: dict[str, list[Recorded]] | None = None

    @classmethod
    def load(cls, store: Store, trace_ids: Sequence[str] | None = None) -> Traffic:
        """The tool calls of ``store`` (of ``trace_ids`` only, when given); a store that
        does not exist is ``STORE_NOT_FOUND``, never an empty traffic."""
        if not store.exists:
            raise NotFoundError(f"no store at {store.root}", code="STORE_NOT_FOUND",
                                hint="ingest traces first, or name the store with --store")
        where, params = "kind = 'tool_call'", []
        if trace_ids:
            ids = sorted(set(store.resolve_trace_ids(list(trace_ids))))
            where += " AND list_contains(?, trace_id)"
            params.append(ids)
        table = store.sql(
            "SELECT trace_id, event_id, seq, name, status, args, result, error, refs, "
            f"coalesce(end_ns, start_ns) AS t FROM events WHERE {where} "
            "ORDER BY trace_id, seq", params)
        cols = {n: table.column(n).to_pylist() for n in table.column_names}
        return cls([Recorded(*row) for row in zip(
            cols["trace_id"], cols["event_id"], cols["seq"], cols["name"], cols["status"],
            cols["args"], cols["result"], cols["error"], cols["refs"], cols["t"],
            strict=True)])

    @property
    def tools(self) -> list[str]:
        return sorted({c.name for c in self.calls})

    def by_tool(self, tool: str) -> list[Recorded]:
        """The recorded calls of ``tool``, in trace and step order."""
        if self._by_tool is None:
            self._by_tool = {}
            for c in self.calls:
                self._by_tool.setdefault(c.name, []).append(c)
        return self._by_tool.get(tool, [])

    # --- data flow --------------------------------------------------------------------

    @property
    def flows(self) -> list[Flow]:
        """Every ref from a tool call's result into a later tool call's arguments."""
        if self._flows is None:
            out: list[Flow] = []
            for calls in self.traces.values():
                by_id = {c.event_id: c for c in calls}
                for c in calls:
                    for r in c.refs or ():
                        src = by_id.get(r["event_id"])
                        if src is not None:
                            out.append(Flow(src.name, general(r["from_path"]), c.name,
                                            general(r["path"]), c.trace_id, src.seq, c.seq))
            self._flows = out
        return self._flows

    def next_of(self) -> dict[int, Recorded | None]:
        """``id(call)`` → the tool call after it in its trace (None at the end)."""
        out: dict[int, Recorded | None] = {}
        for calls in self.traces.values():
            for a, b in zip(calls, [*calls[1:], None], strict=True):
                out[id(a)] = b
        return out

    def branches(self, tools: Sequence[str] | None = None) -> list[Branch]:
        """Per tool and result path (no ``[*]``: a value of the whole call), the values
        after which the next call differs. Only words, booleans and small numbers."""
        nxt = self.next_of()
        after: dict[tuple[str, str], dict[Any, Counter[str | None]]] = {}
        seen: dict[tuple[str, str], dict[Any, Witness]] = {}
        for c in self.calls:
            if (tools is not None and c.name not in tools) or c.status == "error":
                continue
            follow = nxt[id(c)]
            name = follow.name if follow is not None else None
            for path, v in leaf_paths(c.result, "result"):
                if "[*]" in path or not _word(v):
                    continue
                key = (c.name, path)
                after.setdefault(key, {}).setdefault(v, Counter())[name] += 1
                seen.setdefault(key, {}).setdefault(v, c.witness)
        out = []
        for (tool, path), by_value in after.items():
            if _branching(by_value):
                out.append(Branch(tool, path, by_value, seen[(tool, path)]))
        return out

    def retries(self) -> dict[str, dict[str, list[Witness]]]:
        """tool → error code → the failed calls followed by the same call again (a
        failure without a code is not counted: a consumer contract names codes)."""
        out: dict[str, dict[str, list[Witness]]] = {}
        for calls in self.traces.values():
            for i, c in enumerate(calls):
                if c.status != "error":
                    continue
                again = next((d for d in calls[i + 1:] if d.name == c.name), None)
                if again is None or (again.raw_args != c.raw_args and again.args != c.args):
                    continue
                code = c.error_code
                if code is None:
                    continue
                out.setdefault(c.name, {}).setdefault(code, []).append(c.witness)
        return out

    def reach(self, sink: Callable[[str], bool]) -> dict[str, dict[str, list[Flow]]]:
        """tool → sink tool → one ``Flow`` per (trace, source step, sink step) whose
        source call's results flowed, directly or through other calls, into a call of a
        sink tool (``sink(name)``). ``Flow.from_path``/``path`` are the first hop's."""
        hops: dict[str, dict[int, list[Flow]]] = {}
        for f in self.flows:
            hops.setdefault(f.trace_id, {}).setdefault(f.source_step, []).append(f)
        out: dict[str, dict[str, list[Flow]]] = {}
        for trace_id, calls in self.traces.items():
            edges = hops.get(trace_id)
            if not edges:
                continue
            name = {c.seq: c.name for c in calls}
            down: dict[int, dict[int, Flow]] = {}  # step -> sink step -> first hop
            for c in reversed(calls):  # refs point back: later calls are done first
                mine: dict[int, Flow] = {}
                for f in edges.get(c.seq, ()):
                    if sink(f.target):
                        mine.setdefault(f.target_step, f)
                    for step in down.get(f.target_step, {}):
                        mine.setdefault(step, f)
                if not mine:
                    continue
                down[c.seq] = mine
                for step in sorted(mine):
                    hop = mine[step]
                    out.setdefault(c.name, {}).setdefault(name[step], []).append(Flow(
                        c.name, hop.from_path, name[step], hop.path, trace_id, c.seq, step))
        return out

