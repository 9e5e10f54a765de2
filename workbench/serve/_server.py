"""The contract server: a scenario's exchanges answered on 127.0.0.1, every request
recorded to the store (docs/serve.md).

``serve`` checks everything before it listens — the scenario and recordings, the
failure modes, the address (loopback only) and the port — so bad input starts nothing
and writes nothing. It then announces ``{url, scenario, recording_to, trace_id}``,
serves until SIGINT or SIGTERM (or ``stop``), and commits what it recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..model import JSONDecodeError, Limit, LimitExceededError, dumps_bytes, loads
from ..store import Store
from ._errors import ListenError
from ._exchange import Exchange
from ._failures import Answer, Failure, apply_failures, holds
from ._http import HOLD, HttpServer, Limits, Reply
from ._match import Matcher, Request
from ._recorder import Recorder, commit_orphans, new_trace_id
from ._scenario import Scenario, load_sources, parse_failures

__all__ = ["SERVED_HEADER", "ServeResult", "bind", "check_host", "serve", "signals_held",
           "stop_on"]

SERVED_HEADER = "x-workbench-served"
"""Set on every answer: ``recording`` (a recorded exchange as recorded), ``injected`` (one
a failure mode changed) or ``unmatched`` (the 501 for a request no exchange matches).
``refused`` marks the 413 for a JSON body past a parser limit (``json_depth``,
``integer_digits``). Whoever reads an answer (``replay``) can tell it came from a
recording, not a service."""

#: deeper request bodies are refused (413): what is recorded must be redacted, and the
#: redactor walks JSON on the interpreter's stack (docs/serve.md, "Garbage clients")
BODY_DEPTH = Limit("request_json_depth", 256, "levels", "JSON nesting of a request body")

_HOP = frozenset({"content-length", "transfer-encoding", "connection", "content-encoding",
                  "keep-alive", "date", "server"})


@dataclass
class ServeResult:
    url: str
    scenario: str
    trace_id: str
    requests: int
    unmatched: int
    recording_to: str
    committed: int = 0
    recovered: list[str] = field(default_factory=list)


def check_host(host: str) -> str:
    """``host`` if it is a loopback address (``localhost`` is 127.0.0.1); else refused."""
    name = "127.0.0.1" if host == "localhost" else host
    try:
        if ipaddress.ip_address(name).is_loopback:
            return name
    except ValueError:
        pass
    raise ListenError(f"--host {host} is not a loopback address: the contract server "
                      "listens on 127.0.0.1 (or ::1) only", code="NOT_LOOPBACK",
                      hint="drop --host, or use 127.0.0.1")


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(512)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror}",
                              port=port) from None
        raise ListenError(f"cannot listen on {host}:{port}: {exc.strerror}",
                          code="NOT_LOOPBACK", port=port) from None
    sock.setblocking(False)
    return sock


class App:
    """Answers one request: match, inject the failures, record, reply."""

    def __init__(self, scenario: Scenario, recorder: Recorder, base: str) -> None:
        self.matcher = Matcher(scenario.exchanges)
        self.failures = scenario.failures
        self.recorder, self.base = recorder, base
        self.unmatched = 0

    def __call__(self, method: str, target: str, headers: list[tuple[str, str]],
                 raw: bytes) -> Reply | object:
        start = time.time_ns()
        req, refused = _request(method, target, headers, raw)
        url = self.base + target
        if refused is not None:
            answer = _refused(refused)
            self.recorder.record(req, url, answer, exchange=None, failure=None,
                                 start_ns=start)
            return _reply(answer)
        ex = self.matcher.find(req)
        if ex is None:
            self.unmatched += 1
            answer = self._no_match(req)
            self.recorder.record(req, url, answer, exchange=None, failure=None,
                                 start_ns=start)
            return _reply(answer)
        failures: tuple[Failure, ...] = (*self.failures, *ex.failures)
        held = holds(failures, ex.uses)
        if held is not None:
            self.recorder.record(req, url, None, exchange=ex.id, failure=held,
                                 start_ns=start)
            return HOLD
        answer = _finish(apply_failures(_recorded(ex), failures))
        changed = [str(f) for f in failures if f.mode not in ("retry-then-ok",)]
        answer.headers[SERVED_HEADER] = "injected" if changed else "recording"
        self.recorder.record(req, url, answer, exchange=ex.id,
                             failure=", ".join(changed) or None, start_ns=start)
        return _reply(answer)

    def _no_match(self, req: Request) -> Answer:
        ex, diffs = self.matcher.closest(req)
        return Answer(501, {"content-type": "application/json",
                            SERVED_HEADER: "unmatched"}, {"error": {
            "code": "no_matching_exchange",
            "message": f"no recorded exchange matches {req.method} {req.path}",
            "closest": {"exchange": ex.id, "request": ex.name, "source": ex.source,
                        "differences": [d.to_dict() for d in diffs]}}})


def _refused(exc: LimitExceededError) -> Answer:
    """The 413 for a JSON body past a parser limit, naming the limit."""
    return Answer(413, {"content-type": "application/json", SERVED_HEADER: "refused"},
                  {"error": {"code": "json_limit",
                             "message": "the request body: " + exc.message.split(": ", 1)[-1],
                             "limit": exc.details.get("limit"),
                             "value": exc.details.get("value")}})


def _request(method: str, target: str, headers: list[tuple[str, str]], raw: bytes
             ) -> tuple[Request, LimitExceededError | None]:
    """The request, and the limit its JSON body breaks (the body is then recorded as
    ``«refused: N bytes»``, never parsed further)."""
    parts = urlsplit(target)
    query: dict[str, Any] = {}
    for k, v in parse_qsl(parts.query, keep_blank_values=True):
        prev = query.get(k)
        query[k] = v if prev is None else [*(prev if isinstance(prev, list) else [prev]), v]
    hdrs: dict[str, Any] = {}
    for k, v in headers:
        prev = hdrs.get(k)
        hdrs[k] = v if prev is None else [*(prev if isinstance(prev, list) else [prev]), v]
    body: Any = None
    refused: LimitExceededError | None = None
    if raw:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            body = f"«binary: {len(raw)} bytes»"
        else:
            try:
                body = loads(text)
                if _depth(body) > BODY_DEPTH.value:
                    raise BODY_DEPTH.breach("JSON")
            except JSONDecodeError:
                body = text
            except LimitExceededError as exc:
                body, refused = f"«refused: {len(raw)} bytes»", exc
    return Request(method.upper(), parts.path or "/", query, hdrs, body, bool(raw)), refused


def _depth(value: Any) -> int:
    """How deep a JSON value nests (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        items = v.values() if type(v) is dict else v if type(v) is list else None
        if items is None:
            continue
        deepest = max(deepest, d)
        stack.extend((x, d + 1) for x in items if type(x) in (dict, list))
    return deepest


def _recorded(ex: Exchange) -> Answer:
    headers = {k: v for k, v in ex.response_headers.items() if k not in _HOP}
    return Answer(ex.status, headers, ex.response_body, ex.has_response_body)


def _finish(a: Answer) -> Answer:
    """The content type said where the recording left it out (what is sent is recorded)."""
    if a.has_body and a.body is not None and "content-type" not in a.headers:
        a.headers["content-type"] = ("text/plain; charset=utf-8" if isinstance(a.body, str)
                                     else "application/json")
    return a


def _reply(a: Answer) -> Reply:
    headers: list[tuple[str, str]] = []
    for k, v in a.headers.items():
        for one in v if isinstance(v, list) else [v]:
            headers.append((k, str(one)))
    if not a.has_body or (a.body is None and not a.has_body):
        body = b""
    elif isinstance(a.body, str):
        body = a.body.encode("utf-8")
        if "content-type" not in a.headers:
            headers.append(("content-type", "text/plain; charset=utf-8"))
    else:
        body = dumps_bytes(a.body)
        if "content-type" not in a.headers:
            headers.append(("content-type", "application/json"))
    return Reply(a.status, headers, body)


def serve(sources: list[str | os.PathLike[str]], store: Store, *, host: str = "127.0.0.1",
          port: int = 8765, failures: Sequence[str] = (), limits: Limits | None = None,
          ready: Callable[[dict[str, Any]], None] | None = None,
          stopper: Callable[[Callable[[], None]], None] | None = None) -> ServeResult:
    """Serve until SIGINT/SIGTERM (or until ``stopper``'s callback is called)."""
    host = check_host(host)
    scenario = load_sources(list(sources), parse_failures(list(failures)))
    sock = bind(host, port)
    try:
        recovered = commit_orphans(store)
        trace_id = new_trace_id()
        recorder = Recorder(store, trace_id, scenario.name)
    except BaseException:
        sock.close()
        raise
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}"
    app = App(scenario, recorder, url)
    server = HttpServer(sock, app, limits or Limits())
    try:
        asyncio.run(_run(server, stopper, ready, {
            "url": url, "scenario": scenario.name, "recording_to": str(store.root),
            "trace_id": trace_id, "journal": recorder.path,
            "exchanges": len(scenario.exchanges)}))
    finally:
        sock.close()
        with signals_held(stopper):
            committed = recorder.commit()
    return ServeResult(url, scenario.name, trace_id, recorder.count, app.unmatched,
                       str(store.root), committed, recovered)


def stop_on(server: HttpServer, stopper: Callable[[Callable[[], None]], None] | None) -> None:
    """What stops ``server``: SIGINT and SIGTERM, or, when ``stopper`` is given (a
    library caller, a test), the function it is handed, callable from any thread."""
    loop = asyncio.get_running_loop()
    if stopper is None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, server.stop)
        return

    def stop() -> None:
        loop.call_soon_threadsafe(server.stop)
    stopper(stop)


@contextlib.contextmanager
def signals_held(stopper: object | None) -> Iterator[None]:
    """While what the server recorded is committed, a second SIGINT or SIGTERM (say, a
    supervisor's after the first) is ignored instead of killing the commit halfway; the
    handlers are given back after. Only where signals stop the server (``stopper`` is
    None) and only on the main thread, the one Python delivers signals to."""
    if stopper is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT,
                                                                 signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


async def _run(server: HttpServer, stopper: Callable[[Callable[[], None]], None] | None,
               ready: Callable[[dict[str, Any]], None] | None, doc: dict[str, Any]) -> None:
    stop_on(server, stopper)
    task = asyncio.ensure_future(server.run())
    await asyncio.sleep(0)
    if ready is not None:
        ready(doc)
    await task
