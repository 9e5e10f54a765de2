"""``collect``: an OTLP/HTTP trace receiver on 127.0.0.1 whose spans land in the store.

``collect`` checks its settings, binds the port and commits what a killed collector
left before it announces ``{url, endpoint, store, env, idle, recovered}``. It then
answers ``POST /v1/traces`` (HTTP/1.1 on the contract server's ``HttpServer``: its
limits against garbage clients hold here too) until SIGINT or SIGTERM (or ``stop``),
committing traces as they fall idle (``_traces``), and commits every open trace before
it returns. Answers follow the OTLP/HTTP specification: 200 with an
``ExportTraceServiceResponse`` (its ``partialSuccess`` when spans were refused), 400 for
a body that is not OTLP, 404/405 elsewhere, 413 past ``--max-body`` (inflated too),
415 for another media type or content coding, 429 with ``Retry-After`` to a client
sending more than ``client_rate`` bytes a second (the others are served meanwhile);
error bodies are a ``google.rpc.Status`` in the request's encoding.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..ingest import check_env
from ..model import UsageError, dumps_bytes
from ..redact import Redactor
from ..serve import PEER, HttpServer, Limits, Reply, bind, check_host, signals_held, stop_on
from ..store import Store
from ._commit import Committer
from ._request import JSON, PROTOBUF, Export, Refused, decode_body, media_type, split
from ._traces import Traces, commit_orphans

__all__ = ["CollectResult", "Settings", "collect"]

PATH = "/v1/traces"
_BATCH = 5_000  # traces committed at once at most
_RETRY_MAX = 60


@dataclass(frozen=True)
class Settings:
    """How the collector runs; out-of-range values are ``USAGE``."""

    host: str = "127.0.0.1"
    port: int = 4318
    env: str = "default"
    idle: float = 30.0
    max_traces: int = 10_000
    client_rate: int = 32 << 20
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        check_env(self.env)
        if not 0 < self.idle <= 86_400:  # NaN fails too
            raise UsageError(f"--idle {self.idle} is not above 0 and at most a day",
                             hint="the seconds a trace receives nothing before it is "
                                  "committed, e.g. 30")
        if not 1 <= self.max_traces <= 100_000:
            raise UsageError(f"--max-traces {self.max_traces} is not 1 to 100000",
                             hint="open traces are held in memory until committed")
        if self.client_rate < 1:
            raise UsageError(f"--client-rate {self.client_rate} is not a positive number "
                             "of bytes per second")


@dataclass
class CollectResult:
    url: str
    endpoint: str
    store: str
    env: str
    requests: int = 0
    spans: int = 0
    refused_spans: int = 0
    refused_requests: dict[int, int] = field(default_factory=dict)
    traces: list[str] = field(default_factory=list)
    spans_committed: int = 0
    spans_lost: int = 0
    recovered: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"url": self.url, "endpoint": self.endpoint, "store": self.store,
                "env": self.env, "requests": self.requests, "spans": self.spans,
                "refused_spans": self.refused_spans,
                "refused_requests": {str(k): v for k, v in
                                     sorted(self.refused_requests.items())},
                "traces": self.traces, "spans_committed": self.spans_committed,
                "spans_lost": self.spans_lost, "recovered": self.recovered}


def _status(kind: str, status: int, message: str,
            headers: list[tuple[str, str]] | None = None) -> Reply:
    """An error answer: a ``google.rpc.Status`` (gRPC code, message) in ``kind``."""
    code = {400: 3, 404: 12, 405: 12, 413: 8, 415: 3, 429: 8}.get(status, 2)
    if kind == PROTOBUF:
        text = message.encode("utf-8")
        body = b"\x08" + _varint(code) + b"\x12" + _varint(len(text)) + text
    else:
        kind, body = JSON, dumps_bytes({"code": code, "message": message})
    return Reply(status, [("content-type", kind), *(headers or [])], body)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _success(kind: str, rejected: int, message: str) -> Reply:
    """The ``ExportTraceServiceResponse``, with ``partialSuccess`` when spans were refused."""
    if kind == PROTOBUF:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceResponse,
        )
        resp = ExportTraceServiceResponse()
        if rejected:
            resp.partial_success.rejected_spans = rejected
            resp.partial_success.error_message = message
        return Reply(200, [("content-type", PROTOBUF)], resp.SerializeToString())
    doc: dict[str, Any] = {}
    if rejected:
        doc["partialSuccess"] = {"rejectedSpans": str(rejected), "errorMessage": message}
    return Reply(200, [("content-type", JSON)], dumps_bytes(doc))


class _Buckets:
    """A token bucket of bytes per client (its address): ``rate`` a second, holding
    ``burst`` at most."""

    def __init__(self, rate: int, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.state: dict[tuple[str, int], tuple[float, float]] = {}

    def wait(self, peer: tuple[str, int], size: int, now: float) -> float:
        """0 when ``size`` bytes are admitted now (and spent); else the seconds to wait."""
        tokens, at = self.state.get(peer, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        need = min(size, self.burst)
        if tokens >= need:
            self.state[peer] = (tokens - need, now)
            return 0.0
        self.state[peer] = (tokens, now)
        return (need - tokens) / self.rate

    def forget(self, now: float) -> None:
        """Drop clients whose bucket is full again (gone quiet)."""
        full = self.burst / self.rate
        self.state = {p: s for p, s in self.state.items() if now - s[1] < full}


class App:
    """Answers ``POST /v1/traces``: admit, decode and split off the loop, journal."""

    def __init__(self, traces: Traces, settings: Settings, result: CollectResult,
                 committer: Committer) -> None:
        self.traces, self.settings, self.result = traces, settings, result
        self.committer = committer
        self.redactor = Redactor(traces.store.redaction_key())
        self.buckets = _Buckets(settings.client_rate,
                                max(settings.client_rate, settings.limits.max_body))
        self.decoder = ThreadPoolExecutor(1, thread_name_prefix="collect-decode")

    def refuse(self, kind: str, status: int, message: str,
               headers: list[tuple[str, str]] | None = None) -> Reply:
        counts = self.result.refused_requests
        counts[status] = counts.get(status, 0) + 1
        return _status(kind, status, message, headers)

    async def __call__(self, method: str, target: str, headers: list[tuple[str, str]],
                       raw: bytes) -> Reply:
        kind = media_type(headers)
        shown = kind if kind in (PROTOBUF, JSON) else JSON
        if urlsplit(target).path != PATH:
            return self.refuse(shown, 404, f"nothing at {urlsplit(target).path}: OTLP "
                                           f"traces go to POST {PATH}")
        if method != "POST":
            return self.refuse(shown, 405, f"{PATH} takes POST", [("allow", "POST")])
        if kind not in (PROTOBUF, JSON):
            return self.refuse(shown, 415, f"Content-Type {kind or '(none)'} is not OTLP: "
                                           f"send {PROTOBUF} or {JSON}")
        wait = self.buckets.wait(PEER.get(), len(raw), time.monotonic())
        if wait:
            after = min(_RETRY_MAX, max(1, math.ceil(wait)))
            return self.refuse(kind, 429, f"this client sends more than "
                                          f"{self.settings.client_rate} bytes a second",
                               [("retry-after", str(after))])
        loop = asyncio.get_running_loop()
        try:
            export = await loop.run_in_executor(self.decoder, self._decode, kind, headers,
                                                raw)
        except Refused as exc:
            return self.refuse(kind, exc.status, exc.message)
        self._journal(export)
        return _success(kind, export.rejected, export.reason)

    def _decode(self, kind: str, headers: list[tuple[str, str]], raw: bytes) -> Export:
        doc = decode_body(kind, headers, raw, self.settings.limits.max_body)
        return split(doc, self.redactor)

    def _journal(self, export: Export) -> None:
        items: dict[str, list[dict[str, Any]]] = {}
        for tid, parts in export.traces.items():
            n = export.spans[tid]
            if self.traces.is_closed(tid):
                export.refuse(n, f"trace {tid} is already committed (its spans came more "
                                 f"than --idle {self.settings.idle:g} s apart)")
                continue
            items[tid] = parts
            self.result.spans += n
        if items:
            self.traces.add(items, export.spans, time.monotonic())
        self.result.requests += 1
        self.result.refused_spans += export.rejected


def collect(store: Store, settings: Settings | None = None, *,
            ready: Callable[[dict[str, Any]], None] | None = None,
            note: Callable[[str], None] | None = None,
            stopper: Callable[[Callable[[], None]], None] | None = None) -> CollectResult:
    """Receive until SIGINT/SIGTERM (or until ``stopper``'s callback is called)."""
    s = settings or Settings()
    host = check_host(s.host)
    say = note or (lambda _text: None)
    sock = bind(host, s.port)
    try:
        recovered = commit_orphans(store, say)
        traces = Traces(store, s.env, s.idle, s.max_traces, say)
    except BaseException:
        sock.close()
        raise
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}"
    result = CollectResult(url, url + PATH, str(store.root), s.env, recovered=recovered)
    app = App(traces, s, result, Committer(store))
    server = HttpServer(sock, app, s.limits)
    try:
        asyncio.run(_run(server, app, stopper, ready, {
            "url": url, "endpoint": url + PATH, "store": str(store.root), "env": s.env,
            "idle": s.idle, "recovered": recovered}))
    finally:
        sock.close()
        with signals_held(stopper):
            app.decoder.shutdown(wait=True)
            try:
                while traces.open:
                    traces.commit(traces.due(0.0, everything=True, most=_BATCH),
                                  app.committer)
                traces.close()
            finally:
                app.committer.close()
        result.traces = traces.committed
        result.spans_committed, result.spans_lost = traces.spans_committed, traces.spans_lost
    return result


async def _run(server: HttpServer, app: App,
               stopper: Callable[[Callable[[], None]], None] | None,
               ready: Callable[[dict[str, Any]], None] | None, doc: dict[str, Any]) -> None:
    loop = asyncio.get_running_loop()
    stop_on(server, stopper)
    task = asyncio.ensure_future(server.run())
    ticker = asyncio.ensure_future(_tick(app, loop))
    await asyncio.sleep(0)
    if ready is not None:
        ready(doc)
    try:
        await task
    finally:
        ticker.cancel()
        await asyncio.gather(ticker, return_exceptions=True)


async def _tick(app: App, loop: asyncio.AbstractEventLoop) -> None:
    """Commit the traces that fell idle, in a thread of its own, one batch at a time."""
    every = min(1.0, app.settings.idle / 4)
    with ThreadPoolExecutor(1, thread_name_prefix="collect-commit") as pool:
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            app.buckets.forget(now)
            batch = app.traces.due(now, most=_BATCH)
            if not batch:
                continue
            try:
                await asyncio.shield(loop.run_in_executor(pool, app.traces.commit, batch,
                                                          app.committer))
            except Exception as exc:  # the lines stay journaled for the next collector
                app.traces.spans_lost += sum(t.spans for t in batch)
                app.traces.note(f"a commit failed ({type(exc).__name__}: {exc}); its "
                                f"{len(batch)} trace(s) stay journaled for the next start")
