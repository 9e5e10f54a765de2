"""Data-flow edges: which earlier result did an argument come from?

A string (or large integer) leaf of an event's ``args`` that equals a leaf of the
``result`` of an event that happened before it gets a ref to the earliest such
event: ``{"event_id": <source>, "path": "args.project_id", "from_path":
"result.items[3].id"}``. "Before" is happens-before: the source ended no later than
the target started, or, where either lacks times, the source has the smaller seq.

Not linked, because equality there says nothing about where a value came from:
booleans, floats, null; strings shorter than 3 characters, strings shorter than 8
characters without a digit (``"active"``, ``"ok"``); integers between -999 and 999;
and values that appear in the results of more than ``COMMON_AFTER`` events of the
trace (a session id echoed by every response).

Only the arguments of steps an agent chooses are linked (``ARG_KINDS``: tool calls,
HTTP requests, state changes ...): a model call's "arguments" are the whole
conversation, which repeats every earlier result and would make each model call
depend on everything before it. Any event's result can be a source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._paths import format_path

__all__ = ["ARG_KINDS", "COMMON_AFTER", "RefSource", "infer_refs", "leaves", "linkable"]

COMMON_AFTER = 16
ARG_KINDS = frozenset({"tool_call", "http", "state", "receipt", "error", "other"})
_MAX_LEN = 4096


@dataclass(frozen=True, slots=True)
class RefSource:
    """What ref inference needs of one event (events given in seq order)."""

    event_id: str
    kind: str
    start_ns: int | None
    end_ns: int | None
    args: Any
    result: Any


def linkable(value: Any) -> bool:
    """Whether equality of this value is evidence of data flow."""
    if isinstance(value, str):
        n = len(value)
        if n < 3 or n > _MAX_LEN:
            return False
        if n >= 8:
            return not value.isspace()
        return any(c.isdigit() for c in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value >= 1000 or value <= -1000
    return False


Segments = tuple[str | int, ...]


def leaves(value: Any, prefix: Segments) -> list[tuple[Segments, Any]]:
    """Every linkable leaf of a JSON value with its path segments, in document order."""
    out: list[tuple[Segments, Any]] = []
    if not isinstance(value, dict | list):
        return [(prefix, value)] if linkable(value) else out
    stack: list[tuple[Segments, Any]] = [(prefix, value)]
    pop, push = stack.pop, stack.append
    while stack:
        path, v = pop()
        if isinstance(v, dict):
            for k, item in reversed(v.items()):
                if isinstance(item, dict | list) or linkable(item):
                    push(((*path, k), item))
        elif isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                item = v[i]
                if isinstance(item, dict | list) or linkable(item):
                    push(((*path, i), item))
        else:
            out.append((path, v))
    return out


def _precedes(src: RefSource, src_seq: int, tgt: RefSource, tgt_seq: int) -> bool:
    if src.end_ns is not None and tgt.start_ns is not None and src.start_ns is not None:
        return src.end_ns <= tgt.start_ns
    return src_seq < tgt_seq


def infer_refs(events: Sequence[RefSource]) -> list[list[dict[str, str]]]:
    """Refs for each event of one trace, events given in seq order."""
    result_leaves: list[list[tuple[tuple[str | int, ...], Any]]] = []
    counts: dict[Any, int] = {}
    for ev in events:
        found = leaves(ev.result, ("result",))
        result_leaves.append(found)
        for v in {v for _, v in found}:
            counts[v] = counts.get(v, 0) + 1

    # value -> [(seq, path segments)] in seq order, first path per event only
    index: dict[Any, list[tuple[int, tuple[str | int, ...]]]] = {}
    out: list[list[dict[str, str]]] = []
    for seq, ev in enumerate(events):
        refs: list[dict[str, str]] = []
        if ev.args is not None and index and ev.kind in ARG_KINDS:
            for segs, v in leaves(ev.args, ("args",)):
                for src_seq, src_segs in index.get(v, ()):
                    if _precedes(events[src_seq], src_seq, ev, seq):
                        refs.append({"event_id": events[src_seq].event_id,
                                     "path": format_path(segs),
                                     "from_path": format_path(src_segs)})
                        break
        out.append(refs)
        seen: set[Any] = set()
        for segs, v in result_leaves[seq]:
            if v in seen or counts[v] > COMMON_AFTER:
                continue
            seen.add(v)
            index.setdefault(v, []).append((seq, segs))
    return out
