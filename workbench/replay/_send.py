"""Sending a trace's HTTP steps to the target, one attempt.

Each recorded request is re-based on the target (its path under the target's base
path), with its query, headers and body as recorded, except:

* ids from earlier answers: a value an earlier answer held (an ``id``-like field, a
  cursor, a ``Location`` header, or a field the store's data-flow refs name) stands for
  what the new answer holds at the same place, wherever a later request repeats it (a
  path segment, a query value, a header, a body field);
* idempotency keys get a suffix per attempt, so attempts do not share server state but
  a retry inside one attempt still repeats its key;
* credentials come from ``credentials`` (``--auth-env``); a credential header the
  recording holds (redacted or not) without one stops the attempt with
  ``CREDENTIAL_MISSING``: the store never supplies one.
"""

from __future__ import annotations

import http.client
import ssl
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urlencode

from ..invariants import Exchange
from ..model import LIMITS, Event, dumps
from ..model import loads as json_loads
from ._target import Target

__all__ = ["CREDENTIAL_HEADERS", "Attempt", "Step", "play", "steps_of"]

CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie",
                                "x-api-key", "api-key", "x-auth-token"})
_DROP = frozenset({"host", "content-length", "connection", "keep-alive", "transfer-encoding",
                   "te", "upgrade", "accept-encoding", "expect"})
_TOKEN = "\u00ab"  # a redaction token starts with «
_SHOWN = "\u00abcredential\u00bb"
_ID_NAMES = frozenset({"id", "uuid", "guid", "next", "location", "href"})
_ID_PARTS = ("cursor", "token", "key")


@dataclass(frozen=True)
class Step:
    """One recorded HTTP step and where its answer's ids came from (store refs)."""

    exchange: Exchange
    ref_paths: tuple[str, ...] = ()  # result paths of this step later steps used


@dataclass
class Attempt:
    """What one attempt sent and got: the new exchanges, and why it stopped early."""

    exchanges: list[Exchange] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    error_code: str | None = None
    error_message: str | None = None
    stopped: int | None = None  # the step (0-based) at which an error stopped it
    seconds: float = 0.0


def steps_of(events: Sequence[Event], exchanges: Sequence[Exchange]) -> list[Step]:
    """The steps, with the answer paths the store's data-flow refs point at."""
    used: dict[str, set[str]] = {}
    for e in events:
        for r in e.refs:
            if r.from_path.startswith("result."):
                used.setdefault(r.event_id, set()).add(r.from_path[len("result."):])
    return [Step(x, tuple(sorted(used.get(x.event_id, ())))) for x in exchanges]


def _walk(v: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...],
                                                                     Any]]:
    if isinstance(v, dict):
        for k, sub in v.items():
            yield from _walk(sub, (*path, str(k)))
    elif isinstance(v, list):
        for i, sub in enumerate(v):
            yield from _walk(sub, (*path, i))
    else:
        yield path, v


def _at(v: Any, path: tuple[str | int, ...]) -> Any:
    for p in path:
        if isinstance(p, int) and isinstance(v, list) and p < len(v):
            v = v[p]
            continue
        if isinstance(p, str) and isinstance(v, dict) and p in v:
            v = v[p]
        else:
            return None
    return v


def _id_like(path: tuple[str | int, ...], value: Any, named: set[str]) -> bool:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return False
    if isinstance(value, str) and (len(value) < 2 or value.startswith(_TOKEN)):
        return False
    name = next((str(p) for p in reversed(path) if isinstance(p, str)), "")
    key = name.lower()
    dotted = ".".join(str(p) for p in path)
    return (dotted in named or key in _ID_NAMES or key.endswith(("_id", "-id", "_uuid"))
            or (name.endswith("Id") and name[:-2].isalnum())  # orderId
            or any(k in key for k in _ID_PARTS))


class _Ids:
    """Recorded value -> the value the replay got at the same place."""

    def __init__(self) -> None:
        self.map: dict[tuple[type, Any], Any] = {}
        self.text: dict[str, str] = {}

    def learn(self, step: Step, body: Any, headers: Mapping[str, Any]) -> None:
        old, named = step.exchange, set(step.ref_paths)
        named_body = {p[len("body."):] for p in named if p.startswith("body.")}
        for path, v in _walk(old.resp_body):
            if _id_like(path, v, named_body):
                self._add(v, _at(body, path))
        loc = old.header("location", response=True)
        new_loc = headers.get("location")
        if loc and isinstance(new_loc, str):
            self._add(loc, new_loc)
            self._add(loc.rstrip("/").rsplit("/", 1)[-1], new_loc.rstrip("/").rsplit("/", 1)[-1])

    def _add(self, old: Any, new: Any) -> None:
        if new is None or isinstance(new, dict | list) or old == new:
            return
        self.map.setdefault((type(old), old), new)
        self.text.setdefault(str(old), str(new))

    def value(self, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: self.value(s) for k, s in v.items()}
        if isinstance(v, list):
            return [self.value(s) for s in v]
        if isinstance(v, bool) or v is None:
            return v
        return self.map.get((type(v), v), v)

    def segment(self, s: str) -> str:
        return self.text.get(s, s)


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return ""
    return v if isinstance(v, str) else dumps(v) if isinstance(v, dict | list) else str(v)


def _request(step: Step, ids: _Ids, target: Target, creds: Mapping[str, str], tag: str
             ) -> tuple[str, dict[str, str], bytes | None, dict[str, str], str | None]:
    """(path+query, headers sent, body, headers as recorded, missing credential)."""
    x = step.exchange
    path = "/".join(quote(ids.segment(unquote(s)), safe="@:!$&'()*+,;=-._~")
                    for s in x.path.split("/"))
    query = [(k, ids.segment(_text(i))) for k, v in x.query.items()
             for i in (v if isinstance(v, list) else [v])]
    url = target.base + path + ("?" + urlencode(query) if query else "")
    headers: dict[str, str] = {}
    shown: dict[str, str] = {}
    for k, v in x.headers.items():
        name = k.lower()
        value = _text(v[0] if isinstance(v, list) and v else v)
        if name in _DROP or name.startswith(":"):
            continue
        if name in CREDENTIAL_HEADERS or _TOKEN in value:
            if name not in creds:
                return url, headers, None, shown, name
            headers[name], shown[name] = creds[name], _SHOWN
            continue
        if "idempotency" in name:
            value = f"{value}.{tag}"
        headers[name] = shown[name] = ids.segment(value)
    data = None
    if x.has_body:
        body = ids.value(x.body)
        data = body.encode() if isinstance(body, str) else dumps(body).encode()
        if "content-type" not in headers and not isinstance(body, str):
            headers["content-type"] = shown["content-type"] = "application/json"
    return url, headers, data, shown, None


def play(steps: Sequence[Step], target: Target, creds: Mapping[str, str], tag: str,
         timeout: float = 10.0) -> Attempt:
    """Send the steps in order; stop at the first that cannot be sent or answered."""
    out = Attempt()
    ids = _Ids()
    started = time.perf_counter()
    conn = _connect(target, timeout)
    try:
        for i, step in enumerate(steps):
            x = step.exchange
            url, headers, data, shown, missing = _request(step, ids, target, creds, tag)
            if missing is not None:
                out.stopped, out.error_code = i, "CREDENTIAL_MISSING"
                out.error_message = (f"step {i + 1} ({x.method} {x.path}) carries the "
                                     f"{missing} header, a credential the store never "
                                     "supplies; no --auth-env names a variable for it")
                break
            t0 = time.time_ns()
            try:
                conn.request(x.method, url, body=data, headers=headers)
                resp = conn.getresponse()
                cap = LIMITS["answer_bytes"]
                raw = resp.read(cap.value + 1)
                if len(raw) <= cap.value and resp.length:  # fewer bytes than promised
                    raise http.client.IncompleteRead(raw, resp.length)
            except TimeoutError:
                out.stopped, out.error_code, out.error_message = i, "REPLAY_TIMEOUT", (
                    f"step {i + 1} ({x.method} {x.path}): {target.url} did not answer "
                    f"within {timeout:g} s")
                break
            except ConnectionRefusedError:
                out.stopped, out.error_code, out.error_message = i, "REPLAY_UNREACHABLE", (
                    f"step {i + 1} ({x.method} {x.path}): nothing listens on "
                    f"{_netloc(target)} (connection refused): is the service running, "
                    "and is --target's port right?")
                break
            except (OSError, http.client.HTTPException) as exc:
                out.stopped, out.error_code, out.error_message = i, "REPLAY_UNREACHABLE", (
                    f"step {i + 1} ({x.method} {x.path}): {target.url} did not answer "
                    f"({type(exc).__name__})")
                break
            t1 = time.time_ns()
            if len(raw) > cap.value:
                out.stopped, out.error_code = i, "LIMIT_EXCEEDED"
                out.error_message = cap.breach(f"step {i + 1} ({x.method} {x.path})").message
                break
            rheaders = {k.lower(): v for k, v in resp.getheaders()}
            try:
                rbody: Any = json_loads(raw) if raw else None
            except ValueError:
                rbody = raw.decode("utf-8", "replace")
            path = url.partition("?")[0]
            new = Exchange("replay", f"replay-{i}", i, x.method, path,
                           {k: ids.segment(_text(v)) for k, v in x.query.items()}, shown,
                           ids.value(x.body) if x.has_body else None, x.has_body,
                           resp.status, rheaders, rbody, bool(raw), t0, t1)
            out.exchanges.append(new)
            out.raw.append(raw)
            out.urls.append(f"{target.scheme}://{_netloc(target)}{url}")
            if resp.status in (401, 403) and any(h in creds for h in headers):
                out.stopped, out.error_code, out.error_message = i, "REPLAY_UNAUTHORIZED", (
                    f"step {i + 1} ({x.method} {x.path}) was refused with {resp.status} "
                    "although sent with the --auth-env credential")
                break
            ids.learn(step, rbody, rheaders)
    finally:
        conn.close()
        out.seconds = time.perf_counter() - started
    return out


def _netloc(target: Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    return f"{host}:{target.port}"


def _connect(target: Target, timeout: float) -> http.client.HTTPConnection:
    if target.scheme == "https":
        return http.client.HTTPSConnection(target.host, target.port, timeout=timeout,
                                           context=ssl.create_default_context())
    return http.client.HTTPConnection(target.host, target.port, timeout=timeout)
