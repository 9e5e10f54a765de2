"""Matching a request to an exchange, and, when none matches, naming the closest one and
what differed.

Method and path always match exactly; the query when the exchange's ``match.query`` (the
default); each header of ``match.headers``; the body as ``match.body`` says (``ignore``,
``exact``, or ``shape``: the same keys and value types). Among the exchanges that match,
those whose body is exactly the request's (``same_body``: JSON compared canonically, other
bodies byte for byte) answer before the others, and among those the ones whose
``Idempotency-Key`` is the request's; within that, the first one not yet used answers, so
repeated calls (a retry, page after page) get the recorded answers in order; once all are
used the last one keeps answering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._exchange import Exchange

__all__ = ["Difference", "Matcher", "Request", "same_body", "shape"]


@dataclass(slots=True)
class Request:
    """A request as received (header names lower-case; ``body`` decoded when JSON)."""

    method: str
    path: str
    query: dict[str, Any]
    headers: dict[str, Any]
    body: Any = None
    has_body: bool = False


@dataclass(frozen=True, slots=True)
class Difference:
    field: str
    recorded: Any
    received: Any

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "recorded": self.recorded, "received": self.received}


def shape(value: Any) -> Any:
    """The shape of a JSON value: mappings keep their keys, lists the shapes of their
    items (each distinct one once), scalars become their type name."""
    if type(value) is dict:
        return {k: shape(v) for k, v in sorted(value.items())}
    if type(value) is list:
        out: list[Any] = []
        for v in value:
            s = shape(v)
            if s not in out:
                out.append(s)
        return out
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string"


class Matcher:
    """The exchanges of one run, indexed by method and path."""

    def __init__(self, exchanges: list[Exchange]) -> None:
        self.exchanges = exchanges
        self._by_route: dict[tuple[str, str], list[Exchange]] = {}
        for ex in exchanges:
            self._by_route.setdefault((ex.method, ex.path), []).append(ex)

    def find(self, req: Request) -> Exchange | None:
        """The exchange that answers ``req`` (its ``uses`` counted), or None."""
        hits = [ex for ex in self._by_route.get((req.method, req.path), ())
                if not differences(ex, req)]
        if not hits:
            return None
        same = [ex for ex in hits if same_body(ex.has_body, ex.body, req.has_body, req.body)]
        keyed = [ex for ex in same if _key(ex.headers) is not None
                 and _key(ex.headers) == _key(req.headers)]
        pool = keyed or same or hits
        chosen = next((ex for ex in pool if ex.uses == 0), pool[-1])
        chosen.uses += 1
        return chosen

    def closest(self, req: Request) -> tuple[Exchange, list[Difference]]:
        """The exchange with the fewest differences (method and path weigh most)."""
        best: tuple[int, int, Exchange, list[Difference]] | None = None
        for i, ex in enumerate(self.exchanges):
            diffs = differences(ex, req, every=True)
            score = sum(3 if d.field in ("method", "path") else 1 for d in diffs)
            if best is None or (score, i) < best[:2]:
                best = (score, i, ex, diffs)
        assert best is not None
        return best[2], best[3]


def differences(ex: Exchange, req: Request, *, every: bool = False) -> list[Difference]:
    """How ``req`` differs from what ``ex`` matches on (the first only, unless ``every``)."""
    out: list[Difference] = []
    if ex.method != req.method:
        out.append(Difference("method", ex.method, req.method))
    if ex.path != req.path:
        out.append(Difference("path", ex.path, req.path))
    if out and not every:
        return out
    m = ex.match
    if m.query:
        for k in sorted(set(ex.query) | set(req.query)):
            if _norm(ex.query.get(k)) != _norm(req.query.get(k)):
                out.append(Difference(f"query.{k}", ex.query.get(k), req.query.get(k)))
                if not every:
                    return out
    for h in m.headers:
        if _norm(ex.headers.get(h)) != _norm(req.headers.get(h)):
            out.append(Difference(f"headers.{h}", ex.headers.get(h), req.headers.get(h)))
            if not every:
                return out
    if m.body == "exact" and not same_body(ex.has_body, ex.body, req.has_body, req.body):
        out.append(Difference("body", ex.body, req.body))
    elif m.body == "shape" and shape(ex.body) != shape(req.body):
        out.append(Difference("body (shape)", shape(ex.body), shape(req.body)))
    return out


def same_body(a_has: bool, a: Any, b_has: bool, b: Any) -> bool:
    """Whether two bodies are the same: JSON values canonically (key order and
    whitespace never matter, ``true`` is not ``1``, ``1`` is ``1.0``), text byte for byte;
    no body equals only no body."""
    if not (a_has and b_has):
        return a_has == b_has
    return bool(_canon(a) == _canon(b))


def _canon(v: Any) -> Any:
    if type(v) is dict:
        return ("o", tuple(sorted((str(k), _canon(x)) for k, x in v.items())))
    if type(v) is list:
        return ("a", tuple(_canon(x) for x in v))
    if isinstance(v, bool) or v is None:
        return ("l", v)
    if isinstance(v, int | float):
        return ("n", int(v) if isinstance(v, float) and v.is_integer() else v)
    return ("s", str(v))


def _key(headers: dict[str, Any]) -> str | None:
    """The request's idempotency key (``Idempotency-Key``, or a header whose name holds
    ``idempotency``), or None."""
    for name in sorted(headers):
        if "idempotency" in name.lower():
            v = _norm(headers[name])
            return v if isinstance(v, str) else None
    return None


def _norm(v: Any) -> Any:
    """A header or query value compared as text (a single-item list as its item)."""
    if isinstance(v, list):
        return [str(x) for x in v] if len(v) != 1 else str(v[0])
    return None if v is None else str(v)
