"""Data-flow edges: which earlier result did an argument come from?

A string (or large integer) leaf of an event's ``args`` that equals a leaf of the
``result`` of an event that happened before it gets a ref to the event that gave that
answer first (the smallest end time; the smallest seq where times are missing or
equal): ``{"event_id": <source>, "path": "args.project_id", "from_path":
"result.items[3].id"}``. "Before" is happens-before: the source ended no later than
the target started, or, where either lacks times, the source has the smaller seq.

Not linked, because equality there says nothing about where a value came from:
booleans, floats, null; strings shorter than 3 characters, strings shorter than 8
characters without a digit (``"active"``, ``"ok"``), numbers below 1000 written as
text (``"200"``, a JSON-RPC ``"2.0"``); media types and lists of them
(``"application/json"``); protocol tokens (``_protocol.protocol_value``:
``"keep-alive"``, ``"gzip, deflate"``, status phrases, HTTP dates, model API words
such as ``"tool_calls"``); the values of protocol headers on either side
(``_protocol.protocol_header``: ``connection``, ``origin``,
``access-control-allow-origin``, ``user-agent``, ``date`` …); integers between -999
and 999; and values that appear in the results of more than ``COMMON_AFTER`` events of
the trace (a session id echoed by every response).

Direction: a value a request sent first is the client's own. An answer given after the
first request that carried a value started (that request's own answer included) only
echoes it — a 404 body naming the path asked for, a CORS header repeating the
``Origin`` — so it is never that value's source; only answers before that request can
be. A model call's input (prompt, tool definitions) counts as a request here
(``sent_keys``), though its arguments are never linked.

Only the arguments of steps an agent chooses are linked (``ARG_KINDS``: tool calls,
HTTP requests, state changes ...): a model call's "arguments" are the whole
conversation, which repeats every earlier result and would make each model call
depend on everything before it. Any event's result can be a source.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ._paths import format_path, segment_text
from ._protocol import protocol_header, protocol_value

__all__ = [
    "ARG_KINDS",
    "COMMON_AFTER",
    "KeyedSource",
    "RefSource",
    "arg_leaves",
    "first_path",
    "infer_refs",
    "leaves",
    "link",
    "link_columns",
    "linkable",
    "linkable_values",
    "result_keys",
    "sent_keys",
    "value_key",
    "visible",
]

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


_DIGIT = re.compile(r"\d")
_SMALL_NUMBER = re.compile(r"[-+]?\d{1,3}(?:\.\d*)?").fullmatch
#: no protocol token is longer (the longest: a list of cache directives)
_PROTOCOL_LEN = 96
#: a media type or a list of them (``Accept``, ``Content-Type``): a top-level type, a
#: subtype with no dot but after a ``vnd.``/``prs.``/``x.`` tree (``text/notes.md`` is a
#: path), parameters and more types after ``;`` or ``,``
_MEDIA = re.compile(r"(?:application|text|image|audio|video|multipart|message|font|model|\*)"
                    r"/(?:(?:vnd|prs|x)[.-][\w.+-]+|[\w+*-]+)(?:\s*[;,].*)?\Z",
                    re.IGNORECASE | re.DOTALL).match


def _media(value: str) -> bool:
    return "/" in value and _MEDIA(value) is not None


#: ``_text`` of the strings no longer than a protocol token, remembered: a trace's
#: results repeat their ids, names and words, and the protocol check is a regex with
#: many branches; cleared when it holds ``_SHORT_MAX`` strings
_SHORT: dict[str, bool] = {}
_SHORT_MAX = 1 << 15


def _text(value: str) -> bool:
    """``linkable`` for a string of 3 to ``_MAX_LEN`` characters."""
    if len(value) > _PROTOCOL_LEN:
        return not (value.isspace() or _media(value))
    got = _SHORT.get(value)
    if got is None:
        if len(_SHORT) >= _SHORT_MAX:
            _SHORT.clear()
        got = _SHORT[value] = _short_text(value)
    return got


def _short_text(value: str) -> bool:
    """``_text`` of a string of 3 to ``_PROTOCOL_LEN`` characters."""
    if len(value) >= 8:
        if value.isspace() or _media(value):
            return False
    elif _DIGIT.search(value) is None or _SMALL_NUMBER(value) is not None:
        return False  # a short word, or a number below 1000 written as text ("2.0")
    return not protocol_value(value)


def linkable(value: Any) -> bool:
    """Whether equality of this value is evidence of data flow."""
    t = type(value)
    if t is str:
        return 3 <= len(value) <= _MAX_LEN and _text(value)
    if t is int:
        return bool(value >= 1000 or value <= -1000)
    return False


def visible(value: Any) -> Any:
    """``value`` without the headers that only speak the protocol: a copy of the top
    object with its ``headers`` object filtered, or ``value`` itself."""
    if type(value) is dict:
        h = value.get("headers")
        if type(h) is dict and any(type(k) is str and protocol_header(k) for k in h):
            out = dict(value)
            out["headers"] = {k: v for k, v in h.items()
                              if not (type(k) is str and protocol_header(k))}
            return out
    return value


def linkable_values(value: Any) -> list[Any]:
    """The linkable leaves of a JSON value, without their paths (any order)."""
    out: list[Any] = []
    stack = [visible(value)]
    pop, extend, add = stack.pop, stack.extend, out.append
    while stack:
        v = pop()
        t = type(v)
        if t is dict:
            extend(v.values())
        elif t is list:
            extend(v)
        elif t is str:
            if 3 <= len(v) <= _MAX_LEN and _text(v):
                add(v)
        elif t is int and (v >= 1000 or v <= -1000):
            add(v)
    return out


Segments = tuple[str | int, ...]
_CONTAINERS = (dict, list)


def leaves(value: Any, prefix: Segments) -> list[tuple[Segments, Any]]:
    """Every linkable leaf of a JSON value with its path segments, in document order."""
    out: list[tuple[Segments, Any]] = []
    if type(value) not in _CONTAINERS:
        return [(prefix, value)] if linkable(value) else out
    stack: list[tuple[Segments, Any]] = [(prefix, visible(value))]
    pop, push = stack.pop, stack.append
    while stack:
        path, v = pop()
        t = type(v)
        if t is dict:
            for k, item in reversed(v.items()):
                if type(item) in _CONTAINERS or linkable(item):
                    push(((*path, k), item))
        elif t is list:
            for i in range(len(v) - 1, -1, -1):
                item = v[i]
                if type(item) in _CONTAINERS or linkable(item):
                    push(((*path, i), item))
        else:
            out.append((path, v))
    return out


def value_key(value: Any) -> int:
    """A stable small key of a linkable value (same in every process; may collide).
    Strings and integers hash with different seeds, so ``"4711"`` and ``4711`` differ."""
    if type(value) is str:
        return zlib.crc32(value.encode("utf-8", "surrogatepass"))
    return zlib.crc32(str(value).encode(), _INT_SEED)


def result_keys(result: Any) -> list[int]:
    """Keys of the distinct linkable leaves of a result: what a source can offer."""
    t = type(result)
    if t is not dict and t is not list:
        return [value_key(result)] if linkable(result) else []
    # linkable_values, inlined: only containers go through the stack, and the values
    # are made distinct as they are found
    seen: set[Any] = set()
    add = seen.add
    stack = [visible(result)]
    pop, push = stack.pop, stack.append
    while stack:
        v = pop()
        for x in (v.values() if type(v) is dict else v):
            t = type(x)
            if t is str:
                if 3 <= len(x) <= _MAX_LEN and _text(x):
                    add(x)
            elif t is dict or t is list:
                push(x)
            elif t is int and (x >= 1000 or x <= -1000):
                add(x)
    crc32, seed = zlib.crc32, _INT_SEED  # value_key, inlined
    return list({crc32(v.encode("utf-8", "surrogatepass")) if type(v) is str
                 else crc32(str(v).encode(), seed) for v in seen})


_INT_SEED = 0x1D4A


def arg_leaves(args: Any) -> list[tuple[str, Any]]:
    """``(path, value)`` of the linkable leaves of an event's arguments."""
    t = type(args)
    if t is not dict and t is not list:
        return [("args", args)] if linkable(args) else []
    out: list[tuple[str, Any]] = []
    args = visible(args)
    try:
        _arg_walk(args, "args", out)
    except RecursionError:  # nested deeper than the interpreter's stack: walk a list
        return [(format_path(segs), v) for segs, v in leaves(args, ("args",))]
    return out


def _arg_walk(v: Any, path: str, out: list[tuple[str, Any]]) -> None:
    """``leaves`` with the path text built as it goes (same leaves, same order)."""
    for k, x in (v.items() if type(v) is dict else enumerate(v)):
        t = type(x)
        if t is str:
            if 3 <= len(x) <= _MAX_LEN and _text(x):
                out.append((path + (segment_text(k) if type(v) is dict else f"[{k}]"), x))
        elif t is dict or t is list:
            _arg_walk(x, path + (segment_text(k) if type(v) is dict else f"[{k}]"), out)
        elif t is int and (x >= 1000 or x <= -1000):
            out.append((path + (segment_text(k) if type(v) is dict else f"[{k}]"), x))


def first_path(result: Any, value: Any) -> str | None:
    """Where ``value`` first appears among the leaves of ``result`` (document order)."""
    want = type(value)
    t = type(result)
    if t is not dict and t is not list:
        return "result" if t is want and result == value else None
    result = visible(result)
    try:
        found = _first_in(result, value, want)
    except RecursionError:  # nested deeper than the interpreter's stack: walk a list
        return _first_path_flat(result, value)
    if found is None:
        return None
    found.append("result")
    found.reverse()
    return format_path(tuple(found))


def _first_in(v: Any, value: Any, want: type) -> list[str | int] | None:
    """The segments (last first) of ``value``'s first occurrence in container ``v``;
    paths are built only on the way back from a match."""
    for k, item in (v.items() if type(v) is dict else enumerate(v)):
        ti = type(item)
        if ti is dict or ti is list:
            found = _first_in(item, value, want)
            if found is not None:
                found.append(k)
                return found
        elif ti is want and item == value:
            return [k]
    return None


def _first_path_flat(result: Any, value: Any) -> str | None:
    want = type(value)
    stack: list[tuple[Segments, Any]] = [(("result",), result)]
    pop, push = stack.pop, stack.append
    while stack:  # paths are built for containers only; leaves are compared in place
        path, v = pop()
        t = type(v)
        if t is dict:
            items: Any = reversed(v.items())
        elif t is list:
            items = zip(range(len(v) - 1, -1, -1), reversed(v), strict=True)
        else:
            if t is want and v == value:
                return format_path(path)
            continue
        for k, item in items:
            ti = type(item)
            if ti is dict or ti is list or (ti is want and item == value):
                push(((*path, k), item))
    return None


@dataclass(frozen=True, slots=True)
class KeyedSource:
    """What the linker needs of one event: times, argument leaves, result keys."""

    event_id: str
    kind: str
    start_ns: int | None
    end_ns: int | None
    arg_leaves: Sequence[tuple[str, Any]]
    result_keys: Sequence[int]


def _precedes(src: KeyedSource, src_seq: int, tgt: KeyedSource, tgt_seq: int) -> bool:
    if src.end_ns is not None and tgt.start_ns is not None and src.start_ns is not None:
        return src.end_ns <= tgt.start_ns
    return src_seq < tgt_seq


def link(events: Sequence[KeyedSource],
         find: Callable[[int, Any], str | None]) -> list[list[dict[str, str]]]:
    """Refs for each event of one trace (events in seq order).

    ``find(seq, value)`` returns where ``value`` first appears in the result of the
    event at index ``seq``, or None when a key matched but the value is not there.
    Only candidate sources are resolved, so results need not be walked twice.
    """
    return link_columns([e.event_id for e in events], [e.kind for e in events],
                        [e.start_ns for e in events], [e.end_ns for e in events],
                        [e.arg_leaves for e in events], [e.result_keys for e in events], find)


def link_columns(event_ids: Sequence[str], kinds: Sequence[str],
                 starts: Sequence[int | None], ends: Sequence[int | None],
                 arg_leaves: Sequence[Sequence[Sequence[Any]]],
                 result_keys: Sequence[Sequence[int]],
                 find: Callable[[int, Any], str | None],
                 sent_keys: Sequence[Sequence[int]] | None = None,
                 ) -> list[list[dict[str, str]]]:
    """``link`` over columns (one list per field of ``KeyedSource``), as a store batch
    holds them: no object per event.

    ``sent_keys`` are the keys of what the arguments of the events that are not linked
    carried (a model call's input: its tool definitions, its prompt): values a request
    sent, which no later answer is the source of.

    Only the result keys that some argument leaf of the trace asks for are indexed,
    and each leaf's key is computed once.
    """
    n = len(event_ids)
    asked: list[list[tuple[str, Any, int]] | None] = [None] * n
    wanted: set[int] = set()
    for i in range(n):
        leaves = arg_leaves[i]
        if leaves and kinds[i] in ARG_KINDS:
            keyed = [(path, v, value_key(v)) for path, v in leaves]
            asked[i] = keyed
            wanted.update(k for _, _, k in keyed)
    out: list[list[dict[str, str]]] = [[] for _ in range(n)]
    if not wanted:
        return out
    counts = Counter(chain.from_iterable(result_keys)).get
    wanted = {k for k in wanted if counts(k, 0) <= COMMON_AFTER}
    index: dict[int, list[int]] = {}
    # value key -> the first event whose request carried it (keys may collide: at
    # worst a ref is missed, never one made)
    sent: dict[int, int] = {}
    for seq in range(n):
        leaf_keys = asked[seq]
        if leaf_keys is not None and index:
            refs = out[seq]
            start = starts[seq]
            for path, v, key in leaf_keys:
                first = sent.get(key)
                valid = []
                for src in index.get(key, ()):
                    end = ends[src]
                    if first is not None and _echo(first, src, starts[first], end):
                        continue
                    if end is not None and start is not None and starts[src] is not None:
                        if end > start:  # not before: the source ended after this started
                            continue
                    elif src >= seq:
                        continue
                    valid.append(src)
                # the answer given first: a call inside an agent step answers before
                # the step does
                if len(valid) > 1:
                    valid.sort(key=lambda i: (_NEVER if ends[i] is None else ends[i], i))
                for src in valid:
                    from_path = find(src, v)
                    if from_path is not None:
                        refs.append({"event_id": event_ids[src], "path": path,
                                     "from_path": from_path})
                        break
        if leaf_keys is not None:
            for _, _, key in leaf_keys:
                if key in wanted:
                    sent.setdefault(key, seq)
        elif sent_keys is not None and sent_keys[seq]:
            for key in wanted.intersection(sent_keys[seq]):
                sent.setdefault(key, seq)
        for k in wanted.intersection(result_keys[seq]):
            index.setdefault(k, []).append(seq)
    return out


_NEVER = 1 << 63


def _echo(sender: int, src: int, sent_at: int | None, answered_at: int | None) -> bool:
    """Whether answer ``src`` came after request ``sender`` carried the value (the
    request's own answer included): then the answer only echoes it."""
    if sender == src:
        return True
    if sent_at is not None and answered_at is not None:
        return sent_at < answered_at
    return sender < src


def infer_refs(events: Sequence[RefSource]) -> list[list[dict[str, str]]]:
    """Refs for each event of one trace, events given in seq order."""
    return link_columns(
        [e.event_id for e in events], [e.kind for e in events],
        [e.start_ns for e in events], [e.end_ns for e in events],
        [arg_leaves(e.args) if e.kind in ARG_KINDS else () for e in events],
        [result_keys(e.result) for e in events],
        lambda seq, value: first_path(events[seq].result, value),
        [() if e.kind in ARG_KINDS else sent_keys(e.args) for e in events])


def sent_keys(args: Any) -> list[int]:
    """Keys of the string and integer leaves of the arguments of an event that is not
    linked (a model call's input): values its request carried. Not filtered by
    ``linkable``: only keys some linked argument asks for are looked up."""
    seen: set[Any] = set()
    add = seen.add
    stack = [visible(args)]
    pop, push = stack.pop, stack.append
    while stack:
        v = pop()
        t = type(v)
        if t is dict:
            for x in v.values():
                push(x)
        elif t is list:
            stack.extend(v)
        elif (t is str and 3 <= len(v) <= _MAX_LEN) or (t is int and (v >= 1000 or v <= -1000)):
            add(v)
    crc32, seed = zlib.crc32, _INT_SEED
    return list({crc32(v.encode("utf-8", "surrogatepass")) if type(v) is str
                 else crc32(str(v).encode(), seed) for v in seen})
