"""Generated inputs come back from their seed: a value ``probe`` generated and ``ingest``
redacted is held by the store only as its token (``«email:7f3a…»``); sending the token
would make the service refuse the request, so the finding would not reproduce.

For a step recorded by ``probe`` (its draw record: seed, operation, draw steps), each
value that holds a token is drawn again from the seed (``invariants.Redraw``) and
**proved** before it is sent: the candidate is redacted with the store's key, in the
same place of the request, and accepted only if that gives back exactly the recorded
value (tokens are keyed HMACs, so a match is not a guess). A value that cannot be
proved is sent as the token, and the step is named in ``tokens`` (docs/replay.md)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from ..invariants import Redraw, Spec
from ..model import Event
from ..redact import TOKEN_RE, Redactor
from ._send import CREDENTIAL_HEADERS, Step

__all__ = ["Regenerated", "regenerate"]

_MISSING = object()
Path = tuple[str | int, ...]


@dataclass
class Regenerated:
    """The steps to send, the values proved and restored, and the steps (1-based) whose
    request still carries a redaction token (path, query or body)."""

    steps: list[Step]
    values: int = 0
    tokens: list[int] = field(default_factory=list)
    draws: int = 0


def _leaves(v: Any, at: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(v, dict):
        for k, sub in v.items():
            yield from _leaves(sub, (*at, str(k)))
    elif isinstance(v, list):
        for i, sub in enumerate(v):
            yield from _leaves(sub, (*at, i))
    else:
        yield at, v


def _get(v: Any, at: Path) -> Any:
    for p in at:
        ok = (isinstance(p, str) and p in v) if isinstance(v, dict) else (
            isinstance(v, list) and isinstance(p, int) and p < len(v))
        if not ok:
            return _MISSING
        v = v[p]
    return v


def _set(v: Any, at: Path, new: Any) -> Any:
    if not at:
        return new
    head, rest = at[0], at[1:]
    if isinstance(v, dict):
        return {**v, str(head): _set(v[str(head)], rest, new)}
    out = list(v)
    out[int(head)] = _set(out[int(head)], rest, new)
    return out


def _has_token(v: Any) -> bool:
    return any(isinstance(leaf, str) and TOKEN_RE.search(leaf) for _, leaf in _leaves(v))


def regenerate(steps: Sequence[Step], events: Sequence[Event],
               spec_of: Callable[[], Spec | None], key_of: Callable[[], bytes]
               ) -> Regenerated:
    """``steps`` with each provable token replaced by the value the seed generates.
    ``spec_of`` (the OpenAPI document the probe drew from) and ``key_of`` (the store's
    redaction key) are asked for only when a step carries a token."""
    attrs = {e.event_id: e.attrs for e in events}
    redraw: Redraw | None = None
    red: Redactor | None = None
    spec: Spec | None = None
    out = Regenerated([])
    for n, step in enumerate(steps, 1):
        x = step.exchange
        headers = {k: v for k, v in x.headers.items() if k not in CREDENTIAL_HEADERS}
        if not (_has_token(x.body) or _has_token(x.query) or _has_token(headers)
                or TOKEN_RE.search(x.path)):
            out.steps.append(step)
            continue
        if red is None:
            red, spec = Redactor(key_of()), spec_of()
            redraw = Redraw(spec) if spec is not None else None
        values = redraw.values(attrs.get(x.event_id)) if redraw is not None else None
        if values is not None:
            x, restored = _restore(x, values, red, spec)
            out.values += restored
            step = dataclasses.replace(step, exchange=x)
        if _has_token(x.body) or _has_token(x.query) or TOKEN_RE.search(x.path):
            out.tokens.append(n)
        out.steps.append(step)
    out.draws = redraw.draws if redraw is not None else 0
    return out


def _proved(red: Redactor, field_name: str, candidate: Any) -> Any:
    """``candidate`` redacted where the store's args hold it (``args[field_name]``)."""
    return red.value({field_name: candidate})[field_name]


def _restore(x: Any, values: dict[tuple[str, str | None], Any], red: Redactor,
             spec: Spec | None) -> tuple[Any, int]:
    restored = 0
    changes: dict[str, Any] = {}
    body = values.get(("body", None), _MISSING)
    if x.has_body and body is not _MISSING:
        proof = _proved(red, "body", body)
        new = x.body
        for at, leaf in list(_leaves(x.body)):
            if not (isinstance(leaf, str) and TOKEN_RE.search(leaf)):
                continue
            cand = _get(body, at)
            if cand is not _MISSING and _get(proof, at) == leaf:
                new, restored = _set(new, at, cand), restored + 1
        changes["body"] = new
    query = dict(x.query)
    for name, leaf in x.query.items():
        cand = values.get(("query", name), _MISSING)
        if (isinstance(leaf, str) and TOKEN_RE.search(leaf) and cand is not _MISSING
                and _proved(red, "query", {name: cand})[name] == leaf):
            query[name], restored = cand, restored + 1
    changes["query"] = query
    headers = dict(x.headers)
    for name, leaf in x.headers.items():
        cand = values.get(("header", name), _MISSING)
        if (name not in CREDENTIAL_HEADERS and isinstance(leaf, str) and TOKEN_RE.search(leaf)
                and cand is not _MISSING
                and _proved(red, "headers", {name: cand})[name] == leaf):
            headers[name], restored = cand, restored + 1
    changes["headers"] = headers
    path, n = _path(x, values, red, spec)
    changes["path"], restored = path, restored + n
    return dataclasses.replace(x, **changes), restored


def _path(x: Any, values: dict[tuple[str, str | None], Any], red: Redactor,
          spec: Spec | None) -> tuple[str, int]:
    """The recorded path with its drawn parameters back, when the whole redacted
    candidate path equals the recorded one; else the recorded path."""
    named = {name: v for (where, name), v in values.items() if where == "path" and name}
    if not TOKEN_RE.search(x.path) or not named or spec is None:
        return x.path, 0
    ops = [op for op in spec.operations if op.method == x.method]
    segs = x.path.split("/")
    for op in ops:
        tpl = op.template.split("/")
        off = len(segs) - len(tpl)
        if off < 0 or not all(f"{{{k}}}" in tpl for k in named):
            continue
        cand = list(segs)
        for i, t in enumerate(tpl):
            if t.startswith("{") and t.endswith("}") and t[1:-1] in named:
                cand[off + i] = quote(str(named[t[1:-1]]), safe="")
        text = "/".join(cand)
        if text != x.path and _proved(red, "path", text) == x.path:
            return text, sum(a != b for a, b in zip(cand, segs, strict=True))
    return x.path, 0
