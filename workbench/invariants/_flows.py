"""The invariants that span a trace's exchanges: ``idempotent_retry``, ``pagination``
and ``read_your_write`` (docs/invariants.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from ..rules import Finding
from ._judge import Matched, finding
from ._openapi import CURSOR_NAMES, Paging

__all__ = ["flow_findings", "resource_id"]

_ITEM_KEYS = ("items", "data", "results", "records", "entries", "values")
_NEXT_KEYS = ("next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next",
              "cursor", "next_token", "nextToken", "after")


def _canon(v: Any) -> str:
    if isinstance(v, str):
        return v
    try:
        return orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(v, sort_keys=True, default=str)


def resource_id(m: Matched) -> str | None:
    """The id of the resource an answer is about: ``id`` (or one ``*_id``) of the body,
    of its ``data``, else the last segment of a ``Location`` header."""
    body = m.x.resp_body
    for b in (body, body.get("data") if isinstance(body, dict) else None):
        if isinstance(b, dict):
            if isinstance(b.get("id"), str | int) and not isinstance(b.get("id"), bool):
                return str(b["id"])
            ids = [k for k, v in b.items() if k.endswith(("_id", "Id")) and isinstance(
                v, str | int) and not isinstance(v, bool)]
            if len(ids) == 1:
                return str(b[ids[0]])
    loc = m.x.header("location", True)
    return loc.rstrip("/").rsplit("/", 1)[-1] if loc else None


def _ok(m: Matched) -> bool:
    return m.x.status is not None and 200 <= m.x.status < 300


def _retry(ms: Sequence[Matched]) -> Iterable[Finding]:
    groups: dict[tuple[str, str], list[Matched]] = {}
    for m in ms:
        key = m.x.header(m.op.idempotency)
        if key and m.op.writes:
            groups.setdefault((m.op.name, key), []).append(m)
    for (op, _), group in groups.items():
        ref: Matched | None = None
        for m in group:
            st = m.x.status
            if st is None:  # no answer: nothing to compare
                continue
            if ref is None:
                if st < 500:
                    ref = m
                continue
            same = _canon(m.x.body) == _canon(ref.x.body)
            a, b = ref.x.seq, m.x.seq
            pair = [ref, m]
            if not same:
                if not 400 <= st < 500:
                    yield finding("idempotent_retry", pair, f"{op} at step {b} reused the "
                                  f"Idempotency-Key of step {a} with another body and got "
                                  f"{st}; the key's first request must refuse it (4xx)",
                                  {"status": "4xx"}, {"status": st}, (str(st),))
                continue
            if st == 409:  # the first request is still in progress: the draft's answer
                continue
            if st != ref.x.status:
                yield finding("idempotent_retry", pair, f"{op} retried at step {b} with the "
                              f"same Idempotency-Key answered {st}, the first request (step "
                              f"{a}) {ref.x.status}", {"status": ref.x.status},
                              {"status": st}, (str(st), str(ref.x.status)))
            elif _ok(m):
                first, again = resource_id(ref), resource_id(m)
                if first is not None and again is not None and first != again:
                    yield finding("idempotent_retry", pair, f"{op} retried with the same "
                                  f"Idempotency-Key created a second resource (the id from "
                                  f"step {b} differs from the id from step {a})",
                                  {"id": f"the id from step {a}"},
                                  {"id": f"a new id at step {b}"})


def _items(body: Any, paging: Paging | None) -> list[Any] | None:
    if isinstance(body, list):
        return body
    if not isinstance(body, dict):
        return None
    if paging is not None and paging.items and isinstance(body.get(paging.items), list):
        return list(body[paging.items])
    for k in _ITEM_KEYS:
        if isinstance(body.get(k), list):
            return list(body[k])
    lists = [v for v in body.values() if isinstance(v, list)]
    return lists[0] if len(lists) == 1 else None


def _next_in(body: Any, paging: Paging | None) -> str | None:
    boxes = [body] + ([v for v in body.values() if isinstance(v, dict)]
                      if isinstance(body, dict) else [])
    keys = ([paging.next] if paging is not None and paging.next else []) + list(_NEXT_KEYS)
    for box in boxes:
        if isinstance(box, dict):
            for k in keys:
                v = box.get(k)
                if isinstance(v, str | int) and not isinstance(v, bool) and v != "":
                    return str(v)
    return None


_LINK_NEXT = re.compile(r'<([^>]*)>\s*;[^,]*\brel="?next"?', re.I)


def _next(m: Matched) -> str | None:
    """The next page's cursor an answer gives: a field of its body (``next_cursor``,
    ``x-pagination``'s ``next`` …), else a ``Link: <…>; rel="next"`` header."""
    found = _next_in(m.x.resp_body, m.op.paging)
    if found is None:
        link = _LINK_NEXT.search(m.x.header("link", True) or "")
        found = link.group(1) if link else None
    return found


def _query_of(nxt: str) -> dict[str, str]:
    """The query of a next link given as a URL or a path (``/orders?cursor=c2``)."""
    if "?" not in nxt:
        return {}
    return dict(parse_qsl(urlsplit(nxt).query, keep_blank_values=True))


def _links(nxt: str | None, cursor: str, value: Any) -> bool:
    """Whether a request's cursor ``value`` follows the answer whose next is ``nxt``."""
    if nxt is None or value is None:
        return False
    return nxt == str(value) or _query_of(nxt).get(cursor) == str(value)


def _item_key(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("id"), str | int):
        return f"id:{item['id']}"
    return _canon(item)


def _cursor_of(ms: Sequence[Matched]) -> tuple[str, bool] | None:
    """The cursor parameter: the document's, else one that carried a value the previous
    answer of the same operation gave (inferred)."""
    op = ms[0].op
    if op.paging is not None:
        return op.paging.cursor, True
    prev: Matched | None = None
    for m in ms:
        if prev is not None and _ok(prev):
            nxt = _next(prev)
            for name, v in m.x.query.items():
                if name != "limit" and _links(nxt, name, v) and (
                        name in CURSOR_NAMES or v != prev.x.query.get(name)):
                    return name, False
        prev = m
    return None


def _walks(ms: Sequence[Matched], cursor: str) -> list[list[Matched]]:
    walks: list[list[Matched]] = []
    for m in ms:
        if not _ok(m):
            continue
        c = m.x.query.get(cursor)
        if c in (None, ""):
            walks.append([m])
            continue
        for w in reversed(walks):
            if _links(_next(w[-1]), cursor, c):
                w.append(m)
                break
    return walks


def _filters(m: Matched, cursor: str) -> str:
    limit = m.op.paging.limit if m.op.paging else None
    return _canon({k: v for k, v in m.x.query.items()
                   if k not in (cursor, limit or "limit")})


def _pagination(ms: Sequence[Matched], writes: list[int]) -> Iterable[Finding]:
    by_op: dict[str, list[Matched]] = {}
    for m in ms:
        if m.op.method == "GET":
            by_op.setdefault(m.op.name, []).append(m)
    for op, mine in by_op.items():
        found = _cursor_of(mine)
        if found is None:
            continue
        cursor, declared = found
        said = "" if declared else f" (cursor parameter {cursor} inferred from the traffic)"
        walks = _walks(mine, cursor)
        for w in walks:
            yield from _walk_findings(op, w, walks, cursor, said, writes)


def _walk_findings(op: str, w: list[Matched], walks: list[list[Matched]], cursor: str,
                   said: str, writes: list[int]) -> Iterable[Finding]:
    seen: dict[str, int] = {}
    for m in w:
        page = _items(m.x.resp_body, m.op.paging) or []
        repeats = [k for k in map(_item_key, page) if k in seen]
        if repeats:
            first = seen[repeats[0]]
            yield finding("pagination", w[: w.index(m) + 1], f"{op} cursor walk: the page at "
                          f"step {m.x.seq} repeats {len(repeats)} item(s) of an earlier page "
                          f"(the item from step {first}){said}", {"repeated_items": 0},
                          {"repeated_items": len(repeats)})
            return
        for k in map(_item_key, page):
            seen[k] = m.x.seq
    if len(w) < 2 or _next(w[-1]) is not None:
        return
    for other in walks:
        big = other[0]
        big_page = _items(big.x.resp_body, big.op.paging)
        if (other is w or len(other) != 1 or big_page is None or len(big_page) <= len(
                _items(w[0].x.resp_body, w[0].op.paging) or [])
                or _next(big) is not None
                or _filters(big, cursor) != _filters(w[0], cursor)):
            continue
        lo = min(w[0].x.seq, big.x.seq)
        hi = max(w[-1].x.seq, big.x.seq)
        if any(lo < s < hi for s in writes):
            continue
        large = set(map(_item_key, big_page))
        if large != set(seen):
            missing, extra = len(large - set(seen)), len(set(seen) - large)
            yield finding("pagination", [*w, big], f"{op} cursor walk of {len(w)} pages "
                          f"gave {len(seen)} items, one larger page at step {big.x.seq} "
                          f"gave {len(large)}: {missing} item(s) never came along the walk, "
                          f"{extra} came only along it{said}",
                          {"items": len(large)}, {"items": len(seen), "missing": missing,
                                                  "extra": extra})
            return


def _read_your_write(ms: Sequence[Matched]) -> Iterable[Finding]:
    created: dict[str, Matched] = {}
    deleted: dict[str, int] = {}
    for m in ms:
        values = set(m.path_params.values())
        if m.op.method == "POST" and _ok(m):
            rid = resource_id(m)
            if rid is not None:
                created.setdefault(rid, m)
                deleted.pop(rid, None)
        elif m.op.method == "DELETE" and _ok(m):
            for v in values:
                deleted[v] = m.x.seq
        elif m.op.method == "GET" and m.x.status in (404, 410):
            for v in values:
                c = created.get(v)
                if c is not None and v not in deleted:
                    yield finding("read_your_write", [c, m], f"{m.op.name} at step {m.x.seq} "
                                  f"answered {m.x.status} for the id {c.op.name} created at "
                                  f"step {c.x.seq} (the id from step {c.x.seq})",
                                  {"status": "2xx"}, {"status": m.x.status},
                                  (str(m.x.status),))
                    break


def flow_findings(ms: Sequence[Matched], chosen: set[str]) -> list[Finding]:
    out: list[Finding] = []
    if "idempotent_retry" in chosen:
        out += _retry(ms)
    if "pagination" in chosen:
        writes = [m.x.seq for m in ms if m.op.writes]
        out += _pagination(ms, writes)
    if "read_your_write" in chosen:
        out += _read_your_write(ms)
    return out
